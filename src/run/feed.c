/* SPDX-License-Identifier: MIT */
/* Decompressing the packages of a run ahead of their extraction, in threads. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deb/deb.h"
#include "ahead/ahead.h"
#include "run/feed.h"
#include "deb/xz.h"

/*
 * Why threads only decompress: decompression (xz above all) is most of
 * the CPU time of an install, and it has no effect on the root.  All that
 * touches the root, checks conflicts and makes messages stays in the one
 * thread that reads the packages in order, as with one job: the result
 * cannot depend on the number of jobs, only the time does.
 *
 * The work is cut in units, taken in the order the reader needs them: a
 * whole package, or one block of a package whose data member is an xz
 * stream with an index (every big package dpkg-deb or xz -T makes), so
 * that all threads work on one big package as well as on many small
 * ones.  Each unit decodes into a queue of its own; the reader drains
 * them in order.  One memory budget covers the queued bytes and the
 * decoders' memory: a unit starts only when its decoder fits, unless it
 * is the one the reader waits for, so the run always moves on.
 */

struct feed_chunk {
	struct feed_chunk *next;
	size_t len;
	char data[];
};

struct feed_unit {
	struct feed_chunk *head, *tail;
	size_t queued;		/* bytes in the queue */
	bool eof;
	char *why;		/* it failed: the decompressor's message */
};

struct feed_pkg {
	struct feed *f;
	const char *file;
	struct feed_unit *u;	/* its units, once planned */
	size_t nu;
	size_t last;		/* units the reader reads: NU, unless cut */
	size_t taken;		/* units given to a thread */
	size_t cur;		/* the unit the reader is at */
	struct feed_chunk *curc; /* handed to the reader, freed next call */
	struct deb *d;		/* kept open while its blocks are decoded */
	struct xz_index *ix;	/* the blocks, or NULL: one unit */
	unsigned busy;		/* threads decoding its blocks */
	bool planning;		/* a thread reads its index */
	bool planned;
	bool done;		/* read or abandoned by the reader */
	bool opened;		/* the thread opened the file: ST */
	struct stat st;
	struct stat want;	/* the reader's file */
	bool checked;
};

struct feed {
	pthread_mutex_t mu;
	pthread_cond_t work;	/* a worker may go on */
	pthread_cond_t data;	/* the reader may go on */
	struct feed_pkg *p;
	size_t n;
	size_t next;		/* next package to plan */
	size_t first;		/* first package not done by the reader */
	size_t disp;		/* no unit to give before this package */
	size_t used;		/* bytes queued and decoders' memory */
	size_t budget;
	bool stop;
	unsigned long ahead;	/* packages decode-ahead gave */
	pthread_t *th;
	unsigned nth;
};

/* The message of a unit whose own message could not be allocated. */
static char feed_oom[] = "out of memory";

/* Chunks are filled by the decoder, or copy libarchive's blocks. */
#define FEED_CHUNK	(256 * 1024)

/* What a decoder of a whole package is counted for (xz -6: 9 MiB). */
#define FEED_WHOLE_MEM	((size_t)16 << 20)

/* What decoding block I of P takes: never more than its output. */
static size_t
feed_block_mem(const struct feed_pkg *p, size_t i)
{
	uint64_t m = xz_index_block_size(p->ix, i) + (1 << 20);

	return (size_t)(m < XZ_MEMLIMIT ? m : XZ_MEMLIMIT) + 2 * FEED_CHUNK;
}

/* Whether unit I of P is the one the reader needs now. */
static bool
feed_is_current(const struct feed *f, const struct feed_pkg *p, size_t i)
{
	return (size_t)(p - f->p) == f->first && p->cur == i;
}

/* Free package P's decoder state once no thread can use it any more. */
static void
feed_release(struct feed_pkg *p)
{
	if (p->busy > 0 || (p->taken < p->nu && !p->done))
		return;
	xz_index_free(p->ix);
	p->ix = NULL;
	deb_close(p->d);
	p->d = NULL;
}

static void
feed_unit_clear(struct feed *f, struct feed_unit *u)
{
	struct feed_chunk *c;

	while ((c = u->head) != NULL) {
		u->head = c->next;
		f->used -= c->len;
		free(c);
	}
	u->tail = NULL;
	u->queued = 0;
}

/*
 * Whether a thread may queue more of unit I of P, under the lock: the
 * unit the reader is at up to a quarter of the budget (it is drained as
 * it comes), the others while the budget holds.
 */
static bool
feed_may_queue(const struct feed *f, const struct feed_pkg *p, size_t i)
{
	if (f->stop || p->done || i >= p->last)
		return true;
	if (feed_is_current(f, p, i))
		return p->u[i].queued < f->budget / 4;
	return f->used < f->budget;
}

/* Wait until unit I of P may queue: false when nobody wants it any more. */
static bool
feed_wait_room(struct feed *f, struct feed_pkg *p, size_t i)
{
	bool go;

	pthread_mutex_lock(&f->mu);
	while (!feed_may_queue(f, p, i))
		pthread_cond_wait(&f->work, &f->mu);
	go = !f->stop && !p->done && i < p->last;
	pthread_mutex_unlock(&f->mu);
	return go;
}

static void
feed_queue(struct feed *f, struct feed_pkg *p, size_t i, struct feed_chunk *c)
{
	struct feed_unit *u = &p->u[i];

	pthread_mutex_lock(&f->mu);
	if (p->done || f->stop || i >= p->last) {
		free(c);
	} else {
		c->next = NULL;
		if (u->tail != NULL)
			u->tail->next = c;
		else
			u->head = c;
		u->tail = c;
		u->queued += c->len;
		f->used += c->len;
		pthread_cond_broadcast(&f->data);
	}
	pthread_mutex_unlock(&f->mu);
}

/*
 * Queue LEN bytes of BUF for unit I of P: 0, 1 when the reader does not
 * want them any more, -ENOMEM.
 */
static int
feed_put(struct feed *f, struct feed_pkg *p, size_t i, const char *buf,
    size_t len)
{
	struct feed_chunk *c;

	while (len > 0) {
		size_t k = len < FEED_CHUNK ? len : FEED_CHUNK;

		if (!feed_wait_room(f, p, i))
			return 1;
		if ((c = malloc(sizeof(*c) + k)) == NULL)
			return -ENOMEM;
		memcpy(c->data, buf, k);
		c->len = k;
		feed_queue(f, p, i, c);
		buf += k;
		len -= k;
	}
	return 0;
}

/*
 * Unit I of P is over: at its end (WHY NULL) or failed.  A failure stops
 * the package's other units: the reader stops at the first error.  The
 * message of a block is the decoder's: it is said of the member, as
 * deb.c says it when it decodes the whole member.
 */
static void
feed_end(struct feed *f, struct feed_pkg *p, size_t i, const char *why,
    size_t mem)
{
	char *m = NULL;

	if (why != NULL && p->ix != NULL &&
	    asprintf(&m, "%s: %s", deb_data_member(p->d), why) < 0)
		m = NULL;
	pthread_mutex_lock(&f->mu);
	if (why != NULL) {
		if ((p->u[i].why = m != NULL ? m : strdup(why)) == NULL)
			p->u[i].why = feed_oom;
		p->taken = p->nu;
	} else
		p->u[i].eof = true;
	f->used -= mem;
	if (p->ix != NULL)
		p->busy--;
	feed_release(p);
	pthread_cond_broadcast(&f->data);
	pthread_cond_broadcast(&f->work);
	pthread_mutex_unlock(&f->mu);
}

/*
 * Block I of P failed, after giving GIVEN bytes: decode on from it as
 * one decoder reading the whole stream would (xz_resume), skipping what
 * the block gave, to the end of the stream.  The bytes the reader gets
 * and the error it ends with are then those of --jobs 1, whatever it is
 * in the index or the block headers that made the block fail.
 */
static void
feed_resume(struct feed *f, struct feed_pkg *p, size_t i, uint64_t given,
    size_t mem)
{
	const char *why = NULL;
	const void *buf;
	struct xz *x;
	ssize_t n = 0;
	size_t k;
	int r;

	if ((r = xz_resume(&x, p->ix, i)) != 0) {
		feed_end(f, p, i, r == -ENOMEM ? "out of memory" :
		    strerror(-r), mem);
		return;
	}
	/* The other blocks are not read: this unit goes to the end. */
	pthread_mutex_lock(&f->mu);
	p->taken = p->nu;
	p->last = i + 1;
	for (k = i + 1; k < p->nu; k++)
		feed_unit_clear(f, &p->u[k]);
	pthread_cond_broadcast(&f->work);
	pthread_mutex_unlock(&f->mu);
	while ((n = xz_read(x, &buf)) > 0) {
		if (given >= (uint64_t)n) {
			given -= (uint64_t)n;
			continue;
		}
		r = feed_put(f, p, i, (const char *)buf + given,
		    (size_t)n - (size_t)given);
		given = 0;
		if (r != 0)
			break;
	}
	if (r < 0)
		why = "out of memory";
	else if (r == 0 && n < 0)
		why = xz_error(x);
	feed_end(f, p, i, why, mem);
	xz_free(x);
}

/* Decode block I of P, in chunks the decoder fills. */
static void
feed_block(struct feed *f, struct feed_pkg *p, size_t i, size_t mem)
{
	char msg[XZ_WHY_MAX];
	struct feed_chunk *c;
	struct xz_block *b;
	const char *why = NULL;
	uint64_t need, given = 0;
	ssize_t n = 0;
	int r;

	r = xz_block_open(&b, p->ix, i, XZ_MEMLIMIT, &need, msg, sizeof(msg));
	if (r == -ENOMEM) {
		feed_end(f, p, i, "out of memory", mem);
		return;
	}
	if (r != 0) {
		feed_resume(f, p, i, 0, mem);
		return;
	}
	for (;;) {
		if (!feed_wait_room(f, p, i))
			break;
		if ((c = malloc(sizeof(*c) + FEED_CHUNK)) == NULL) {
			why = "out of memory";
			break;
		}
		if ((n = xz_block_read(b, c->data, FEED_CHUNK, &why)) <= 0) {
			free(c);
			break;
		}
		c->len = (size_t)n;
		given += (uint64_t)n;
		feed_queue(f, p, i, c);
	}
	xz_block_free(b);
	if (n < 0)
		feed_resume(f, p, i, given, mem);
	else
		feed_end(f, p, i, why, mem);
}

/* Decode the whole data member of P, which D has open, as one unit. */
static void
feed_whole(struct feed *f, struct feed_pkg *p, struct deb *d, size_t mem)
{
	struct dbp_error err;
	const char *why = NULL;
	const void *buf;
	ssize_t n;
	int r = 0;

	dbp_err_clear(&err);
	/*
	 * A decompressor's complaint is passed on bare: the reader adds the
	 * member's name, as it does when it decompresses itself.
	 */
	if (deb_data_raw(d, &err) != 0) {
		deb_close(d);
		feed_end(f, p, 0, err.msg, mem);
		return;
	}
	while ((n = deb_data_read(d, &buf, &why)) > 0)
		if ((r = feed_put(f, p, 0, buf, (size_t)n)) != 0)
			break;
	/* Never an end of stream that is not one: a short tar can look whole. */
	if (r < 0) {
		why = "out of memory";
		n = -1;
	}
	/* The message lives in D: it goes once the unit has its copy. */
	feed_end(f, p, 0, n < 0 ? why : NULL, mem);
	deb_close(d);
}

/*
 * The data member of P as the decoding process gave it (ahead.h), from
 * its memory file FD of LEN bytes, which this closes: the bytes a
 * decoder of the member would give.
 */
static void
feed_ahead(struct feed *f, struct feed_pkg *p, int fd, size_t len,
    size_t mem)
{
	struct feed_chunk *c;
	const char *why = NULL;
	size_t off = 0, k;
	ssize_t n;

	while (off < len) {
		k = len - off < FEED_CHUNK ? len - off : FEED_CHUNK;
		if (!feed_wait_room(f, p, 0))
			break;
		if ((c = malloc(sizeof(*c) + k)) == NULL) {
			why = "out of memory";
			break;
		}
		/* pread: the descriptor's offset is shared with the process. */
		if ((n = pread(fd, c->data, k, (off_t)off)) <= 0) {
			free(c);
			why = "cannot read the decoded data";
			break;
		}
		c->len = (size_t)n;
		off += (size_t)n;
		feed_queue(f, p, 0, c);
	}
	close(fd);
	pthread_mutex_lock(&f->mu);
	f->ahead++;
	pthread_mutex_unlock(&f->mu);
	feed_end(f, p, 0, why, mem);
}

/*
 * Open package P, find its blocks, make its units and start on the
 * first.  The reader opens the file too and checks its members first: a
 * message from here is seen only when the data is what fails.
 */
static void
feed_plan(struct feed *f, struct feed_pkg *p)
{
	struct xz_index *ix = NULL;
	struct dbp_error err;
	const char *why = NULL;
	struct feed_unit *u;
	struct deb *d = NULL;
	off_t off, size;
	size_t nu = 1, mem, alen = 0;
	int r, afd = -1;

	dbp_err_clear(&err);
	if ((r = deb_open(&d, p->file, &err)) != 0)
		why = err.msg;
	else {
		pthread_mutex_lock(&f->mu);
		p->opened = fstat(deb_fd(d), &p->st) == 0;
		pthread_mutex_unlock(&f->mu);
		if (p->opened && (afd = ahead_take(p->file, &p->st,
		    &alen)) >= 0)
			;	/* decoded already: one unit */
		else if ((r = deb_data_xz(d, &off, &size, &err)) != 0)
			why = err.msg;
		else if (off >= 0 && (r = xz_index_read(&ix, deb_fd(d), off,
		    size)) < 0)
			why = "out of memory";
		else if (ix != NULL)
			nu = xz_index_blocks(ix);
	}
	if ((u = calloc(nu, sizeof(*u))) == NULL) {
		xz_index_free(ix);
		ix = NULL;
		nu = 1;
		why = "out of memory";
	}
	pthread_mutex_lock(&f->mu);
	p->u = u != NULL ? u : calloc(1, sizeof(*u));
	if (p->u == NULL) {
		/* Not even one unit: stop the reader through the package. */
		f->stop = true;
		p->nu = 0;
	} else
		p->nu = nu;
	p->last = p->nu;
	p->ix = ix;
	p->d = ix != NULL ? d : NULL;
	p->taken = p->nu > 0 ? 1 : 0;
	p->busy = ix != NULL ? 1 : 0;
	p->planning = false;
	p->planned = true;
	mem = ix != NULL ? feed_block_mem(p, 0) : FEED_WHOLE_MEM;
	f->used += mem;
	pthread_cond_broadcast(&f->data);
	pthread_cond_broadcast(&f->work);
	pthread_mutex_unlock(&f->mu);
	if (p->nu == 0) {
		if (afd >= 0)
			close(afd);
		deb_close(d);
		return;
	}
	if (why != NULL) {
		if (afd >= 0)
			close(afd);
		feed_end(f, p, 0, why, mem);
		deb_close(d);
	} else if (afd >= 0) {
		deb_close(d);
		feed_ahead(f, p, afd, alen, mem);
	} else if (ix != NULL)
		feed_block(f, p, 0, mem);
	else
		feed_whole(f, p, d, mem);
}

enum feed_pick { FEED_NONE, FEED_WAIT, FEED_UNIT, FEED_PLAN };

/*
 * The next piece of work in the reader's order, under the lock: a unit
 * of a planned package (*P, *I), or the next package to plan.  One
 * package is planned at a time, so that units are given out in order.
 */
static enum feed_pick
feed_pick(struct feed *f, struct feed_pkg **pp, size_t *ip)
{
	struct feed_pkg *p;
	size_t k;

	while (f->disp < f->next && f->p[f->disp].planned &&
	    (f->p[f->disp].done || f->p[f->disp].taken >= f->p[f->disp].nu))
		f->disp++;
	for (k = f->disp; k < f->next; k++) {
		p = &f->p[k];
		if (!p->planned)
			return FEED_WAIT;
		if (!p->done && p->taken < p->nu) {
			*pp = p;
			*ip = p->taken;
			return FEED_UNIT;
		}
	}
	/*
	 * A package done before it was planned (its run skipped it) is
	 * passed over: it is never the reader's, so it would never fit.
	 */
	while (f->next < f->n && f->p[f->next].done) {
		f->p[f->next].planned = true;
		f->next++;
	}
	if (f->next < f->n) {
		*pp = &f->p[f->next];
		return FEED_PLAN;
	}
	return FEED_NONE;
}

static void *
feed_worker(void *arg)
{
	struct feed *f = arg;
	struct feed_pkg *p = NULL;
	enum feed_pick what;
	size_t i = 0, mem;

	for (;;) {
		pthread_mutex_lock(&f->mu);
		for (;;) {
			if (f->stop) {
				pthread_mutex_unlock(&f->mu);
				return NULL;
			}
			what = feed_pick(f, &p, &i);
			if (what == FEED_NONE) {
				pthread_mutex_unlock(&f->mu);
				return NULL;
			}
			/* In order, and within the budget unless awaited. */
			if (what == FEED_PLAN && ((size_t)(p - f->p) ==
			    f->first || f->used + FEED_WHOLE_MEM <= f->budget))
				break;
			if (what == FEED_UNIT && (feed_is_current(f, p, i) ||
			    f->used + feed_block_mem(p, i) <= f->budget))
				break;
			pthread_cond_wait(&f->work, &f->mu);
		}
		if (what == FEED_PLAN) {
			f->next++;
			p->planning = true;
			pthread_mutex_unlock(&f->mu);
			feed_plan(f, p);
			continue;
		}
		p->taken++;
		p->busy++;
		mem = feed_block_mem(p, i);
		f->used += mem;
		pthread_mutex_unlock(&f->mu);
		feed_block(f, p, i, mem);
	}
}

int
feed_new(struct feed **out, char *const *files, size_t n, unsigned jobs,
    size_t budget)
{
	sigset_t all, old;
	struct feed *f;
	size_t i;
	int r = 0;

	if ((f = calloc(1, sizeof(*f))) == NULL)
		return -ENOMEM;
	f->p = calloc(n ? n : 1, sizeof(*f->p));
	f->th = calloc(jobs ? jobs : 1, sizeof(*f->th));
	if (f->p == NULL || f->th == NULL) {
		free(f->p);
		free(f->th);
		free(f);
		return -ENOMEM;
	}
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->work, NULL);
	pthread_cond_init(&f->data, NULL);
	f->n = n;
	f->budget = budget;
	for (i = 0; i < n; i++) {
		f->p[i].f = f;
		f->p[i].file = files[i];
	}
	/*
	 * The packages decode-ahead has not started are this run's to
	 * decode, with all its threads (ahead.h).
	 */
	ahead_claim(files, n);
	/* Signals are the reader's: it decides when a run stops. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (; f->nth < jobs; f->nth++)
		if ((r = pthread_create(&f->th[f->nth], NULL, feed_worker,
		    f)) != 0)
			break;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (f->nth == 0) {
		feed_free(f);
		return -r;
	}
	*out = f;
	return 0;
}

void *
feed_pkg(struct feed *f, size_t i, int fd)
{
	struct feed_pkg *p = &f->p[i];

	if (fstat(fd, &p->want) != 0)
		memset(&p->want, 0, sizeof(p->want));
	return p;
}

/* Whether the thread read the reader's file (a path can be replaced). */
static bool
feed_same_file(const struct feed_pkg *p)
{
	return p->opened && p->st.st_dev == p->want.st_dev &&
	    p->st.st_ino == p->want.st_ino &&
	    p->st.st_size == p->want.st_size &&
	    p->st.st_mtim.tv_sec == p->want.st_mtim.tv_sec &&
	    p->st.st_mtim.tv_nsec == p->want.st_mtim.tv_nsec;
}

ssize_t
feed_read(void *pkg, const void **buf, const char **why)
{
	struct feed_pkg *p = pkg;
	struct feed *f = p->f;
	struct feed_unit *u;
	struct feed_chunk *c;
	ssize_t r;

	pthread_mutex_lock(&f->mu);
	free(p->curc);
	p->curc = NULL;
	for (;;) {
		while (!p->planned && !f->stop)
			pthread_cond_wait(&f->data, &f->mu);
		if (p->nu == 0) {
			*why = "out of memory";
			r = -1;
			break;
		}
		u = &p->u[p->cur];
		while (u->head == NULL && !u->eof && u->why == NULL)
			pthread_cond_wait(&f->data, &f->mu);
		/* Data or an end came: the thread opened the file by then. */
		if (!p->checked && p->opened && !feed_same_file(p)) {
			*why = "the file changed while it was read";
			r = -1;
			break;
		}
		p->checked = true;
		if ((c = u->head) != NULL) {
			if ((u->head = c->next) == NULL)
				u->tail = NULL;
			u->queued -= c->len;
			f->used -= c->len;
			p->curc = c;
			*buf = c->data;
			r = (ssize_t)c->len;
		} else if (u->why != NULL) {
			*why = u->why;
			r = -1;
		} else if (p->cur + 1 < p->last) {
			/*
			 * The next unit is the awaited one now: its thread may
			 * start or queue more, and this one waits for it below.
			 */
			p->cur++;
			pthread_cond_broadcast(&f->work);
			continue;
		} else
			r = 0;
		break;
	}
	pthread_cond_broadcast(&f->work);
	pthread_mutex_unlock(&f->mu);
	return r;
}

static void
feed_pkg_clear(struct feed *f, struct feed_pkg *p)
{
	size_t k;

	for (k = 0; k < p->nu; k++) {
		feed_unit_clear(f, &p->u[k]);
		if (p->u[k].why != feed_oom)
			free(p->u[k].why);
		p->u[k].why = NULL;
	}
	free(p->curc);
	p->curc = NULL;
}

size_t
feed_find(struct feed *f, const char *file)
{
	size_t i, found = FEED_NOT_FED;

	pthread_mutex_lock(&f->mu);
	for (i = f->first; i < f->n && found == FEED_NOT_FED; i++)
		if (!f->p[i].done && (f->p[i].file == file ||
		    strcmp(f->p[i].file, file) == 0))
			found = i;
	pthread_mutex_unlock(&f->mu);
	return found;
}

void
feed_done(struct feed *f, size_t i)
{
	struct feed_pkg *p = &f->p[i];

	pthread_mutex_lock(&f->mu);
	p->done = true;
	feed_pkg_clear(f, p);
	feed_release(p);
	if (f->first == i)
		while (f->first < f->n && f->p[f->first].done)
			f->first++;
	pthread_cond_broadcast(&f->work);
	pthread_mutex_unlock(&f->mu);
}

unsigned long
feed_ahead_count(struct feed *f)
{
	unsigned long n;

	if (f == NULL)
		return 0;
	pthread_mutex_lock(&f->mu);
	n = f->ahead;
	pthread_mutex_unlock(&f->mu);
	return n;
}

void
feed_free(struct feed *f)
{
	size_t i;
	unsigned t;

	if (f == NULL)
		return;
	pthread_mutex_lock(&f->mu);
	f->stop = true;
	pthread_cond_broadcast(&f->work);
	pthread_mutex_unlock(&f->mu);
	for (t = 0; t < f->nth; t++)
		pthread_join(f->th[t], NULL);
	for (i = 0; i < f->n; i++) {
		feed_pkg_clear(f, &f->p[i]);
		free(f->p[i].u);
		xz_index_free(f->p[i].ix);
		deb_close(f->p[i].d);
	}
	pthread_cond_destroy(&f->data);
	pthread_cond_destroy(&f->work);
	pthread_mutex_destroy(&f->mu);
	free(f->th);
	free(f->p);
	free(f);
}
