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

static Suite *
dpkgdivert_suite(void)
{
	Suite *s = suite_create("dpkgdivert");
	TCase *tc;

	tc = checkutil_scratch_tcase(s, "read", NULL, NULL);
	tcase_add_test(tc, test_dpkgdivert_read);
	tc = checkutil_scratch_tcase(s, "limits", NULL, NULL);
	tcase_add_test(tc, test_dpkgdivert_none);
	return s;
}

int
main(void)
{
	return checkutil_run(dpkgdivert_suite());
}
