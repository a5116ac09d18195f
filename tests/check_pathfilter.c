/* SPDX-License-Identifier: MIT */
/* Unit tests of pathfilter.c: dpkg's --path-exclude and --path-include. */
#include "config.h"

#include <check.h>

#include "checkutil.h"
#include "extract/pathfilter.h"

/* A table of N rules: "-GLOB" excludes, "+GLOB" includes. */
static struct pathfilter *
rules(const char *const *v, size_t n)
{
	struct pathfilter *f = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		ck_assert_int_eq(pathfilter_add(&f, v[i] + 1, v[i][0] == '+'),
		    0);
	ck_assert_uint_eq(pathfilter_count(f), n);
	return f;
}

START_TEST(test_pathfilter_last_match)
{
	static const char *const v[] = { "-/usr/share/doc/*",
	    "+/usr/share/doc/*/copyright" };
	struct pathfilter *f = rules(v, 2);

	/* "*" matches "/" too: fnmatch without FNM_PATHNAME. */
	ck_assert(pathfilter_skip(f, "/usr/share/doc/a/README", false));
	ck_assert(pathfilter_skip(f, "/usr/share/doc/a/html/x.html", false));
	ck_assert(!pathfilter_skip(f, "/usr/share/doc/a/copyright", false));
	ck_assert(!pathfilter_skip(f, "/usr/bin/a", false));
	/* Excluded, brought back for what the include keeps inside. */
	ck_assert(!pathfilter_skip(f, "/usr/share/doc/a", true));
	ck_assert(pathfilter_skip(f, "/usr/share/doc/a", false));
	pathfilter_free(f);
}
END_TEST

START_TEST(test_pathfilter_limits)
{
	static const char *const same[] = { "-/a/*", "+/a/*" };
	static const char *const sub[] = { "-/l/*", "+/l/de/*" };
	static const char *const inc[] = { "+/a/*" };
	struct pathfilter *f;

	/* No rule, or includes alone: everything kept. */
	ck_assert(!pathfilter_skip(NULL, "/a/b", false));
	ck_assert_uint_eq(pathfilter_count(NULL), 0);
	pathfilter_free(NULL);
	f = rules(inc, 1);
	ck_assert(!pathfilter_skip(f, "/a/b", false));
	pathfilter_free(f);
	f = rules(same, 2);
	ck_assert(!pathfilter_skip(f, "/a/b", false));
	pathfilter_free(f);
	/* Only the directory an include's fixed start leads to comes back. */
	f = rules(sub, 2);
	ck_assert(!pathfilter_skip(f, "/l/de", true));
	ck_assert(pathfilter_skip(f, "/l/ca", true));
	ck_assert(pathfilter_skip(f, "/l/ca/x.mo", false));
	ck_assert(!pathfilter_skip(f, "/l/de/x.mo", false));
	pathfilter_free(f);
}
END_TEST

static Suite *
pathfilter_suite(void)
{
	Suite *s = suite_create("pathfilter");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, test_pathfilter_last_match);
	suite_add_tcase(s, tc);
	tc = tcase_create("limits");
	tcase_add_test(tc, test_pathfilter_limits);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return checkutil_run(pathfilter_suite());
}
