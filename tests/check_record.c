/* SPDX-License-Identifier: MIT */
/* Unit tests of record.c: writing, reading and searching installed-package records. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkutil.h"
#include "deb/control.h"
#include "db/record.h"

#define NAME	"foo.record"
#define HEADER	"debunpack-record 1\n"
#define MINIMAL	"Package: foo\nVersion: 1.0-1\nArchitecture: amd64\n"
#define SHA_A	"000102030405060708090a0b0c0d0e0f" \
		"101112131415161718191a1b1c1d1e1f"
#define SHA_B	"abababababababababababababababab" \
		"abababababababababababababababab"
/* A valid record to break: line 6 is the first path. */
#define GOOD	HEADER MINIMAL "\n"

static struct control *
make_ctl(const char *text)
{
	struct dbp_error err;
	struct control *c = NULL;

	dbp_err_clear(&err);
	ck_assert_msg(control_parse(text, strlen(text), &c, &err) == 0,
	    "control: %s", err.msg);
	return c;
}

static struct record *
make_record(const char *ctl)
{
	struct record *r = NULL;

	ck_assert_int_eq(record_new(&r, make_ctl(ctl)), 0);
	ck_assert_ptr_nonnull(r);
	return r;
}

/* An entry of TYPE at PATH, with TARGET, owned by root. */
static struct record_entry
entry(char type, int mode, const char *path, const char *target)
{
	struct record_entry e;

	memset(&e, 0, sizeof(e));
	e.type = type;
	e.mode = (mode_t)mode;
	e.path = (char *)path;
	e.target = (char *)target;
	return e;
}

static void
add(struct record *r, struct record_entry e)
{
	ck_assert_int_eq(record_add(r, &e), 0);
}

static void
set_sha(struct record_entry *e, unsigned char first, unsigned char step)
{
	size_t i;

	for (i = 0; i < sizeof(e->sha256); i++)
		e->sha256[i] = (unsigned char)(first + i * step);
}

/* R written into a new NUL-terminated buffer *TEXT of *LEN bytes. */
static int
write_mem(const struct record *r, char **text, size_t *len,
    struct dbp_error *err)
{
	FILE *fp;
	int ret;

	*text = NULL;
	*len = 0;
	fp = open_memstream(text, len);
	ck_assert_ptr_nonnull(fp);
	dbp_err_clear(err);
	ret = record_write(r, fp, NAME, err);
	ck_assert_int_eq(fclose(fp), 0);
	return ret;
}

static char *
write_ok(const struct record *r)
{
	struct dbp_error err;
	char *text;
	size_t len;

	ck_assert_msg(write_mem(r, &text, &len, &err) == 0, "write: %s",
	    err.msg);
	ck_assert_uint_eq(strlen(text), len);
	return text;
}

/* Read LEN bytes of TEXT (NUL bytes allowed) as a record. */
static int
read_mem(const char *text, size_t len, struct record **out,
    struct dbp_error *err)
{
	FILE *fp;
	int ret;

	/* fmemopen() refuses size 0: an empty file is /dev/null. */
	fp = len != 0 ? fmemopen((void *)text, len, "r") :
	    fopen("/dev/null", "r");
	ck_assert_ptr_nonnull(fp);
	dbp_err_clear(err);
	ret = record_read(fp, NAME, out, err);
	ck_assert_int_eq(fclose(fp), 0);
	return ret;
}

static struct record *
read_ok(const char *text)
{
	struct dbp_error err;
	struct record *r = NULL;

	ck_assert_msg(read_mem(text, strlen(text), &r, &err) == 0,
	    "read: %s", err.msg);
	ck_assert_ptr_nonnull(r);
	return r;
}

/* LEN bytes of TEXT must be refused on line LINE, saying PART. */
static void
assert_bad_len(const char *text, size_t len, size_t line, const char *part)
{
	struct dbp_error err;
	struct record *r = NULL;
	char want[32];
	int ret;

	ret = read_mem(text, len, &r, &err);
	ck_assert_msg(ret == -EINVAL, "accepted or wrong error %d for "
	    "\"%.*s\"", ret, (int)len, text);
	ck_assert_ptr_null(r);
	ck_assert_str_eq(err.path, NAME);
	ck_assert_int_eq(err.errnum, 0);
	snprintf(want, sizeof(want), "line %zu: ", line);
	ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0,
	    "message \"%s\" does not start with \"%s\"", err.msg, want);
	ck_assert_msg(strstr(err.msg, part) != NULL,
	    "message \"%s\" does not say \"%s\"", err.msg, part);
}

static void
assert_bad(const char *text, size_t line, const char *part)
{
	assert_bad_len(text, strlen(text), line, part);
}

static void
assert_same_entry(const struct record_entry *a, const struct record_entry *b)
{
	ck_assert_int_eq(a->type, b->type);
	ck_assert_int_eq(a->conffile, b->conffile);
	ck_assert_uint_eq(a->mode, b->mode);
	ck_assert_uint_eq(a->uid, b->uid);
	ck_assert_uint_eq(a->gid, b->gid);
	ck_assert_uint_eq(a->size, b->size);
	ck_assert_mem_eq(a->sha256, b->sha256, sizeof(a->sha256));
	ck_assert_str_eq(a->path, b->path);
	if (a->target == NULL)
		ck_assert_ptr_null(b->target);
	else
		ck_assert_str_eq(a->target, b->target);
	ck_assert_uint_eq(a->major, b->major);
	ck_assert_uint_eq(a->minor, b->minor);
}

/* B holds what A holds: the same fields, the same entries in order. */
static void
assert_same_record(const struct record *a, const struct record *b)
{
	size_t i;

	ck_assert_uint_eq(a->ctl->nfields, b->ctl->nfields);
	for (i = 0; i < a->ctl->nfields; i++) {
		ck_assert_str_eq(a->ctl->fields[i].name, b->ctl->fields[i].name);
		ck_assert_str_eq(a->ctl->fields[i].value,
		    b->ctl->fields[i].value);
	}
	ck_assert_uint_eq(a->n, b->n);
	for (i = 0; i < a->n; i++)
		assert_same_entry(&a->v[i], &b->v[i]);
}

/* Write R, read it back, check it is the same; returns what was written. */
static char *
round_trip(const struct record *r)
{
	struct record *back;
	char *text;

	text = write_ok(r);
	back = read_ok(text);
	assert_same_record(r, back);
	record_free(back);
	return text;
}

/* A record with one path of every type, and its exact text. */
static struct record *
sample(void)
{
	struct record *r = make_record(MINIMAL "Description: short\n"
	    " long line one\n .\n");
	struct record_entry e;

	add(r, entry('d', 0755, "/usr", NULL));
	e = entry('f', 04755, "/usr/share/doc/foo/README", NULL);
	e.size = 1234;
	e.uid = 1000;
	e.gid = 100;
	set_sha(&e, 0, 1);
	add(r, e);
	e = entry('f', 0644, "/etc/foo.conf", NULL);
	e.conffile = true;
	e.size = 20;
	set_sha(&e, 0xab, 0);
	add(r, e);
	e = entry('h', 0644, "/usr/bin/foo2", "/usr/bin/foo");
	e.size = 1234;
	set_sha(&e, 0, 1);
	add(r, e);
	add(r, entry('l', 0777, "/usr/bin/bar", "../lib/bar"));
	e = entry('c', 0600, "/dev/x", NULL);
	e.major = 1;
	e.minor = 3;
	add(r, e);
	e = entry('b', 0660, "/dev/sda", NULL);
	e.gid = 6;
	e.major = 8;
	e.minor = 0;
	add(r, e);
	add(r, entry('p', 0644, "/run/fifo", NULL));
	add(r, entry('d', 01777, "/tmp", NULL));
	return r;
}

#define SAMPLE_TEXT \
	"debunpack-record 1\n" \
	"Package: foo\n" \
	"Version: 1.0-1\n" \
	"Architecture: amd64\n" \
	"Description: short\n" \
	" long line one\n" \
	" .\n" \
	"\n" \
	"d\t-\t0755\t0:0\t-\t-\t/usr\n" \
	"f\t-\t4755\t1000:100\t1234\t" SHA_A "\t/usr/share/doc/foo/README\n" \
	"f\tc\t0644\t0:0\t20\t" SHA_B "\t/etc/foo.conf\n" \
	"h\t-\t0644\t0:0\t1234\t" SHA_A "\t/usr/bin/foo2\t/usr/bin/foo\n" \
	"l\t-\t0777\t0:0\t-\t-\t/usr/bin/bar\t../lib/bar\n" \
	"c\t-\t0600\t0:0\t-\t-\t/dev/x\t1,3\n" \
	"b\t-\t0660\t0:6\t-\t-\t/dev/sda\t8,0\n" \
	"p\t-\t0644\t0:0\t-\t-\t/run/fifo\n" \
	"d\t-\t1777\t0:0\t-\t-\t/tmp\n"

START_TEST(test_record_exact_output)
{
	struct record *r = sample();
	char *text;

	text = write_ok(r);
	ck_assert_str_eq(text, SAMPLE_TEXT);
	free(text);
	record_free(r);
}
END_TEST

START_TEST(test_record_round_trip_types)
{
	struct record *r = sample(), *back;
	const struct record_entry *e;

	free(round_trip(r));
	back = read_ok(SAMPLE_TEXT);
	assert_same_record(r, back);
	ck_assert_str_eq(control_get(back->ctl, "Description"),
	    "short\nlong line one\n.");
	e = &back->v[2];
	ck_assert_int_eq(e->type, 'f');
	ck_assert(e->conffile);
	ck_assert_uint_eq(e->size, 20);
	ck_assert_uint_eq(e->sha256[31], 0xab);
	e = &back->v[5];
	ck_assert_uint_eq(e->major, 1);
	ck_assert_uint_eq(e->minor, 3);
	ck_assert_uint_eq(back->v[1].mode, 04755);
	ck_assert_uint_eq(back->v[1].uid, 1000);
	ck_assert_uint_eq(back->v[8].mode, 01777);
	record_free(back);
	record_free(r);
}
END_TEST

/*
 * A diverted path: version 2, its line ending with the package's own
 * name for it; read back the same, found by either name as it should.
 */
START_TEST(test_record_diverted)
{
	struct record *r = make_record(MINIMAL), *back;
	struct record_entry e;
	char *text;

	e = entry('f', 0755, "/usr/bin/foo.distrib", NULL);
	e.size = 20;
	set_sha(&e, 0xab, 0);
	e.divert_from = "/usr/bin/foo";
	add(r, e);
	e = entry('l', 0777, "/usr/bin/bar.real", "bar.sh");
	e.divert_from = "/usr/bin/bar";
	add(r, e);
	e = entry('f', 0644, "/usr/bin/baz", NULL);
	set_sha(&e, 0, 1);
	add(r, e);
	text = write_ok(r);
	ck_assert_str_eq(text, "debunpack-record 2\n" MINIMAL "\n"
	    "f\t-\t0755\t0:0\t20\t" SHA_B "\t/usr/bin/foo.distrib"
	    "\t/usr/bin/foo\n"
	    "l\t-\t0777\t0:0\t-\t-\t/usr/bin/bar.real\tbar.sh\t/usr/bin/bar\n"
	    "f\t-\t0644\t0:0\t0\t" SHA_A "\t/usr/bin/baz\n");
	back = read_ok(text);
	assert_same_record(r, back);
	ck_assert_str_eq(back->v[0].divert_from, "/usr/bin/foo");
	ck_assert_str_eq(record_entry_name(&back->v[1]), "/usr/bin/bar");
	ck_assert_ptr_null(back->v[2].divert_from);
	ck_assert_ptr_eq(record_find_name(back, "/usr/bin/foo"), &back->v[0]);
	ck_assert_ptr_null(record_find_name(back, "/usr/bin/foo.distrib"));
	ck_assert_ptr_eq(record_find_name(back, "/usr/bin/baz"), &back->v[2]);
	/* A diversion made or gone since: the entry moves. */
	ck_assert_int_eq(record_relocate(back, 0, "/usr/bin/foo", NULL), 0);
	ck_assert_ptr_eq(record_find(back, "/usr/bin/foo"), &back->v[0]);
	ck_assert(record_has_diverted(back));
	ck_assert_int_eq(record_relocate(back, 1, "/usr/bin/bar", NULL), 0);
	ck_assert(!record_has_diverted(back));
	ck_assert_int_eq(record_relocate(back, 2, "/usr/bin/baz", "/usr/bin/baz"),
	    -EINVAL);
	record_free(back);
	free(text);
	/* Version 1 has no such column; a directory is never diverted. */
	assert_bad(HEADER MINIMAL "\nf\t-\t0644\t0:0\t0\t" SHA_A
	    "\t/a\t/b\n", 6, "target on type 'f'");
	assert_bad("debunpack-record 2\n" MINIMAL "\nd\t-\t0755\t0:0\t-\t-"
	    "\t/a\t/b\n", 6, "diverted directory");
	assert_bad("debunpack-record 2\n" MINIMAL "\nf\t-\t0644\t0:0\t0\t"
	    SHA_A "\t/a\t/a\n", 6, "is the path itself");
	record_free(r);
}
END_TEST

/* Paths the filters left out: version 2, in their places, read back. */
START_TEST(test_record_filtered)
{
	struct record *r = make_record(MINIMAL), *back;
	struct record_entry e;
	char *text;

	e = entry('d', 0755, "/doc", NULL);
	add(r, e);
	ck_assert_int_eq(record_add_filtered(r, "/doc/x", 'f'), 0);
	e = entry('f', 0644, "/bin", NULL);
	set_sha(&e, 0, 1);
	add(r, e);
	ck_assert_int_eq(record_add_filtered(r, "/doc/l", 'l'), 0);
	text = write_ok(r);
	ck_assert_str_eq(text, "debunpack-record 2\n" MINIMAL "\n"
	    "d\t-\t0755\t0:0\t-\t-\t/doc\n"
	    "f\tx\t-\t-\t-\t-\t/doc/x\n"
	    "f\t-\t0644\t0:0\t0\t" SHA_A "\t/bin\n"
	    "l\tx\t-\t-\t-\t-\t/doc/l\n");
	back = read_ok(text);
	assert_same_record(r, back);
	ck_assert_uint_eq(back->nfiltered, 2);
	ck_assert_str_eq(back->filtered[0].path, "/doc/x");
	ck_assert_uint_eq(back->filtered[0].pos, 1);
	ck_assert_int_eq(back->filtered[1].type, 'l');
	ck_assert_uint_eq(back->filtered[1].pos, 2);
	ck_assert(record_is_filtered(back, "/doc/l"));
	ck_assert(!record_has_diverted(back));
	/* Removed as entries are; the later ones keep their places. */
	ck_assert_int_eq(record_remove(back, "/doc"), 0);
	ck_assert_uint_eq(back->filtered[0].pos, 0);
	ck_assert_int_eq(record_remove(back, "/doc/x"), 0);
	ck_assert_uint_eq(back->nfiltered, 1);
	ck_assert(!record_is_filtered(back, "/doc/x"));
	ck_assert_int_eq(record_remove(back, "/doc/x"), -ENOENT);
	record_free(back);
	free(text);
	/* Version 1 has none; one has nothing but a type and a path. */
	assert_bad(HEADER MINIMAL "\nf\tx\t-\t-\t-\t-\t/a\n", 6,
	    "bad flags 'x'");
	assert_bad("debunpack-record 2\n" MINIMAL "\nf\tx\t0644\t-\t-\t-"
	    "\t/a\n", 6, "a left-out path with attributes");
	assert_bad("debunpack-record 2\n" MINIMAL "\nf\tx\t-\t-\t-\t-"
	    "\ta\n", 6, "not absolute");
	record_free(r);
}
END_TEST

START_TEST(test_record_empty)
{
	struct record *r = make_record(MINIMAL), *back;
	char *text;

	text = round_trip(r);
	ck_assert_str_eq(text, HEADER MINIMAL "\n");
	back = read_ok(text);
	ck_assert_uint_eq(back->n, 0);
	ck_assert_ptr_null(record_find(back, "/"));
	record_free(back);
	free(text);
	record_free(r);
}
END_TEST

START_TEST(test_record_escapes)
{
	static const char *const names[] = {
		"/a\tb", "/new\nline", "/back\\slash", "/\x01\x1f\x7f",
		"/cr\r", "/esc\x1b[31m", "/caf\xc3\xa9", "/\\x41\\t",
	};
	struct record *r = make_record(MINIMAL);
	char *text;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char link[64];

		add(r, entry('d', 0755, names[i], NULL));
		snprintf(link, sizeof(link), "/link%zu", i);
		add(r, entry('l', 0777, link, names[i] + 1));
	}
	add(r, entry('h', 0644, "/hard\tlink", "/a\tb"));
	text = round_trip(r);
	ck_assert_ptr_nonnull(strstr(text, "\t/a\\tb\n"));
	ck_assert_ptr_nonnull(strstr(text, "\t/new\\nline\n"));
	ck_assert_ptr_nonnull(strstr(text, "\t/back\\\\slash\n"));
	ck_assert_ptr_nonnull(strstr(text, "\t/\\x01\\x1f\\x7f\n"));
	ck_assert_ptr_nonnull(strstr(text, "\t/cr\\x0d\n"));
	ck_assert_ptr_nonnull(strstr(text, "\t/esc\\x1b[31m\n"));
	ck_assert_ptr_nonnull(strstr(text, "\t/caf\xc3\xa9\n"));
	ck_assert_ptr_nonnull(strstr(text, "\t/\\\\x41\\\\t\n"));
	ck_assert_ptr_nonnull(strstr(text, "\t/link1\tnew\\nline\n"));
	ck_assert_ptr_nonnull(strstr(text, "\t/hard\\tlink\t/a\\tb\n"));
	/* No raw control byte but the TABs and newlines of the format. */
	for (i = 0; text[i] != '\0'; i++)
		ck_assert(text[i] == '\t' || text[i] == '\n' ||
		    ((unsigned char)text[i] >= 0x20 && text[i] != 0x7f));
	free(text);
	record_free(r);
}
END_TEST

START_TEST(test_record_control_values)
{
	struct record *r = make_record(MINIMAL "Description: short\n"
	    " line one\n .\n   indented\n\tafter a tab\n"
	    "Conffiles:\n /etc/foo.conf 0123\n"
	    "Empty:\n"
	    "Depends: libc6 (>= 2.36)\n");
	char *text;

	text = round_trip(r);
	ck_assert_str_eq(text, HEADER MINIMAL "Description: short\n"
	    " line one\n .\n   indented\n after a tab\n"
	    "Conffiles:\n /etc/foo.conf 0123\n"
	    "Empty:\n"
	    "Depends: libc6 (>= 2.36)\n\n");
	free(text);
	record_free(r);
}
END_TEST

START_TEST(test_record_find)
{
	struct record *r = sample();
	const struct record_entry *e;

	e = record_find(r, "/usr/bin/bar");
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->type, 'l');
	ck_assert_str_eq(e->target, "../lib/bar");
	ck_assert_ptr_eq(record_find(r, "/usr"), &r->v[0]);
	ck_assert_ptr_null(record_find(r, "/usr/"));
	ck_assert_ptr_null(record_find(r, "usr"));
	ck_assert_ptr_null(record_find(r, "/us"));
	ck_assert_ptr_null(record_find(r, ""));
	/* An entry added after the index was built is found. */
	add(r, entry('d', 0755, "/aaa", NULL));
	ck_assert_ptr_eq(record_find(r, "/aaa"), &r->v[r->n - 1]);
	ck_assert_ptr_eq(record_find(r, "/tmp"), &r->v[8]);
	record_free(r);
}
END_TEST

START_TEST(test_record_add_copies)
{
	struct record *r = make_record(MINIMAL);
	char path[16], target[16];

	strcpy(path, "/x");
	strcpy(target, "y");
	add(r, entry('l', 0777, path, target));
	strcpy(path, "/X");
	strcpy(target, "Y");
	ck_assert_str_eq(r->v[0].path, "/x");
	ck_assert_str_eq(r->v[0].target, "y");
	record_free(r);
}
END_TEST

/* What a type has no place for is not kept. */
START_TEST(test_record_add_clears_unused)
{
	struct record *r = make_record(MINIMAL);
	struct record_entry e = entry('d', 0755, "/d", NULL);

	e.size = 5;
	set_sha(&e, 1, 1);
	e.major = 3;
	add(r, e);
	e = entry('f', 0644, "/f", NULL);
	e.major = e.minor = 7;
	add(r, e);
	ck_assert_uint_eq(r->v[0].size, 0);
	ck_assert_uint_eq(r->v[0].sha256[5], 0);
	ck_assert_uint_eq(r->v[0].major, 0);
	ck_assert_uint_eq(r->v[1].minor, 0);
	record_free(r);
}
END_TEST

START_TEST(test_record_add_invalid)
{
	static const struct {
		char type;
		bool conffile;
		int mode;
		const char *path, *target;
	} bad[] = {
		{ 'x', false, 0644, "/a", NULL },
		{ '\0', false, 0644, "/a", NULL },
		{ 'd', true, 0755, "/a", NULL },
		{ 'l', true, 0777, "/a", "b" },
		{ 'f', false, 010644, "/a", NULL },
		{ 'f', false, 0644, NULL, NULL },
		{ 'f', false, 0644, "", NULL },
		{ 'f', false, 0644, "a", NULL },
		{ 'f', false, 0644, "/a/", NULL },
		{ 'f', false, 0644, "//a", NULL },
		{ 'f', false, 0644, "/a/./b", NULL },
		{ 'f', false, 0644, "/a/..", NULL },
		{ 'f', false, 0644, "/a", "/b" },
		{ 'c', false, 0644, "/a", "/b" },
		{ 'h', false, 0644, "/a", NULL },
		{ 'h', false, 0644, "/a", "b" },
		{ 'h', false, 0644, "/a", "/b/../c" },
		{ 'l', false, 0777, "/a", NULL },
		{ 'l', false, 0777, "/a", "" },
	};
	struct record *r = make_record(MINIMAL);
	struct record_entry e;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		e = entry(bad[i].type, bad[i].mode, bad[i].path, bad[i].target);
		e.conffile = bad[i].conffile;
		ck_assert_msg(record_add(r, &e) == -EINVAL, "case %zu", i);
	}
	e = entry('f', 0644, "/a", NULL);
	e.uid = (uid_t)-1;
	ck_assert_int_eq(record_add(r, &e), -EINVAL);
	e.uid = 0;
	e.gid = (gid_t)-1;
	ck_assert_int_eq(record_add(r, &e), -EINVAL);
	ck_assert_uint_eq(r->n, 0);
	/* The root itself is a valid path. */
	add(r, entry('d', 0755, "/", NULL));
	record_free(r);
}
END_TEST

START_TEST(test_record_new_null)
{
	struct record *r = NULL;

	ck_assert_int_eq(record_new(&r, NULL), -EINVAL);
	ck_assert_ptr_null(r);
	record_free(NULL);
}
END_TEST

/* Limits. */

START_TEST(test_record_find_many)
{
	enum { N = 50000 };
	struct record *r = make_record(MINIMAL), *back;
	const struct record_entry *e;
	char path[64], *text;
	size_t i;

	/* Not in sorted order: a hash of I spreads them. */
	for (i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "/usr/share/p%zu/f%zu",
		    (i * 7919) % 613, i);
		add(r, entry('d', 0755, path, NULL));
	}
	for (i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "/usr/share/p%zu/f%zu",
		    (i * 7919) % 613, i);
		e = record_find(r, path);
		ck_assert_ptr_eq(e, &r->v[i]);
		snprintf(path, sizeof(path), "/usr/share/p%zu/f%zux",
		    (i * 7919) % 613, i);
		ck_assert_ptr_null(record_find(r, path));
	}
	/* One index for all the lookups, not a rebuild or a linear scan. */
	ck_assert_ptr_nonnull(r->index);
	ck_assert_uint_eq(r->nindex, N);

	text = write_ok(r);
	back = read_ok(text);
	ck_assert_uint_eq(back->n, N);
	ck_assert_uint_eq(back->nindex, N);
	for (i = 0; i < N; i++)
		ck_assert_ptr_eq(record_find(back, back->v[i].path),
		    &back->v[i]);
	record_free(back);
	free(text);
	record_free(r);
}
END_TEST

START_TEST(test_record_bad_header)
{
	assert_bad("", 1, "empty file");
	assert_bad("\n", 1, "not a record");
	assert_bad("Package: foo\n", 1, "not a record");
	assert_bad("debunpack-record\n" MINIMAL "\n", 1, "not a record");
	assert_bad("debunpack-record \n" MINIMAL "\n", 1, "bad header");
	assert_bad("debunpack-record 1 \n" MINIMAL "\n", 1, "bad header");
	assert_bad("debunpack-record 1\r\n" MINIMAL "\n", 1, "bad header");
	assert_bad("debunpack-record 1.0\n" MINIMAL "\n", 1, "bad header");
	assert_bad("debunpack-record 3\n" MINIMAL "\n", 1,
	    "unsupported record version 3");
	assert_bad("debunpack-record 01\n", 1, "unsupported record version 01");
	assert_bad("debunpack-record 0\n", 1, "unsupported record version 0");
	assert_bad("debunpack-record 1", 1, "no newline");
}
END_TEST

START_TEST(test_record_bad_control)
{
	assert_bad(HEADER "\n", 2, "missing field 'Package'");
	assert_bad(HEADER "Version: 1\nArchitecture: all\n\n", 2,
	    "missing field 'Package'");
	assert_bad(HEADER MINIMAL "Package: bar\n\n", 2, "duplicate");
	assert_bad(HEADER MINIMAL "no colon\n\n", 2, "without a field name");
	assert_bad(HEADER " continued\n" MINIMAL "\n", 2, "continuation");
	assert_bad(HEADER MINIMAL, 5, "end of file in the control stanza");
	assert_bad(HEADER MINIMAL "Description: x\r\n\n", 5,
	    "carriage return");
	/* Without the empty line the first path is a bad field. */
	assert_bad(HEADER MINIMAL "d\t-\t0755\t0:0\t-\t-\t/usr\n", 6,
	    "end of file");
	assert_bad(HEADER MINIMAL "d\t-\t0755\t0:0\t-\t-\t/usr\n\n", 2,
	    "bad control stanza");
	/* A blank line with a space is a continuation, not the end. */
	assert_bad(HEADER MINIMAL " \n", 6, "end of file");
}
END_TEST

START_TEST(test_record_bad_columns)
{
	static const struct {
		const char *line, *part;
	} bad[] = {
		{ "", "empty line" },
		{ "x\t-\t0755\t0:0\t-\t-\t/a", "unknown type 'x'" },
		{ "dd\t-\t0755\t0:0\t-\t-\t/a", "unknown type 'dd'" },
		{ "\t-\t0755\t0:0\t-\t-\t/a", "unknown type ''" },
		{ "\x1b\t-\t0755\t0:0\t-\t-\t/a", "unknown type '\\x1b'" },
		{ "d -\t0755\t0:0\t-\t-\t/a", "unknown type" },
		{ "d\t-\t0755\t0:0\t-\t-", "6 columns, expected 7" },
		{ "d\t-\t0755\t0:0\t-\t-\t/a\t/b\t/c", "9 columns, expected 7" },
		{ "d", "1 columns" },
		{ "d\t-\t0755\t0:0\t-\t-\t/a\t", "target on type 'd'" },
		{ "f\t-\t0644\t0:0\t1\t" SHA_A "\t/a\tx", "target on type 'f'" },
		{ "p\t-\t0644\t0:0\t-\t-\t/a\tx", "target on type 'p'" },
		{ "h\t-\t0644\t0:0\t1\t" SHA_A "\t/a", "no target for type 'h'" },
		{ "l\t-\t0777\t0:0\t-\t-\t/a", "no target for type 'l'" },
		{ "c\t-\t0600\t0:0\t-\t-\t/a", "no target for type 'c'" },
		{ "b\t-\t0600\t0:0\t-\t-\t/a", "no target for type 'b'" },
		{ "d\tx\t0755\t0:0\t-\t-\t/a", "bad flags 'x'" },
		{ "d\t\t0755\t0:0\t-\t-\t/a", "bad flags ''" },
		{ "f\tcc\t0644\t0:0\t1\t" SHA_A "\t/a", "bad flags 'cc'" },
		{ "d\tc\t0755\t0:0\t-\t-\t/a", "conffile flag on type 'd'" },
		{ "l\tc\t0777\t0:0\t-\t-\t/a\tb", "conffile flag on type 'l'" },
		{ "d\t-\t0855\t0:0\t-\t-\t/a", "bad mode '0855'" },
		{ "d\t-\t755\t0:0\t-\t-\t/a", "bad mode '755'" },
		{ "d\t-\t00755\t0:0\t-\t-\t/a", "bad mode '00755'" },
		{ "d\t-\t10000\t0:0\t-\t-\t/a", "bad mode '10000'" },
		{ "d\t-\t-755\t0:0\t-\t-\t/a", "bad mode" },
		{ "d\t-\t0x1f\t0:0\t-\t-\t/a", "bad mode" },
		{ "d\t-\t\t0:0\t-\t-\t/a", "bad mode ''" },
		{ "d\t-\t0755\t0\t-\t-\t/a", "bad owner '0'" },
		{ "d\t-\t0755\t:0\t-\t-\t/a", "bad owner ':0'" },
		{ "d\t-\t0755\t0:\t-\t-\t/a", "bad owner '0:'" },
		{ "d\t-\t0755\t0:0:0\t-\t-\t/a", "bad owner '0:0:0'" },
		{ "d\t-\t0755\t-1:0\t-\t-\t/a", "bad owner" },
		{ "d\t-\t0755\t+1:0\t-\t-\t/a", "bad owner" },
		{ "d\t-\t0755\t01:0\t-\t-\t/a", "bad owner '01:0'" },
		{ "d\t-\t0755\troot:root\t-\t-\t/a", "bad owner" },
		{ "d\t-\t0755\t4294967296:0\t-\t-\t/a", "bad owner" },
		{ "d\t-\t0755\t0:99999999999999999999\t-\t-\t/a", "bad owner" },
		{ "d\t-\t0755\t4294967295:0\t-\t-\t/a", "uid or gid is -1" },
		{ "d\t-\t0755\t0:0\t0\t-\t/a", "size on type 'd'" },
		{ "l\t-\t0777\t0:0\t-\t" SHA_A "\t/a\tb", "sha256 on type 'l'" },
		{ "f\t-\t0644\t0:0\t-\t" SHA_A "\t/a", "no size for type 'f'" },
		{ "h\t-\t0644\t0:0\t1\t-\t/a\t/b", "no sha256 for type 'h'" },
		{ "f\t-\t0644\t0:0\t\t" SHA_A "\t/a", "bad size ''" },
		{ "f\t-\t0644\t0:0\t01\t" SHA_A "\t/a", "bad size '01'" },
		{ "f\t-\t0644\t0:0\t1k\t" SHA_A "\t/a", "bad size '1k'" },
		{ "f\t-\t0644\t0:0\t18446744073709551616\t" SHA_A "\t/a",
		    "bad size" },
		{ "f\t-\t0644\t0:0\t1\t" SHA_A "0\t/a", "bad sha256" },
		{ "f\t-\t0644\t0:0\t1\tabc\t/a", "bad sha256 'abc'" },
		{ "f\t-\t0644\t0:0\t1\t" "ABABABABABABABABABABABABABABABAB"
		    "ABABABABABABABABABABABABABABABAB" "\t/a", "bad sha256" },
		{ "f\t-\t0644\t0:0\t1\t" "g0000000000000000000000000000000"
		    "00000000000000000000000000000000" "\t/a", "bad sha256" },
		{ "d\t-\t0755\t0:0\t-\t-\ta", "path is not absolute" },
		{ "d\t-\t0755\t0:0\t-\t-\t", "path is not absolute" },
		{ "d\t-\t0755\t0:0\t-\t-\t/a/", "path has an empty" },
		{ "d\t-\t0755\t0:0\t-\t-\t/a//b", "path has an empty" },
		{ "d\t-\t0755\t0:0\t-\t-\t/a/./b", "path has an empty" },
		{ "d\t-\t0755\t0:0\t-\t-\t/../etc", "path has an empty" },
		{ "h\t-\t0644\t0:0\t1\t" SHA_A "\t/a\tb",
		    "hard link target is not absolute" },
		{ "h\t-\t0644\t0:0\t1\t" SHA_A "\t/a\t/b/..",
		    "hard link target has an empty" },
		{ "l\t-\t0777\t0:0\t-\t-\t/a\t", "empty symlink target" },
		{ "c\t-\t0600\t0:0\t-\t-\t/a\t1", "bad device number '1'" },
		{ "c\t-\t0600\t0:0\t-\t-\t/a\t1,", "bad device number" },
		{ "c\t-\t0600\t0:0\t-\t-\t/a\t,1", "bad device number" },
		{ "c\t-\t0600\t0:0\t-\t-\t/a\t1,2,3", "bad device number" },
		{ "b\t-\t0600\t0:0\t-\t-\t/a\t1:2", "bad device number '1:2'" },
		{ "b\t-\t0600\t0:0\t-\t-\t/a\t4294967296,0",
		    "bad device number" },
		{ "b\t-\t0600\t0:0\t-\t-\t/a\t 1,2", "bad device number" },
	};
	char text[512];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* Line 7, after a valid line 6. */
		snprintf(text, sizeof(text), GOOD "d\t-\t0755\t0:0\t-\t-\t/\n"
		    "%s\n", bad[i].line);
		assert_bad(text, 7, bad[i].part);
	}
}
END_TEST

START_TEST(test_record_bad_escapes)
{
	static const struct {
		const char *col, *part;
	} bad[] = {
		{ "/a\\", "bad escape in the path" },
		{ "/a\\q", "bad escape in the path" },
		{ "/a\\x", "bad escape in the path" },
		{ "/a\\x1", "bad escape in the path" },
		{ "/a\\x1g", "bad escape in the path" },
		{ "/a\\x1B", "bad escape in the path" },
		{ "/a\\x41", "bad escape in the path" },
		{ "/a\\x09", "bad escape in the path" },
		{ "/a\\x0a", "bad escape in the path" },
		{ "/a\\x5c", "bad escape in the path" },
		{ "/a\\x80", "bad escape in the path" },
		{ "/a\\T", "bad escape in the path" },
		{ "/a\\x00", "NUL byte in the path" },
		{ "/a\r", "raw control byte in the path" },
		{ "/a\x1b", "raw control byte in the path" },
		{ "/a\x7f", "raw control byte in the path" },
	};
	struct record *r;
	char text[512];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), GOOD "d\t-\t0755\t0:0\t-\t-\t%s\n",
		    bad[i].col);
		assert_bad(text, 6, bad[i].part);
		snprintf(text, sizeof(text), GOOD
		    "l\t-\t0777\t0:0\t-\t-\t/l\t%s\n", bad[i].col);
		assert_bad(text, 6, "in the target");
	}
	/* The canonical spellings are accepted. */
	r = read_ok(GOOD "d\t-\t0755\t0:0\t-\t-\t/\\\\\\t\\n\\x01\\x7f\\x1b\n");
	ck_assert_str_eq(r->v[0].path, "/\\\t\n\x01\x7f\x1b");
	record_free(r);
}
END_TEST

START_TEST(test_record_duplicate_path)
{
	assert_bad(GOOD "d\t-\t0755\t0:0\t-\t-\t/a\n"
	    "d\t-\t0755\t0:0\t-\t-\t/b\n"
	    "p\t-\t0644\t0:0\t-\t-\t/a\n", 8, "duplicate path, first on line 6");
	/* The earliest repeat is reported, with the first of its path. */
	assert_bad(GOOD "d\t-\t0755\t0:0\t-\t-\t/z\n"
	    "d\t-\t0755\t0:0\t-\t-\t/a\n"
	    "d\t-\t0755\t0:0\t-\t-\t/a\n"
	    "d\t-\t0755\t0:0\t-\t-\t/z\n"
	    "d\t-\t0755\t0:0\t-\t-\t/a\n", 8, "first on line 7");
	/* Escapes are decoded before paths are compared. */
	assert_bad(GOOD "d\t-\t0755\t0:0\t-\t-\t/\\t\n"
	    "d\t-\t0755\t0:0\t-\t-\t/\\x09\n", 7, "bad escape");
	assert_bad(GOOD "l\t-\t0777\t0:0\t-\t-\t/a\\tb\tx\n"
	    "d\t-\t0755\t0:0\t-\t-\t/a\\tb\n", 7, "duplicate path");
}
END_TEST

START_TEST(test_record_nul_byte)
{
	static const char t1[] = GOOD "d\t-\t0755\t0:0\t-\t-\t/a\0b\n";
	static const char t2[] = HEADER "Package: f\0o\n" MINIMAL "\n";
	static const char t3[] = "debunpack-record 1\0\n";

	assert_bad_len(t1, sizeof(t1) - 1, 6, "NUL byte");
	assert_bad_len(t2, sizeof(t2) - 1, 2, "NUL byte");
	assert_bad_len(t3, sizeof(t3) - 1, 1, "NUL byte");
}
END_TEST

START_TEST(test_record_long_lines)
{
	enum { LEN = 1 << 20 };
	struct record *r = make_record(MINIMAL), *back;
	char *path, *value, *text;
	const char *desc;
	size_t i;

	path = malloc(LEN + 1);
	ck_assert_ptr_nonnull(path);
	for (i = 0; i < LEN; i++)
		path[i] = i % 100 == 0 ? '/' : (char)('a' + i % 26);
	path[LEN] = '\0';
	add(r, entry('d', 0755, path, NULL));
	add(r, entry('l', 0777, "/l", path + 1));
	free(round_trip(r));
	record_free(r);

	/* A control value of a megabyte, in lines. */
	value = malloc(LEN + 128);
	ck_assert_ptr_nonnull(value);
	strcpy(value, MINIMAL "Description: x\n ");
	i = strlen(value);
	memset(value + i, 'v', LEN);
	strcpy(value + i + LEN, "\n");
	r = make_record(value);
	text = round_trip(r);
	back = read_ok(text);
	desc = control_get(back->ctl, "Description");
	ck_assert_uint_eq(strlen(desc), LEN + 2);
	record_free(back);
	record_free(r);
	free(text);
	free(value);
	free(path);
}
END_TEST

/*
 * A record cut short at every byte: it reads only when cut at the end of
 * a line after the empty line (the format cannot tell that from a record
 * with fewer paths), and holds exactly the complete lines then.
 */
START_TEST(test_record_truncated)
{
	static const char text[] = SAMPLE_TEXT;
	const char *body = strstr(text, "\n\n") + 2;
	struct dbp_error err;
	struct record *r;
	size_t len, nl, i;
	int ret;

	for (len = 0; len < sizeof(text) - 1; len++) {
		r = NULL;
		ret = read_mem(text, len, &r, &err);
		if (len >= (size_t)(body - text) && text[len - 1] == '\n') {
			ck_assert_msg(ret == 0, "cut at %zu: %s", len, err.msg);
			for (nl = 0, i = (size_t)(body - text); i < len; i++)
				nl += text[i] == '\n';
			ck_assert_uint_eq(r->n, nl);
			record_free(r);
			continue;
		}
		ck_assert_msg(ret == -EINVAL, "cut at %zu: %d", len, ret);
		ck_assert_ptr_null(r);
		ck_assert_msg(strncmp(err.msg, "line ", 5) == 0, "cut at %zu: %s",
		    len, err.msg);
	}
}
END_TEST

/*
 * Every byte of a valid record replaced by bytes that matter to the
 * format: each result reads or fails cleanly, and a paths section that
 * reads is written back byte for byte (one spelling per record).
 */
START_TEST(test_record_mutated)
{
	static const char subst[] = { '\t', '\n', '\\', '\0', '\r', 'x', '/',
	    '0', '-', ',', ':', 'c', ' ' };
	char text[] = SAMPLE_TEXT;
	struct dbp_error err;
	struct record *r;
	char *out, save;
	size_t i, j;
	int ret;

	for (i = 0; i < sizeof(text) - 1; i++)
		for (j = 0; j < sizeof(subst); j++) {
			save = text[i];
			if (save == subst[j])
				continue;
			text[i] = subst[j];
			r = NULL;
			ret = read_mem(text, sizeof(text) - 1, &r, &err);
			if (ret == 0) {
				out = write_ok(r);
				ck_assert_str_eq(strstr(out, "\n\n"),
				    strstr(text, "\n\n"));
				free(out);
				record_free(r);
			} else {
				ck_assert_msg(ret == -EINVAL, "byte %zu: %d", i,
				    ret);
				ck_assert_ptr_null(r);
				ck_assert_msg(strncmp(err.msg, "line ", 5) == 0,
				    "byte %zu: %s", i, err.msg);
			}
			text[i] = save;
		}
}
END_TEST

/* A record that would not read back is not written at all. */
START_TEST(test_record_write_refuses)
{
	static const char *const values[] = {
		" lead", "trail ", "tab\t", "cr\r", "x\ncr\r", "x\n\r",
	};
	struct dbp_error err;
	struct record *r;
	struct control *c;
	char *text;
	size_t len, i;

	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		c = make_ctl(MINIMAL "Description: x\n");
		free(c->fields[3].value);
		c->fields[3].value = strdup(values[i]);
		ck_assert_int_eq(record_new(&r, c), 0);
		ck_assert_int_eq(write_mem(r, &text, &len, &err), -EINVAL);
		ck_assert_uint_eq(len, 0);
		ck_assert_msg(strstr(err.msg, "'Description' would not read "
		    "back") != NULL, "%s", err.msg);
		free(text);
		record_free(r);
	}

	c = make_ctl(MINIMAL "Description: x\n");
	free(c->fields[3].name);
	c->fields[3].name = strdup("Bad Name");
	ck_assert_int_eq(record_new(&r, c), 0);
	ck_assert_int_eq(write_mem(r, &text, &len, &err), -EINVAL);
	ck_assert_uint_eq(len, 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "invalid field name"));
	free(text);
	record_free(r);

	/* Without Package the reader would refuse it. */
	c = make_ctl(MINIMAL);
	free(c->fields[0].name);
	c->fields[0].name = strdup("Source");
	ck_assert_int_eq(record_new(&r, c), 0);
	ck_assert_int_eq(write_mem(r, &text, &len, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "missing field 'Package'"));
	free(text);
	record_free(r);

	r = make_record(MINIMAL);
	add(r, entry('d', 0755, "/a", NULL));
	add(r, entry('p', 0644, "/b", NULL));
	add(r, entry('l', 0777, "/a", "x"));
	ck_assert_int_eq(write_mem(r, &text, &len, &err), -EINVAL);
	ck_assert_uint_eq(len, 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "duplicate path '/a'"));
	free(text);
	/* An entry changed behind record_add's back. */
	r->v[2].type = 'x';
	ck_assert_int_eq(write_mem(r, &text, &len, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "unknown type"));
	free(text);
	record_free(r);
}
END_TEST

START_TEST(test_record_io_errors)
{
	struct dbp_error err;
	struct record *r = sample(), *back = NULL;
	FILE *fp;

	fp = fopen("/dev/full", "w");
	if (fp != NULL) {
		dbp_err_clear(&err);
		ck_assert_int_eq(record_write(r, fp, NAME, &err), -ENOSPC);
		ck_assert_int_eq(err.errnum, ENOSPC);
		ck_assert_str_eq(err.path, NAME);
		fclose(fp);
	}
	/* A stream open for writing only cannot be read. */
	fp = fopen("/dev/null", "w");
	ck_assert_ptr_nonnull(fp);
	dbp_err_clear(&err);
	ck_assert_int_eq(record_read(fp, NAME, &back, &err), -EBADF);
	ck_assert_ptr_null(back);
	ck_assert_int_eq(err.errnum, EBADF);
	fclose(fp);
	record_free(r);
}
END_TEST

static Suite *
record_suite(void)
{
	Suite *s = suite_create("record");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_test(tc, test_record_exact_output);
	tcase_add_test(tc, test_record_round_trip_types);
	tcase_add_test(tc, test_record_empty);
	tcase_add_test(tc, test_record_escapes);
	tcase_add_test(tc, test_record_control_values);
	tcase_add_test(tc, test_record_find);
	tcase_add_test(tc, test_record_add_copies);
	tcase_add_test(tc, test_record_add_clears_unused);
	tcase_add_test(tc, test_record_add_invalid);
	tcase_add_test(tc, test_record_new_null);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	/* 50,000 entries and megabyte lines are slow under valgrind. */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_record_find_many);
	tcase_add_test(tc, test_record_bad_header);
	tcase_add_test(tc, test_record_diverted);
	tcase_add_test(tc, test_record_filtered);
	tcase_add_test(tc, test_record_bad_control);
	tcase_add_test(tc, test_record_bad_columns);
	tcase_add_test(tc, test_record_bad_escapes);
	tcase_add_test(tc, test_record_duplicate_path);
	tcase_add_test(tc, test_record_nul_byte);
	tcase_add_test(tc, test_record_long_lines);
	tcase_add_test(tc, test_record_truncated);
	tcase_add_test(tc, test_record_mutated);
	tcase_add_test(tc, test_record_write_refuses);
	tcase_add_test(tc, test_record_io_errors);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return checkutil_run(record_suite());
}
