/* SPDX-License-Identifier: MIT */
/* Unit tests of dpkgargs.c: dpkg's command line and configuration files, parsed as dpkg parses them. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkutil.h"
#include "cli/dpkgargs.h"

/* Parse the NULL-terminated words (the program first) into A, with dpkg's default forces. */
static int
parse(struct dpkgargs *a, char *const *argv)
{
	int argc = 0;

	while (argv[argc] != NULL)
		argc++;
	ck_assert_int_eq(dpkgargs_init(a, NULL), 0);
	return dpkgargs_parse(a, argc, argv);
}

static bool
forced(const struct dpkgargs *a, const char *name)
{
	const struct dpkgargs_def *d = dpkgargs_force(name, strlen(name));

	ck_assert_ptr_nonnull(d);
	return a->force[d - dpkgargs_table];
}

/* Parsing ARGV fails with dpkg's message WANT. */
static void
assert_usage(char *const *argv, const char *want)
{
	struct dpkgargs a;

	ck_assert_int_eq(parse(&a, argv), -EINVAL);
	ck_assert_str_eq(a.error, want);
	dpkgargs_free(&a);
}

START_TEST(test_dpkgargs_long_forms)
{
	char *argv[] = { "dpkg", "--root=/r", "--status-fd", "3", "--unpack",
	    "--path-exclude", "/a", "--log=/l", "x.deb", "--root=/late",
	    NULL };
	struct dpkgargs a;

	ck_assert_int_eq(parse(&a, argv), 0);
	ck_assert_str_eq(a.action->name, "unpack");
	ck_assert_int_eq(a.action->id, DPKGARGS_ID_UNPACK);
	ck_assert_str_eq(dpkgargs_value(&a, DPKGARGS_ID_ROOT), "/r");
	ck_assert_str_eq(dpkgargs_value(&a, DPKGARGS_ID_STATUS_FD), "3");
	ck_assert_str_eq(dpkgargs_value(&a, DPKGARGS_ID_LOG), "/l");
	ck_assert_uint_eq(a.nuse, 4);
	ck_assert_str_eq(a.use[2].def->name, "path-exclude");
	ck_assert_str_eq(a.use[2].value, "/a");
	ck_assert_ptr_null(a.use[2].origin);
	/* The first word that is no option ends them: the rest are operands. */
	ck_assert_int_eq(a.noperands, 2);
	ck_assert_str_eq(a.operands[0], "x.deb");
	ck_assert_str_eq(a.operands[1], "--root=/late");
	ck_assert_ptr_null(a.operands[2]);
	dpkgargs_free(&a);
}
END_TEST

START_TEST(test_dpkgargs_short_clusters)
{
	char *argv[] = { "dpkg", "-BRi", "-D10", "-Dhelp", "-D", "7", "-D=3",
	    "-G", "dir", NULL };
	struct dpkgargs a;

	ck_assert_int_eq(parse(&a, argv), 0);
	ck_assert_int_eq(a.action->id, DPKGARGS_ID_INSTALL);
	ck_assert(dpkgargs_given(&a, DPKGARGS_ID_RECURSIVE));
	ck_assert(!dpkgargs_given(&a, DPKGARGS_ID_ROOT));
	/* B, R, four -D, G. */
	ck_assert_uint_eq(a.nuse, 7);
	ck_assert_str_eq(a.use[2].value, "10");
	ck_assert_str_eq(a.use[3].value, "help");
	ck_assert_str_eq(a.use[4].value, "7");
	ck_assert_str_eq(a.use[5].value, "3");
	ck_assert(!forced(&a, "downgrade"));
	ck_assert_int_eq(a.noperands, 1);
	dpkgargs_free(&a);
}
END_TEST

START_TEST(test_dpkgargs_dashes)
{
	char *argv[] = { "dpkg", "--unpack", "--", "--root", "-", NULL };
	char *argv2[] = { "dpkg", "--unpack", "-", "-x", NULL };
	struct dpkgargs a;

	ck_assert_int_eq(parse(&a, argv), 0);
	ck_assert_int_eq(a.noperands, 2);
	ck_assert_str_eq(a.operands[0], "--root");
	ck_assert_uint_eq(a.nuse, 0);
	dpkgargs_free(&a);
	/* "-" alone is an operand, and ends the options. */
	ck_assert_int_eq(parse(&a, argv2), 0);
	ck_assert_int_eq(a.noperands, 2);
	ck_assert_str_eq(a.operands[1], "-x");
	dpkgargs_free(&a);
}
END_TEST

START_TEST(test_dpkgargs_forces)
{
	char *argv[] = { "dpkg", "--force-overwrite,depends", "--force",
	    "confold", "--refuse-depends", "--no-force-security-mac",
	    "--unpack", NULL };
	char *all[] = { "dpkg", "--force-all", "--refuse-overwrite", NULL };
	struct dpkgargs a;

	ck_assert_int_eq(parse(&a, argv), 0);
	ck_assert(forced(&a, "overwrite"));
	ck_assert(forced(&a, "confold"));
	ck_assert(!forced(&a, "depends"));
	ck_assert(!forced(&a, "security-mac"));
	/* dpkg's default. */
	ck_assert(forced(&a, "downgrade"));
	ck_assert(!forced(&a, "overwrite-dir"));
	dpkgargs_free(&a);
	ck_assert_int_eq(parse(&a, all), 0);
	ck_assert(forced(&a, "overwrite-dir"));
	ck_assert(forced(&a, "remove-essential"));
	ck_assert(!forced(&a, "overwrite"));
	dpkgargs_free(&a);
}
END_TEST

START_TEST(test_dpkgargs_force_env)
{
	struct dpkgargs a;

	/* DPKG_FORCE replaces dpkg's defaults, empty means none. */
	ck_assert_int_eq(dpkgargs_init(&a, "overwrite,hold"), 0);
	ck_assert(forced(&a, "overwrite"));
	ck_assert(forced(&a, "hold"));
	ck_assert(!forced(&a, "downgrade"));
	dpkgargs_free(&a);
	ck_assert_int_eq(dpkgargs_init(&a, ""), 0);
	ck_assert(!forced(&a, "downgrade"));
	ck_assert(!forced(&a, "security-mac"));
	dpkgargs_free(&a);
	ck_assert_int_eq(dpkgargs_init(&a, "nosuch"), -EINVAL);
	ck_assert_str_eq(a.error, "unknown force/refuse option 'nosuch'");
	dpkgargs_free(&a);
}
END_TEST

START_TEST(test_dpkgargs_actions)
{
	char *assert_ma[] = { "dpkg", "--assert-multi-arch", NULL };
	char *listing[] = { "dpkg", "-l", "a*", NULL };
	char *deb[] = { "dpkg", "-c", "x.deb", NULL };
	char *none[] = { "dpkg", "--root=/", NULL };
	struct dpkgargs a;

	ck_assert_int_eq(parse(&a, assert_ma), 0);
	ck_assert_str_eq(a.action->name, "assert");
	ck_assert_str_eq(a.action_value, "multi-arch");
	ck_assert_int_eq(a.action->verdict, DPKGARGS_HANDON);
	dpkgargs_free(&a);
	ck_assert_int_eq(parse(&a, listing), 0);
	ck_assert_str_eq(a.action->name, "list");
	dpkgargs_free(&a);
	/* -c is dpkg-deb's --contents (--command-fd has no short name). */
	ck_assert_int_eq(parse(&a, deb), 0);
	ck_assert_str_eq(a.action->name, "contents");
	dpkgargs_free(&a);
	ck_assert_int_eq(parse(&a, none), 0);
	ck_assert_ptr_null(a.action);
	dpkgargs_free(&a);
}
END_TEST

START_TEST(test_dpkgargs_usage_errors)
{
	char *unknown[] = { "dpkg", "--bogus", NULL };
	char *unknown_short[] = { "dpkg", "-iZ", NULL };
	char *no_value[] = { "dpkg", "--unpack", "--root", NULL };
	char *no_value_short[] = { "dpkg", "-D", NULL };
	char *value[] = { "dpkg", "--no-act=1", NULL };
	char *value_short[] = { "dpkg", "-R=1", NULL };
	char *two[] = { "dpkg", "--unpack", "-i", NULL };
	char *two_long[] = { "dpkg", "--unpack", "--configure", NULL };
	char *fd[] = { "dpkg", "--status-fd=x", NULL };
	char *fd_neg[] = { "dpkg", "--status-fd", "-1", NULL };
	char *force[] = { "dpkg", "--force-overwrite,nosuch", NULL };
	char *prefix[] = { "dpkg", "--forcex", NULL };

	assert_usage(unknown, "unknown option --bogus");
	assert_usage(unknown_short, "unknown option -Z");
	assert_usage(no_value, "--root option takes a value");
	assert_usage(no_value_short, "-D option takes a value");
	assert_usage(value, "--no-act option does not take a value");
	assert_usage(value_short, "-R option does not take a value");
	assert_usage(two, "conflicting actions -i (--install) and -\b"
	    " (--unpack)");
	assert_usage(two_long, "conflicting actions -\b (--configure) and"
	    " -\b (--unpack)");
	assert_usage(fd, "invalid integer for --status-fd: 'x'");
	assert_usage(fd_neg, "invalid integer for --status-fd: '-1'");
	assert_usage(force, "unknown force/refuse option 'nosuch'");
	assert_usage(prefix, "unknown option --forcex");
}
END_TEST

/* Load the configuration of the scratch directory (HOME there too). */
static int
load(struct dpkgargs *a)
{
	ck_assert_int_eq(dpkgargs_init(a, NULL), 0);
	return dpkgargs_load_config(a, checkutil_at("etc"),
	    checkutil_scratch());
}

START_TEST(test_dpkgargs_config_order)
{
	char *argv[] = { "dpkg", "--path-exclude=/f", "-i", NULL };
	struct dpkgargs a;
	size_t i;
	static const char *const want[] = { "/a", "/b", "/c", "/d", "/e",
	    "/f" };

	checkutil_mkdir("etc");
	checkutil_mkdir("etc/dpkg.cfg.d");
	/* strcmp order: "10" before "9", "B" before "a". */
	checkutil_write("etc/dpkg.cfg.d/10x", "# c\n\npath-exclude=/a\n");
	checkutil_write("etc/dpkg.cfg.d/9_y", "path-exclude  \"/b\"  \n");
	checkutil_write("etc/dpkg.cfg.d/B-z", "path-exclude '/c'\n");
	checkutil_write("etc/dpkg.cfg.d/a.cfg", "path-exclude=/never\n");
	checkutil_write("etc/dpkg.cfg.d/.a", "path-exclude=/never\n");
	checkutil_write("etc/dpkg.cfg.d/a~", "path-exclude=/never\n");
	checkutil_write("etc/dpkg.cfg", "path-exclude /d\nforce-overwrite\n"
	    "no-debsig\nrefuse-downgrade\n");
	checkutil_write(".dpkg.cfg", "path-exclude=/e\n");
	ck_assert_int_eq(load(&a), 0);
	ck_assert_int_eq(dpkgargs_parse(&a, 3, argv), 0);
	ck_assert_uint_eq(a.nuse, 9);
	for (i = 0; i < 6; i++) {
		const struct dpkgargs_use *u = &a.use[i < 4 ? i : i + 3];

		ck_assert_str_eq(u->def->name, "path-exclude");
		ck_assert_str_eq(u->value, want[i]);
	}
	ck_assert_str_eq(a.use[0].origin, checkutil_at("etc/dpkg.cfg.d/10x"));
	ck_assert_ptr_null(a.use[8].origin);
	ck_assert(forced(&a, "overwrite"));
	ck_assert(!forced(&a, "downgrade"));
	ck_assert(dpkgargs_given(&a, DPKGARGS_ID_NO_DEBSIG));
	dpkgargs_free(&a);
}
END_TEST

START_TEST(test_dpkgargs_config_missing)
{
	struct dpkgargs a;

	/* Nothing there: nothing read, no error. */
	ck_assert_int_eq(load(&a), 0);
	ck_assert_uint_eq(a.nuse, 0);
	dpkgargs_free(&a);
}
END_TEST

/* A dpkg.cfg of TEXT fails to load with WANT (FILE:LINE in it). */
static void
assert_config_error(const char *text, const char *want)
{
	char msg[1024];
	struct dpkgargs a;

	checkutil_write("etc/dpkg.cfg", text);
	ck_assert_int_eq(load(&a), -EINVAL);
	snprintf(msg, sizeof(msg), "configuration error: %s:%s",
	    checkutil_at("etc/dpkg.cfg"), want);
	ck_assert_str_eq(a.error, msg);
	dpkgargs_free(&a);
}

START_TEST(test_dpkgargs_config_errors)
{
	checkutil_mkdir("etc");
	assert_config_error("no-debsig\nbogus\n", "2: unknown option 'bogus'");
	assert_config_error("root\n", "1: 'root' needs a value");
	assert_config_error("no-debsig yes\n",
	    "1: 'no-debsig' does not take a value");
	assert_config_error("root \"/x\n", "1: unbalanced quotes in 'root'");
	/* Leading blanks are not skipped: an empty option name. */
	assert_config_error("  no-debsig\n", "1: unknown option ''");
}
END_TEST

START_TEST(test_dpkgargs_config_force_forms)
{
	struct dpkgargs a;

	checkutil_mkdir("etc");
	/* force-X, force X and force=X. */
	checkutil_write("etc/dpkg.cfg", "force-confold\nforce overwrite\n"
	    "force=hold\nno-force-downgrade\n");
	ck_assert_int_eq(load(&a), 0);
	ck_assert(forced(&a, "confold"));
	ck_assert(forced(&a, "overwrite"));
	ck_assert(forced(&a, "hold"));
	ck_assert(!forced(&a, "downgrade"));
	dpkgargs_free(&a);
	/* A force dpkg does not know is its usage error. */
	checkutil_write("etc/dpkg.cfg", "force-nosuch\n");
	ck_assert_int_eq(load(&a), -EINVAL);
	ck_assert_str_eq(a.error, "unknown force/refuse option 'nosuch'");
	dpkgargs_free(&a);
}
END_TEST

START_TEST(test_dpkgargs_table_verdicts)
{
	const struct dpkgargs_def *d;
	size_t runs = 0;

	/* Only --install and --unpack run; each MAP row names its option. */
	for (d = dpkgargs_table; d->name != NULL || d->short_name != 0; d++) {
		if (d->verdict == DPKGARGS_RUN) {
			ck_assert(strcmp(d->name, "install") == 0 ||
			    strcmp(d->name, "unpack") == 0);
			runs++;
		}
		if (d->verdict == DPKGARGS_MAP)
			ck_assert(d->debunpack != NULL &&
			    strncmp(d->debunpack, "--", 2) == 0);
		else
			ck_assert_ptr_null(d->debunpack);
	}
	ck_assert_uint_eq(runs, 2);
	ck_assert_ptr_null(dpkgargs_force("overwrite", 4));
	ck_assert_ptr_nonnull(dpkgargs_force("overwrite,x", 9));
}
END_TEST

START_TEST(test_dpkgargs_force_string)
{
	char *argv[] = { "dpkg", "--force-overwrite,confold", "-G", NULL };
	char *all[] = { "dpkg", "--force-all", "--refuse-confask", NULL };
	struct dpkgargs a;
	char *f;

	/* dpkg's order, not the command line's. */
	ck_assert_int_eq(parse(&a, argv), 0);
	ck_assert_str_eq((f = dpkgargs_force_string(&a)),
	    "security-mac,overwrite,confold");
	free(f);
	dpkgargs_free(&a);
	ck_assert_int_eq(parse(&a, all), 0);
	f = dpkgargs_force_string(&a);
	ck_assert_ptr_eq(strstr(f, "all"), NULL);
	ck_assert_ptr_eq(strstr(f, "confask"), NULL);
	ck_assert(strncmp(f, "security-mac,downgrade,configure-any,", 37) == 0);
	free(f);
	dpkgargs_free(&a);
	ck_assert_int_eq(dpkgargs_init(&a, ""), 0);
	ck_assert_str_eq((f = dpkgargs_force_string(&a)), "");
	free(f);
	dpkgargs_free(&a);
}
END_TEST

START_TEST(test_dpkgargs_int)
{
	struct dpkgargs a;
	const struct dpkgargs_def *fd = NULL, *d;

	for (d = dpkgargs_table; d->name != NULL || d->short_name != 0; d++)
		if (d->id == DPKGARGS_ID_STATUS_FD)
			fd = d;
	ck_assert_ptr_nonnull(fd);
	ck_assert_int_eq(dpkgargs_init(&a, NULL), 0);
	/* strtol's base 0, as dpkg's. */
	ck_assert_int_eq(dpkgargs_int(&a, fd, "0x10"), 16);
	ck_assert_int_eq(dpkgargs_int(&a, fd, "010"), 8);
	ck_assert_int_eq(dpkgargs_int(&a, fd, "2147483647"), 2147483647);
	ck_assert_int_eq(dpkgargs_int(&a, fd, "2147483648"), -1);
	ck_assert_int_eq(dpkgargs_int(&a, fd, ""), -1);
	ck_assert_int_eq(dpkgargs_int(&a, fd, "3 "), -1);
	dpkgargs_free(&a);
}
END_TEST

static Suite *
dpkgargs_suite(void)
{
	Suite *s = suite_create("dpkgargs");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_test(tc, test_dpkgargs_long_forms);
	tcase_add_test(tc, test_dpkgargs_short_clusters);
	tcase_add_test(tc, test_dpkgargs_dashes);
	tcase_add_test(tc, test_dpkgargs_forces);
	tcase_add_test(tc, test_dpkgargs_force_env);
	tcase_add_test(tc, test_dpkgargs_actions);
	tcase_add_test(tc, test_dpkgargs_table_verdicts);
	tcase_add_test(tc, test_dpkgargs_force_string);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_test(tc, test_dpkgargs_usage_errors);
	tcase_add_test(tc, test_dpkgargs_int);
	suite_add_tcase(s, tc);

	tc = checkutil_scratch_tcase(s, "config", NULL, NULL);
	tcase_add_test(tc, test_dpkgargs_config_order);
	tcase_add_test(tc, test_dpkgargs_config_missing);
	tcase_add_test(tc, test_dpkgargs_config_errors);
	tcase_add_test(tc, test_dpkgargs_config_force_forms);
	return s;
}

int
main(void)
{
	return checkutil_run(dpkgargs_suite());
}
