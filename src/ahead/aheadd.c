/* SPDX-License-Identifier: MIT */
/* The decoding process: apt's package files decoded in its order into sealed memory files, served to the unpack calls. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ahead/ahead.h"
#include "ahead/aheadmsg.h"
#include "deb/deb.h"

/*
 * Why a process of its own, and why it is safe to trust.  apt starts a
 * new dpkg for every call: what one call decoded ahead must outlive it,
 * and memory files passed over a socket cost no disk write (a spool on
 * the root's filesystem would be written out by the calls' syncfs).  The
 * socket is abstract, so anyone may bind its name: both ends check that
 * the other runs as root or as their own user.  A memory file is sealed
 * before it is passed, so its holder cannot change it; the process
 * decodes a file only if it is still the one apt named (inode, size and
 * times, checked again by the call), and through the same decoders as a
 * call (deb.c): a member that fails to decode is not served, and the
 * call that decodes it says why, as without this process.
 *
 * It runs at a low priority: it is to use the core that apt, dpkg's
 * configuration and the calls' own waits leave idle, never to slow a
 * call down: a call's packages it has not started are the call's
 * (CLAIM), so is a big one it is decoding (AHEADD_BIG), and while a call
 * waits for the one it is decoding, it decodes at the call's priority.  It ends as soon as every package was served or passed
 * over, the moment apt is gone (its descriptor, pidfd_open(2): apt's
 * caller may unmount the root right after), or after AHEADD_IDLE
 * seconds without a call; a decoding under way is not waited for.
 */

#define AHEADD_IDLE	60	/* seconds without a request */
#define AHEADD_JOIN_MS	50	/* the decoding thread's time to stop */
/*
 * A connection's silence, in seconds, before the process drops it: one
 * that stalls holds up every other request and the watch on apt, which
 * wait for it.  A call sends its request as soon as it connects.
 */
#define AHEADD_CONN_TIMEO	5
/*
 * A package file this big that a call claims while the process decodes
 * it is left to the call: its data member is made of blocks that the
 * call's threads decode side by side (xz -T), where the process has one.
 */
#define AHEADD_BIG	((off_t)4 << 20)
/*
 * Nice 19: a weight of 15 to a call's 1024.  The process stays in apt's
 * session: a session of its own is a scheduling group of its own
 * (autogroup, on by default), which weighs as much as all of apt's
 * whatever the nice value inside.
 */
#define AHEADD_NICE	19
#define AHEADD_BUDGET_MIN	((size_t)64 << 20)

enum aheadd_state {
	AHEADD_QUEUED,
	AHEADD_DECODING,
	AHEADD_READY,
	AHEADD_DONE,		/* served, passed over, or failed */
};

struct aheadd_ent {
	char *path;
	struct stat st;		/* as named (ADD): what the calls must open */
	enum aheadd_state state;
	int fd;			/* READY: the sealed memory file */
	uint64_t len;
};

struct ahead_proc {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct aheadd_ent *v;
	size_t n, cap;
	size_t used, budget;	/* bytes READY */
	size_t pos;		/* past the last call's packages */
	pid_t worker;		/* the decoding thread's id, for its priority */
	bool stop;
	int lfd;		/* the listening socket */
	pid_t watch;		/* apt: gone, the process ends */
	int pidfd;		/* WATCH's, or -1: kill(2) every second */
	time_t last;		/* the last request */
};

static time_t
aheadd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* Add package file PATH, under the lock; one already waiting is not added twice. */
static int
aheadd_add(struct ahead_proc *d, const char *path)
{
	struct aheadd_ent *v;
	struct stat st;
	size_t i;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	for (i = 0; i < d->n; i++)
		if (d->v[i].state != AHEADD_DONE &&
		    d->v[i].st.st_dev == st.st_dev &&
		    d->v[i].st.st_ino == st.st_ino)
			return 0;
	if (d->n == d->cap) {
		size_t cap = d->cap != 0 ? 2 * d->cap : 64;

		if ((v = reallocarray(d->v, cap, sizeof(*v))) == NULL)
			return -ENOMEM;
		d->v = v;
		d->cap = cap;
	}
	v = &d->v[d->n];
	memset(v, 0, sizeof(*v));
	if ((v->path = strdup(path)) == NULL)
		return -ENOMEM;
	v->st = st;
	v->fd = -1;
	v->state = AHEADD_QUEUED;
	d->n++;
	return 0;
}

static bool
aheadd_same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	    a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	    a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Write all of BUF to FD.  0 or -errno. */
static int
aheadd_write(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Whether package I, LEN bytes decoded so far, is to be given up: a call
 * claimed it (aheadd_claim), or it would take the budget past its end
 * (a call decodes it then, as without the process).
 */
static bool
aheadd_dropped(struct ahead_proc *d, size_t i, uint64_t len)
{
	bool dropped;

	pthread_mutex_lock(&d->mu);
	dropped = d->v[i].state != AHEADD_DECODING ||
	    d->used + len > d->budget;
	pthread_mutex_unlock(&d->mu);
	return dropped;
}

/*
 * The data member of PATH, still the file ST, decoded into a sealed
 * memory file as the calls' decoders give it (feed.c): its descriptor
 * and *LEN, or -1.
 */
static int
aheadd_decode(struct ahead_proc *p, size_t i, const char *path,
    const struct stat *st, uint64_t *len)
{
	struct dbp_error err;
	const char *why = NULL;
	const void *buf;
	struct deb *d;
	struct stat now;
	ssize_t n;
	int fd = -1;

	*len = 0;
	dbp_err_clear(&err);
	if (deb_open(&d, path, &err) != 0)
		return -1;
	if (fstat(deb_fd(d), &now) != 0 || !aheadd_same(&now, st) ||
	    deb_data_raw(d, &err) != 0 ||
	    (fd = memfd_create("debunpack-ahead", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING)) < 0) {
		deb_close(d);
		return -1;
	}
	while ((n = deb_data_read(d, &buf, &why)) > 0) {
		if (aheadd_write(fd, buf, (size_t)n) != 0 ||
		    aheadd_dropped(p, i, *len + (uint64_t)n)) {
			n = -1;
			break;
		}
		*len += (uint64_t)n;
	}
	deb_close(d);
	if (n < 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The next package to decode, or D->N: the first waiting past the last
 * call's packages (apt goes on in its order), else the first waiting.
 */
static size_t
aheadd_next(const struct ahead_proc *d)
{
	size_t i;

	for (i = d->pos; i < d->n && d->v[i].state != AHEADD_QUEUED; i++)
		continue;
	if (i < d->n)
		return i;
	for (i = 0; i < d->n && d->v[i].state != AHEADD_QUEUED; i++)
		continue;
	return i;
}

/* The live package that M names, or D->N; under the lock. */
static size_t
aheadd_find(const struct ahead_proc *d, const struct aheadmsg *m)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->v[i].state != AHEADD_DONE &&
		    aheadmsg_same(m, &d->v[i].st))
			break;
	return i;
}

/*
 * A call's package (CLAIM): not started, or big and being decoded, it is
 * the call's to decode, with all its threads (the decoding thread drops
 * it at its next block); and the process goes on past the call's
 * packages.  One decoded, or small and being decoded, stays for the
 * call to take.
 */
static void
aheadd_claim(struct ahead_proc *d, const struct aheadmsg *m)
{
	size_t i = aheadd_find(d, m);

	if (i == d->n)
		return;
	if (d->v[i].state == AHEADD_QUEUED ||
	    (d->v[i].state == AHEADD_DECODING &&
	    d->v[i].st.st_size >= AHEADD_BIG))
		d->v[i].state = AHEADD_DONE;
	if (i + 1 > d->pos)
		d->pos = i + 1;
}

/* The one decoding thread: in apt's order, while the budget holds. */
static void *
aheadd_worker(void *arg)
{
	struct ahead_proc *d = arg;
	struct stat st;
	uint64_t len;
	char *path;
	size_t i;
	int fd;

	pthread_mutex_lock(&d->mu);
	d->worker = (pid_t)syscall(SYS_gettid);
	for (;;) {
		while (!d->stop && ((i = aheadd_next(d)) == d->n ||
		    d->used >= d->budget))
			pthread_cond_wait(&d->cv, &d->mu);
		if (d->stop)
			break;
		/* Low again, after a call waited for the last one. */
		(void)setpriority(PRIO_PROCESS, (id_t)d->worker, AHEADD_NICE);
		d->v[i].state = AHEADD_DECODING;
		path = d->v[i].path;	/* freed only after the thread */
		st = d->v[i].st;
		pthread_mutex_unlock(&d->mu);
		fd = aheadd_decode(d, i, path, &st, &len);
		pthread_mutex_lock(&d->mu);
		if (fd >= 0 && d->v[i].state == AHEADD_DECODING) {
			d->v[i].fd = fd;
			d->v[i].len = len;
			d->v[i].state = AHEADD_READY;
			d->used += len;
		} else {
			if (fd >= 0)
				close(fd);
			d->v[i].state = AHEADD_DONE;
		}
		pthread_cond_broadcast(&d->cv);
	}
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

/*
 * A call's request M: the memory file of the package it names, handed
 * over (the process keeps no copy), or none; a package the process has
 * not reached is passed over, since the call decodes it now.
 */
static void
aheadd_take(struct ahead_proc *d, int c, struct aheadmsg *m)
{
	size_t i;
	int fd = -1;

	pthread_mutex_lock(&d->mu);
	i = aheadd_find(d, m);
	/*
	 * A call waits for this one: it is on the call's path now, at the
	 * call's priority (where this user may raise it back), not beside.
	 */
	if (i < d->n && d->v[i].state == AHEADD_DECODING && d->worker > 0)
		(void)setpriority(PRIO_PROCESS, (id_t)d->worker, 0);
	while (i < d->n && d->v[i].state == AHEADD_DECODING)
		pthread_cond_wait(&d->cv, &d->mu);
	if (i < d->n && d->v[i].state == AHEADD_READY) {
		fd = d->v[i].fd;
		m->len = d->v[i].len;
		d->v[i].fd = -1;
		d->used -= d->v[i].len;
	}
	if (i < d->n)
		d->v[i].state = AHEADD_DONE;
	pthread_cond_broadcast(&d->cv);
	pthread_mutex_unlock(&d->mu);
	m->op = fd >= 0 ? AHEADMSG_READY : AHEADMSG_NONE;
	if (fd < 0)
		m->len = 0;
	(void)aheadmsg_send(c, m, fd);
	if (fd >= 0)
		close(fd);
}

/*
 * One connection: files to add (the hook of a later apt run), a call's
 * claims, or one request.
 */
static void
aheadd_conn(struct ahead_proc *d, int c)
{
	struct timeval tv = { .tv_sec = AHEADD_CONN_TIMEO };
	struct aheadmsg m;

	if (!aheadmsg_trusted(c))
		return;
	if (setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0 ||
	    setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0)
		return;
	while (aheadmsg_recv(c, &m, NULL) == 1) {
		if (m.op == AHEADMSG_TAKE) {
			aheadd_take(d, c, &m);
			return;
		}
		if (m.op != AHEADMSG_ADD && m.op != AHEADMSG_CLAIM)
			return;
		pthread_mutex_lock(&d->mu);
		if (m.op == AHEADMSG_ADD)
			(void)aheadd_add(d, m.path);
		else
			aheadd_claim(d, &m);
		pthread_cond_broadcast(&d->cv);
		pthread_mutex_unlock(&d->mu);
	}
}

/* Whether every package was served or passed over. */
static bool
aheadd_all_done(struct ahead_proc *d)
{
	bool done;
	size_t i;

	pthread_mutex_lock(&d->mu);
	for (i = 0; i < d->n && d->v[i].state == AHEADD_DONE; i++)
		continue;
	done = i == d->n;
	pthread_mutex_unlock(&d->mu);
	return done;
}

/*
 * Whose end ends the process: apt, which runs the hook through sh -c (a
 * shell that may or may not exec it), so the hook's parent, or the
 * parent's parent where the parent is that shell.
 */
static pid_t
aheadd_watch(void)
{
	char file[64], comm[64];
	pid_t pp = getppid(), up = 0;
	FILE *fp;

	snprintf(file, sizeof(file), "/proc/%d/stat", (int)pp);
	if ((fp = fopen(file, "r")) == NULL)
		return pp;
	if (fscanf(fp, "%*d (%63[^)]) %*c %d", comm, &up) != 2)
		up = 0;
	fclose(fp);
	if (up > 1 && (strcmp(comm, "sh") == 0 || strcmp(comm, "dash") == 0 ||
	    strcmp(comm, "bash") == 0))
		return up;
	return pp;
}

/* Whether apt is gone. */
static bool
aheadd_watch_gone(const struct ahead_proc *d, const struct pollfd *p)
{
	if (d->pidfd >= 0)
		return (p->revents & (POLLIN | POLLHUP | POLLERR)) != 0;
	return d->watch > 1 && kill(d->watch, 0) != 0 && errno == ESRCH;
}

int
ahead_serve(struct ahead_proc *d)
{
	struct pollfd p[2] = {
		{ .fd = d->lfd, .events = POLLIN },
		{ .fd = d->pidfd, .events = POLLIN },
	};
	struct timespec until;
	pthread_t th;
	int c;

	(void)setpriority(PRIO_PROCESS, 0, AHEADD_NICE);
	d->last = aheadd_now();
	if (pthread_create(&th, NULL, aheadd_worker, d) != 0)
		return 0;
	for (;;) {
		p[0].revents = p[1].revents = 0;
		if (poll(p, d->pidfd >= 0 ? 2 : 1, 1000) > 0 &&
		    (p[0].revents & POLLIN) &&
		    (c = accept4(d->lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
			aheadd_conn(d, c);
			close(c);
			d->last = aheadd_now();
		}
		if (aheadd_watch_gone(d, &p[1]) || aheadd_all_done(d) ||
		    aheadd_now() - d->last >= AHEADD_IDLE)
			break;
	}
	/* No new connection from here: a late call decodes for itself. */
	close(d->lfd);
	d->lfd = -1;
	pthread_mutex_lock(&d->mu);
	d->stop = true;
	pthread_cond_broadcast(&d->cv);
	pthread_mutex_unlock(&d->mu);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += AHEADD_JOIN_MS * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	return pthread_timedjoin_np(th, NULL, &until) == 0 ? 0 : 1;
}

void
ahead_proc_free(struct ahead_proc *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->n; i++) {
		if (d->v[i].fd >= 0)
			close(d->v[i].fd);
		free(d->v[i].path);
	}
	free(d->v);
	if (d->lfd >= 0)
		close(d->lfd);
	if (d->pidfd >= 0)
		close(d->pidfd);
	pthread_mutex_destroy(&d->mu);
	pthread_cond_destroy(&d->cv);
	free(d);
}

/* Hand FILES (absolute) to the process that runs: 0, or -errno (none runs: -ECONNREFUSED). */
static int
aheadd_hand(char *const *files, size_t n)
{
	struct aheadmsg m;
	size_t i;
	int fd, r = 0;

	if ((fd = aheadmsg_connect()) < 0)
		return fd;
	memset(&m, 0, sizeof(m));
	m.magic = AHEADMSG_MAGIC;
	m.op = AHEADMSG_ADD;
	for (i = 0; r == 0 && i < n; i++) {
		snprintf(m.path, sizeof(m.path), "%s", files[i]);
		r = aheadmsg_send(fd, &m, -1);
	}
	close(fd);
	return r;
}

/* The memory the decoded packages may take: a quarter of what is free, within bounds. */
static size_t
aheadd_budget(void)
{
	long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	size_t b;

	if (pages <= 0 || size <= 0)
		return AHEADD_BUDGET_MIN;
	b = (size_t)pages / 4 * (size_t)size;
	return b < AHEADD_BUDGET_MIN ? AHEADD_BUDGET_MIN :
	    b > AHEAD_BUDGET_MAX ? AHEAD_BUDGET_MAX : b;
}

int
ahead_start(char *const *files, size_t n, struct ahead_proc **serve,
    struct dbp_error *err)
{
	struct ahead_proc *d;
	struct sockaddr_un a;
	socklen_t alen = aheadmsg_addr(&a);
	int lfd = -1, r, tries, nul;
	size_t i;
	pid_t pid;

	*serve = NULL;
	if (n == 0)
		return 0;
	/* A process runs (an earlier run's): it takes these too. */
	for (tries = 0; tries < 3; tries++) {
		if ((r = aheadd_hand(files, n)) == 0)
			return 0;
		if (r != -ECONNREFUSED && r != -ENOENT)
			return dbp_err(err, -r, "", "cannot reach the"
			    " decoding process");
		if ((lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC,
		    0)) < 0)
			return dbp_err(err, errno, "", "cannot make a socket");
		if (bind(lfd, (struct sockaddr *)&a, alen) == 0)
			break;
		r = -errno;
		close(lfd);
		lfd = -1;
		/* Another hook bound it first: hand them to that one. */
		if (r != -EADDRINUSE)
			return dbp_err(err, -r, "", "cannot bind the socket");
	}
	if (lfd < 0)
		return dbp_err(err, EADDRINUSE, "", "cannot bind the socket");
	if (listen(lfd, 16) != 0 || (d = calloc(1, sizeof(*d))) == NULL) {
		r = errno;
		close(lfd);
		return dbp_err(err, r, "", "cannot start the decoding process");
	}
	pthread_mutex_init(&d->mu, NULL);
	pthread_cond_init(&d->cv, NULL);
	d->lfd = lfd;
	d->pidfd = -1;
	d->budget = aheadd_budget();
	d->watch = aheadd_watch();
	for (i = 0; i < n; i++)
		if ((r = aheadd_add(d, files[i])) != 0) {
			ahead_proc_free(d);
			return dbp_err(err, -r, "", "cannot start the decoding"
			    " process");
		}
	if ((pid = fork()) < 0) {
		r = errno;
		ahead_proc_free(d);
		return dbp_err(err, r, "", "cannot start the decoding process");
	}
	if (pid > 0) {
		/* The socket is bound and listens: calls reach the child. */
		ahead_proc_free(d);
		return 0;
	}
	/*
	 * The child: away from apt's terminal and pipes (apt would wait for
	 * them), holding only the socket; in apt's session (AHEADD_NICE),
	 * so that an interrupt of apt's ends it too.
	 */
	(void)signal(SIGPIPE, SIG_IGN);
	(void)signal(SIGHUP, SIG_IGN);
	/* Above the standard descriptors first: apt may run with one closed. */
	if (d->lfd < 3 && (nul = fcntl(d->lfd, F_DUPFD_CLOEXEC, 3)) >= 0) {
		close(d->lfd);
		d->lfd = nul;
	}
	if ((nul = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		(void)dup2(nul, 0);
		(void)dup2(nul, 1);
		(void)dup2(nul, 2);
		if (nul > 2)
			close(nul);
	}
	if (d->lfd != 3 && dup2(d->lfd, 3) == 3) {
		close(d->lfd);
		d->lfd = 3;
	}
	(void)close_range(4, ~0U, 0);
	(void)chdir("/");
	d->pidfd = (int)syscall(SYS_pidfd_open, d->watch, 0);
	*serve = d;
	return 0;
}
