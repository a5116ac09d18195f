/* SPDX-License-Identifier: MIT */
/* fuzz_deb: libFuzzer target over the whole install path, from bytes to files under a fresh root. */

/*
 * Each input is written to WORK/in.deb and installed into the empty
 * directory WORK/up/up/root, the way the tool installs it.  Afterwards:
 *  - WORK and the two levels above the root hold what they held, in.deb
 *    is still the input, and the sentinel WORK/outside/keep is as it was
 *    (content, inode, links, mode, owner, times): nothing was written,
 *    linked or changed outside the root, three levels up at least;
 *  - a failed run left the root empty: nothing half-installed, no
 *    temporaries, no admin directory;
 *  - a successful run left no temporaries, and installing the same input
 *    again either succeeds or leaves the root exactly as the first run
 *    left it (types, modes, owners, sizes, times, link targets);
 *  - no descriptor stayed open.
 * Any violation aborts, which libFuzzer reports with the input.  The
 * sanitizers (address, undefined, leak) catch the rest.
 *
 * The input's length picks the sync mode, whether paths are resolved with
 * openat2 or by the user-space walk, whether a thread decompresses
 * (--jobs 2) and whether dpkg's database is kept (--dpkg-db), so every
 * input runs the same way each time and each of
 * these paths gets fuzzed.  Files are capped at
 * FUZZ_FSIZE bytes (RLIMIT_FSIZE): a decompression bomb ends in EFBIG
 * instead of filling the disk.  Run under a tmpfs TMPDIR: syncs are free.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/install.h"
#include "durable/names.h"

#define FUZZ_FSIZE	(32 * 1024 * 1024)
#define FUZZ_SENTINEL	"keep\n"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char work[PATH_MAX - 64];
static char deb[PATH_MAX], root[PATH_MAX], outside[PATH_MAX];
static char up1[PATH_MAX], up2[PATH_MAX], keep[PATH_MAX];
static struct stat keep_st, outside_st;	/* as made */
static bool leftover;		/* a temporary seen by fuzz_scan */
static size_t entries;		/* paths fuzz_scan saw below the root */
static FILE *listing;		/* where fuzz_scan lists them, or NULL */

static void
fuzz_die(const char *what)
{
	fprintf(stderr, "fuzz_deb: %s\n", what);
	abort();
}

static int
fuzz_unlink(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if (flag == FTW_DP)
		return rmdir(path) == 0 ? 0 : -1;
	return unlink(path) == 0 ? 0 : -1;
}

/* Directories the package made read-only still have to be emptied. */
static int
fuzz_open_up(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)f;
	if (flag == FTW_D && (st->st_mode & 0700) != 0700)
		chmod(path, 0700);
	return 0;
}

static void
fuzz_remove(const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return;
	nftw(path, fuzz_open_up, 16, FTW_PHYS);
	if (nftw(path, fuzz_unlink, 16, FTW_DEPTH | FTW_PHYS) != 0)
		fuzz_die("cannot empty the scratch root");
}

static int
fuzz_scan(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	const char *base = path + f->base;

	if (f->level == 0)
		return 0;
	entries++;
	if (listing != NULL && flag != FTW_NS) {
		char target[PATH_MAX];
		ssize_t n = 0;

		if (S_ISLNK(st->st_mode) &&
		    (n = readlink(path, target, sizeof(target) - 1)) < 0)
			n = 0;
		target[n] = '\0';
		fprintf(listing, "%s %o %u %u %lld %lld.%09ld %s\n", path,
		    (unsigned)st->st_mode, (unsigned)st->st_uid,
		    (unsigned)st->st_gid, S_ISDIR(st->st_mode) ? 0LL :
		    (long long)st->st_size, (long long)st->st_mtim.tv_sec,
		    st->st_mtim.tv_nsec, target);
	}
	if (names_reserved(base))
		leftover = true;
	return 0;
}

static size_t
fuzz_count_dir(const char *path)
{
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	if ((d = opendir(path)) == NULL)
		fuzz_die("cannot list a directory");
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void
fuzz_cleanup(void)
{
	fuzz_remove(work);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	struct rlimit rl = { FUZZ_FSIZE, FUZZ_FSIZE };
	FILE *fp;

	(void)argc;
	(void)argv;
	snprintf(work, sizeof(work), "%s/debunpack-fuzz.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if (mkdtemp(work) == NULL)
		fuzz_die("cannot make the work directory");
	snprintf(deb, sizeof(deb), "%s/in.deb", work);
	snprintf(up1, sizeof(up1), "%s/up", work);
	snprintf(up2, sizeof(up2), "%s/up/up", work);
	snprintf(root, sizeof(root), "%s/up/up/root", work);
	snprintf(outside, sizeof(outside), "%s/outside", work);
	snprintf(keep, sizeof(keep), "%s/outside/keep", work);
	if (mkdir(outside, 0755) != 0 || mkdir(up1, 0755) != 0 ||
	    mkdir(up2, 0755) != 0)
		fuzz_die("cannot make the scratch directories");
	if ((fp = fopen(keep, "w")) == NULL || fputs(FUZZ_SENTINEL, fp) == EOF ||
	    fclose(fp) != 0)
		fuzz_die("cannot write the sentinel");
	if (lstat(keep, &keep_st) != 0 || lstat(outside, &outside_st) != 0)
		fuzz_die("cannot stat the sentinel");
	setrlimit(RLIMIT_FSIZE, &rl);
	signal(SIGXFSZ, SIG_IGN);
	atexit(fuzz_cleanup);
	return 0;
}

/* Whether A and B are the same file with the same metadata. */
static bool
fuzz_same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_nlink == b->st_nlink && a->st_mode == b->st_mode &&
	    a->st_uid == b->st_uid && a->st_gid == b->st_gid &&
	    a->st_size == b->st_size &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	    a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	    a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static void
fuzz_check_outside(const uint8_t *data, size_t size)
{
	struct stat st;
	char buf[64];
	uint8_t *back;
	ssize_t n;
	int fd;

	if (fuzz_count_dir(work) != 3 || fuzz_count_dir(up1) != 1 ||
	    fuzz_count_dir(up2) != 1)
		fuzz_die("something was written beside the root");
	if (fuzz_count_dir(outside) != 1 || lstat(outside, &st) != 0 ||
	    !fuzz_same(&st, &outside_st))
		fuzz_die("the sentinel directory changed");
	if ((fd = open(keep, O_RDONLY | O_NOFOLLOW)) < 0)
		fuzz_die("the sentinel file is gone");
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n != (ssize_t)strlen(FUZZ_SENTINEL) ||
	    memcmp(buf, FUZZ_SENTINEL, (size_t)n) != 0 ||
	    lstat(keep, &st) != 0 || !fuzz_same(&st, &keep_st))
		fuzz_die("the sentinel file changed");
	/* The input itself is outside the root too. */
	if ((back = malloc(size + 1)) == NULL)
		fuzz_die("out of memory");
	if ((fd = open(deb, O_RDONLY | O_NOFOLLOW)) < 0)
		fuzz_die("the input is gone");
	n = read(fd, back, size + 1);
	close(fd);
	if (n != (ssize_t)size || (size > 0 && memcmp(back, data, size) != 0))
		fuzz_die("the input changed");
	free(back);
}

/* Walk the root; with LIST, into a string returned in *LIST (free it). */
static void
fuzz_walk(char **list)
{
	size_t len;

	entries = 0;
	leftover = false;
	listing = list != NULL ? open_memstream(list, &len) : NULL;
	if (list != NULL && listing == NULL)
		fuzz_die("cannot list the root");
	if (nftw(root, fuzz_scan, 16, FTW_PHYS) != 0)
		fuzz_die("cannot walk the root");
	if (listing != NULL && fclose(listing) != 0)
		fuzz_die("cannot list the root");
	listing = NULL;
}

/* One install of the input into the root; its status. */
static int
fuzz_install(const uint8_t *data, size_t size)
{
	static const char *const modes[] = { "none", "syncfs", "batched",
	    "perfile" };
	struct install_opts o;
	struct dbp_error err;
	struct stats st;
	char *files[1] = { deb };
	size_t fds;
	int r;

	memset(&o, 0, sizeof(o));
	o.root = root;
	o.mode = modes[size % 4];
	o.force_walk = (size / 4) % 2 == 1;
	/* A decompression thread is a second reader of the same bytes. */
	o.jobs = (size / 8) % 2 == 1 ? 2 : 1;
	/* dpkg's database: the control files reach the root too. */
	o.dpkg_db = (size / 16) % 2 == 1;
	o.feed_budget = 1024 * 1024;
	memset(&st, 0, sizeof(st));
	dbp_err_clear(&err);
	fds = fuzz_count_dir("/proc/self/fd");
	r = install_run(&o, files, 1, &st, &err);
	if (fuzz_count_dir("/proc/self/fd") != fds)
		fuzz_die("a descriptor was left open");
	fuzz_check_outside(data, size);
	return r;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *before = NULL, *after = NULL;
	int fd, r;

	if ((fd = open(deb, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) < 0)
		fuzz_die("cannot write the input");
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		fuzz_die("cannot write the input");
	if (close(fd) != 0 || mkdir(root, 0755) != 0)
		fuzz_die("cannot make the root");

	r = fuzz_install(data, size);
	fuzz_walk(r == 0 ? &before : NULL);
	if (r != 0 && entries != 0)
		fuzz_die("a failed run left something in the root");
	if (r == 0 && leftover)
		fuzz_die("a successful run left a temporary");
	/* Again, over itself: the path of an upgrade. */
	if (r == 0 && fuzz_install(data, size) != 0) {
		fuzz_walk(&after);
		if (strcmp(before, after) != 0) {
			fprintf(stderr, "before:\n%safter:\n%s", before, after);
			fuzz_die("a failed reinstall changed the root");
		}
		free(after);
	}
	free(before);
	fuzz_remove(root);
	return 0;
}
