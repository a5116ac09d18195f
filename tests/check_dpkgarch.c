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
#include "db/dpkgstatus.h"
#include "deb/control.h"
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

/*
 * Without an architecture given, the one of the dpkg installed in the
 * root's status, not of its other stanzas nor of a dpkg only remembered
 * (config-files); the host's where the root has no dpkg.
 */
START_TEST(test_dpkgarch_root_native)
{
	static const char *const others =
	    "Package: dpkg-dev\nStatus: install ok installed\n"
	    "Architecture: s390x\nVersion: 1\n\n"
	    "Package: libdpkg-perl\nStatus: install ok installed\n"
	    "Architecture: s390x\nVersion: 1\n\n";
	struct dpkgarch a;
	struct dbp_error err;
	struct rootfs rf;
	char text[1024], msg[128];

	arch_dbdir();
	arch_root(&rf);
	/* No status: the host's. */
	ck_assert_int_eq(dpkgarch_load(&a, &rf, NULL, &err), 0);
	ck_assert_str_eq(a.native, dpkgarch_builtin());
	dpkgarch_clear(&a);
	/* dpkg only remembered, others of another architecture. */
	snprintf(text, sizeof(text), "%sPackage: dpkg\nStatus: deinstall ok"
	    " config-files\nArchitecture: mips64el\nVersion: 1\n\n", others);
	checkutil_write("var/lib/dpkg/status", text);
	ck_assert_int_eq(dpkgarch_load(&a, &rf, NULL, &err), 0);
	ck_assert_str_eq(a.native, dpkgarch_builtin());
	dpkgarch_clear(&a);
	/* dpkg installed, last and without a blank line after it. */
	snprintf(text, sizeof(text), "%sPackage: dpkg\nEssential: yes\n"
	    "Status: install ok installed\nPriority: required\n"
	    "Architecture: arm64\nVersion: 1.21.22", others);
	checkutil_write("var/lib/dpkg/status", text);
	ck_assert_int_eq(dpkgarch_load(&a, &rf, NULL, &err), 0);
	ck_assert_str_eq(a.native, "arm64");
	ck_assert_int_eq(dpkgarch_check(&a, "arm64", msg, sizeof(msg)), 0);
	ck_assert_int_eq(dpkgarch_check(&a, "amd64", msg, sizeof(msg)),
	    -EINVAL);
	ck_assert_str_eq(msg, "package architecture (amd64) does not match"
	    " system (arm64)");
	dpkgarch_clear(&a);
	/* Given, it wins. */
	ck_assert_int_eq(dpkgarch_load(&a, &rf, "amd64", &err), 0);
	ck_assert_str_eq(a.native, "amd64");
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

static struct control *
arch_ctl(const char *arch, const char *ma)
{
	struct control *c;
	struct dbp_error err;
	char text[256];

	snprintf(text, sizeof(text), "Package: lib\nVersion: 1\n"
	    "Architecture: %s\n%s%s%s", arch, ma != NULL ? "Multi-Arch: " : "",
	    ma != NULL ? ma : "", ma != NULL ? "\n" : "");
	ck_assert_int_eq(control_parse(text, strlen(text), &c, &err), 0);
	return c;
}

START_TEST(test_dpkgarch_coinstance)
{
	static const char two[] =
	    "Package: lib\nStatus: install ok installed\nArchitecture: amd64\n"
	    "Multi-Arch: same\nVersion: 1\n\n"
	    "Package: lib\nStatus: install ok unpacked\nArchitecture: i386\n"
	    "Multi-Arch: same\nVersion: 1\n\n"
	    "Package: lib\nStatus: purge ok not-installed\nArchitecture: armhf\n"
	    "Multi-Arch: same\n\n";
	struct control *same64 = arch_ctl("amd64", "same");
	struct control *same32 = arch_ctl("i386", "same");
	struct control *samearm = arch_ctl("armhf", "same");
	struct control *no32 = arch_ctl("i386", NULL);
	struct control *all = arch_ctl("all", "foreign");
	struct dpkgstatus st = { NULL, 0 };
	char msg[256];

	/* Nothing installed, or the same instance again: no refusal. */
	ck_assert_int_eq(dpkgarch_coinstance(NULL, NULL, same64, msg,
	    sizeof(msg)), 0);
	ck_assert_int_eq(dpkgarch_coinstance(same64, NULL, same64, msg,
	    sizeof(msg)), 0);
	/*
	 * A record's instance of another architecture: beside it, refused
	 * without dpkg's database.
	 */
	ck_assert_int_eq(dpkgarch_coinstance(same64, NULL, same32, msg,
	    sizeof(msg)), -EEXIST);
	ck_assert_str_eq(msg, "'lib:i386' would sit beside 'lib:amd64':"
	    " without dpkg's database (--dpkg-db) debunpack keeps one"
	    " instance of a package");
	/* A crossgrade from one instance to Multi-Arch: no is an upgrade. */
	ck_assert_int_eq(dpkgarch_coinstance(same64, NULL, no32, msg,
	    sizeof(msg)), 0);
	/*
	 * dpkg's two instances: a third beside them, or one again, is
	 * unpacked (the record of an instance is NAME:ARCH's); one not
	 * Multi-Arch: same in their place is refused.
	 */
	ck_assert_int_eq(dpkgstatus_parse(&st, two, strlen(two)), 0);
	ck_assert_int_eq(dpkgarch_coinstance(NULL, &st, samearm, msg,
	    sizeof(msg)), 0);
	ck_assert_int_eq(dpkgarch_coinstance(same64, &st, same32, msg,
	    sizeof(msg)), 0);
	ck_assert_int_eq(dpkgarch_coinstance(NULL, &st, same64, msg,
	    sizeof(msg)), 0);
	ck_assert_int_eq(dpkgarch_coinstance(NULL, &st, all, msg,
	    sizeof(msg)), -EEXIST);
	ck_assert_str_eq(msg, "package lib:all (1) with field 'Multi-Arch:"
	    " foreign' is not co-installable with lib which has multiple"
	    " installed instances");
	/* One of the instances' arch counts them all, as dpkg does. */
	ck_assert_int_eq(dpkgarch_coinstance(NULL, &st, no32, msg,
	    sizeof(msg)), -EEXIST);
	ck_assert_str_eq(msg, "package lib:i386 (1) with field 'Multi-Arch:"
	    " no' is not co-installable with lib which has multiple"
	    " installed instances");
	dpkgstatus_clear(&st);
	control_free(same64);
	control_free(same32);
	control_free(samearm);
	control_free(no32);
	control_free(all);
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
	tcase_add_test(tc, test_dpkgarch_root_native);
	tcase_add_test(tc, test_dpkgarch_unreadable);
	tcase_add_test(tc, test_dpkgarch_coinstance);
	return s;
}

int
main(void)
{
	return checkutil_run(dpkgarch_suite());
}
