/* SPDX-License-Identifier: MIT */
/* LD_PRELOAD test shim: fails the Nth write, sync, rename or close of a run. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/*
 * FAULT_RENAMEAT=N: the Nth renameat(2) fails with EIO, every other call
 * goes through (tests/rollback.sh, tests/dirfile.sh).
 *
 * FAULT_CALL=CALL FAULT_N=N [FAULT_ERRNO=EIO|ENOSPC|number]: the Nth call
 * of CALL fails with that errno (EIO by default).  CALL is one of
 *   write            write, pwrite, pwrite64, writev, and the writes of
 *                    stdio streams fdopen()ed for writing (glibc's stdio
 *                    writes through its internal __write, which a shim
 *                    cannot reach: such streams are rebuilt with
 *                    fopencookie so that their writes and close come here)
 *   fsync, fdatasync, sync_file_range, syncfs
 *   rename           rename, renameat, renameat2
 *   close            close, and fclose of any stream
 * Only calls on descriptors above 2 count, so messages on stderr survive.
 * A failed close still closes the descriptor, as Linux does; a failed
 * write or sync does nothing.
 *
 * FAULT_COUNT=FILE: at exit, append one "CALL COUNT" line per CALL above.
 *
 * FAULT_NOINHERIT=1: the programs the run starts (maintainer scripts) run
 * without the shim: their calls are neither counted nor failed.
 *
 * FAULT_LOG=FILE: append a line when a call is failed,
 *   fault CALL N ERRNO TID PATH [r|w|rw]   (rename: OLD -> NEW)
 * and, once a call was failed, one per later successful rename whose
 * source is a temporary of debunpack (NAME.debunpack-new, .debunpack-new.N):
 *   renamed-after CALL OLD -> NEW
 * where CALL is the failed one; a test asserts that nothing is renamed
 * after a failed sync.  Paths are read from /proc/self/fd.
 *
 * Calls are counted with atomics: debunpack decompresses in threads.
 */

enum call { C_WRITE, C_FSYNC, C_FDATASYNC, C_SYNC_FILE_RANGE, C_SYNCFS,
	C_RENAME, C_CLOSE, C_NCALLS };

static const char *const call_names[C_NCALLS] = {
	"write", "fsync", "fdatasync", "sync_file_range", "syncfs", "rename",
	"close"
};

static atomic_long counts[C_NCALLS];
static atomic_long renameat_calls;	/* FAULT_RENAMEAT counts these only */
static atomic_int failed = -1;		/* the call failed, once it was */

static struct {
	int call;		/* -1: none */
	long n;
	int err;
	long renameat_n;	/* FAULT_RENAMEAT, 0: none */
	const char *count_file;
	const char *log_file;
} cfg = { -1, 0, EIO, 0, NULL, NULL };

static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off64_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_sync_file_range)(int, off64_t, off64_t, unsigned int);
static int (*real_syncfs)(int);
static int (*real_rename)(const char *, const char *);
static int (*real_renameat)(int, const char *, int, const char *);
static int (*real_renameat2)(int, const char *, int, const char *,
    unsigned int);
static int (*real_close)(int);
static int (*real_fclose)(FILE *);
static FILE *(*real_fdopen)(int, const char *);
static int (*real_fileno)(FILE *);

static void *
sym(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* dlsym before main: a thread may make the first call. */
__attribute__((constructor)) static void
shim_init(void)
{
	const char *s;
	int i;

	*(void **)&real_write = sym("write");
	*(void **)&real_pwrite = sym("pwrite");
	*(void **)&real_pwrite64 = sym("pwrite64");
	*(void **)&real_writev = sym("writev");
	*(void **)&real_fsync = sym("fsync");
	*(void **)&real_fdatasync = sym("fdatasync");
	*(void **)&real_sync_file_range = sym("sync_file_range");
	*(void **)&real_syncfs = sym("syncfs");
	*(void **)&real_rename = sym("rename");
	*(void **)&real_renameat = sym("renameat");
	*(void **)&real_renameat2 = sym("renameat2");
	*(void **)&real_close = sym("close");
	*(void **)&real_fclose = sym("fclose");
	*(void **)&real_fdopen = sym("fdopen");
	*(void **)&real_fileno = sym("fileno");

	if (getenv("FAULT_NOINHERIT") != NULL)
		unsetenv("LD_PRELOAD");
	if ((s = getenv("FAULT_RENAMEAT")) != NULL)
		cfg.renameat_n = strtol(s, NULL, 10);
	if ((s = getenv("FAULT_CALL")) != NULL) {
		for (i = 0; i < C_NCALLS; i++)
			if (strcmp(s, call_names[i]) == 0)
				cfg.call = i;
		if (cfg.call < 0) {
			fprintf(stderr, "faultshim: unknown FAULT_CALL %s\n", s);
			abort();
		}
		s = getenv("FAULT_N");
		cfg.n = s != NULL ? strtol(s, NULL, 10) : 1;
	}
	if ((s = getenv("FAULT_ERRNO")) != NULL) {
		if (strcmp(s, "EIO") == 0)
			cfg.err = EIO;
		else if (strcmp(s, "ENOSPC") == 0)
			cfg.err = ENOSPC;
		else if ((cfg.err = (int)strtol(s, NULL, 10)) <= 0) {
			fprintf(stderr, "faultshim: unknown FAULT_ERRNO %s\n", s);
			abort();
		}
	}
	cfg.count_file = getenv("FAULT_COUNT");
	cfg.log_file = getenv("FAULT_LOG");
}

/* Append LINE to FILE in one write, so that threads do not interleave. */
static void
append(const char *file, const char *line)
{
	int fd;

	if (file == NULL)
		return;
	fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (real_write(fd, line, strlen(line)) < 0) {
		/* A test finds the line missing. */
	}
	real_close(fd);
}

__attribute__((destructor)) static void
shim_fini(void)
{
	char buf[64 * C_NCALLS];
	size_t len = 0;
	int i;

	if (cfg.count_file == NULL)
		return;
	for (i = 0; i < C_NCALLS; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s %ld\n",
		    call_names[i], atomic_load(&counts[i]));
	append(cfg.count_file, buf);
}

/* Where FD leads, and how it was opened. */
static void
fd_describe(int fd, char *buf, size_t n)
{
	static const char *const acc[] = { "r", "w", "rw", "?" };
	char proc[64], path[PATH_MAX];
	ssize_t len;
	int fl;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if ((len = readlink(proc, path, sizeof(path) - 1)) < 0)
		len = snprintf(path, sizeof(path), "fd%d", fd);
	path[len] = '\0';
	fl = fcntl(fd, F_GETFL);
	snprintf(buf, n, "%s %s", path, fl < 0 ? "?" : acc[fl & O_ACCMODE]);
}

/* Where DIRFD/NAME leads, for renameat. */
static void
at_describe(int dirfd, const char *name, char *buf, size_t n)
{
	char proc[64], dir[PATH_MAX];
	ssize_t len;

	if (name[0] == '/' || dirfd == AT_FDCWD) {
		snprintf(buf, n, "%s", name);
		return;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dirfd);
	if ((len = readlink(proc, dir, sizeof(dir) - 1)) < 0)
		len = snprintf(dir, sizeof(dir), "fd%d", dirfd);
	dir[len] = '\0';
	snprintf(buf, n, "%s/%s", dir, name);
}

static void
log_fault(enum call c, long n, const char *what)
{
	char line[2 * PATH_MAX + 128];

	snprintf(line, sizeof(line), "fault %s %ld %s %ld %s\n", call_names[c],
	    n, strerrorname_np(cfg.err) != NULL ? strerrorname_np(cfg.err) :
	    "?", (long)gettid(), what);
	append(cfg.log_file, line);
}

/*
 * Count a call of C on FD (-1: no descriptor, always counted); whether it
 * is to fail.  DESCRIBE says what the call is about, for the log.
 */
static int
hit(enum call c, int fd, void (*describe)(const void *, char *, size_t),
    const void *arg)
{
	char what[2 * PATH_MAX + 8];
	long n;

	if (fd >= 0 && fd <= 2)
		return 0;
	n = atomic_fetch_add(&counts[c], 1) + 1;
	if ((int)c != cfg.call || n != cfg.n)
		return 0;
	describe(arg, what, sizeof(what));
	log_fault(c, n, what);
	atomic_store(&failed, (int)c);
	return 1;
}

static void
describe_fd(const void *arg, char *buf, size_t n)
{
	fd_describe(*(const int *)arg, buf, n);
}

struct rename_args {
	int olddirfd;
	const char *oldpath;
	int newdirfd;
	const char *newpath;
};

static void
describe_rename(const void *arg, char *buf, size_t n)
{
	const struct rename_args *a = arg;
	char from[PATH_MAX + 1], to[PATH_MAX + 1];

	at_describe(a->olddirfd, a->oldpath, from, sizeof(from));
	at_describe(a->newdirfd, a->newpath, to, sizeof(to));
	snprintf(buf, n, "%s -> %s", from, to);
}

#define FAIL_IF(c, fd, descr, arg) do {				\
	if (hit((c), (fd), (descr), (arg))) {			\
		errno = cfg.err;				\
		return -1;					\
	}							\
} while (0)

ssize_t
write(int fd, const void *buf, size_t len)
{
	FAIL_IF(C_WRITE, fd, describe_fd, &fd);
	return real_write(fd, buf, len);
}

ssize_t
pwrite(int fd, const void *buf, size_t len, off_t off)
{
	FAIL_IF(C_WRITE, fd, describe_fd, &fd);
	return real_pwrite(fd, buf, len, off);
}

ssize_t
pwrite64(int fd, const void *buf, size_t len, off64_t off)
{
	FAIL_IF(C_WRITE, fd, describe_fd, &fd);
	return real_pwrite64(fd, buf, len, off);
}

ssize_t
writev(int fd, const struct iovec *iov, int iovcnt)
{
	FAIL_IF(C_WRITE, fd, describe_fd, &fd);
	return real_writev(fd, iov, iovcnt);
}

int
fsync(int fd)
{
	FAIL_IF(C_FSYNC, fd, describe_fd, &fd);
	return real_fsync(fd);
}

int
fdatasync(int fd)
{
	FAIL_IF(C_FDATASYNC, fd, describe_fd, &fd);
	return real_fdatasync(fd);
}

int
sync_file_range(int fd, off64_t off, off64_t len, unsigned int flags)
{
	FAIL_IF(C_SYNC_FILE_RANGE, fd, describe_fd, &fd);
	return real_sync_file_range(fd, off, len, flags);
}

int
syncfs(int fd)
{
	FAIL_IF(C_SYNCFS, fd, describe_fd, &fd);
	return real_syncfs(fd);
}

/* Whether NAME's last component is a temporary name of debunpack. */
static int
is_temporary(const char *name)
{
	const char *base = strrchr(name, '/') != NULL ?
	    strrchr(name, '/') + 1 : name;
	size_t len = strlen(base), sl = strlen(".debunpack-new");

	return strncmp(base, ".debunpack-new.", sl + 1) == 0 ||
	    (len > sl && strcmp(base + len - sl, ".debunpack-new") == 0);
}

/* After a call was failed, a successful rename of a temporary is logged. */
static void
renamed(const struct rename_args *a)
{
	char line[2 * PATH_MAX + 128], what[2 * PATH_MAX + 8];
	int c = atomic_load(&failed);

	if (c < 0 || !is_temporary(a->oldpath))
		return;
	describe_rename(a, what, sizeof(what));
	snprintf(line, sizeof(line), "renamed-after %s %s\n", call_names[c],
	    what);
	append(cfg.log_file, line);
}

int
rename(const char *oldpath, const char *newpath)
{
	struct rename_args a = { AT_FDCWD, oldpath, AT_FDCWD, newpath };
	int r;

	FAIL_IF(C_RENAME, -1, describe_rename, &a);
	if ((r = real_rename(oldpath, newpath)) == 0)
		renamed(&a);
	return r;
}

int
renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	struct rename_args a = { olddirfd, oldpath, newdirfd, newpath };
	long n = atomic_fetch_add(&renameat_calls, 1) + 1;
	int r;

	if (cfg.renameat_n > 0 && n == cfg.renameat_n) {
		errno = EIO;
		return -1;
	}
	FAIL_IF(C_RENAME, -1, describe_rename, &a);
	if ((r = real_renameat(olddirfd, oldpath, newdirfd, newpath)) == 0)
		renamed(&a);
	return r;
}

int
renameat2(int olddirfd, const char *oldpath, int newdirfd,
    const char *newpath, unsigned int flags)
{
	struct rename_args a = { olddirfd, oldpath, newdirfd, newpath };
	int r;

	FAIL_IF(C_RENAME, -1, describe_rename, &a);
	if ((r = real_renameat2(olddirfd, oldpath, newdirfd, newpath,
	    flags)) == 0)
		renamed(&a);
	return r;
}

int
close(int fd)
{
	if (fd >= 0 && hit(C_CLOSE, fd, describe_fd, &fd)) {
		/* Linux frees the descriptor whatever close reports. */
		real_close(fd);
		errno = cfg.err;
		return -1;
	}
	return real_close(fd);
}

/*
 * Streams fdopen()ed for writing: a cookie stream over the descriptor,
 * whose writes and close go through the functions above.
 */
struct cookie {
	int fd;
	FILE *fp;
	char *buf;
	struct cookie *next;
};

static pthread_mutex_t cookies_mu = PTHREAD_MUTEX_INITIALIZER;
static struct cookie *cookies;

static struct cookie *
cookie_find(FILE *fp)
{
	struct cookie *c;

	pthread_mutex_lock(&cookies_mu);
	for (c = cookies; c != NULL && c->fp != fp; c = c->next)
		;
	pthread_mutex_unlock(&cookies_mu);
	return c;
}

static ssize_t
cookie_write(void *arg, const char *buf, size_t len)
{
	struct cookie *c = arg;
	size_t done = 0;
	ssize_t w;

	while (done < len) {
		if ((w = write(c->fd, buf + done, len - done)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		done += (size_t)w;
	}
	return (ssize_t)done;
}

static int
cookie_close(void *arg)
{
	struct cookie *c = arg, **p;
	int r;

	pthread_mutex_lock(&cookies_mu);
	for (p = &cookies; *p != NULL && *p != c; p = &(*p)->next)
		;
	if (*p != NULL)
		*p = c->next;
	pthread_mutex_unlock(&cookies_mu);
	r = close(c->fd);
	/* glibc is done with the buffer once the stream is flushed. */
	free(c->buf);
	free(c);
	return r;
}

FILE *
fdopen(int fd, const char *mode)
{
	cookie_io_functions_t io = { NULL, cookie_write, NULL, cookie_close };
	struct cookie *c;
	struct stat st;
	size_t bufsize = BUFSIZ;

	if (strchr(mode, 'w') == NULL && strchr(mode, 'a') == NULL &&
	    strchr(mode, '+') == NULL)
		return real_fdopen(fd, mode);
	/* What fdopen checks, and the buffer size it would choose. */
	if (fcntl(fd, F_GETFL) < 0 || fstat(fd, &st) != 0)
		return NULL;
	if (st.st_blksize > 0)
		bufsize = (size_t)st.st_blksize;
	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->buf = malloc(bufsize)) == NULL) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->fd = fd;
	if ((c->fp = fopencookie(c, "w", io)) == NULL) {
		free(c->buf);
		free(c);
		return NULL;
	}
	setvbuf(c->fp, c->buf, _IOFBF, bufsize);
	pthread_mutex_lock(&cookies_mu);
	c->next = cookies;
	cookies = c;
	pthread_mutex_unlock(&cookies_mu);
	return c->fp;
}

int
fileno(FILE *fp)
{
	struct cookie *c = cookie_find(fp);

	return c != NULL ? c->fd : real_fileno(fp);
}

int
fclose(FILE *fp)
{
	int fd;

	/* A cookie stream's close is the close above. */
	if (cookie_find(fp) != NULL)
		return real_fclose(fp);
	fd = real_fileno(fp);
	if (fd >= 0 && hit(C_CLOSE, fd, describe_fd, &fd)) {
		real_fclose(fp);
		errno = cfg.err;
		return EOF;
	}
	return real_fclose(fp);
}
