/* SPDX-License-Identifier: MIT */
/* Unit tests of dpkgtrig.c: interests registered, activations resolved into notes as dpkg resolves them. */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "checkutil.h"
#include "db/dpkgtrig.h"
#include "db/record.h"
#include "deb/control.h"

/* The triggers directory of the scratch root, FILE and UNINCORP written (NULL: none). */
static struct dpkgtrig *
trig_open(const char *file, const char *unincorp, int *dfd)
{
	struct dpkgtrig *t = NULL;

	checkutil_mkdir("triggers");
	if (file != NULL)
		checkutil_write("triggers/File", file);
	if (unincorp != NULL)
		checkutil_write("triggers/Unincorp", unincorp);
	checkutil_write("triggers/tname", "pkg-i\npkg-j/noawait\n");
	*dfd = open(checkutil_at("triggers"), O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(*dfd, 0);
	ck_assert_int_eq(dpkgtrig_new(&t, *dfd), 0);
	return t;
}

/* Note I of T is PEND, TRIG, AW (NULL: none). */
static void
assert_note(const struct dpkgtrig *t, size_t i, const char *pend,
    const char *trig, const char *aw)
{
	const struct dpkgtrig_note *n;
	size_t nn;

	n = dpkgtrig_notes(t, &nn);
	ck_assert_uint_lt(i, nn);
	ck_assert_str_eq(n[i].pend, pend);
	ck_assert_str_eq(n[i].trig, trig);
	if (aw == NULL)
		ck_assert_ptr_null(n[i].aw);
	else
		ck_assert_str_eq(n[i].aw, aw);
}

/* File NAME as T would write it: its text, or NULL when unchanged. */
static const char *
trig_text(struct dpkgtrig *t, const char *name)
{
	const char *n, *text;
	size_t idx = 0, len;

	while (dpkgtrig_file(t, &idx, &n, &text, &len) > 0)
		if (strcmp(n, name) == 0)
			return text;
	return NULL;
}

static struct record *
rec_with(const char *path)
{
	const char *text = "Package: pkg-a\nVersion: 1\nArchitecture: all\n";
	struct control *ctl = NULL;
	struct record *r = NULL;
	struct dbp_error err;

	ck_assert_int_eq(control_parse(text, strlen(text), &ctl, &err), 0);
	ck_assert_int_eq(record_new(&r, ctl), 0);
	checkutil_record_add(r, 'd', "/usr", false, NULL);
	checkutil_record_add(r, 'd', "/usr/share", false, NULL);
	if (path != NULL)
		checkutil_record_add(r, 'f', path, false, NULL);
	return r;
}

START_TEST(test_dpkgtrig_unincorp)
{
	struct dpkgtrig *t;
	size_t nn;
	int dfd;

	/*
	 * dpkg-trigger's queue: a file trigger activates the interests in
	 * its path and above it, an explicit one its file's packages; "-"
	 * awaits nothing, a noawait interest is awaited by none.
	 */
	t = trig_open("/usr/share/man pkg-i\n/usr/share pkg-k/noawait\n"
	    "/usr/share/mandb pkg-x\n",
	    "/usr/share/man/man1 pkg-a\ntname - pkg-b\n", &dfd);
	dpkgtrig_notes(t, &nn);
	ck_assert_uint_eq(nn, 6);
	assert_note(t, 0, "pkg-i", "/usr/share/man", "pkg-a");
	assert_note(t, 1, "pkg-k", "/usr/share", NULL);
	assert_note(t, 2, "pkg-i", "tname", NULL);
	assert_note(t, 3, "pkg-j", "tname", NULL);
	assert_note(t, 4, "pkg-i", "tname", "pkg-b");
	assert_note(t, 5, "pkg-j", "tname", NULL);
	/* The queue is emptied, the interests stay. */
	ck_assert_str_eq(trig_text(t, "Unincorp"), "");
	dpkgtrig_free(t);
	close(dfd);
}
END_TEST

START_TEST(test_dpkgtrig_package)
{
	struct record *r;
	struct dpkgtrig *t;
	size_t nn;
	int dfd;

	t = trig_open("/usr/share/man pkg-i\n", NULL, &dfd);
	dpkgtrig_notes(t, &nn);
	ck_assert_uint_eq(nn, 0);
	/*
	 * dpkg's order: activate directives (awaited only by a package
	 * that was there), paths installed, paths the old version had,
	 * then the interests.
	 */
	r = rec_with("/usr/share/man/a.1");
	ck_assert_int_eq(dpkgtrig_package(t, "pkg-a", "pkg-a",
	    "interest /usr/share/old\n", "activate tname\n"
	    "interest-noawait /usr/share/doc\n", r,
	    "/.\n/usr\n/usr/share\n/usr/share/old/x\n", true, NULL), 0);
	dpkgtrig_notes(t, &nn);
	ck_assert_uint_eq(nn, 3);
	assert_note(t, 0, "pkg-i", "tname", "pkg-a");
	assert_note(t, 1, "pkg-j", "tname", NULL);
	assert_note(t, 2, "pkg-i", "/usr/share/man", "pkg-a");
	ck_assert_str_eq(trig_text(t, "File"),
	    "/usr/share/man pkg-i\n/usr/share/doc pkg-a/noawait\n");
	record_free(r);

	/* A new package awaits nothing its directives fire. */
	r = rec_with(NULL);
	ck_assert_int_eq(dpkgtrig_package(t, "pkg-b", "pkg-b", NULL,
	    "activate-await tname\n", r, NULL, false, NULL), 0);
	dpkgtrig_notes(t, &nn);
	ck_assert_uint_eq(nn, 5);
	assert_note(t, 3, "pkg-i", "tname", NULL);
	/* The removed path under pkg-a's interest: pkg-a's. */
	ck_assert_int_eq(dpkgtrig_package(t, "pkg-c", "pkg-c", NULL, NULL, r,
	    "/usr/share/doc/c/copyright\n", true, NULL), 0);
	assert_note(t, 5, "pkg-a", "/usr/share/doc", NULL);
	record_free(r);
	dpkgtrig_free(t);
	close(dfd);
}
END_TEST

static Suite *
dpkgtrig_suite(void)
{
	Suite *s = suite_create("dpkgtrig");
	TCase *tc;

	tc = checkutil_scratch_tcase(s, "unincorp", NULL, NULL);
	tcase_add_test(tc, test_dpkgtrig_unincorp);
	tc = checkutil_scratch_tcase(s, "package", NULL, NULL);
	tcase_add_test(tc, test_dpkgtrig_package);
	return s;
}

int
main(void)
{
	return checkutil_run(dpkgtrig_suite());
}
