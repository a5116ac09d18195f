/* SPDX-License-Identifier: MIT */
/* Unit tests of rootfs.c: paths resolved in the root never leave it. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkutil.h"
#include "durable/rootfs.h"

/*
 * Scratch layout of each test:
 *   S/{sentinel,etc}          outside, three levels above the root
 *   S/x/{sentinel,etc}        outside, two levels above
 *   S/x/y/{sentinel,etc}      outside, one level above
 *   S/x/y/root                the root, holding the same names
 * and d1/d2/d3 at each level.  Every file in them reads "outside".
 * A path that escaped would land on one of the outside twins.
 */
static char root[192];		/* S/x/y/root */

/* Where the outside twins are, relative to S. */
static const char *const outside_prefixes[] = { "", "x/", "x/y/" };

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

/* The root, opened by setup() once per strategy there is (see open_root). */
static struct {
	struct rootfs rf;
	const char *mode;	/* MODE(walk), for the messages */
} roots[2];
static int nroots;

static void
setup(void)
{
	const char *names[] = { "sentinel", "etc", "d1", "d1/d2", "d1/d2/d3" };
	char rel[64];
	size_t i, j;
	int walk;

	snprintf(root, sizeof(root), "%s", checkutil_at("x/y/root"));
	checkutil_mkdir("x");
	checkutil_mkdir("x/y");
	checkutil_mkdir("x/y/root");
	for (i = 0; i < 3; i++)
		for (j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
			snprintf(rel, sizeof(rel), "%s%s", outside_prefixes[i],
			    names[j]);
			checkutil_mkdir(rel);
			snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel),
			    "/file");
			checkutil_write(rel, "outside");
		}
	checkutil_mkdir("x/y/root/sentinel");
	checkutil_mkdir("x/y/root/etc");
	checkutil_write("x/y/root/etc/file", "inside");
	checkutil_mkdir("x/y/root/d1");
	checkutil_mkdir("x/y/root/d1/d2");
	checkutil_mkdir("x/y/root/d1/d2/d3");
	checkutil_write("x/y/root/file", "plain");
	/* The tests add their symlinks after: the roots see them. */
	for (walk = 0; walk < 2; walk++)
		if (open_root(&roots[nroots].rf, walk))
			roots[nroots++].mode = MODE(walk);
}

static void
teardown(void)
{
	while (nroots > 0)
		rootfs_close(&roots[--nroots].rf);
}

/*
 * REL resolves to the root's INSIDE, and to none of the same names outside
 * the root: neither the twins in the scratch directory nor the host's.
 */
static void
assert_inside(const char *rel, const char *inside)
{
	char p[PATH_MAX];
	struct stat got, in, out;
	const char *mode;
	size_t i;
	int r, fd;

	for (r = 0; r < nroots; r++) {
		mode = roots[r].mode;
		fd = rootfs_resolve(&roots[r].rf, rel, O_RDONLY | O_DIRECTORY);
		ck_assert_msg(fd >= 0, "%s: \"%s\": %s", mode, rel,
		    strerror(-fd));
		ck_assert_int_eq(fstat(fd, &got), 0);
		ck_assert_int_eq(close(fd), 0);
		snprintf(p, sizeof(p), "%s%s%s", root, inside[0] ? "/" : "",
		    inside);
		ck_assert_int_eq(stat(p, &in), 0);
		ck_assert_msg(got.st_dev == in.st_dev &&
		    got.st_ino == in.st_ino, "%s: \"%s\" is not root/%s", mode,
		    rel, inside);
		for (i = 0; i < sizeof(outside_prefixes) /
		    sizeof(outside_prefixes[0]); i++) {
			snprintf(p, sizeof(p), "%s/%s%s", checkutil_scratch(),
			    outside_prefixes[i], inside);
			ck_assert_int_eq(stat(p, &out), 0);
			ck_assert_msg(got.st_dev != out.st_dev ||
			    got.st_ino != out.st_ino,
			    "%s: \"%s\" escaped to %s", mode, rel, p);
		}
		snprintf(p, sizeof(p), "/%s", inside);
		if (stat(p, &out) == 0)
			ck_assert_msg(got.st_dev != out.st_dev ||
			    got.st_ino != out.st_ino,
			    "%s: \"%s\" escaped to host %s", mode, rel, p);
	}
}

/* REL opens (O_RDONLY) a file whose content is WANT. */
static void
assert_file(const char *rel, const char *want)
{
	char buf[64];
	ssize_t n;
	int r, fd;

	for (r = 0; r < nroots; r++) {
		fd = rootfs_resolve(&roots[r].rf, rel, O_RDONLY);
		ck_assert_msg(fd >= 0, "%s: \"%s\": %s", roots[r].mode, rel,
		    strerror(-fd));
		n = read(fd, buf, sizeof(buf) - 1);
		ck_assert_int_ge(n, 0);
		buf[n] = '\0';
		ck_assert_int_eq(close(fd), 0);
		ck_assert_msg(strcmp(buf, want) == 0,
		    "%s: \"%s\" read \"%s\", not \"%s\"", roots[r].mode, rel,
		    buf, want);
	}
}

/* REL, opened with FLAGS, fails with ERRNUM. */
static void
assert_error(const char *rel, int flags, int errnum)
{
	int r, fd;

	for (r = 0; r < nroots; r++) {
		fd = rootfs_resolve(&roots[r].rf, rel, flags);
		if (fd >= 0)
			close(fd);
		ck_assert_msg(fd == -errnum,
		    "%s: \"%.60s\" gave %d (%s), not %d (%s)", roots[r].mode,
		    rel, fd, fd < 0 ? strerror(-fd) : "an fd", -errnum,
		    strerror(errnum));
	}
}

START_TEST(test_rootfs_open_root)
{
	int r;

	assert_inside("", "");
	assert_inside(".", "");
	assert_inside("d1/d2/d3", "d1/d2/d3");
	assert_inside("d1/./d2/", "d1/d2");
	assert_file("etc/file", "inside");
	for (r = 0; r < nroots; r++) {
		rootfs_close(&roots[r].rf);
		ck_assert_int_eq(roots[r].rf.fd, -1);
	}
}
END_TEST

START_TEST(test_rootfs_absolute_symlink)
{
	checkutil_symlink("/etc", "x/y/root/abs_etc");
	checkutil_symlink("/etc/file", "x/y/root/abs_file");
	checkutil_symlink("/d1/d2", "x/y/root/d1/d2/d3/abs_d2");
	assert_inside("abs_etc", "etc");
	assert_file("abs_etc/file", "inside");
	assert_file("abs_file", "inside");
	assert_inside("d1/d2/d3/abs_d2", "d1/d2");
	assert_inside("d1/d2/d3/abs_d2/../../sentinel", "sentinel");
}
END_TEST

START_TEST(test_rootfs_absolute_symlink_to_outside_path)
{
	char target[PATH_MAX];

	/* The outside sentinel by its real absolute name: not in the root. */
	snprintf(target, sizeof(target), "%s/sentinel", checkutil_scratch());
	checkutil_symlink(target, "x/y/root/outabs");
	snprintf(target, sizeof(target), "%s/etc/file", checkutil_scratch());
	checkutil_symlink(target, "x/y/root/outabs_file");
	assert_error("outabs", O_RDONLY | O_DIRECTORY, ENOENT);
	assert_error("outabs_file", O_RDONLY, ENOENT);
}
END_TEST

START_TEST(test_rootfs_relative_symlink_up)
{
	checkutil_symlink("../../..", "x/y/root/d1/d2/up");
	checkutil_symlink("../../../../sentinel", "x/y/root/d1/up_sentinel");
	checkutil_symlink("../../../../../../etc",
	    "x/y/root/d1/d2/d3/deep_etc");
	checkutil_symlink("../../../../..", "x/y/root/up5");
	assert_inside("d1/d2/up", "");
	assert_inside("d1/d2/up/sentinel", "sentinel");
	assert_inside("d1/d2/up/d1/../sentinel/../etc", "etc");
	assert_inside("d1/up_sentinel", "sentinel");
	assert_inside("d1/d2/d3/deep_etc", "etc");
	assert_file("d1/d2/d3/deep_etc/file", "inside");
	assert_inside("up5", "");
	assert_inside("up5/sentinel", "sentinel");
}
END_TEST

START_TEST(test_rootfs_symlink_to_slash)
{
	checkutil_symlink("/", "x/y/root/slash");
	checkutil_symlink("/", "x/y/root/d1/d2/slash");
	assert_inside("slash", "");
	assert_inside("slash/sentinel", "sentinel");
	assert_inside("slash/../sentinel", "sentinel");
	assert_inside("slash/slash/slash/etc", "etc");
	assert_inside("d1/d2/slash/..", "");
	assert_inside("d1/d2/slash/../../etc", "etc");
	assert_file("d1/d2/slash/etc/file", "inside");
}
END_TEST

START_TEST(test_rootfs_dotdot)
{
	assert_inside("..", "");
	assert_inside("../..", "");
	assert_inside("../sentinel", "sentinel");
	assert_inside("../../../sentinel", "sentinel");
	assert_inside("../../../../../../../etc", "etc");
	assert_inside("d1/../../../sentinel", "sentinel");
	assert_inside("d1/d2/../..", "");
	assert_inside("d1/d2/d3/../../../../etc", "etc");
	assert_file("../../../etc/file", "inside");
	assert_file("/../etc/file", "inside");
}
END_TEST

/* "link/.." is the parent of the link's target, as in the kernel. */
START_TEST(test_rootfs_symlink_then_dotdot)
{
	checkutil_symlink("d1/d2/d3", "x/y/root/l123");
	checkutil_symlink("l123", "x/y/root/ll");
	assert_inside("l123/..", "d1/d2");
	assert_inside("ll/../..", "d1");
	assert_inside("ll/../../../..", "");
}
END_TEST

START_TEST(test_rootfs_symlink_loop)
{
	checkutil_symlink("loop2", "x/y/root/loop1");
	checkutil_symlink("loop1", "x/y/root/loop2");
	checkutil_symlink("self", "x/y/root/self");
	checkutil_symlink("/d1/back", "x/y/root/d1/back");
	checkutil_symlink("../loop1", "x/y/root/d1/toloop");
	assert_error("loop1", O_RDONLY, ELOOP);
	assert_error("loop1/x", O_RDONLY, ELOOP);
	assert_error("self", O_RDONLY | O_DIRECTORY, ELOOP);
	assert_error("d1/back/etc", O_RDONLY, ELOOP);
	assert_error("d1/toloop", O_RDONLY, ELOOP);
}
END_TEST

/* P0 -> P1 -> ... -> P<N-1> -> sentinel in the root: N links. */
static void
mk_chain(const char *p, int n)
{
	char name[64], target[64];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "x/y/root/%s%d", p, i);
		if (i == n - 1)
			snprintf(target, sizeof(target), "sentinel");
		else
			snprintf(target, sizeof(target), "%s%d", p, i + 1);
		checkutil_symlink(target, name);
	}
}

/* Linux follows 40 symlinks in one lookup and refuses the 41st. */
START_TEST(test_rootfs_symlink_limit)
{
	mk_chain("a", 40);	/* a0 -> ... -> a39 -> sentinel */
	mk_chain("b", 41);	/* b0 -> ... -> b40 -> sentinel */
	assert_inside("a0", "sentinel");
	assert_error("b0", O_RDONLY | O_DIRECTORY, ELOOP);
}
END_TEST

START_TEST(test_rootfs_enotdir)
{
	checkutil_symlink("file", "x/y/root/tofile");
	assert_error("file/x", O_RDONLY, ENOTDIR);
	assert_error("file/x/y", O_RDONLY | O_DIRECTORY, ENOTDIR);
	assert_error("file", O_RDONLY | O_DIRECTORY, ENOTDIR);
	assert_error("tofile/x", O_RDONLY, ENOTDIR);
	assert_error("etc/file/..", O_RDONLY, ENOTDIR);
	assert_file("tofile", "plain");
}
END_TEST

/* open(2) refuses "file/" with ENOTDIR; the walk must do the same. */
START_TEST(test_rootfs_trailing_slash_on_file)
{
	assert_error("file/", O_RDONLY, ENOTDIR);
	assert_error("etc/file/", O_RDONLY, ENOTDIR);
}
END_TEST

START_TEST(test_rootfs_enoent)
{
	checkutil_symlink("nowhere", "x/y/root/dangling");
	assert_error("missing", O_RDONLY, ENOENT);
	assert_error("missing/x", O_RDONLY, ENOENT);
	assert_error("d1/missing", O_RDONLY, ENOENT);
	assert_error("dangling", O_RDONLY, ENOENT);
	assert_error("dangling/x", O_RDONLY, ENOENT);
}
END_TEST

START_TEST(test_rootfs_name_too_long)
{
	char *p;

	p = malloc(PATH_MAX + 1);
	ck_assert_ptr_nonnull(p);
	memset(p, 'a', PATH_MAX);
	p[PATH_MAX] = '\0';
	assert_error(p, O_RDONLY, ENAMETOOLONG);
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

	checkutil_symlink("/", "x/y/root/slash");
	checkutil_symlink("..", "x/y/root/up");
	checkutil_symlink("loop", "x/y/root/loop");
	before = checkutil_count_fds();
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
		ck_assert_int_eq(checkutil_count_fds(), before);
	}
}
END_TEST

START_TEST(test_rootfs_open_errors)
{
	struct dbp_error err;
	struct rootfs rf;
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/missing", checkutil_scratch());
	dbp_err_clear(&err);
	ck_assert_int_eq(rootfs_open(&rf, p, &err), -ENOENT);
	ck_assert_str_eq(err.path, p);
	ck_assert_int_eq(err.errnum, ENOENT);
	snprintf(p, sizeof(p), "%s/file", root);
	ck_assert_int_eq(rootfs_open(&rf, p, &err), -ENOTDIR);
}
END_TEST

/*
 * dpkg's database elsewhere: S/x/db stands for the root's var/lib/dpkg.
 * Each strategy gets its own rootfs here; they are closed at the end.
 */
static int
dpkg_roots(struct rootfs *rfs)
{
	struct dbp_error err;
	int walk, n = 0;

	checkutil_mkdir("x/db");
	checkutil_mkdir("x/db/info");
	checkutil_write("x/db/status", "outside db");
	checkutil_mkdir("x/y/root/var");
	checkutil_mkdir("x/y/root/var/lib");
	checkutil_mkdir("x/y/root/var/lib/dpkg");
	checkutil_write("x/y/root/var/lib/dpkg/status", "root db");
	checkutil_write("x/y/root/var/lib/dpkgx", "beside");
	checkutil_symlink("/etc", "x/db/abs");
	checkutil_symlink("../../sentinel", "x/db/up");
	for (walk = 0; walk < 2; walk++) {
		if (!open_root(&rfs[n], walk))
			continue;
		ck_assert_int_eq(rootfs_open_dpkg(&rfs[n], checkutil_at("x/db"),
		    &err), 0);
		n++;
	}
	return n;
}

/* REL in RF reads WANT. */
static void
assert_read(const struct rootfs *rf, const char *rel, const char *want)
{
	char buf[64];
	ssize_t n;
	int fd;

	fd = rootfs_resolve(rf, rel, O_RDONLY);
	ck_assert_msg(fd >= 0, "\"%s\": %s", rel, strerror(-fd));
	n = read(fd, buf, sizeof(buf) - 1);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	ck_assert_int_eq(close(fd), 0);
	ck_assert_msg(strcmp(buf, want) == 0, "\"%s\" read \"%s\", not"
	    " \"%s\"", rel, buf, want);
}

START_TEST(test_rootfs_dpkg_elsewhere)
{
	struct rootfs rfs[2];
	struct stat a, b;
	int i, n, fd, before = checkutil_count_fds();

	n = dpkg_roots(rfs);
	for (i = 0; i < n; i++) {
		assert_read(&rfs[i], "var/lib/dpkg/status", "outside db");
		assert_read(&rfs[i], "/var/lib/dpkg/status", "outside db");
		assert_read(&rfs[i], "./var/lib/dpkg//status", "outside db");
		/* Only the directory and what is under it. */
		assert_read(&rfs[i], "var/lib/dpkgx", "beside");
		assert_read(&rfs[i], "etc/file", "inside");
		fd = rootfs_resolve(&rfs[i], "var/lib/dpkg", O_RDONLY |
		    O_DIRECTORY);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(fstat(fd, &a), 0);
		ck_assert_int_eq(close(fd), 0);
		ck_assert_int_eq(stat(checkutil_at("x/db"), &b), 0);
		ck_assert(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
		/* Nothing leaves it: "/" and ".." stop at the directory. */
		ck_assert_int_eq(rootfs_resolve(&rfs[i], "var/lib/dpkg/abs/file",
		    O_RDONLY), -ENOENT);
		ck_assert_int_eq(rootfs_resolve(&rfs[i], "var/lib/dpkg/up/file",
		    O_RDONLY), -ENOENT);
		ck_assert_int_eq(rootfs_resolve(&rfs[i], "var/lib/dpkg/../file",
		    O_RDONLY), -ENOENT);
		rootfs_close(&rfs[i]);
		ck_assert_int_eq(rfs[i].fd, -1);
	}
	ck_assert_int_eq(checkutil_count_fds(), before);
}
END_TEST

START_TEST(test_rootfs_dpkg_missing)
{
	struct dbp_error err;
	struct rootfs rf;
	char p[PATH_MAX];

	ck_assert_int_eq(rootfs_open(&rf, root, &err), 0);
	snprintf(p, sizeof(p), "%s/nodb", checkutil_scratch());
	dbp_err_clear(&err);
	ck_assert_int_eq(rootfs_open_dpkg(&rf, p, &err), -ENOENT);
	ck_assert_str_eq(err.path, p);
	/* Still the root's own. */
	ck_assert(!rf.dpkg);
	rootfs_close(&rf);
}
END_TEST

static Suite *
rootfs_suite(void)
{
	Suite *s = suite_create("rootfs");
	TCase *tc;

	tc = checkutil_scratch_tcase(s, "core", setup, teardown);
	tcase_add_test(tc, test_rootfs_open_root);
	tcase_add_test(tc, test_rootfs_absolute_symlink);
	tcase_add_test(tc, test_rootfs_absolute_symlink_to_outside_path);
	tcase_add_test(tc, test_rootfs_relative_symlink_up);
	tcase_add_test(tc, test_rootfs_symlink_to_slash);
	tcase_add_test(tc, test_rootfs_dotdot);
	tcase_add_test(tc, test_rootfs_symlink_then_dotdot);

	tc = checkutil_scratch_tcase(s, "limits", setup, teardown);
	tcase_add_test(tc, test_rootfs_symlink_loop);
	tcase_add_test(tc, test_rootfs_symlink_limit);
	tcase_add_test(tc, test_rootfs_enotdir);
	tcase_add_test(tc, test_rootfs_trailing_slash_on_file);
	tcase_add_test(tc, test_rootfs_enoent);
	tcase_add_test(tc, test_rootfs_name_too_long);
	tcase_add_test(tc, test_rootfs_no_fd_leak);
	tcase_add_test(tc, test_rootfs_open_errors);

	tc = checkutil_scratch_tcase(s, "dpkg", setup, teardown);
	tcase_add_test(tc, test_rootfs_dpkg_elsewhere);
	tcase_add_test(tc, test_rootfs_dpkg_missing);
	return s;
}

int
main(void)
{
	return checkutil_run(rootfs_suite());
}
