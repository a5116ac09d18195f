/* SPDX-License-Identifier: MIT */
/* Unit tests of dpkgstatus.c: its field table, the stanzas written and read. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkutil.h"
#include "deb/control.h"
#include "db/dpkgfmt.h"
#include "db/dpkgstatus.h"
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
	ck_assert_int_eq(dpkgstatus_write(fp, &(struct dpkgstatus_src){
	    .ctl = ctl, .status = status, .config_version = cver,
	    .conffiles = conffiles, .rec = rec }), 0);
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

START_TEST(test_dpkgstatus_stanza_order)
{
	static const unsigned char md5[16] = { 0x01, 0x23, 0x45, 0x67, 0x89,
	    0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
	struct record *rec;
	char *s;

	ck_assert_int_eq(record_new(&rec, parse(base_files_control)), 0);
	checkutil_record_add(rec, 'd', "/etc", false, NULL);
	checkutil_record_add(rec, 'f', "/etc/debian_version", true, md5);
	/* A conffile without an MD5 (not extracted as a file): dpkg's mark. */
	checkutil_record_add(rec, 'l', "/etc/issue", false, NULL);
	s = stanza(rec->ctl, "install ok unpacked", NULL,
	    "/etc/debian_version\n/etc/issue\n", rec);
	ck_assert_str_eq(s, base_files_stanza);
	free(s);
	record_free(rec);
}
END_TEST

/* A dpkgstatus_carried_fn: /etc/b's and /etc/d's MD5 are CTX, no other. */
static const unsigned char *
carried(void *ctx, const char *path)
{
	return strcmp(path, "/etc/b") == 0 || strcmp(path, "/etc/d") == 0 ?
	    ctx : NULL;
}

START_TEST(test_dpkgstatus_stanza_carried)
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
	checkutil_record_add(rec, 'f', "/etc/a", true, md5);
	/*
	 * Not the package's (another keeps it, or took it), or flagged:
	 * the hash carried over, else dpkg's mark.
	 */
	fp = open_memstream(&s, &len);
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(dpkgstatus_write(fp, &(struct dpkgstatus_src){
	    .ctl = rec->ctl, .status = "install ok unpacked",
	    .conffiles = "/etc/a\n/etc/b\n/etc/c\nremove-on-upgrade /etc/d\n"
	    "remove-on-upgrade /etc/e\n", .rec = rec, .carried = carried,
	    .ctx = old }), 0);
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

/*
 * Conffiles whose new versions went to NAME.dpkg-new (--maintscripts):
 * the hash carried over from the version before, else "newconffile",
 * never the new version's, which dpkg's --configure would take for the
 * old one's.
 */
START_TEST(test_dpkgstatus_stanza_dpkg_new)
{
	static const unsigned char md5[16] = { 0x01, 0x23, 0x45, 0x67, 0x89,
	    0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
	static unsigned char old[16] = { 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54,
	    0x32, 0x10, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10 };
	struct record *rec;
	char *s = NULL;
	size_t len = 0, i;
	FILE *fp;

	ck_assert_int_eq(record_new(&rec, parse("Package: a\nVersion: 1\n"
	    "Architecture: all\n")), 0);
	checkutil_record_add(rec, 'f', "/etc/a", true, md5);
	checkutil_record_add(rec, 'f', "/etc/b", true, md5);
	checkutil_record_add(rec, 'f', "/etc/c", true, md5);
	/* /etc/a as debunpack's own mode decided it: the new MD5. */
	for (i = 1; i < rec->n; i++)
		rec->v[i].conf_new = true;
	fp = open_memstream(&s, &len);
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(dpkgstatus_write(fp, &(struct dpkgstatus_src){
	    .ctl = rec->ctl, .status = "install ok unpacked",
	    .conffiles = "/etc/a\n/etc/b\n/etc/c\n", .rec = rec,
	    .carried = carried, .ctx = old }), 0);
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert_str_eq(s, "Package: a\nStatus: install ok unpacked\n"
	    "Architecture: all\nVersion: 1\nConffiles:\n"
	    " /etc/a 0123456789abcdef0123456789abcdef\n"
	    " /etc/b fedcba9876543210fedcba9876543210\n"
	    " /etc/c newconffile\n\n");
	free(s);
	record_free(rec);
}
END_TEST

START_TEST(test_dpkgstatus_stanza_defaults_dropped)
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

START_TEST(test_dpkgstatus_stanza_keywords)
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

START_TEST(test_dpkgstatus_check)
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
		ck_assert_msg(dpkgstatus_check(c, &err) == -EINVAL,
		    "accepted %s", bad[i]);
		ck_assert_str_eq(err.path, "control");
		control_free(c);
	}
	c = parse("Package: a\nVersion: 1\nArchitecture: amd64\n"
	    "Essential: Yes\nMulti-Arch: same\nDepends: b(>=1)|c:any, d:amd64 "
	    "(<< 2:1.0~rc1-1+b2)\n");
	ck_assert_int_eq(dpkgstatus_check(c, &err), 0);
	control_free(c);
}
END_TEST

START_TEST(test_dpkgstatus_stanza_bad_depends_kept)
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

START_TEST(test_dpkgstatus_fields_table)
{
	/* The order dpkg 1.21's dump.c writes its fields in. */
	static const char *const written[] = { "Package", "Essential",
	    "Protected", "Status", "Priority", "Section", "Installed-Size",
	    "Origin", "Maintainer", "Bugs", "Architecture", "Multi-Arch",
	    "Source", "Version", "Config-Version", "Replaces", "Provides",
	    "Depends", "Pre-Depends", "Recommends", "Suggests", "Breaks",
	    "Conflicts", "Enhances", "Conffiles", "Description" };
	size_t i, k, n = 0, nread = 0;

	for (i = 0; i < dpkgstatus_nfields; i++) {
		const struct dpkgstatus_field *f = &dpkgstatus_fields[i];

		/*
		 * Read back: the seven test_dpkgstatus_written_read reads,
		 * which dpkgstatus.c lists again (dpkgstatus_readable).
		 */
		if (f->read != NULL)
			ck_assert(strstr(" Package Status Architecture "
			    "Multi-Arch Version Config-Version Conffiles ",
			    f->name) != NULL && ++nread <= 7);
		/* One row a name. */
		for (k = 0; k < i; k++)
			ck_assert_str_ne(dpkgstatus_fields[k].name, f->name);
		ck_assert_ptr_eq(dpkgstatus_field(f->name), f);
		if (f->write == NULL)
			continue;
		ck_assert_uint_lt(n, sizeof(written) / sizeof(written[0]));
		ck_assert_str_eq(f->name, written[n++]);
		/* A dependency field is written in dpkg's form. */
		ck_assert_uint_eq(!!(f->flags & DPKGSTATUS_DEPENDS),
		    strstr("Replaces Provides Depends Pre-Depends Recommends "
		    "Suggests Breaks Conflicts Enhances", f->name) != NULL);
	}
	ck_assert_uint_eq(n, sizeof(written) / sizeof(written[0]));
	ck_assert_uint_eq(nread, 7);
	/* Names as dpkg compares them; a field it does not know is none. */
	ck_assert_ptr_eq(dpkgstatus_field("multi-arch"),
	    dpkgstatus_field("Multi-Arch"));
	ck_assert_ptr_null(dpkgstatus_field("X-Custom"));
	ck_assert_ptr_null(dpkgstatus_field("Packag"));
	/* Known to dpkg, never in an unpacked package's stanza. */
	ck_assert_ptr_null(dpkgstatus_field("Filename")->write);
	ck_assert_ptr_null(dpkgstatus_field("Triggers-Pending")->write);
}
END_TEST

/* dpkgfmt_conffile_fn: each conffile as "PATH|FLAGS;" into CTX. */
static int
walk_conffile(const struct dpkgfmt_conffile *c, void *ctx)
{
	sprintf((char *)ctx + strlen(ctx), "%s|%s|%u;", c->path,
	    c->has_md5 ? "md5" : "", c->flags);
	return 0;
}

START_TEST(test_dpkgstatus_written_read)
{
	static const unsigned char md5[16] = { 0x01, 0x23, 0x45, 0x67, 0x89,
	    0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
	struct dpkgstatus st = { 0 };
	struct record *rec;
	char out[256] = "", *s;

	/* What the table writes, the table reads back. */
	ck_assert_int_eq(record_new(&rec, parse("Package: a\n"
	    "Version: 0:2.0-1\nArchitecture: amd64\nMulti-Arch: Same\n"
	    "Description: short\n long\n")), 0);
	checkutil_record_add(rec, 'f', "/etc/a", true, md5);
	checkutil_record_add(rec, 'f', "/etc/gone", true, md5);
	rec->v[1].obsolete = true;
	s = stanza(rec->ctl, "hold ok unpacked", "1:1.0", "/etc/a\n/etc/b\n",
	    rec);
	ck_assert_int_eq(dpkgstatus_parse(&st, s, strlen(s)), 0);
	ck_assert_uint_eq(st.n, 1);
	ck_assert_str_eq(st.v[0].name, "a");
	ck_assert_str_eq(st.v[0].arch, "amd64");
	ck_assert_str_eq(st.v[0].ma, "same");
	ck_assert_str_eq(st.v[0].status, "hold ok unpacked");
	ck_assert_str_eq(st.v[0].version, "2.0-1");
	ck_assert_str_eq(st.v[0].cversion, "1:1.0");
	ck_assert_str_eq(dpkgstatus_state(&st.v[0]), "unpacked");
	ck_assert_ptr_nonnull(st.v[0].conffiles);
	ck_assert_int_eq(dpkgfmt_conffiles(st.v[0].conffiles,
	    st.v[0].conffiles_len, walk_conffile, out), 0);
	ck_assert_str_eq(out, "/etc/a|md5|0;/etc/b||3;/etc/gone|md5|2;");
	dpkgstatus_clear(&st);
	free(s);
	record_free(rec);
}
END_TEST

START_TEST(test_dpkgstatus_parse)
{
	static const char text[] =
	    "package: b\n"
	    "Status: install ok installed \t\n"
	    "Description: x\n"
	    " Version: not a field\n"
	    "Version: 1\n"
	    "Version: 2\n"
	    "\n\n"
	    "Package: c\n"
	    "Architecture: all\n";
	struct dpkgstatus st = { 0 };

	/*
	 * Names without case, values without their trailing blanks, the
	 * first of two fields, continuation lines no fields; a stanza
	 * without Conffiles has none, the last gets its newline.
	 */
	ck_assert_int_eq(dpkgstatus_parse(&st, text, strlen(text)), 0);
	ck_assert_uint_eq(st.n, 2);
	ck_assert_str_eq(st.v[0].name, "b");
	ck_assert_str_eq(st.v[0].status, "install ok installed");
	ck_assert_str_eq(st.v[0].version, "1");
	ck_assert_ptr_null(st.v[0].arch);
	ck_assert_ptr_null(st.v[0].conffiles);
	ck_assert(dpkgstatus_installed(&st.v[0]));
	ck_assert_str_eq(st.v[1].name, "c");
	ck_assert_str_eq(st.v[1].text, "Package: c\nArchitecture: all\n");
	ck_assert_str_eq(dpkgstatus_state(&st.v[1]), "not-installed");
	dpkgstatus_clear(&st);
	ck_assert_int_eq(dpkgstatus_parse(&st, "Status: x\n", 10), -EINVAL);
	dpkgstatus_clear(&st);
}
END_TEST

static Suite *
dpkgstatus_suite(void)
{
	Suite *s = suite_create("dpkgstatus");
	TCase *tc = tcase_create("fields");

	tcase_add_test(tc, test_dpkgstatus_fields_table);
	tcase_add_test(tc, test_dpkgstatus_stanza_order);
	tcase_add_test(tc, test_dpkgstatus_stanza_carried);
	tcase_add_test(tc, test_dpkgstatus_stanza_dpkg_new);
	tcase_add_test(tc, test_dpkgstatus_stanza_defaults_dropped);
	tcase_add_test(tc, test_dpkgstatus_stanza_keywords);
	tcase_add_test(tc, test_dpkgstatus_stanza_bad_depends_kept);
	tcase_add_test(tc, test_dpkgstatus_check);
	tcase_add_test(tc, test_dpkgstatus_written_read);
	tcase_add_test(tc, test_dpkgstatus_parse);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return checkutil_run(dpkgstatus_suite());
}
