/* SPDX-License-Identifier: MIT */
/* Unit tests for version.c and replaces.c: dpkg's order of versions and its reading of Replaces. */
#include "config.h"

#include <check.h>
#include <string.h>

#include "checkutil.h"
#include "deb/control.h"
#include "db/replaces.h"
#include "db/version.h"

/* Pairs in dpkg's order: A, B and the sign of version_cmp(A, B). */
static const struct {
	const char *a, *b;
	int sign;
} pairs[] = {
	{ "1.0", "1.0", 0 },
	{ "1.0", "1.1", -1 },
	{ "1.10", "1.9", 1 },
	{ "1.001", "1.1", 0 },			/* numbers, not strings */
	{ "0:1.0", "1.0", 0 },			/* epoch 0 is no epoch */
	{ "1:0.1", "2.0", 1 },			/* the epoch first */
	{ "2:1.0", "10:0.1", -1 },
	{ "1.0-1", "1.0-2", -1 },
	{ "1.0-10", "1.0-9", 1 },
	{ "1.0-0", "1.0", 0 },			/* revision 0 is no revision */
	{ "1.0-1", "1.0.1-1", -1 },
	{ "2.10-3", "2.10-2", 1 },
	{ "1.0~rc1", "1.0", -1 },		/* ~ before the end */
	{ "1.0~rc1", "1.0~rc2", -1 },
	{ "1.0~~", "1.0~", -1 },
	{ "1.0~~a", "1.0~", -1 },
	{ "1.0~", "1.0", -1 },
	{ "1.0", "1.0a", -1 },			/* letters after the end */
	{ "1.0a", "1.0+", -1 },			/* other marks after letters */
	{ "1.0+b1", "1.0", 1 },
	{ "1.0+b1", "1.0.1", -1 },		/* "+" sorts before "." */
	{ "1.2.3-4-5", "1.2.3-4-6", -1 },	/* the last hyphen splits */
	{ "a", "b", -1 },
	{ "A", "a", -1 },
	{ "7.88.1-10+deb12u5", "7.88.1-10+deb12u4", 1 },
	{ "1:9.2p1-2+deb12u3", "1:9.2p1-2+deb12u2", 1 },
	{ "2.36.1-8+deb12u1", "2.36.1-8", 1 },
	{ "1.21.22", "1.21.9", 1 },
};

START_TEST(test_version_pairs)
{
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		int r = version_cmp(pairs[i].a, pairs[i].b);
		int back = version_cmp(pairs[i].b, pairs[i].a);
		int sign = (r > 0) - (r < 0);

		ck_assert_msg(sign == pairs[i].sign, "%s vs %s: %d, want %d",
		    pairs[i].a, pairs[i].b, r, pairs[i].sign);
		ck_assert_msg(((back > 0) - (back < 0)) == -sign,
		    "%s vs %s: not antisymmetric", pairs[i].b, pairs[i].a);
	}
}
END_TEST

START_TEST(test_version_satisfies)
{
	ck_assert(version_satisfies("1.0", "<<", "1.1"));
	ck_assert(!version_satisfies("1.1", "<<", "1.1"));
	ck_assert(version_satisfies("1.1", "<=", "1.1"));
	ck_assert(version_satisfies("1.1", "<", "1.1"));	/* old "<=" */
	ck_assert(version_satisfies("1:0", ">>", "9"));
	ck_assert(version_satisfies("1.0", "=", "1.0"));
	ck_assert(!version_satisfies("1.0~rc1", ">=", "1.0"));
	ck_assert(!version_satisfies("1.0", "!=", "1.0"));
}
END_TEST

/* Replaces as dpkg reads it: names, qualifiers, versions, lines. */
START_TEST(test_replaces)
{
	struct dbp_error err;
	struct control *c;
	const char *text = "Package: p\nVersion: 1\nArchitecture: all\n"
	    "Replaces: a, b (<< 2.0),\n c:any (>= 1:1), d (= 3)\n";

	ck_assert_int_eq(control_parse(text, strlen(text), &c, &err), 0);
	ck_assert(replaces_pkg(c, "a", "7"));
	ck_assert(replaces_pkg(c, "b", "1.9"));
	ck_assert(!replaces_pkg(c, "b", "2.0"));
	ck_assert(replaces_pkg(c, "c", "1:2"));
	ck_assert(!replaces_pkg(c, "c", "5"));
	ck_assert(replaces_pkg(c, "d", "3"));
	ck_assert(!replaces_pkg(c, "e", "1"));
	ck_assert(!replaces_pkg(c, "p", "1"));
	control_free(c);
}
END_TEST

START_TEST(test_version_null)
{
	ck_assert_int_eq(version_cmp(NULL, NULL), 0);
	ck_assert_int_lt(version_cmp(NULL, "0"), 0);
	ck_assert_int_gt(version_cmp("0", NULL), 0);
}
END_TEST

static Suite *
version_suite(void)
{
	Suite *s = suite_create("version");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_version_pairs);
	tcase_add_test(tc, test_version_satisfies);
	tcase_add_test(tc, test_replaces);
	tcase_add_test(tc, test_version_null);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return checkutil_run(version_suite());
}
