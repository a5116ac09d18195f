/* SPDX-License-Identifier: MIT */
/* Unit tests of dpkgdivert.c: dpkg-divert's diversions file, read. */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkutil.h"
#include "db/dpkgdivert.h"

/* The diversions of the scratch directory's file (TEXT; NULL: none). */
static struct dpkgdivert *
divert_read(const char *text)
{
	struct dpkgdivert *d = NULL;
	int dfd;

	if (text != NULL)
		checkutil_write("diversions", text);
	dfd = open(checkutil_scratch(), O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(dfd, 0);
	ck_assert_int_eq(dpkgdivert_read(&d, dfd), 0);
	close(dfd);
	ck_assert_ptr_nonnull(d);
	return d;
}

START_TEST(test_dpkgdivert_read)
{
	struct dpkgdivert *d;
	const struct dpkgdivert_entry *e;

	/* As dpkg-divert writes it: not sorted; ":" the administrator's. */
	d = divert_read("/usr/bin/z\n/usr/bin/z.real\n:\n"
	    "/usr/bin/a\n/usr/bin/a.distrib\npkg\n");
	ck_assert_uint_eq(dpkgdivert_count(d), 2);
	ck_assert_str_eq(dpkgdivert_nth(d, 0)->from, "/usr/bin/a");
	e = dpkgdivert_from(d, "/usr/bin/z");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->to, "/usr/bin/z.real");
	ck_assert_ptr_null(e->pkg);
	e = dpkgdivert_to(d, "/usr/bin/a.distrib");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->from, "/usr/bin/a");
	ck_assert_str_eq(e->pkg, "pkg");
	ck_assert_ptr_null(dpkgdivert_from(d, "/usr/bin/a.distrib"));
	ck_assert_ptr_null(dpkgdivert_to(d, "/usr/bin/a"));
	dpkgdivert_free(d);
}
END_TEST

START_TEST(test_dpkgdivert_none)
{
	struct dpkgdivert *d;

	/* No file: no diversion; NULL stands for none too. */
	d = divert_read(NULL);
	ck_assert_uint_eq(dpkgdivert_count(d), 0);
	ck_assert_ptr_null(dpkgdivert_from(d, "/x"));
	ck_assert_ptr_null(dpkgdivert_to(d, "/x"));
	dpkgdivert_free(d);
	ck_assert_uint_eq(dpkgdivert_count(NULL), 0);
	ck_assert_ptr_null(dpkgdivert_from(NULL, "/x"));
	dpkgdivert_free(NULL);
	/* An empty file, and a triplet cut short: none either. */
	d = divert_read("");
	ck_assert_uint_eq(dpkgdivert_count(d), 0);
	dpkgdivert_free(d);
	d = divert_read("/a\n/a.real\n:\n/b\n/b.real\n");
	ck_assert_uint_eq(dpkgdivert_count(d), 1);
	ck_assert_ptr_null(dpkgdivert_from(d, "/b"));
	dpkgdivert_free(d);
}
END_TEST

/* Add path PATH of TYPE (TARGET for a symlink) to R. */
static void
divert_add(struct record *r, char type, const char *path, const char *target)
{
	struct record_entry e;

	memset(&e, 0, sizeof(e));
	e.type = type;
	e.mode = 0644;
	e.path = (char *)path;
	e.target = (char *)target;
	ck_assert_int_eq(record_add(r, &e), 0);
}

/* Where a package's paths go, and a record moved to follow them. */
START_TEST(test_dpkgdivert_follow)
{
	struct dbp_error err;
	struct control *ctl = NULL;
	struct record *r;
	struct dpkgdivert *d;
	const char *text = "Package: foo\nVersion: 1\nArchitecture: all\n";

	d = divert_read("/a\n/a.local\n:\n/b\n/b.distrib\nbar\n"
	    "/c\n/c.foo\nfoo\n");
	ck_assert_str_eq(dpkgdivert_use(d, "/a", "foo"), "/a.local");
	ck_assert_str_eq(dpkgdivert_use(d, "/b", "foo"), "/b.distrib");
	ck_assert_str_eq(dpkgdivert_use(d, "/b", "bar"), "/b");
	ck_assert_str_eq(dpkgdivert_use(d, "/c", "foo"), "/c");
	ck_assert_str_eq(dpkgdivert_use(d, "/x", "foo"), "/x");
	ck_assert_str_eq(dpkgdivert_use(NULL, "/a", "foo"), "/a");

	ck_assert_int_eq(control_parse(text, strlen(text), &ctl, &err), 0);
	ck_assert_int_eq(record_new(&r, ctl), 0);
	divert_add(r, 'd', "/a", NULL);
	divert_add(r, 'f', "/b", NULL);
	divert_add(r, 'f', "/c", NULL);
	divert_add(r, 'l', "/x", "y");
	/* A diversion gone since: back at its own name. */
	ck_assert_int_eq(record_relocate(r, 3, "/x.gone", "/x"), 0);
	ck_assert_int_eq(dpkgdivert_follow(d, r), 0);
	ck_assert_str_eq(r->v[0].path, "/a");	/* a directory: never */
	ck_assert_ptr_null(r->v[0].divert_from);
	ck_assert_str_eq(r->v[1].path, "/b.distrib");
	ck_assert_str_eq(r->v[1].divert_from, "/b");
	ck_assert_str_eq(r->v[2].path, "/c");	/* foo's own diversion */
	ck_assert_ptr_null(r->v[2].divert_from);
	ck_assert_str_eq(r->v[3].path, "/x");
	ck_assert_ptr_null(r->v[3].divert_from);
	ck_assert_ptr_eq(record_find(r, "/b.distrib"), &r->v[1]);
	ck_assert_ptr_eq(record_find_name(r, "/b"), &r->v[1]);
	record_free(r);
	dpkgdivert_free(d);
}
END_TEST

static Suite *
dpkgdivert_suite(void)
{
	Suite *s = suite_create("dpkgdivert");
	TCase *tc;

	tc = checkutil_scratch_tcase(s, "read", NULL, NULL);
	tcase_add_test(tc, test_dpkgdivert_read);
	tcase_add_test(tc, test_dpkgdivert_follow);
	tc = checkutil_scratch_tcase(s, "limits", NULL, NULL);
	tcase_add_test(tc, test_dpkgdivert_none);
	return s;
}

int
main(void)
{
	return checkutil_run(dpkgdivert_suite());
}
