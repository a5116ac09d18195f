/* Unit tests of rootfs.c: paths resolved in the root never leave it. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rootfs.h"

/*
 * Scratch layout of each test:
 *   S/{sentinel,etc}          outside, three levels above the root
 *   S/x/{sentinel,etc}        outside, two levels above
 *   S/x/y/{sentinel,etc}      outside, one level above
 *   S/x/y/root                the root, holding the same names
 * and d1/d2/d3 at each level.  Every file in them reads "outside".
 * A path that escaped would land on one of the outside twins.
 */
static char base_dir[64];	/* per TCase; its teardown catches leftovers */
static char scratch[128];	/* S, per test */
static char root[192];		/* S/x/y/root */

/* Where the outside twins are, relative to S. */
static const char *const outside_prefixes[] = { "", "x/", "x/y/" };

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

static void
rm_rf(const char *path)
{
	nftw(path, unlock_entry, 16, FTW_PHYS);
	nftw(path, remove_entry, 16, FTW_PHYS | FTW_DEPTH);
}

static void
base_setup(void)
{
	snprintf(base_dir, sizeof(base_dir), "/tmp/check_rootfs.XXXXXX");
	if (mkdtemp(base_dir) == NULL) {
		perror("mkdtemp");
		abort();
	}
}

static void
base_teardown(void)
{
	rm_rf(base_dir);
}

/* Create S/REL (printf format) as a directory. */
static void
mk_dir(const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", scratch, rel);
	ck_assert_msg(mkdir(p, 0755) == 0, "mkdir %s: %s", p, strerror(errno));
}

static void
mk_file(const char *rel, const char *content)
{
	char p[PATH_MAX];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", scratch, rel);
	fp = fopen(p, "w");
	ck_assert_msg(fp != NULL, "create %s: %s", p, strerror(errno));
	fputs(content, fp);
	ck_assert_int_eq(fclose(fp), 0);
}

static void
mk_link(const char *target, const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", scratch, rel);
	ck_assert_msg(symlink(target, p) == 0, "symlink %s: %s", p,
	    strerror(errno));
}

static void
scratch_setup(void)
{
	const char *names[] = { "sentinel", "etc", "d1", "d1/d2", "d1/d2/d3" };
	char rel[64];
	size_t i, j;

	snprintf(scratch, sizeof(scratch), "%s/t.XXXXXX", base_dir);
	ck_assert_ptr_nonnull(mkdtemp(scratch));
	snprintf(root, sizeof(root), "%s/x/y/root", scratch);
	mk_dir("x");
	mk_dir("x/y");
	mk_dir("x/y/root");
	for (i = 0; i < 3; i++)
		for (j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
			snprintf(rel, sizeof(rel), "%s%s", outside_prefixes[i],
			    names[j]);
			mk_dir(rel);
			snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel),
			    "/file");
			mk_file(rel, "outside");
		}
	mk_dir("x/y/root/sentinel");
	mk_dir("x/y/root/etc");
	mk_file("x/y/root/etc/file", "inside");
	mk_dir("x/y/root/d1");
	mk_dir("x/y/root/d1/d2");
	mk_dir("x/y/root/d1/d2/d3");
	mk_file("x/y/root/file", "plain");
}

static void
scratch_teardown(void)
{
	rm_rf(scratch);
}

/*
 * Open the root for one resolution strategy: WALK forces the user-space
 * walk, otherwise openat2 is used (false when the kernel, or valgrind,
 * lacks it: that pass is then skipped).
 */
static bool
open_root(struct rootfs *rf, bool walk)
{
	struct dbp_error err;

	ck_assert_int_eq(rootfs_open(rf, root, &err), 0);
	if (walk) {
		rootfs_force_walk(rf);
		return true;
	}
	if (!rf->openat2) {
		rootfs_close(rf);
		return false;
	}
	return true;
}

#define MODE(walk)	((walk) ? "walk" : "openat2")

/*
 * REL resolves to the root's INSIDE, and to none of the same names outside
 * the root: neither the twins in the scratch directory nor the host's.
 */
static void
assert_inside(const struct rootfs *rf, bool walk, const char *rel,
    const char *inside)
{
	char p[PATH_MAX];
	struct stat got, in, out;
	size_t i;
	int fd;

	fd = rootfs_resolve(rf, rel, O_RDONLY | O_DIRECTORY);
	ck_assert_msg(fd >= 0, "%s: \"%s\": %s", MODE(walk), rel,
	    strerror(-fd));
	ck_assert_int_eq(fstat(fd, &got), 0);
	ck_assert_int_eq(close(fd), 0);
	snprintf(p, sizeof(p), "%s%s%s", root, inside[0] ? "/" : "", inside);
	ck_assert_int_eq(stat(p, &in), 0);
	ck_assert_msg(got.st_dev == in.st_dev && got.st_ino == in.st_ino,
	    "%s: \"%s\" is not root/%s", MODE(walk), rel, inside);
	for (i = 0; i < sizeof(outside_prefixes) / sizeof(outside_prefixes[0]);
	    i++) {
		snprintf(p, sizeof(p), "%s/%s%s", scratch, outside_prefixes[i],
		    inside);
		ck_assert_int_eq(stat(p, &out), 0);
		ck_assert_msg(got.st_dev != out.st_dev ||
		    got.st_ino != out.st_ino, "%s: \"%s\" escaped to %s",
		    MODE(walk), rel, p);
	}
	snprintf(p, sizeof(p), "/%s", inside);
	if (stat(p, &out) == 0)
		ck_assert_msg(got.st_dev != out.st_dev ||
		    got.st_ino != out.st_ino, "%s: \"%s\" escaped to host %s",
		    MODE(walk), rel, p);
}

/* REL opens (O_RDONLY) a file whose content is WANT. */
static void
assert_file(const struct rootfs *rf, bool walk, const char *rel,
    const char *want)
{
	char buf[64];
	ssize_t n;
	int fd;

	fd = rootfs_resolve(rf, rel, O_RDONLY);
	ck_assert_msg(fd >= 0, "%s: \"%s\": %s", MODE(walk), rel,
	    strerror(-fd));
	n = read(fd, buf, sizeof(buf) - 1);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	ck_assert_int_eq(close(fd), 0);
	ck_assert_msg(strcmp(buf, want) == 0, "%s: \"%s\" read \"%s\", not"
	    " \"%s\"", MODE(walk), rel, buf, want);
}

static void
assert_error(const struct rootfs *rf, bool walk, const char *rel, int flags,
    int errnum)
{
	int fd;

	fd = rootfs_resolve(rf, rel, flags);
	if (fd >= 0)
		close(fd);
	ck_assert_msg(fd == -errnum, "%s: \"%.60s\" gave %d (%s), not %d (%s)",
	    MODE(walk), rel, fd, fd < 0 ? strerror(-fd) : "an fd", -errnum,
	    strerror(errnum));
}

static int
count_fds(void)
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

START_TEST(test_rootfs_open_root)
{
	struct rootfs rf;
	int walk;

	for (walk = 0; walk < 2; walk++) {
		if (!open_root(&rf, walk))
			continue;
		assert_inside(&rf, walk, "", "");
		assert_inside(&rf, walk, ".", "");
		assert_inside(&rf, walk, "d1/d2/d3", "d1/d2/d3");
		assert_inside(&rf, walk, "d1/./d2/", "d1/d2");
		assert_file(&rf, walk, "etc/file", "inside");
		rootfs_close(&rf);
		ck_assert_int_eq(rf.fd, -1);
	}
}
END_TEST

START_TEST(test_rootfs_absolute_symlink)
{
	struct rootfs rf;
	int walk;

	mk_link("/etc", "x/y/root/abs_etc");
	mk_link("/etc/file", "x/y/root/abs_file");
	mk_link("/d1/d2", "x/y/root/d1/d2/d3/abs_d2");
	for (walk = 0; walk < 2; walk++) {
		if (!open_root(&rf, walk))
			continue;
		assert_inside(&rf, walk, "abs_etc", "etc");
		assert_file(&rf, walk, "abs_etc/file", "inside");
		assert_file(&rf, walk, "abs_file", "inside");
		assert_inside(&rf, walk, "d1/d2/d3/abs_d2", "d1/d2");
		assert_inside(&rf, walk, "d1/d2/d3/abs_d2/../../sentinel",
		    "sentinel");
		rootfs_close(&rf);
	}
}
END_TEST

START_TEST(test_rootfs_absolute_symlink_to_outside_path)
{
	char target[PATH_MAX];
	struct rootfs rf;
	int walk;

	/* The outside sentinel by its real absolute name: not in the root. */
	snprintf(target, sizeof(target), "%s/sentinel", scratch);
	mk_link(target, "x/y/root/outabs");
	snprintf(target, sizeof(target), "%s/etc/file", scratch);
	mk_link(target, "x/y/root/outabs_file");
	for (walk = 0; walk < 2; walk++) {
		if (!open_root(&rf, walk))
			continue;
		assert_error(&rf, walk, "outabs", O_RDONLY | O_DIRECTORY,
		    ENOENT);
		assert_error(&rf, walk, "outabs_file", O_RDONLY, ENOENT);
		rootfs_close(&rf);
	}
}
END_TEST

START_TEST(test_rootfs_relative_symlink_up)
{
	struct rootfs rf;
	int walk;

	mk_link("../../..", "x/y/root/d1/d2/up");
	mk_link("../../../../sentinel", "x/y/root/d1/up_sentinel");
	mk_link("../../../../../../etc", "x/y/root/d1/d2/d3/deep_etc");
	mk_link("../../../../..", "x/y/root/up5");
	for (walk = 0; walk < 2; walk++) {
		if (!open_root(&rf, walk))
			continue;
		assert_inside(&rf, walk, "d1/d2/up", "");
		assert_inside(&rf, walk, "d1/d2/up/sentinel", "sentinel");
		assert_inside(&rf, walk, "d1/d2/up/d1/../sentinel/../etc", "etc");
		assert_inside(&rf, walk, "d1/up_sentinel", "sentinel");
		assert_inside(&rf, walk, "d1/d2/d3/deep_etc", "etc");
		assert_file(&rf, walk, "d1/d2/d3/deep_etc/file", "inside");
		assert_inside(&rf, walk, "up5", "");
		assert_inside(&rf, walk, "up5/sentinel", "sentinel");
		rootfs_close(&rf);
	}
}
END_TEST

START_TEST(test_rootfs_symlink_to_slash)
{
	struct rootfs rf;
	int walk;

	mk_link("/", "x/y/root/slash");
	mk_link("/", "x/y/root/d1/d2/slash");
	for (walk = 0; walk < 2; walk++) {
		if (!open_root(&rf, walk))
			continue;
		assert_inside(&rf, walk, "slash", "");
		assert_inside(&rf, walk, "slash/sentinel", "sentinel");
		assert_inside(&rf, walk, "slash/../sentinel", "sentinel");
		assert_inside(&rf, walk, "slash/slash/slash/etc", "etc");
		assert_inside(&rf, walk, "d1/d2/slash/..", "");
		assert_inside(&rf, walk, "d1/d2/slash/../../etc", "etc");
		assert_file(&rf, walk, "d1/d2/slash/etc/file", "inside");
		rootfs_close(&rf);
	}
}
END_TEST

START_TEST(test_rootfs_dotdot)
{
	struct rootfs rf;
	int walk;

	for (walk = 0; walk < 2; walk++) {
		if (!open_root(&rf, walk))
			continue;
		assert_inside(&rf, walk, "..", "");
		assert_inside(&rf, walk, "../..", "");
		assert_inside(&rf, walk, "../sentinel", "sentinel");
		assert_inside(&rf, walk, "../../../sentinel", "sentinel");
		assert_inside(&rf, walk, "../../../../../../../etc", "etc");
		assert_inside(&rf, walk, "d1/../../../sentinel", "sentinel");
		assert_inside(&rf, walk, "d1/d2/../..", "");
		assert_inside(&rf, walk, "d1/d2/d3/../../../../etc", "etc");
		assert_file(&rf, walk, "../../../etc/file", "inside");
		assert_file(&rf, walk, "/../etc/file", "inside");
		rootfs_close(&rf);
	}
}
END_TEST

/* "link/.." is the parent of the link's target, as in the kernel. */
START_TEST(test_rootfs_symlink_then_dotdot)
{
	struct rootfs rf;
	int walk;

	mk_link("d1/d2/d3", "x/y/root/l123");
	mk_link("l123", "x/y/root/ll");
	for (walk = 0; walk < 2; walk++) {
		if (!open_root(&rf, walk))
			continue;
		assert_inside(&rf, walk, "l123/..", "d1/d2");
		assert_inside(&rf, walk, "ll/../..", "d1");
		assert_inside(&rf, walk, "ll/../../../..", "");
		rootfs_close(&rf);
	}
}
END_TEST

START_TEST(test_rootfs_symlink_loop)
{
	struct rootfs rf;
	int walk;

	mk_link("loop2", "x/y/root/loop1");
	mk_link("loop1", "x/y/root/loop2");
	mk_link("self", "x/y/root/self");
	mk_link("/d1/back", "x/y/root/d1/back");
	mk_link("../loop1", "x/y/root/d1/toloop");
	for (walk = 0; walk < 2; walk++) {
		if (!open_root(&rf, walk))
			continue;
		assert_error(&rf, walk, "loop1", O_RDONLY, ELOOP);
		assert_error(&rf, walk, "loop1/x", O_RDONLY, ELOOP);
		assert_error(&rf, walk, "self", O_RDONLY | O_DIRECTORY, ELOOP);
		assert_error(&rf, walk, "d1/back/etc", O_RDONLY, ELOOP);
		assert_error(&rf, walk, "d1/toloop", O_RDONLY, ELOOP);
		rootfs_close(&rf);
	}
}
END_TEST

/* Linux follows 40 symlinks in one lookup and refuses the 41st. */
START_TEST(test_rootfs_symlink_limit)
{
	char name[64], target[64];
	struct rootfs rf;
	int i, walk;

	/* a0 -> a1 -> ... -> a39 -> sentinel: 40 links. */
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "x/y/root/a%d", i);
		if (i == 39)
			snprintf(target, sizeof(target), "sentinel");
		else
			snprintf(target, sizeof(target), "a%d", i + 1);
		mk_link(target, name);
	}
	/* b0 -> ... -> b40 -> sentinel: 41 links. */
	for (i = 0; i < 41; i++) {
		snprintf(name, sizeof(name), "x/y/root/b%d", i);
		if (i == 40)
			snprintf(target, sizeof(target), "sentinel");
		else
			snprintf(target, sizeof(target), "b%d", i + 1);
		mk_link(target, name);
	}
	for (walk = 0; walk < 2; walk++) {
		if (!open_root(&rf, walk))
			continue;
		assert_inside(&rf, walk, "a0", "sentinel");
		assert_error(&rf, walk, "b0", O_RDONLY | O_DIRECTORY, ELOOP);
		rootfs_close(&rf);
	}
}
END_TEST

START_TEST(test_rootfs_enotdir)
{
	struct rootfs rf;
	int walk;

	mk_link("file", "x/y/root/tofile");
	for (walk = 0; walk < 2; walk++) {
		if (!open_root(&rf, walk))
			continue;
		assert_error(&rf, walk, "file/x", O_RDONLY, ENOTDIR);
		assert_error(&rf, walk, "file/x/y", O_RDONLY | O_DIRECTORY,
		    ENOTDIR);
		assert_error(&rf, walk, "file", O_RDONLY | O_DIRECTORY, ENOTDIR);
		assert_error(&rf, walk, "tofile/x", O_RDONLY, ENOTDIR);
		assert_error(&rf, walk, "etc/file/..", O_RDONLY, ENOTDIR);
		assert_file(&rf, walk, "tofile", "plain");
		rootfs_close(&rf);
	}
}
END_TEST

/* open(2) refuses "file/" with ENOTDIR; the walk must do the same. */
START_TEST(test_rootfs_trailing_slash_on_file)
{
	struct rootfs rf;
	int walk;

	for (walk = 0; walk < 2; walk++) {
		if (!open_root(&rf, walk))
			continue;
		assert_error(&rf, walk, "file/", O_RDONLY, ENOTDIR);
		assert_error(&rf, walk, "etc/file/", O_RDONLY, ENOTDIR);
		rootfs_close(&rf);
	}
}
END_TEST

START_TEST(test_rootfs_enoent)
{
	struct rootfs rf;
	int walk;

	mk_link("nowhere", "x/y/root/dangling");
	for (walk = 0; walk < 2; walk++) {
		if (!open_root(&rf, walk))
			continue;
		assert_error(&rf, walk, "missing", O_RDONLY, ENOENT);
		assert_error(&rf, walk, "missing/x", O_RDONLY, ENOENT);
		assert_error(&rf, walk, "d1/missing", O_RDONLY, ENOENT);
		assert_error(&rf, walk, "dangling", O_RDONLY, ENOENT);
		assert_error(&rf, walk, "dangling/x", O_RDONLY, ENOENT);
		rootfs_close(&rf);
	}
}
END_TEST

START_TEST(test_rootfs_name_too_long)
{
	struct rootfs rf;
	char *p;
	int walk;

	p = malloc(PATH_MAX + 1);
	ck_assert_ptr_nonnull(p);
	memset(p, 'a', PATH_MAX);
	p[PATH_MAX] = '\0';
	for (walk = 0; walk < 2; walk++) {
		if (!open_root(&rf, walk))
			continue;
		assert_error(&rf, walk, p, O_RDONLY, ENAMETOOLONG);
		rootfs_close(&rf);
	}
	free(p);
}
END_TEST

START_TEST(test_rootfs_no_fd_leak)
{
	static const char *const rels[] = {
		"", "d1/d2/d3", "slash/etc", "up/sentinel", "loop", "file/x",
		"missing/x", "etc/file", "d1/d2/d3/../../../..",
	};
	struct rootfs rf;
	size_t i;
	int before, walk, round, fd;

	mk_link("/", "x/y/root/slash");
	mk_link("..", "x/y/root/up");
	mk_link("loop", "x/y/root/loop");
	before = count_fds();
	for (walk = 0; walk < 2; walk++) {
		if (!open_root(&rf, walk))
			continue;
		for (round = 0; round < 50; round++)
			for (i = 0; i < sizeof(rels) / sizeof(rels[0]); i++) {
				fd = rootfs_resolve(&rf, rels[i], O_RDONLY);
				if (fd >= 0)
					close(fd);
			}
		rootfs_close(&rf);
		ck_assert_int_eq(count_fds(), before);
	}
}
END_TEST

START_TEST(test_rootfs_open_errors)
{
	struct dbp_error err;
	struct rootfs rf;
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/missing", scratch);
	dbp_err_clear(&err);
	ck_assert_int_eq(rootfs_open(&rf, p, &err), -ENOENT);
	ck_assert_str_eq(err.path, p);
	ck_assert_int_eq(err.errnum, ENOENT);
	snprintf(p, sizeof(p), "%s/file", root);
	ck_assert_int_eq(rootfs_open(&rf, p, &err), -ENOTDIR);
}
END_TEST

static Suite *
rootfs_suite(void)
{
	Suite *s = suite_create("rootfs");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_unchecked_fixture(tc, base_setup, base_teardown);
	tcase_add_checked_fixture(tc, scratch_setup, scratch_teardown);
	tcase_add_test(tc, test_rootfs_open_root);
	tcase_add_test(tc, test_rootfs_absolute_symlink);
	tcase_add_test(tc, test_rootfs_absolute_symlink_to_outside_path);
	tcase_add_test(tc, test_rootfs_relative_symlink_up);
	tcase_add_test(tc, test_rootfs_symlink_to_slash);
	tcase_add_test(tc, test_rootfs_dotdot);
	tcase_add_test(tc, test_rootfs_symlink_then_dotdot);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_unchecked_fixture(tc, base_setup, base_teardown);
	tcase_add_checked_fixture(tc, scratch_setup, scratch_teardown);
	tcase_add_test(tc, test_rootfs_symlink_loop);
	tcase_add_test(tc, test_rootfs_symlink_limit);
	tcase_add_test(tc, test_rootfs_enotdir);
	tcase_add_test(tc, test_rootfs_trailing_slash_on_file);
	tcase_add_test(tc, test_rootfs_enoent);
	tcase_add_test(tc, test_rootfs_name_too_long);
	tcase_add_test(tc, test_rootfs_no_fd_leak);
	tcase_add_test(tc, test_rootfs_open_errors);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(rootfs_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
