/* SPDX-License-Identifier: MIT */
/* Unit tests of dpkgfmt.c: dependencies, .list files, fields, Conffiles. */
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
	checkutil_record_add(rec, 'd', "/", false, NULL);
	checkutil_record_add(rec, 'd', "/usr", false, NULL);
	checkutil_record_add(rec, 'd', "/usr/bin", false, NULL);
	checkutil_record_add(rec, 'f', "/usr/bin/z", false, NULL);
	checkutil_record_add(rec, 'l', "/usr/bin/a", false, NULL);
	checkutil_record_add(rec, 'd', "/etc", false, NULL);
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

/* dpkgfmt_conffile_fn: each conffile as "PATH|HASH|FLAGS;" into CTX. */
static int
walk_conffile(const struct dpkgfmt_conffile *c, void *ctx)
{
	char *out = ctx;
	size_t k;

	strcat(out, c->path);
	strcat(out, "|");
	for (k = 0; c->has_md5 && k < 16; k++)
		sprintf(out + strlen(out), "%02x", c->md5[k]);
	sprintf(out + strlen(out), "|%u;", c->flags);
	/* The line as it is: what a copy of the field writes back. */
	ck_assert_int_eq(c->line[0], ' ');
	ck_assert(memchr(c->line, '\n', c->linelen) == NULL);
	return strcmp(c->path, "/etc/stop") == 0 ? -EINTR : 0;
}

START_TEST(test_dpkgfmt_conffiles)
{
	static const char value[] =
	    "\n"
	    " /etc/a 0123456789abcdef0123456789ABCDEF\n"
	    " /etc/b newconffile obsolete\n"
	    " /etc/with space/c fedcba9876543210fedcba9876543210"
	    " remove-on-upgrade\n"
	    " /etc/d 0123456789abcdef0123456789abcdef obsolete"
	    " remove-on-upgrade\n"
	    " /etc/e 0123456789abcdef0123456789abcdef remove-on-upgrade"
	    " obsolete  \n"
	    " /etc/nohash\n"
	    " /etc/f obsolete\n"
	    "not a conffile\n"
	    " /etc/g 0123";
	static const char own[] = "/etc/x newconffile\n /etc/y newconffile";
	char out[1024] = "";

	ck_assert_int_eq(dpkgfmt_conffiles(value, strlen(value),
	    walk_conffile, out), 0);
	/*
	 * Read from the end as dpkg reads them: flags in either order, a
	 * path with a space, a hash that is no MD5; no hash, no conffile.
	 */
	ck_assert_str_eq(out,
	    "/etc/a|0123456789abcdef0123456789abcdef|0;"
	    "/etc/b||3;"
	    "/etc/with space/c|fedcba9876543210fedcba9876543210|4;"
	    "/etc/d|0123456789abcdef0123456789abcdef|6;"
	    "/etc/e|0123456789abcdef0123456789abcdef|6;"
	    "/etc/g||0;");
	/* What follows the field's name on its own line is no conffile. */
	out[0] = '\0';
	ck_assert_int_eq(dpkgfmt_conffiles(own, strlen(own), walk_conffile,
	    out), 0);
	ck_assert_str_eq(out, "/etc/y||1;");
	/* Empty, and stopped when told. */
	ck_assert_int_eq(dpkgfmt_conffiles("", 0, walk_conffile, out), 0);
	out[0] = '\0';
	ck_assert_int_eq(dpkgfmt_conffiles("\n /etc/stop newconffile\n"
	    " /etc/z newconffile\n", 44, walk_conffile, out), -EINTR);
	ck_assert_str_eq(out, "/etc/stop||1;");
}
END_TEST

START_TEST(test_dpkgfmt_conffile_line)
{
	static const unsigned char md5[16] = { 0x01, 0x23, 0x45, 0x67, 0x89,
	    0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
	char *buf = NULL, *value = NULL, out[512] = "";
	size_t len = 0;
	FILE *fp;

	fp = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(fp);
	dpkgfmt_conffile_line(fp, "/etc/a", md5, 0);
	dpkgfmt_conffile_line(fp, "/etc/b", NULL, DPKGFMT_CONFF_OBSOLETE);
	dpkgfmt_conffile_line(fp, "/etc/c", md5, DPKGFMT_CONFF_OBSOLETE |
	    DPKGFMT_CONFF_REMOVE_ON_UPGRADE);
	ck_assert_int_eq(fclose(fp), 0);
	/* dpkg's order: obsolete before remove-on-upgrade. */
	ck_assert_str_eq(buf,
	    " /etc/a 0123456789abcdef0123456789abcdef\n"
	    " /etc/b newconffile obsolete\n"
	    " /etc/c 0123456789abcdef0123456789abcdef obsolete"
	    " remove-on-upgrade\n");
	/* The walker reads back what the writer wrote, as a field's value. */
	ck_assert_int_ne(asprintf(&value, "\n%s", buf), -1);
	ck_assert_int_eq(dpkgfmt_conffiles(value, strlen(value), walk_conffile,
	    out), 0);
	free(value);
	ck_assert_str_eq(out, "/etc/a|0123456789abcdef0123456789abcdef|0;"
	    "/etc/b||3;/etc/c|0123456789abcdef0123456789abcdef|6;");
	free(buf);
}
END_TEST

/* dpkgfmt_field_fn: each field as "NAME=FIRST|VALUE;" into CTX. */
static int
walk_field(const struct dpkgfmt_field *f, void *ctx)
{
	char *out = ctx;

	sprintf(out + strlen(out), "%.*s=%.*s|%.*s;", (int)f->namelen,
	    f->name != NULL ? f->name : "", (int)f->firstlen, f->value,
	    (int)f->len, f->value);
	return dpkgfmt_field_is(f, "stop") ? -EINTR : 0;
}

/* dpkgfmt_field_fn: the fields' texts end to end into CTX. */
static int
copy_field(const struct dpkgfmt_field *f, void *ctx)
{
	strncat(ctx, f->text, f->textlen);
	return 0;
}

START_TEST(test_dpkgfmt_fields)
{
	static const char text[] =
	    "Package: a  \n"
	    "Conffiles:\n"
	    " /etc/a newconffile\n"
	    "\t/etc/b newconffile\n"
	    "Description:\tshort\n"
	    " long\n"
	    "no colon\n"
	    "Empty:\n"
	    "Last: x";
	char out[1024] = "";

	ck_assert_int_eq(dpkgfmt_fields(text, strlen(text), walk_field, out), 0);
	ck_assert_str_eq(out,
	    "Package=a|a  ;"
	    "Conffiles=|\n /etc/a newconffile\n\t/etc/b newconffile;"
	    "Description=short|short\n long;"
	    "=no colon|no colon;"
	    "Empty=|;"
	    "Last=x|x;");
	/* Every byte in one field: a stanza copied field by field is itself. */
	out[0] = '\0';
	ck_assert_int_eq(dpkgfmt_fields(text, strlen(text), copy_field, out), 0);
	ck_assert_str_eq(out, text);
	/* Names compare without case; the walk stops when told. */
	out[0] = '\0';
	ck_assert_int_eq(dpkgfmt_fields("A: 1\nSTOP: 2\nB: 3\n", 18,
	    walk_field, out), -EINTR);
	ck_assert_str_eq(out, "A=1|1;STOP=2|2;");
}
END_TEST

static Suite *
dpkgfmt_suite(void)
{
	Suite *s = suite_create("dpkgfmt");
	TCase *tc = tcase_create("format");

	tcase_add_test(tc, test_dpkgfmt_depends);
	tcase_add_test(tc, test_dpkgfmt_depends_invalid);
	tcase_add_test(tc, test_dpkgfmt_version);
	tcase_add_test(tc, test_dpkgfmt_list);
	tcase_add_test(tc, test_dpkgfmt_conffiles);
	tcase_add_test(tc, test_dpkgfmt_conffile_line);
	tcase_add_test(tc, test_dpkgfmt_fields);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return checkutil_run(dpkgfmt_suite());
}
