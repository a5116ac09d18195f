/* SPDX-License-Identifier: MIT */
/* Unit tests of unpackdeps.c: Pre-Depends and Breaks as dpkg's depisok decides them. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkutil.h"
#include "db/dpkgstatus.h"
#include "deb/control.h"
#include "run/unpackdeps.h"

/* dpkg's status file TEXT, read into ST. */
static void
status(struct dpkgstatus *st, const char *text)
{
	ck_assert_int_eq(dpkgstatus_parse(st, text, strlen(text)), 0);
}

static struct control *
pkg(const char *fields)
{
	struct dbp_error err;
	struct control *c = NULL;
	char text[1024];

	snprintf(text, sizeof(text), "Package: p\nVersion: 1\n"
	    "Architecture: all\n%s", fields);
	ck_assert_int_eq(control_parse(text, strlen(text), &c, &err), 0);
	return c;
}

/*
 * The Pre-Depends verdict of p (FIELDS) in ST, IGNORE dpkg's
 * --ignore-depends list; *WHY kept in WHYBUF.
 */
static const char *ignore;
static bool last_ignored;

static int
predep(const char *st_text, const char *fields, char *whybuf, size_t n)
{
	struct dpkgstatus st = { NULL, 0 };
	struct control *c = pkg(fields);
	char *why, *trig;
	int r;

	status(&st, st_text);
	size_t at = 0;
	bool ignored;

	r = unpackdeps_predepends(&st, c, "p", "amd64", ignore, &at, &ignored,
	    &why, &trig);
	if (r == UNPACKDEPS_PROBLEM)
		last_ignored = ignored;
	snprintf(whybuf, n, "%s", r == UNPACKDEPS_TRIGGERS ? trig :
	    why != NULL ? why : "");
	free(why);
	free(trig);
	control_free(c);
	dpkgstatus_clear(&st);
	return r;
}

#define L_INST	"Package: l\nStatus: install ok installed\nArchitecture: all\nVersion: 1\n\n"
#define L_UNP	"Package: l\nStatus: install ok unpacked\nArchitecture: all\nVersion: 2\n"
#define V_PROV	"Package: v\nStatus: install ok installed\nArchitecture: all\nVersion: 1\nProvides: virt (= 2), other\n\n"

START_TEST(test_predepends_installed)
{
	char why[1024];

	ck_assert_int_eq(predep(L_INST, "", why, sizeof(why)), UNPACKDEPS_OK);
	ck_assert_int_eq(predep(L_INST, "Pre-Depends: l\n", why,
	    sizeof(why)), UNPACKDEPS_OK);
	ck_assert_int_eq(predep(L_INST, "Pre-Depends: l (>= 1), l (<< 2)\n",
	    why, sizeof(why)), UNPACKDEPS_OK);
	ck_assert_int_eq(predep(L_INST, "Pre-Depends: l (>= 2)\n", why,
	    sizeof(why)), UNPACKDEPS_PROBLEM);
	ck_assert_str_eq(why, " p pre-depends on l (>= 2)\n"
	    "  l is installed, but is version 1.\n");
	ck_assert_int_eq(predep(L_INST, "Pre-Depends: m | l (>= 2)\n", why,
	    sizeof(why)), UNPACKDEPS_PROBLEM);
	ck_assert_str_eq(why, " p pre-depends on m | l (>= 2)\n"
	    "  m is not installed.\n  l is installed, but is version 1.\n");
	ck_assert_int_eq(predep(L_INST, "Pre-Depends: m | l\n", why,
	    sizeof(why)), UNPACKDEPS_OK);
	/* The second group is the one told. */
	ck_assert_int_eq(predep(L_INST, "Pre-Depends: l, m:any\n", why,
	    sizeof(why)), UNPACKDEPS_PROBLEM);
	ck_assert_str_eq(why, " p pre-depends on m:any\n"
	    "  m is not installed.\n");
}
END_TEST

START_TEST(test_predepends_unpacked)
{
	char why[1024];

	ck_assert_int_eq(predep(L_UNP "\n", "Pre-Depends: l\n", why,
	    sizeof(why)), UNPACKDEPS_PROBLEM);
	ck_assert_str_eq(why, " p pre-depends on l\n"
	    "  l is unpacked, but has never been configured.\n");
	/* Configured once at a version that does too: enough. */
	ck_assert_int_eq(predep(L_UNP "Config-Version: 1\n\n",
	    "Pre-Depends: l (>= 1)\n", why, sizeof(why)), UNPACKDEPS_OK);
	ck_assert_int_eq(predep(L_UNP "Config-Version: 1\n\n",
	    "Pre-Depends: l (>= 2)\n", why, sizeof(why)), UNPACKDEPS_PROBLEM);
	ck_assert_str_eq(why, " p pre-depends on l (>= 2)\n"
	    "  l latest configured version is 1.\n");
	ck_assert_int_eq(predep(L_UNP "Config-Version: 1\n\n",
	    "Pre-Depends: l (<< 2)\n", why, sizeof(why)), UNPACKDEPS_PROBLEM);
	ck_assert_str_eq(why, " p pre-depends on l (<< 2)\n"
	    "  l is unpacked, but is version 2.\n");
	ck_assert_int_eq(predep("Package: l\nStatus: install ok "
	    "config-files\nArchitecture: all\nVersion: 1\n\n",
	    "Pre-Depends: l\n", why, sizeof(why)), UNPACKDEPS_PROBLEM);
	ck_assert_str_eq(why, " p pre-depends on l\n"
	    "  l is not installed but configs remain.\n");
}
END_TEST

START_TEST(test_predepends_triggers)
{
	char why[1024];

	/* Awaiting triggers, never configured: processing them would do. */
	ck_assert_int_eq(predep("Package: l\nStatus: install ok "
	    "triggers-awaited\nArchitecture: all\nVersion: 1\n"
	    "Triggers-Awaited: t\n\n", "Pre-Depends: l\n", why,
	    sizeof(why)), UNPACKDEPS_TRIGGERS);
	ck_assert_str_eq(why, "l");
	/* Configured once: satisfied as it is. */
	ck_assert_int_eq(predep("Package: l\nStatus: install ok "
	    "triggers-awaited\nArchitecture: all\nVersion: 1\n"
	    "Config-Version: 1\nTriggers-Awaited: t\n\n", "Pre-Depends: l\n",
	    why, sizeof(why)), UNPACKDEPS_OK);
	ck_assert_int_eq(predep("Package: l\nStatus: install ok "
	    "triggers-pending\nArchitecture: all\nVersion: 1\n"
	    "Triggers-Pending: t\n\n", "Pre-Depends: l\n", why,
	    sizeof(why)), UNPACKDEPS_OK);
}
END_TEST

START_TEST(test_predepends_provides)
{
	char why[1024];

	ck_assert_int_eq(predep(V_PROV, "Pre-Depends: virt\n", why,
	    sizeof(why)), UNPACKDEPS_OK);
	ck_assert_int_eq(predep(V_PROV, "Pre-Depends: virt (>= 2)\n", why,
	    sizeof(why)), UNPACKDEPS_OK);
	ck_assert_int_eq(predep(V_PROV, "Pre-Depends: virt (>> 2)\n", why,
	    sizeof(why)), UNPACKDEPS_PROBLEM);
	ck_assert_str_eq(why, " p pre-depends on virt (>> 2)\n"
	    "  virt is not installed.\n");
	/* An unversioned Provides satisfies no versioned relation. */
	ck_assert_int_eq(predep(V_PROV, "Pre-Depends: other (>= 1)\n", why,
	    sizeof(why)), UNPACKDEPS_PROBLEM);
	ck_assert_int_eq(predep("Package: v\nStatus: install ok unpacked\n"
	    "Architecture: all\nVersion: 1\nProvides: virt\n\n",
	    "Pre-Depends: virt\n", why, sizeof(why)), UNPACKDEPS_PROBLEM);
	ck_assert_str_eq(why, " p pre-depends on virt\n"
	    "  v provides virt but is unpacked but not configured.\n");
	/* The package itself: by its name, by what it provides. */
	ck_assert_int_eq(predep("", "Pre-Depends: p (>= 1)\n", why,
	    sizeof(why)), UNPACKDEPS_OK);
	ck_assert_int_eq(predep("", "Pre-Depends: p (>= 2)\n", why,
	    sizeof(why)), UNPACKDEPS_PROBLEM);
	ck_assert_str_eq(why, " p pre-depends on p (>= 2)\n"
	    "  p is to be installed, but is version 1.\n");
	ck_assert_int_eq(predep("", "Provides: self (= 3)\n"
	    "Pre-Depends: self (>= 3)\n", why, sizeof(why)), UNPACKDEPS_OK);
}
END_TEST

START_TEST(test_predepends_arch)
{
	char why[1024];
	const char *foreign = "Package: l\nStatus: install ok installed\n"
	    "Architecture: i386\nVersion: 1\n\n";
	const char *allowed = "Package: l\nStatus: install ok installed\n"
	    "Architecture: i386\nMulti-Arch: allowed\nVersion: 1\n\n";
	const char *mafor = "Package: l\nStatus: install ok installed\n"
	    "Architecture: i386\nMulti-Arch: foreign\nVersion: 1\n\n";

	/* p is "all": its implicit arch is the native one. */
	ck_assert_int_eq(predep(foreign, "Pre-Depends: l\n", why,
	    sizeof(why)), UNPACKDEPS_PROBLEM);
	ck_assert_int_eq(predep(foreign, "Pre-Depends: l:i386\n", why,
	    sizeof(why)), UNPACKDEPS_OK);
	ck_assert_int_eq(predep(foreign, "Pre-Depends: l:any\n", why,
	    sizeof(why)), UNPACKDEPS_PROBLEM);
	ck_assert_int_eq(predep(allowed, "Pre-Depends: l:any\n", why,
	    sizeof(why)), UNPACKDEPS_OK);
	ck_assert_int_eq(predep(mafor, "Pre-Depends: l\n", why,
	    sizeof(why)), UNPACKDEPS_OK);
}
END_TEST

/* The Breaks verdicts of p (FIELDS) in ST, every group: "FIX;..." */
static void
breaks(const char *st_text, const char *fields, char *out, size_t n)
{
	struct dpkgstatus st = { NULL, 0 };
	const struct dpkgstatus_stanza *fix;
	struct control *c = pkg(fields);
	size_t at = 0, o = 0;
	char *why;

	status(&st, st_text);
	out[0] = '\0';
	while (unpackdeps_breaks(&st, c, "p", "amd64", &at, &why, &fix) ==
	    UNPACKDEPS_PROBLEM) {
		o += (size_t)snprintf(out + o, n - o, "%s;%s",
		    fix != NULL ? fix->name : "-", why);
		free(why);
	}
	control_free(c);
	dpkgstatus_clear(&st);
}

START_TEST(test_breaks)
{
	char out[2048];

	breaks(L_INST, "Breaks: l (<< 2)\n", out, sizeof(out));
	ck_assert_str_eq(out, "l; p breaks l (<< 2)\n"
	    "  l (version 1) is present and installed.\n");
	breaks(L_INST, "Breaks: l (>= 2), m\n", out, sizeof(out));
	ck_assert_str_eq(out, "");
	/* Unpacked or half-configured: nothing is broken. */
	breaks(L_UNP "\n", "Breaks: l\n", out, sizeof(out));
	ck_assert_str_eq(out, "");
	/* Through Provides, and two at once: no one package to deconfigure. */
	breaks(V_PROV, "Breaks: virt\n", out, sizeof(out));
	ck_assert_str_eq(out, "v; p breaks virt\n"
	    "  v provides virt and is present and installed.\n");
	breaks(L_INST "Package: m\nStatus: install ok installed\n"
	    "Architecture: all\nVersion: 1\nProvides: l\n\n", "Breaks: l\n",
	    out, sizeof(out));
	ck_assert_str_eq(out, "-; p breaks l\n"
	    "  l (version 1) is present and installed.\n"
	    "  m provides l and is present and installed.\n");
	/* Each broken group in turn. */
	breaks(L_INST V_PROV, "Breaks: l, virt (= 2)\n", out, sizeof(out));
	ck_assert_str_eq(out, "l; p breaks l\n"
	    "  l (version 1) is present and installed.\n"
	    "v; p breaks virt (= 2)\n"
	    "  v provides virt and is present and installed.\n");
	/* What p provides itself breaks nothing. */
	breaks("", "Provides: virt\nBreaks: virt\n", out, sizeof(out));
	ck_assert_str_eq(out, "");
}
END_TEST

/*
 * --ignore-depends: a group whose first alternative it names still
 * fails, told as ignored; the groups after a failed one are checked.
 */
START_TEST(test_ignore_depends)
{
	struct dpkgstatus st = { NULL, 0 };
	struct control *c = pkg("Pre-Depends: l, m | q, o\n");
	char why[1024], *w, *trig;
	size_t at = 0;
	bool ignored;

	ignore = "m,l";
	ck_assert_int_eq(predep("", "Pre-Depends: l (>= 2)\n", why,
	    sizeof(why)), UNPACKDEPS_PROBLEM);
	ck_assert(last_ignored);
	ck_assert_int_eq(predep("", "Pre-Depends: q | l\n", why, sizeof(why)),
	    UNPACKDEPS_PROBLEM);
	ck_assert(!last_ignored);
	/* A prefix of a name is not that name. */
	ignore = "ll,lx:amd64";
	ck_assert_int_eq(predep("", "Pre-Depends: l\n", why, sizeof(why)),
	    UNPACKDEPS_PROBLEM);
	ck_assert(!last_ignored);
	ignore = NULL;

	/* Group by group: l, then m | q, then o, then nothing more. */
	status(&st, "");
	ck_assert_int_eq(unpackdeps_predepends(&st, c, "p", NULL, "m", &at,
	    &ignored, &w, &trig), UNPACKDEPS_PROBLEM);
	ck_assert(!ignored);
	ck_assert_str_eq(w, " p pre-depends on l\n  l is not installed.\n");
	free(w);
	ck_assert_int_eq(unpackdeps_predepends(&st, c, "p", NULL, "m", &at,
	    &ignored, &w, &trig), UNPACKDEPS_PROBLEM);
	ck_assert(ignored);
	free(w);
	ck_assert_int_eq(unpackdeps_predepends(&st, c, "p", NULL, "m", &at,
	    &ignored, &w, &trig), UNPACKDEPS_PROBLEM);
	ck_assert_str_eq(w, " p pre-depends on o\n  o is not installed.\n");
	free(w);
	ck_assert_int_eq(unpackdeps_predepends(&st, c, "p", NULL, "m", &at,
	    &ignored, &w, &trig), UNPACKDEPS_OK);
	control_free(c);
	dpkgstatus_clear(&st);

	ck_assert(unpackdeps_ignored("a,l:i386", "l", NULL));
	ck_assert(unpackdeps_ignored("a,l:i386", "l", "i386"));
	ck_assert(!unpackdeps_ignored("a,l:i386", "l", "amd64"));
	ck_assert(unpackdeps_ignored("a,l", "l", "amd64"));
	ck_assert(!unpackdeps_ignored("a,l", "ab", NULL));
	ck_assert(!unpackdeps_ignored(NULL, "l", NULL));

	ck_assert(unpackdeps_ignore_valid("a"));
	ck_assert(unpackdeps_ignore_valid("a,b:i386,lib2.0+x"));
	ck_assert(!unpackdeps_ignore_valid(""));
	ck_assert(!unpackdeps_ignore_valid("a,"));
	ck_assert(!unpackdeps_ignore_valid(",a"));
	ck_assert(!unpackdeps_ignore_valid("a,,b"));
	ck_assert(!unpackdeps_ignore_valid("a/b"));
	ck_assert(!unpackdeps_ignore_valid("a:"));
	ck_assert(!unpackdeps_ignore_valid("a:b/c"));
}
END_TEST

START_TEST(test_bad_field)
{
	struct dpkgstatus st = { NULL, 0 };
	const struct dpkgstatus_stanza *fix;
	struct control *c = pkg("Pre-Depends: l (>= \nBreaks: (x)\n");
	char *why, *trig;
	size_t at = 0;
	bool ignored;

	ck_assert_int_eq(unpackdeps_predepends(&st, c, "p", NULL, NULL, &at,
	    &ignored, &why, &trig), -EINVAL);
	at = 0;
	ck_assert_int_eq(unpackdeps_breaks(&st, c, "p", NULL, &at, &why,
	    &fix), -EINVAL);
	control_free(c);
}
END_TEST

/*
 * The packages the removal of o (in favour of p, FIELDS) breaks in ST:
 * their names and first lines of dpkg's explanation, in BUF.
 */
static int
removal(const char *st_text, const char *fields, char *buf, size_t n)
{
	struct dpkgstatus st = { NULL, 0 };
	const struct dpkgstatus_stanza *d, *o;
	struct control *c = pkg(fields);
	char *why, *via;
	size_t at = 0, k = 0;
	int r, found = 0;

	status(&st, st_text);
	o = dpkgstatus_peek(&st, "o", NULL, NULL);
	ck_assert_ptr_nonnull(o);
	buf[0] = '\0';
	while ((r = unpackdeps_removal(&st, c, "p", "amd64", o, &at, &d, &why,
	    &via)) == 1) {
		k += (size_t)snprintf(buf + k, n - k, "%s%s|%s", d->name,
		    via != NULL ? "(via)" : "", why);
		free(why);
		free(via);
		found++;
	}
	ck_assert_int_eq(r, 0);
	dpkgstatus_clear(&st);
	control_free(c);
	return found;
}

#define O_INSTALLED "Package: o\nStatus: install ok installed\n" \
	"Architecture: all\nVersion: 1\nProvides: vo\n\n"

START_TEST(test_removal)
{
	char buf[2048];

	/* By name, version named: broken. */
	ck_assert_int_eq(removal(O_INSTALLED "Package: d\nStatus: install ok"
	    " installed\nArchitecture: all\nVersion: 1\nDepends: o (>= 1)\n",
	    "", buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "d| d depends on o (>= 1)\n  o is to be"
	    " removed.\n");
	/* Another alternative installed, or p itself, or p providing it. */
	ck_assert_int_eq(removal(O_INSTALLED "Package: x\nStatus: install ok"
	    " installed\nArchitecture: all\nVersion: 1\n\nPackage: d\n"
	    "Status: install ok installed\nArchitecture: all\nVersion: 1\n"
	    "Depends: o | x\n", "", buf, sizeof(buf)), 0);
	ck_assert_int_eq(removal(O_INSTALLED "Package: d\nStatus: install ok"
	    " installed\nArchitecture: all\nVersion: 1\nDepends: o | p\n",
	    "", buf, sizeof(buf)), 0);
	ck_assert_int_eq(removal(O_INSTALLED "Package: d\nStatus: install ok"
	    " installed\nArchitecture: all\nVersion: 1\nDepends: vo\n",
	    "Provides: vo\n", buf, sizeof(buf)), 0);
	/* Through what o provides. */
	ck_assert_int_eq(removal(O_INSTALLED "Package: d\nStatus: install ok"
	    " installed\nArchitecture: all\nVersion: 1\nDepends: vo\n",
	    "", buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "d(via)| d depends on vo\n  o provides vo but"
	    " is to be removed.\n");
	/* An unpacked package's Depends do not count, its Pre-Depends do. */
	ck_assert_int_eq(removal(O_INSTALLED "Package: d\nStatus: install ok"
	    " unpacked\nArchitecture: all\nVersion: 1\nDepends: o\n",
	    "", buf, sizeof(buf)), 0);
	ck_assert_int_eq(removal(O_INSTALLED "Package: d\nStatus: install ok"
	    " unpacked\nArchitecture: all\nVersion: 1\nPre-Depends: o\n",
	    "", buf, sizeof(buf)), 1);
	/* Two, newest first as dpkg walks them; an unconfigured x is no help. */
	ck_assert_int_eq(removal(O_INSTALLED "Package: x\nStatus: install ok"
	    " unpacked\nArchitecture: all\nVersion: 1\n\nPackage: d\n"
	    "Status: install ok installed\nArchitecture: all\nVersion: 1\n"
	    "Depends: o | x\n\nPackage: e\nStatus: install ok installed\n"
	    "Architecture: all\nVersion: 1\nDepends: o\n", "", buf,
	    sizeof(buf)), 2);
	ck_assert_str_eq(buf, "e| e depends on o\n  o is to be removed.\n"
	    "d| d depends on o | x\n  o is to be removed.\n  x is unpacked"
	    " but not configured.\n");
}
END_TEST

static Suite *
unpackdeps_suite(void)
{
	Suite *s = suite_create("unpackdeps");
	TCase *tc = tcase_create("depisok");

	tcase_add_test(tc, test_predepends_installed);
	tcase_add_test(tc, test_predepends_unpacked);
	tcase_add_test(tc, test_predepends_triggers);
	tcase_add_test(tc, test_predepends_provides);
	tcase_add_test(tc, test_predepends_arch);
	tcase_add_test(tc, test_breaks);
	tcase_add_test(tc, test_ignore_depends);
	tcase_add_test(tc, test_bad_field);
	tcase_add_test(tc, test_removal);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return checkutil_run(unpackdeps_suite());
}
