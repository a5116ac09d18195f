/* SPDX-License-Identifier: MIT */
/* Unit tests of dpkgarch.c: the architectures a root takes, as dpkg decides them. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkutil.h"
#include "db/dpkgarch.h"
#include "durable/rootfs.h"

static void
arch_root(struct rootfs *rf)
{
	struct dbp_error err;

	ck_assert_int_eq(rootfs_open(rf, checkutil_scratch(), &err), 0);
}

static void
arch_dbdir(void)
{
	checkutil_mkdir("var");
	checkutil_mkdir("var/lib");
	checkutil_mkdir("var/lib/dpkg");
}

START_TEST(test_dpkgarch_builtin)
{
	/* The build host's dpkg is the reference where it has one. */
	FILE *fp = popen("dpkg --print-architecture 2>/dev/null", "r");
	char line[64] = "";

	ck_assert_ptr_nonnull(dpkgarch_builtin());
	if (fp != NULL && fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		ck_assert_str_eq(dpkgarch_builtin(), line);
	}
	if (fp != NULL)
		pclose(fp);
}
END_TEST

START_TEST(test_dpkgarch_no_file)
{
	struct dpkgarch a;
	struct dbp_error err;
	struct rootfs rf;
	char msg[128];

	arch_root(&rf);
	/* No var/lib/dpkg at all: the native architecture and "all". */
	ck_assert_int_eq(dpkgarch_load(&a, &rf, "amd64", &err), 0);
	ck_assert_uint_eq(a.nforeign, 0);
	ck_assert_int_eq(dpkgarch_check(&a, "amd64", msg, sizeof(msg)), 0);
	ck_assert_int_eq(dpkgarch_check(&a, "all", msg, sizeof(msg)), 0);
	ck_assert_int_eq(dpkgarch_check(&a, "i386", msg, sizeof(msg)),
	    -EINVAL);
	ck_assert_str_eq(msg, "package architecture (i386) does not match"
	    " system (amd64)");
	/* "any" is no package's architecture to install. */
	ck_assert_int_eq(dpkgarch_check(&a, "any", msg, sizeof(msg)),
	    -EINVAL);
	dpkgarch_clear(&a);
	rootfs_close(&rf);
}
END_TEST

START_TEST(test_dpkgarch_file)
{
	struct dpkgarch a;
	struct dbp_error err;
	struct rootfs rf;
	char msg[128];

	arch_dbdir();
	/* As dpkg --add-architecture writes it, and what dpkg ignores. */
	checkutil_write("var/lib/dpkg/arch", "amd64\ni386\nall\nany\n\n"
	    "Bad_Name\narmhf\ni386\narm64");
	arch_root(&rf);
	ck_assert_int_eq(dpkgarch_load(&a, &rf, "amd64", &err), 0);
	ck_assert_uint_eq(a.nforeign, 3);
	ck_assert_str_eq(a.foreign[0], "i386");
	ck_assert_str_eq(a.foreign[1], "armhf");
	ck_assert_str_eq(a.foreign[2], "arm64");
	ck_assert_int_eq(dpkgarch_check(&a, "i386", msg, sizeof(msg)), 0);
	ck_assert_int_eq(dpkgarch_check(&a, "arm64", msg, sizeof(msg)), 0);
	ck_assert_int_eq(dpkgarch_check(&a, "s390x", msg, sizeof(msg)),
	    -EINVAL);
	dpkgarch_clear(&a);
	/* Another native architecture: amd64 is then foreign only if listed. */
	ck_assert_int_eq(dpkgarch_load(&a, &rf, "i386", &err), 0);
	ck_assert_uint_eq(a.nforeign, 3);
	ck_assert_str_eq(a.foreign[0], "amd64");
	ck_assert_int_eq(dpkgarch_check(&a, "i386", msg, sizeof(msg)), 0);
	dpkgarch_clear(&a);
	rootfs_close(&rf);
}
END_TEST

START_TEST(test_dpkgarch_unreadable)
{
	struct dpkgarch a;
	struct dbp_error err;
	struct rootfs rf;

	arch_dbdir();
	/* A directory where the file should be: an error naming the file. */
	checkutil_mkdir("var/lib/dpkg/arch");
	arch_root(&rf);
	ck_assert_int_lt(dpkgarch_load(&a, &rf, "amd64", &err), 0);
	ck_assert_str_eq(err.path, "var/lib/dpkg/arch");
	ck_assert_ptr_null(a.native);
	rootfs_close(&rf);
}
END_TEST

static Suite *
dpkgarch_suite(void)
{
	Suite *s = suite_create("dpkgarch");
	TCase *tc;

	tc = checkutil_scratch_tcase(s, "arch", NULL, NULL);
	tcase_add_test(tc, test_dpkgarch_builtin);
	tcase_add_test(tc, test_dpkgarch_no_file);
	tcase_add_test(tc, test_dpkgarch_file);
	tcase_add_test(tc, test_dpkgarch_unreadable);
	return s;
}

int
main(void)
{
	return checkutil_run(dpkgarch_suite());
}
