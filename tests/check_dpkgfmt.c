/* SPDX-License-Identifier: MIT */
/* Unit tests of dpkgfmt.c: the status stanza, dependency fields, .list files. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkutil.h"
#include "deb/control.h"
#include "db/dpkgfmt.h"
#include "db/record.h"

static struct control *
parse(const char *text)
{
	struct dbp_error err;
	struct control *c = NULL;

	ck_assert_int_eq(control_parse(text, strlen(text), &c, &err), 0);
	return c;
}

/* The stanza of CTL (taken) as a string the caller frees. */
static char *
stanza(struct control *ctl, const char *status, const char *cver,
    const char *conffiles, struct record *rec)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(dpkgfmt_stanza(fp, ctl, status, cver, conffiles,
	    rec, NULL, NULL), 0);
	ck_assert_int_eq(fclose(fp), 0);
	if (rec == NULL)
		control_free(ctl);
	return buf;
}

/*
 * base-files 12.4+deb12u15 as its control file has it, and the stanza
 * dpkg 1.21 wrote for it after --unpack (but for the conffile hashes).
 */
static const char base_files_control[] =
    "Package: base-files\n"
    "Version: 12.4+deb12u15\n"
    "Architecture: amd64\n"
    "Essential: yes\n"
    "Maintainer: Santiago Vila <sanvila@debian.org>\n"
    "Installed-Size: 341\n"
    "Pre-Depends: awk\n"
    "Breaks: initscripts (<< 2.88dsf-13.3), sendfile (<< 2.1b.20080616-5.2~)\n"
    "Replaces: base, dpkg (<= 1.15.0), miscutils\n"
    "Provides: base\n"
    "Section: admin\n"
    "Priority: required\n"
    "Multi-Arch: foreign\n"
    "Description: Debian base system miscellaneous files\n"
    " This package contains the basic filesystem hierarchy of a Debian system.\n"
    " .\n"
    " Second paragraph.\n";

static const char base_files_stanza[] =
    "Package: base-files\n"
    "Essential: yes\n"
    "Status: install ok unpacked\n"
    "Priority: required\n"
    "Section: admin\n"
    "Installed-Size: 341\n"
    "Maintainer: Santiago Vila <sanvila@debian.org>\n"
    "Architecture: amd64\n"
    "Multi-Arch: foreign\n"
    "Version: 12.4+deb12u15\n"
    "Replaces: base, dpkg (<= 1.15.0), miscutils\n"
    "Provides: base\n"
    "Pre-Depends: awk\n"
    "Breaks: initscripts (<< 2.88dsf-13.3), sendfile (<< 2.1b.20080616-5.2~)\n"
    "Conffiles:\n"
    " /etc/debian_version 0123456789abcdef0123456789abcdef\n"
    " /etc/issue newconffile\n"
    "Description: Debian base system miscellaneous files\n"
    " This package contains the basic filesystem hierarchy of a Debian system.\n"
    " .\n"
    " Second paragraph.\n"
    "\n";

static void
add_entry(struct record *r, char type, const char *path, bool conffile,
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

START_TEST(test_dpkgfmt_stanza_order)
{
	static const unsigned char md5[16] = { 0x01, 0x23, 0x45, 0x67, 0x89,
	    0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
	struct record *rec;
	char *s;

	ck_assert_int_eq(record_new(&rec, parse(base_files_control)), 0);
	add_entry(rec, 'd', "/etc", false, NULL);
	add_entry(rec, 'f', "/etc/debian_version", true, md5);
	/* A conffile without an MD5 (not extracted as a file): dpkg's mark. */
	add_entry(rec, 'l', "/etc/issue", false, NULL);
	s = stanza(rec->ctl, "install ok unpacked", NULL,
	    "/etc/debian_version\n/etc/issue\n", rec);
	ck_assert_str_eq(s, base_files_stanza);
	free(s);
	record_free(rec);
}
END_TEST

/* A dpkgfmt_carried_fn: /etc/b's and /etc/d's MD5 are CTX, no other. */
static const unsigned char *
carried(void *ctx, const char *path)
{
	return strcmp(path, "/etc/b") == 0 || strcmp(path, "/etc/d") == 0 ?
	    ctx : NULL;
}

START_TEST(test_dpkgfmt_stanza_carried)
{
	static const unsigned char md5[16] = { 0x01, 0x23, 0x45, 0x67, 0x89,
	    0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
	static unsigned char old[16] = { 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54,
	    0x32, 0x10, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10 };
	struct record *rec;
	char *s = NULL;
	size_t len = 0;
	FILE *fp;

	ck_assert_int_eq(record_new(&rec, parse("Package: a\nVersion: 1\n"
	    "Architecture: all\n")), 0);
	add_entry(rec, 'f', "/etc/a", true, md5);
	/*
	 * Not the package's (another keeps it, or took it), or flagged:
	 * the hash carried over, else dpkg's mark.
	 */
	fp = open_memstream(&s, &len);
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(dpkgfmt_stanza(fp, rec->ctl, "install ok unpacked",
	    NULL, "/etc/a\n/etc/b\n/etc/c\nremove-on-upgrade /etc/d\n"
	    "remove-on-upgrade /etc/e\n", rec, carried, old), 0);
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert_str_eq(s, "Package: a\nStatus: install ok unpacked\n"
	    "Architecture: all\nVersion: 1\nConffiles:\n"
	    " /etc/a 0123456789abcdef0123456789abcdef\n"
	    " /etc/b fedcba9876543210fedcba9876543210 obsolete\n"
	    " /etc/c newconffile obsolete\n"
	    " /etc/d fedcba9876543210fedcba9876543210 remove-on-upgrade\n"
	    " /etc/e newconffile remove-on-upgrade\n\n");
	free(s);
	record_free(rec);
}
END_TEST

START_TEST(test_dpkgfmt_stanza_defaults_dropped)
{
	char *s;

	/* "no" is dpkg's default for both: it writes neither. */
	s = stanza(parse("Package: a\nVersion: 0:1.0-1\nArchitecture: all\n"
	    "Essential: no\nMulti-Arch: no\nProtected: yes\n"
	    "Filename: pool/a.deb\nSize: 10\nMD5sum: 00\n"
	    "X-Custom: z\nHomepage: https://example.org\n"
	    "Description: short\n"), "hold ok unpacked", "0:0.9", NULL, NULL);
	ck_assert_str_eq(s,
	    "Package: a\n"
	    "Protected: yes\n"
	    "Status: hold ok unpacked\n"
	    "Architecture: all\n"
	    "Version: 1.0-1\n"
	    "Config-Version: 0.9\n"
	    "Description: short\n"
	    "X-Custom: z\n"
	    "Homepage: https://example.org\n"
	    "\n");
	free(s);
}
END_TEST

START_TEST(test_dpkgfmt_stanza_keywords)
{
	char *s;

	/* Values dpkg parses into keywords come back in lower case. */
	s = stanza(parse("Package: a\nVersion: 1\nArchitecture: all\n"
	    "Priority: Optional\nMulti-Arch: Foreign\nSection: Admin\n"),
	    "install ok unpacked", NULL, NULL, NULL);
	ck_assert_str_eq(s, "Package: a\nStatus: install ok unpacked\n"
	    "Priority: optional\nSection: Admin\nArchitecture: all\n"
	    "Multi-Arch: foreign\nVersion: 1\n\n");
	free(s);
}
END_TEST

START_TEST(test_dpkgfmt_check)
{
	static const char *const bad[] = {
		"Depends: a [amd64]\n", "Depends: a (>= 1) <!nocheck>\n",
		"Pre-Depends: a (>= 1\n", "Breaks: a (~ 1)\n",
		"Essential: maybe\n", "Multi-Arch: sometimes\n",
		"Depends: foo:\n", "Depends: bar:any:x\n", "Depends: foo (= 1:)\n",
		"Depends: foo (>= 1.0 beta)\n", "Depends: -foo\n",
		"Multi-Arch: same\n",
	};
	struct dbp_error err;
	struct control *c;
	char text[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "Package: a\nVersion: 1\n"
		    "Architecture: all\n%s", bad[i]);
		c = parse(text);
		ck_assert_msg(dpkgfmt_check(c, &err) == -EINVAL,
		    "accepted %s", bad[i]);
		ck_assert_str_eq(err.path, "control");
		control_free(c);
	}
	c = parse("Package: a\nVersion: 1\nArchitecture: amd64\n"
	    "Essential: Yes\nMulti-Arch: same\nDepends: b(>=1)|c:any, d:amd64 "
	    "(<< 2:1.0~rc1-1+b2)\n");
	ck_assert_int_eq(dpkgfmt_check(c, &err), 0);
	control_free(c);
}
END_TEST

START_TEST(test_dpkgfmt_stanza_bad_depends_kept)
{
	char *s;

	/* What dpkg could not parse is written as given, not lost. */
	s = stanza(parse("Package: a\nVersion: 1\nArchitecture: all\n"
	    "Depends: b (>= 1, c\n"), "install ok unpacked", NULL, NULL, NULL);
	ck_assert_str_eq(s, "Package: a\nStatus: install ok unpacked\n"
	    "Architecture: all\nVersion: 1\nDepends: b (>= 1, c\n\n");
	free(s);
}
END_TEST

static void
assert_depends(const char *in, const char *want)
{
	char *out = NULL;

	ck_assert_int_eq(dpkgfmt_depends(in, &out), 0);
	ck_assert_str_eq(out, want);
	free(out);
}

START_TEST(test_dpkgfmt_depends)
{
	assert_depends("a", "a");
	assert_depends("a(>=1),b |c", "a (>= 1), b | c");
	assert_depends("  libc6 (>= 2.34) ,\n libgcc-s1 ( >= 3.0 )",
	    "libc6 (>= 2.34), libgcc-s1 (>= 3.0)");
	assert_depends("x:any (<< 0:2), y:amd64", "x:any (<< 2), y:amd64");
	/* The obsolete operators as dpkg reads them. */
	assert_depends("a (< 1), b (> 2)", "a (<= 1), b (>= 2)");
	assert_depends("a (= 1:1.0-1)", "a (= 1:1.0-1)");
	assert_depends("a( >= 1 ),b:any(>=1)|c (=2.0)",
	    "a (>= 1), b:any (>= 1) | c (= 2.0)");
	assert_depends("k (= 00:2.0)", "k (= 2.0)");
}
END_TEST

START_TEST(test_dpkgfmt_depends_invalid)
{
	static const char *const bad[] = { "", "a,", ",a", "a |", "a (>= 1",
	    "a (1)", "a (=>= 1)", "a (>= )", "a b", "a (>= 1) x" };
	char *out = (char *)"unchanged";
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		out = (char *)"unchanged";
		ck_assert_msg(dpkgfmt_depends(bad[i], &out) == -EINVAL,
		    "accepted '%s'", bad[i]);
		ck_assert_ptr_null(out);
	}
}
END_TEST

START_TEST(test_dpkgfmt_version)
{
	ck_assert_str_eq(dpkgfmt_version("0:1.0"), "1.0");
	ck_assert_str_eq(dpkgfmt_version("00:1.0"), "1.0");
	ck_assert_str_eq(dpkgfmt_version("1:1.0"), "1:1.0");
	ck_assert_str_eq(dpkgfmt_version("10:1.0"), "10:1.0");
	ck_assert_str_eq(dpkgfmt_version("0.9"), "0.9");
	ck_assert_str_eq(dpkgfmt_version("0"), "0");
}
END_TEST

/* dpkgfmt_list_walk's callbacks: each path and a space into CTX. */
static int
walk_path(const char *path, const struct record_entry *e, void *ctx)
{
	ck_assert(e != NULL || strcmp(path, "/.") == 0);
	strcat(ctx, path);
	strcat(ctx, " ");
	return 0;
}

static int
walk_path_stop(const char *path, const struct record_entry *e, void *ctx)
{
	walk_path(path, e, ctx);
	return strcmp(path, "/usr/bin/z") == 0 ? -EINTR : 0;
}

START_TEST(test_dpkgfmt_list)
{
	char walked[256];
	struct record *rec;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	ck_assert_int_eq(record_new(&rec, parse("Package: a\nVersion: 1\n"
	    "Architecture: all\n")), 0);
	/* Archive order, the root entry as dpkg names it first, symlinks last. */
	add_entry(rec, 'd', "/", false, NULL);
	add_entry(rec, 'd', "/usr", false, NULL);
	add_entry(rec, 'd', "/usr/bin", false, NULL);
	add_entry(rec, 'f', "/usr/bin/z", false, NULL);
	add_entry(rec, 'l', "/usr/bin/a", false, NULL);
	add_entry(rec, 'd', "/etc", false, NULL);
	fp = open_memstream(&buf, &len);
	ck_assert_int_eq(dpkgfmt_list(fp, rec, true), 0);
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert_str_eq(buf, "/.\n/usr\n/usr/bin\n/usr/bin/z\n/etc\n"
	    "/usr/bin/a\n");
	free(buf);
	/* The walk in the same order, "/." left out; it stops when told. */
	walked[0] = '\0';
	ck_assert_int_eq(dpkgfmt_list_walk(rec, false, walk_path, walked), 0);
	ck_assert_str_eq(walked, "/usr /usr/bin /usr/bin/z /etc /usr/bin/a ");
	walked[0] = '\0';
	ck_assert_int_eq(dpkgfmt_list_walk(rec, true, walk_path_stop,
	    walked), -EINTR);
	ck_assert_str_eq(walked, "/. /usr /usr/bin /usr/bin/z ");
	record_free(rec);
}
END_TEST

static Suite *
dpkgfmt_suite(void)
{
	Suite *s = suite_create("dpkgfmt");
	TCase *tc = tcase_create("format");

	tcase_add_test(tc, test_dpkgfmt_stanza_order);
	tcase_add_test(tc, test_dpkgfmt_stanza_carried);
	tcase_add_test(tc, test_dpkgfmt_stanza_defaults_dropped);
	tcase_add_test(tc, test_dpkgfmt_stanza_keywords);
	tcase_add_test(tc, test_dpkgfmt_check);
	tcase_add_test(tc, test_dpkgfmt_stanza_bad_depends_kept);
	tcase_add_test(tc, test_dpkgfmt_depends);
	tcase_add_test(tc, test_dpkgfmt_depends_invalid);
	tcase_add_test(tc, test_dpkgfmt_version);
	tcase_add_test(tc, test_dpkgfmt_list);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return checkutil_run(dpkgfmt_suite());
}
