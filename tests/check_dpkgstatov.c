/* SPDX-License-Identifier: MIT */
/* Unit tests of dpkgstatov.c: dpkg-statoverride's overrides file, read as dpkg reads it. */
#include "config.h"

#include <check.h>
#include <string.h>
#include <unistd.h>

#include "checkutil.h"
#include "db/dpkgstatov.h"

/*
 * The overrides of the scratch root (TEXT: its statoverride file; NULL:
 * none), with the root's passwd and group; -EINVAL and ERR if refused.
 */
static int
statov_read(const char *text, struct dpkgstatov **s, struct dbp_error *err)
{
	struct users *users = NULL;
	struct rootfs rf;
	int r;

	/* One scratch root per test, read again by each call. */
	if (access(checkutil_at("etc"), F_OK) != 0) {
		checkutil_mkdir("etc");
		checkutil_mkdir("var");
		checkutil_mkdir("var/lib");
		checkutil_mkdir("var/lib/dpkg");
	}
	unlink(checkutil_at("var/lib/dpkg/statoverride"));
	checkutil_write("etc/passwd", "root:x:0:0::/root:/bin/sh\n"
	    "daemon:x:1:1::/:/bin/false\n");
	checkutil_write("etc/group", "root:x:0:\nadm:x:4:\n");
	if (text != NULL)
		checkutil_write("var/lib/dpkg/statoverride", text);
	ck_assert_int_eq(rootfs_open(&rf, checkutil_scratch(), err), 0);
	ck_assert_int_eq(users_load(&users, &rf), 0);
	r = dpkgstatov_load(s, &rf, users, err);
	users_free(users);
	rootfs_close(&rf);
	return r;
}

START_TEST(test_dpkgstatov_read)
{
	const struct dpkgstatov_entry *e;
	struct dpkgstatov *s = NULL;
	struct dbp_error err;

	/* Names in the root's files, numbers, a path with a space. */
	ck_assert_int_eq(statov_read("daemon adm 4750 /usr/bin/x\n"
	    "#7 #8 640 /etc/a b\n", &s, &err), 0);
	ck_assert_uint_eq(dpkgstatov_count(s), 2);
	e = dpkgstatov_find(s, "/usr/bin/x");
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->uid, 1);
	ck_assert_uint_eq(e->gid, 4);
	ck_assert_uint_eq(e->mode, 04750);
	e = dpkgstatov_find(s, "/etc/a b");
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->uid, 7);
	ck_assert_uint_eq(e->gid, 8);
	ck_assert_uint_eq(e->mode, 0640);
	ck_assert_ptr_null(dpkgstatov_find(s, "/etc/a"));
	dpkgstatov_free(s);
	/* None, an empty file, and NULL: no override. */
	ck_assert_int_eq(statov_read(NULL, &s, &err), 0);
	ck_assert_uint_eq(dpkgstatov_count(s), 0);
	ck_assert_ptr_null(dpkgstatov_find(s, "/usr/bin/x"));
	dpkgstatov_free(s);
	ck_assert_int_eq(statov_read("", &s, &err), 0);
	ck_assert_uint_eq(dpkgstatov_count(s), 0);
	dpkgstatov_free(s);
	ck_assert_ptr_null(dpkgstatov_find(NULL, "/x"));
	dpkgstatov_free(NULL);
}
END_TEST

/* TEXT is refused, ERR saying WHAT. */
static void
assert_refused(const char *text, const char *what)
{
	struct dpkgstatov *s = NULL;
	struct dbp_error err;

	ck_assert_int_ne(statov_read(text, &s, &err), 0);
	ck_assert_ptr_null(s);
	ck_assert_str_eq(err.path, "var/lib/dpkg/statoverride");
	ck_assert_msg(strstr(err.msg, what) != NULL, "\"%s\" does not say"
	    " \"%s\"", err.msg, what);
}

START_TEST(test_dpkgstatov_refused)
{
	assert_refused("nobody root 0644 /x\n",
	    "line 1: unknown system user 'nobody'");
	assert_refused("root staff 0644 /x\n",
	    "line 1: unknown system group 'staff'");
	assert_refused("root root 0644 /x\n#-1 root 0644 /y\n",
	    "line 2: invalid statoverride uid #-1");
	assert_refused("root #x 0644 /x\n", "invalid statoverride gid #x");
	assert_refused("root root 9 /x\n", "invalid statoverride mode 9");
	assert_refused("root root 17777 /x\n", "invalid statoverride mode");
	assert_refused("root root /x\n", "syntax error");
	assert_refused("root root 0644 \n", "syntax error");
	assert_refused("root root 0644 /x", "missing final newline");
	assert_refused("root root 0644 /x\n\n", "line 2: statoverride file"
	    " contains empty line");
	assert_refused("root root 0644 /x\nroot root 0600 /x\n",
	    "multiple statoverrides present for file '/x'");
}
END_TEST

static Suite *
dpkgstatov_suite(void)
{
	Suite *s = suite_create("dpkgstatov");
	TCase *tc;

	tc = checkutil_scratch_tcase(s, "read", NULL, NULL);
	tcase_add_test(tc, test_dpkgstatov_read);
	tc = checkutil_scratch_tcase(s, "limits", NULL, NULL);
	tcase_add_test(tc, test_dpkgstatov_refused);
	return s;
}

int
main(void)
{
	return checkutil_run(dpkgstatov_suite());
}
