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

#include "deb.h"
#include "feed.h"

/*
 * Why threads only decompress: decompression (xz above all) is most of
 * the CPU time of an install, and it has no effect on the root.  All that
 * touches the root, checks conflicts and makes messages stays in the one
 * thread that reads the packages in order, as with one job: the result
 * cannot depend on the number of jobs, only the time does.
 */

struct feed_chunk {
	struct feed_chunk *next;
	size_t len;
	char data[];
};

struct feed_pkg {
	struct feed *f;
	const char *file;
	struct feed_chunk *head, *tail;
	struct feed_chunk *cur;	/* handed to the reader, freed next call */
	size_t queued;		/* bytes in the queue */
	bool eof;
	bool failed;
	bool done;		/* read or abandoned by the reader */
	bool opened;		/* the thread opened the file: ST */
	struct stat st;
	struct stat want;	/* the reader's file */
	bool checked;
	char why[256];		/* the decompressor's message */
};

struct feed {
	pthread_mutex_t mu;
	pthread_cond_t work;	/* a worker may go on */
	pthread_cond_t data;	/* the reader may go on */
	struct feed_pkg *p;
	size_t n;
	size_t next;		/* next package to start */
	size_t first;		/* first package not done by the reader */
	size_t queued;		/* bytes queued in all */
	size_t budget;
	bool stop;
	pthread_t *th;
	unsigned nth;
};

/* Chunks copy libarchive's blocks: they live until the reader is done. */
#define FEED_CHUNK	(256 * 1024)

static bool
feed_may_queue(const struct feed *f, const struct feed_pkg *p)
{
	if (f->stop || p->done)
		return true;
	/* The package being read never waits for later ones. */
	if ((size_t)(p - f->p) == f->first)
		return p->queued < f->budget / 4;
	return f->queued < f->budget;
}

/*
 * Queue LEN bytes of BUF for P: 0, 1 when the reader does not want them
 * any more, -ENOMEM.  A chunk is allocated only once it may be queued,
 * so that a waiting worker holds no memory beyond its decoder's.
 */
static int
feed_put(struct feed *f, struct feed_pkg *p, const char *buf, size_t len)
{
	struct feed_chunk *c;

	while (len > 0) {
		size_t k = len < FEED_CHUNK ? len : FEED_CHUNK;

		pthread_mutex_lock(&f->mu);
		while (!feed_may_queue(f, p))
			pthread_cond_wait(&f->work, &f->mu);
		if (f->stop || p->done) {
			pthread_mutex_unlock(&f->mu);
			return 1;
		}
		pthread_mutex_unlock(&f->mu);
		if ((c = malloc(sizeof(*c) + k)) == NULL)
			return -ENOMEM;
		memcpy(c->data, buf, k);
		c->len = k;
		c->next = NULL;
		pthread_mutex_lock(&f->mu);
		if (p->tail != NULL)
			p->tail->next = c;
		else
			p->head = c;
		p->tail = c;
		p->queued += k;
		f->queued += k;
		pthread_cond_broadcast(&f->data);
		pthread_mutex_unlock(&f->mu);
		buf += k;
		len -= k;
	}
	return 0;
}

static void
feed_end(struct feed *f, struct feed_pkg *p, const char *why)
{
	pthread_mutex_lock(&f->mu);
	if (why != NULL) {
		p->failed = true;
		snprintf(p->why, sizeof(p->why), "%s", why);
	} else
		p->eof = true;
	pthread_cond_broadcast(&f->data);
	pthread_mutex_unlock(&f->mu);
}

static void
feed_one(struct feed *f, struct feed_pkg *p)
{
	struct dbp_error err;
	const char *why = NULL;
	const void *buf;
	struct deb *d;
	ssize_t n;
	int r = 0;

	dbp_err_clear(&err);
	/*
	 * The reader opens the file too and checks its members first: a
	 * message from here is seen only when the data is what fails.
	 */
	if (deb_open(&d, p->file, &err) != 0) {
		feed_end(f, p, err.msg);
		return;
	}
	pthread_mutex_lock(&f->mu);
	p->opened = fstat(deb_fd(d), &p->st) == 0;
	pthread_mutex_unlock(&f->mu);
	if (deb_data_raw(d, &err) != 0) {
		feed_end(f, p, err.msg);
		deb_close(d);
		return;
	}
	while ((n = deb_data_read(d, &buf, &why)) > 0)
		if ((r = feed_put(f, p, buf, (size_t)n)) != 0)
			break;
	/* Never an end of stream that is not one: a short tar can look whole. */
	if (r < 0) {
		why = "out of memory";
		n = -1;
	}
	feed_end(f, p, n < 0 ? why : NULL);
	deb_close(d);
}

static void *
feed_worker(void *arg)
{
	struct feed *f = arg;
	size_t i;

	for (;;) {
		pthread_mutex_lock(&f->mu);
		/* In order, and not past what the budget lets be queued. */
		while (!f->stop && f->next < f->n && f->next > f->first &&
		    f->queued >= f->budget)
			pthread_cond_wait(&f->work, &f->mu);
		if (f->stop || f->next >= f->n) {
			pthread_mutex_unlock(&f->mu);
			return NULL;
		}
		i = f->next++;
		pthread_mutex_unlock(&f->mu);
		feed_one(f, &f->p[i]);
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
	struct feed_chunk *c;
	ssize_t r;

	pthread_mutex_lock(&f->mu);
	free(p->cur);
	p->cur = NULL;
	while (p->head == NULL && !p->eof && !p->failed)
		pthread_cond_wait(&f->data, &f->mu);
	/* Data or an end came: the thread opened the file by then. */
	if (!p->checked && p->opened && !feed_same_file(p)) {
		*why = "the file changed while it was read";
		pthread_mutex_unlock(&f->mu);
		return -1;
	}
	p->checked = true;
	if ((c = p->head) != NULL) {
		if ((p->head = c->next) == NULL)
			p->tail = NULL;
		p->queued -= c->len;
		f->queued -= c->len;
		p->cur = c;
		*buf = c->data;
		r = (ssize_t)c->len;
		pthread_cond_broadcast(&f->work);
	} else if (p->failed) {
		*why = p->why;
		r = -1;
	} else
		r = 0;
	pthread_mutex_unlock(&f->mu);
	return r;
}

void
feed_done(struct feed *f, size_t i)
{
	struct feed_pkg *p = &f->p[i];
	struct feed_chunk *c;

	pthread_mutex_lock(&f->mu);
	p->done = true;
	while ((c = p->head) != NULL) {
		p->head = c->next;
		f->queued -= c->len;
		free(c);
	}
	p->tail = NULL;
	p->queued = 0;
	free(p->cur);
	p->cur = NULL;
	if (f->first == i)
		while (f->first < f->n && f->p[f->first].done)
			f->first++;
	pthread_cond_broadcast(&f->work);
	pthread_mutex_unlock(&f->mu);
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
		struct feed_chunk *c;

		while ((c = f->p[i].head) != NULL) {
			f->p[i].head = c->next;
			free(c);
		}
		free(f->p[i].cur);
	}
	pthread_cond_destroy(&f->data);
	pthread_cond_destroy(&f->work);
	pthread_mutex_destroy(&f->mu);
	free(f->th);
	free(f->p);
	free(f);
}
