/* SPDX-License-Identifier: MIT */
/* fuzz_journal: libFuzzer target over the repair, from bytes as a journal to what it does to a small root. */

/*
 * Each input is written as the journal of WORK/root/adm (the admin
 * directory inside the root, as ROOT/var/lib/debunpack is), in a root that
 * holds a few files, temporaries and backups under the names a run gives
 * them, and a sentinel beside the root (WORK/outside).  The repair then
 * runs as --recover runs it.  Afterwards:
 *  - nothing outside the root changed: the sentinel's content, inode and
 *    times are as made, and WORK holds only the root and the sentinel;
 *  - a repair that succeeded removed the journal;
 *  - no descriptor stayed open.
 * The same input as a record file goes through the record reader, which
 * must accept or refuse it without a crash or a leak.  The sanitizers
 * (address, undefined, leak) catch the rest.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durable/journal.h"
#include "durable/names.h"
#include "db/record.h"
#include "durable/recover.h"
#include "durable/rootfs.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char work[PATH_MAX - 64];
static char root[PATH_MAX], outside[PATH_MAX];
static struct stat outside_st;

static void
fj_die(const char *what)
{
	fprintf(stderr, "fuzz_journal: %s\n", what);
	abort();
}

static int
fj_unlink(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void
fj_at(char *buf, const char *rel)
{
	if (snprintf(buf, PATH_MAX, "%s/%s", root, rel) >= PATH_MAX)
		fj_die("path too long");
}

static void
fj_file(const char *rel, const char *content)
{
	char p[PATH_MAX];
	FILE *fp;

	fj_at(p, rel);
	if ((fp = fopen(p, "w")) == NULL || fputs(content, fp) == EOF ||
	    fclose(fp) != 0)
		fj_die("cannot make a file of the root");
}

static void
fj_dir(const char *rel)
{
	char p[PATH_MAX];

	fj_at(p, rel);
	if (mkdir(p, 0755) != 0)
		fj_die("cannot make a directory of the root");
}

/*
 * The root as a killed run leaves it: replaced, new and not yet renamed
 * names in "d", a directory it made ("n") with a file, a file moved
 * aside, an obsolete path.
 */
static void
fj_make_root(void)
{
	char a[PATH_MAX], b[PATH_MAX];

	if (mkdir(root, 0755) != 0)
		fj_die("cannot make the root");
	fj_dir("adm");
	fj_dir("d");
	fj_file("d/x", "new x");
	fj_file("d/x" NAMES_OLD_SUFFIX, "old x");
	fj_file("d/y", "new y");
	fj_file("d/z" NAMES_TMP_SUFFIX, "new z");
	fj_file("d/gone", "obsolete");
	fj_dir("n");
	fj_file("n/f", "made");
	fj_file("m" NAMES_OLD_SUFFIX, "moved aside");
	fj_dir("m");
	fj_at(a, "d/x");
	fj_at(b, "d/hard");
	if (link(a, b) != 0)
		fj_die("cannot link");
	fj_at(a, "link");
	if (symlink("d", a) != 0)
		fj_die("cannot make a symlink");
}

static int
fj_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	FILE *fp;

	(void)argc;
	(void)argv;
	if (snprintf(work, sizeof(work), "%s/fuzz_journal.XXXXXX",
	    tmp != NULL ? tmp : "/tmp") >= (int)sizeof(work) ||
	    mkdtemp(work) == NULL)
		fj_die("cannot make a work directory");
	snprintf(root, sizeof(root), "%s/root", work);
	snprintf(outside, sizeof(outside), "%s/outside", work);
	if ((fp = fopen(outside, "w")) == NULL || fputs("keep", fp) == EOF ||
	    fclose(fp) != 0 || stat(outside, &outside_st) != 0)
		fj_die("cannot make the sentinel");
	return 0;
}

static void
fj_check_outside(void)
{
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (stat(outside, &st) != 0 || st.st_ino != outside_st.st_ino ||
	    st.st_size != outside_st.st_size ||
	    st.st_mtim.tv_sec != outside_st.st_mtim.tv_sec ||
	    st.st_mtim.tv_nsec != outside_st.st_mtim.tv_nsec)
		fj_die("the sentinel outside the root changed");
	if ((d = opendir(work)) == NULL)
		fj_die("cannot list the work directory");
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0 &&
		    strcmp(de->d_name, "root") != 0 &&
		    strcmp(de->d_name, "outside") != 0)
			fj_die("something appeared beside the root");
	closedir(d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct recover_result res;
	struct dbp_error err;
	struct record *rec = NULL;
	struct rootfs rf = { .fd = -1 };
	char p[PATH_MAX];
	FILE *fp;
	int admfd, fd, nfds, r;

	/* libFuzzer's own descriptors come and go between inputs. */
	nfds = fj_count_fds();
	fj_make_root();
	fj_at(p, "adm/" JOURNAL_NAME);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0 ||
	    (size > 0 && write(fd, data, size) != (ssize_t)size) ||
	    close(fd) != 0)
		fj_die("cannot write the journal");
	if (rootfs_open(&rf, root, &err) != 0)
		fj_die("cannot open the root");
	fj_at(p, "adm");
	if ((admfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		fj_die("cannot open the admin directory");
	r = recover_run(&rf, admfd, &res, &err);
	close(admfd);
	rootfs_close(&rf);
	fj_at(p, "adm/" JOURNAL_NAME);
	if (r == 0 && access(p, F_OK) == 0)
		fj_die("a repair succeeded and left its journal");
	fj_check_outside();

	/* The same bytes as a record. */
	if ((fp = fmemopen((void *)data, size, "r")) != NULL) {
		if (record_read(fp, "fuzz", &rec, &err) == 0)
			record_free(rec);
		fclose(fp);
	}

	if (nftw(root, fj_unlink, 16, FTW_DEPTH | FTW_PHYS) != 0)
		fj_die("cannot clean the root");
	if (fj_count_fds() != nfds)
		fj_die("a descriptor stayed open");
	return 0;
}
