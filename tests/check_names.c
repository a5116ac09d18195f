/* SPDX-License-Identifier: MIT */
/* Unit tests of names: archive paths made root-relative or refused, and the run's own names. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkutil.h"
#include "durable/names.h"

/* RAW normalises to WANT. */
static void
assert_path(const char *raw, const char *want)
{
	struct dbp_error err;
	char out[PATH_MAX];
	int r;

	dbp_err_clear(&err);
	memset(out, 'Z', sizeof(out));
	r = names_path(raw, out, sizeof(out), &err);
	ck_assert_msg(r == 0, "\"%s\" rejected (%d): %s", raw, r, err.msg);
	ck_assert_str_eq(out, want);
}

/* RAW is refused with -ERRNUM, and the error names it. */
static void
assert_refused(const char *raw, int errnum)
{
	struct dbp_error err;
	char out[PATH_MAX];
	int r;

	dbp_err_clear(&err);
	r = names_path(raw, out, sizeof(out), &err);
	ck_assert_msg(r == -errnum, "\"%.60s\" gave %d, not %d", raw, r,
	    -errnum);
	ck_assert_msg(err.msg[0] != '\0', "no message for \"%.60s\"", raw);
	ck_assert_msg(strncmp(err.path, raw, sizeof(err.path) - 1) == 0,
	    "error path \"%.60s\" is not the archive name", err.path);
}

/* A path of LEN bytes made of components of at most NAME_MAX bytes. */
static char *
long_path(size_t len)
{
	char *p = malloc(len + 1);
	size_t i;

	ck_assert_ptr_nonnull(p);
	for (i = 0; i < len; i++)
		p[i] = i % 200 == 199 ? '/' : 'p';
	if (p[len - 1] == '/')
		p[len - 1] = 'p';
	p[len] = '\0';
	return p;
}

START_TEST(test_names_path_plain)
{
	assert_path("usr/bin/ls", "usr/bin/ls");
	assert_path("a", "a");
	assert_path("...", "...");
	assert_path("..a/b..", "..a/b..");
	assert_path(".hidden/.x", ".hidden/.x");
}
END_TEST

START_TEST(test_names_path_leading_dot_slash)
{
	assert_path("./usr/bin/ls", "usr/bin/ls");
	assert_path("././usr", "usr");
	assert_path(".//usr", "usr");
}
END_TEST

START_TEST(test_names_path_leading_slash)
{
	assert_path("/usr/bin/ls", "usr/bin/ls");
	assert_path("//usr/bin", "usr/bin");
	assert_path("/./usr", "usr");
}
END_TEST

START_TEST(test_names_path_trailing_slash)
{
	assert_path("usr/share/", "usr/share");
	assert_path("./usr/share/doc//", "usr/share/doc");
}
END_TEST

START_TEST(test_names_path_root)
{
	assert_path("./", "");
	assert_path(".", "");
	assert_path("/", "");
	assert_path("//", "");
	assert_path("/./", "");
}
END_TEST

START_TEST(test_names_path_newline)
{
	assert_refused("usr/bin/a\nb", EINVAL);
	assert_refused("\n", EINVAL);
	assert_refused("usr\n/bin", EINVAL);
}
END_TEST

START_TEST(test_names_path_dotdot)
{
	assert_refused("..", EINVAL);
	assert_refused("../etc/passwd", EINVAL);
	assert_refused("./../etc", EINVAL);
	assert_refused("/..", EINVAL);
	assert_refused("usr/../../etc", EINVAL);
	assert_refused("usr/..", EINVAL);
	assert_refused("usr/../", EINVAL);
}
END_TEST

START_TEST(test_names_path_dot)
{
	assert_refused("usr/./bin", EINVAL);
	assert_refused("usr/.", EINVAL);
	assert_refused("usr/./", EINVAL);
}
END_TEST

START_TEST(test_names_path_empty_component)
{
	assert_refused("a//b", EINVAL);
	assert_refused("./usr//bin/ls", EINVAL);
}
END_TEST

START_TEST(test_names_path_empty)
{
	struct dbp_error err;
	char out[16];

	assert_refused("", EINVAL);
	dbp_err_clear(&err);
	ck_assert_int_eq(names_path(NULL, out, sizeof(out), &err), -EINVAL);
	ck_assert(err.msg[0] != '\0');
}
END_TEST

START_TEST(test_names_path_reserved)
{
	assert_refused("usr/bin/ls" NAMES_TMP_SUFFIX, EINVAL);
	assert_refused("ls.debunpack-new", EINVAL);
	assert_refused(".debunpack-new", EINVAL);
	assert_refused(NAMES_TMP_PREFIX "0", EINVAL);
	assert_refused("usr/.debunpack-new.17", EINVAL);
	/* A directory component is a name too. */
	assert_refused("usr/x.debunpack-new/ls", EINVAL);
	assert_refused("usr/.debunpack-new.3/ls", EINVAL);
	assert_refused("./etc.debunpack-new/", EINVAL);
}
END_TEST

START_TEST(test_names_path_not_reserved)
{
	assert_path("ls.debunpack-newer", "ls.debunpack-newer");
	assert_path("debunpack-new", "debunpack-new");
	assert_path("x.debunpack-ne", "x.debunpack-ne");
	assert_path(".debunpack-newx", ".debunpack-newx");
	assert_path("a.debunpack-new.1", "a.debunpack-new.1");
}
END_TEST

START_TEST(test_names_path_name_max)
{
	char comp[NAME_MAX + 2], path[NAME_MAX + 16];

	memset(comp, 'n', NAME_MAX);
	comp[NAME_MAX] = '\0';
	snprintf(path, sizeof(path), "usr/%s", comp);
	assert_path(path, path);
	comp[NAME_MAX] = 'n';
	comp[NAME_MAX + 1] = '\0';
	snprintf(path, sizeof(path), "usr/%s", comp);
	assert_refused(path, ENAMETOOLONG);
	snprintf(path, sizeof(path), "%s/x", comp);
	assert_refused(path, ENAMETOOLONG);
}
END_TEST

START_TEST(test_names_path_path_max)
{
	char *p;

	p = long_path(PATH_MAX - 1);
	assert_path(p, p);
	free(p);
	p = long_path(PATH_MAX);
	assert_refused(p, ENAMETOOLONG);
	free(p);
	p = long_path(PATH_MAX * 2);
	assert_refused(p, ENAMETOOLONG);
	free(p);
}
END_TEST

START_TEST(test_names_path_small_buffer)
{
	struct dbp_error err;
	char out[4];

	ck_assert_int_eq(names_path("abc", out, sizeof(out), &err), 0);
	ck_assert_str_eq(out, "abc");
	ck_assert_int_eq(names_path("./abc/", out, sizeof(out), &err), 0);
	ck_assert_str_eq(out, "abc");
	ck_assert_int_eq(names_path("abcd", out, sizeof(out), &err),
	    -ENAMETOOLONG);
}
END_TEST

START_TEST(test_names_tmp_suffix)
{
	char buf[NAME_MAX + 1];
	unsigned long seq = 7;

	ck_assert_int_eq(names_tmp("ls", &seq, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "ls" NAMES_TMP_SUFFIX);
	ck_assert_uint_eq(seq, 7);
	ck_assert(names_reserved(buf));
	ck_assert_int_eq(names_tmp("ls", NULL, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "ls" NAMES_TMP_SUFFIX);
}
END_TEST

/* A name too long for the suffix takes the counter, or is refused. */
START_TEST(test_names_tmp_counter)
{
	char name[NAME_MAX + 1], buf[NAME_MAX + 1];
	unsigned long seq = 0;

	memset(name, 'n', NAME_MAX);
	name[NAME_MAX - strlen(NAMES_TMP_SUFFIX) + 1] = '\0';
	ck_assert_int_eq(names_tmp(name, &seq, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, NAMES_TMP_PREFIX "0");
	ck_assert_int_eq(names_tmp(name, &seq, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, NAMES_TMP_PREFIX "1");
	ck_assert_uint_eq(seq, 2);
	ck_assert(names_reserved(buf));
	ck_assert_int_eq(names_tmp(name, NULL, buf, sizeof(buf)),
	    -ENAMETOOLONG);
	ck_assert_int_eq(names_tmp("ls", &seq, buf, 5), -ENAMETOOLONG);
}
END_TEST

/* The backup of a temporary's target: its last "-new" made "-old". */
START_TEST(test_names_old)
{
	char buf[NAME_MAX + 1];

	names_old("ls" NAMES_TMP_SUFFIX, buf, sizeof(buf));
	ck_assert_str_eq(buf, "ls" NAMES_OLD_SUFFIX);
	names_old(NAMES_TMP_PREFIX "3", buf, sizeof(buf));
	ck_assert_str_eq(buf, NAMES_OLD_PREFIX "3");
	names_old("a.debunpack-new.debunpack-new", buf, sizeof(buf));
	ck_assert_str_eq(buf, "a.debunpack-new.debunpack-old");
	ck_assert(names_reserved(buf));
}
END_TEST

START_TEST(test_names_aside)
{
	char buf[NAME_MAX + 1];

	ck_assert_int_eq(names_aside("bin", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "bin" NAMES_OLD_SUFFIX);
	ck_assert(names_is_aside(buf, "bin"));
	ck_assert(!names_is_aside(buf, "bi"));
	ck_assert(!names_is_aside("bin", "bin"));
	ck_assert(!names_is_aside("bin" NAMES_OLD_SUFFIX "x", "bin"));
	ck_assert(names_reserved(buf));
	ck_assert_int_eq(names_aside("bin", buf, 4), -ENAMETOOLONG);
}
END_TEST

/* What a package may ship: a dist name is its own, not the run's. */
START_TEST(test_names_reserved)
{
	ck_assert(names_reserved("x" NAMES_TMP_SUFFIX));
	ck_assert(names_reserved("x" NAMES_OLD_SUFFIX));
	ck_assert(names_reserved(NAMES_OLD_PREFIX "12"));
	ck_assert(!names_reserved("x" NAMES_DIST_SUFFIX));
	ck_assert(!names_reserved("x.debunpack-newer"));
	ck_assert(!names_reserved("debunpack-old"));
}
END_TEST

/* names_undo, on every state a commit can leave one name in. */
static int
undo_dir(void)
{
	int fd = open(checkutil_scratch(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	return fd;
}

/* No old version, the temporary not renamed yet: it goes, nothing else. */
START_TEST(test_names_undo_new_unrenamed)
{
	int fd = undo_dir();

	checkutil_write("f" NAMES_TMP_SUFFIX, "new");
	ck_assert_int_eq(names_undo(fd, "f", "f" NAMES_TMP_SUFFIX, false), 0);
	ck_assert(!checkutil_exists("f" NAMES_TMP_SUFFIX));
	ck_assert(!checkutil_exists("f"));
	close(fd);
}
END_TEST

/* No old version, NAME linked to the temporary: both go. */
START_TEST(test_names_undo_new_linked)
{
	int fd = undo_dir();

	checkutil_write("f" NAMES_TMP_SUFFIX, "new");
	ck_assert_int_eq(linkat(fd, "f" NAMES_TMP_SUFFIX, fd, "f", 0), 0);
	ck_assert_int_eq(names_undo(fd, "f", "f" NAMES_TMP_SUFFIX, false), 1);
	ck_assert(!checkutil_exists("f" NAMES_TMP_SUFFIX));
	ck_assert(!checkutil_exists("f"));
	close(fd);
}
END_TEST

/* No old version, renamed: the new NAME goes; a file of another inode
   at NAME beside a temporary is not the run's and stays. */
START_TEST(test_names_undo_new_renamed)
{
	int fd = undo_dir();

	checkutil_write("f", "new");
	ck_assert_int_eq(names_undo(fd, "f", "f" NAMES_TMP_SUFFIX, false), 1);
	ck_assert(!checkutil_exists("f"));
	checkutil_write("g", "not ours");
	checkutil_write("g" NAMES_TMP_SUFFIX, "new");
	ck_assert_int_eq(names_undo(fd, "g", "g" NAMES_TMP_SUFFIX, false), 0);
	checkutil_assert_content("g", "not ours");
	ck_assert(!checkutil_exists("g" NAMES_TMP_SUFFIX));
	close(fd);
}
END_TEST

/* An old version, renamed over or not: the old one is back, alone. */
START_TEST(test_names_undo_old)
{
	int fd = undo_dir();

	/* Renamed: NAME is new, the backup holds the old one. */
	checkutil_write("f", "new");
	checkutil_write("f" NAMES_OLD_SUFFIX, "old");
	ck_assert_int_eq(names_undo(fd, "f", "f" NAMES_TMP_SUFFIX, true), 1);
	checkutil_assert_content("f", "old");
	ck_assert(!checkutil_exists("f" NAMES_OLD_SUFFIX));
	/* Not renamed: the backup is a second link of NAME. */
	checkutil_write("g", "old");
	checkutil_write("g" NAMES_TMP_SUFFIX, "new");
	ck_assert_int_eq(linkat(fd, "g", fd, "g" NAMES_OLD_SUFFIX, 0), 0);
	ck_assert_int_eq(names_undo(fd, "g", "g" NAMES_TMP_SUFFIX, true), 1);
	checkutil_assert_content("g", "old");
	ck_assert(!checkutil_exists("g" NAMES_OLD_SUFFIX));
	ck_assert(!checkutil_exists("g" NAMES_TMP_SUFFIX));
	close(fd);
}
END_TEST

/* An empty directory a file replaced comes back in the file's place. */
START_TEST(test_names_undo_old_dir)
{
	struct stat st;
	int fd = undo_dir();

	checkutil_write("d", "file");
	checkutil_mkdir("d" NAMES_OLD_SUFFIX);
	ck_assert_int_eq(names_undo(fd, "d", "d" NAMES_TMP_SUFFIX, true), 1);
	ck_assert_int_eq(fstatat(fd, "d", &st, AT_SYMLINK_NOFOLLOW), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert(!checkutil_exists("d" NAMES_OLD_SUFFIX));
	close(fd);
}
END_TEST

static Suite *
names_suite(void)
{
	Suite *s = suite_create("names");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_test(tc, test_names_path_plain);
	tcase_add_test(tc, test_names_path_leading_dot_slash);
	tcase_add_test(tc, test_names_path_leading_slash);
	tcase_add_test(tc, test_names_path_trailing_slash);
	tcase_add_test(tc, test_names_path_root);
	tcase_add_test(tc, test_names_path_not_reserved);
	tcase_add_test(tc, test_names_tmp_suffix);
	tcase_add_test(tc, test_names_old);
	tcase_add_test(tc, test_names_aside);
	tcase_add_test(tc, test_names_reserved);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_test(tc, test_names_path_newline);
	tcase_add_test(tc, test_names_path_dotdot);
	tcase_add_test(tc, test_names_path_dot);
	tcase_add_test(tc, test_names_path_empty_component);
	tcase_add_test(tc, test_names_path_empty);
	tcase_add_test(tc, test_names_path_reserved);
	tcase_add_test(tc, test_names_path_name_max);
	tcase_add_test(tc, test_names_path_path_max);
	tcase_add_test(tc, test_names_path_small_buffer);
	tcase_add_test(tc, test_names_tmp_counter);
	suite_add_tcase(s, tc);

	tc = checkutil_scratch_tcase(s, "undo", NULL, NULL);
	tcase_add_test(tc, test_names_undo_new_unrenamed);
	tcase_add_test(tc, test_names_undo_new_linked);
	tcase_add_test(tc, test_names_undo_new_renamed);
	tcase_add_test(tc, test_names_undo_old);
	tcase_add_test(tc, test_names_undo_old_dir);
	return s;
}

int
main(void)
{
	return checkutil_run(names_suite());
}
