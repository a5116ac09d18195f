/* SPDX-License-Identifier: MIT */
/* Helpers shared by the Check unit tests: scratch directories and main(). */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkutil.h"
#include "db/record.h"

static char base_dir[64];	/* per TCase: see checkutil_scratch_tcase */
static char scratch[128];	/* per test, in base_dir */

void
checkutil_mkscratch(char *buf, size_t size, const char *parent,
    const char *name)
{
	int n;

	n = snprintf(buf, size, "%s/%s.XXXXXX", parent, name);
	ck_assert_msg(n > 0 && (size_t)n < size, "%s/%s: name too long",
	    parent, name);
	ck_assert_msg(mkdtemp(buf) != NULL, "mkdtemp %s: %s", buf,
	    strerror(errno));
}

static int
unlock_entry(const char *path, const struct stat *sb, int type,
    struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (type == FTW_D || type == FTW_DNR)
		chmod(path, 0700);
	return 0;
}

static int
remove_entry(const char *path, const struct stat *sb, int type,
    struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

void
checkutil_rmtree(const char *path)
{
	nftw(path, unlock_entry, 16, FTW_PHYS);
	nftw(path, remove_entry, 16, FTW_PHYS | FTW_DEPTH);
}

static void
base_setup(void)
{
	checkutil_mkscratch(base_dir, sizeof(base_dir), "/tmp",
	    program_invocation_short_name);
}

static void
base_teardown(void)
{
	checkutil_rmtree(base_dir);
}

static void
scratch_setup(void)
{
	checkutil_mkscratch(scratch, sizeof(scratch), base_dir, "t");
}

static void
scratch_teardown(void)
{
	checkutil_rmtree(scratch);
}

TCase *
checkutil_scratch_tcase(Suite *s, const char *name, void (*setup)(void),
    void (*teardown)(void))
{
	TCase *tc = tcase_create(name);

	tcase_add_unchecked_fixture(tc, base_setup, base_teardown);
	/* Teardowns run in reverse: TEARDOWN before the directory goes. */
	tcase_add_checked_fixture(tc, scratch_setup, scratch_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	suite_add_tcase(s, tc);
	return tc;
}

const char *
checkutil_scratch(void)
{
	return scratch;
}

const char *
checkutil_at(const char *rel)
{
	static char p[PATH_MAX];
	int n;

	n = snprintf(p, sizeof(p), "%s/%s", scratch, rel);
	ck_assert_msg(n > 0 && (size_t)n < sizeof(p), "%s/%s: name too long",
	    scratch, rel);
	return p;
}

bool
checkutil_exists(const char *rel)
{
	struct stat st;

	return lstat(checkutil_at(rel), &st) == 0;
}

void
checkutil_mkdir(const char *rel)
{
	ck_assert_msg(mkdir(checkutil_at(rel), 0755) == 0, "mkdir %s: %s", rel,
	    strerror(errno));
}

void
checkutil_symlink(const char *target, const char *rel)
{
	ck_assert_msg(symlink(target, checkutil_at(rel)) == 0,
	    "symlink %s: %s", rel, strerror(errno));
}

void
checkutil_write(const char *rel, const char *content)
{
	FILE *fp = fopen(checkutil_at(rel), "w");

	ck_assert_msg(fp != NULL, "create %s: %s", rel, strerror(errno));
	fputs(content, fp);
	ck_assert_int_eq(fclose(fp), 0);
}

int
checkutil_count_fds(void)
{
	struct dirent *de;
	DIR *dir;
	int n = 0;

	dir = opendir("/proc/self/fd");
	ck_assert_ptr_nonnull(dir);
	while ((de = readdir(dir)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

int
checkutil_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

void
checkutil_assert_content(const char *rel, const char *want)
{
	char buf[256];
	size_t n;
	FILE *fp;

	fp = fopen(checkutil_at(rel), "r");
	ck_assert_msg(fp != NULL, "open %s: %s", rel, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	ck_assert_msg(strcmp(buf, want) == 0, "%s holds \"%s\", not \"%s\"",
	    rel, buf, want);
}

void
checkutil_record_add(struct record *r, char type, const char *path, bool conffile,
    const unsigned char *md5)
{
	struct record_entry e;

	memset(&e, 0, sizeof(e));
	e.type = type;
	e.mode = type == 'd' ? 0755 : 0644;
	e.path = (char *)path;
	e.conffile = conffile;
	if (type == 'l')
		e.target = (char *)"x";
	if (md5 != NULL) {
		e.has_md5 = true;
		memcpy(e.md5, md5, 16);
	}
	ck_assert_int_eq(record_add(r, &e), 0);
}
