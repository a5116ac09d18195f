/* SPDX-License-Identifier: MIT */
/* Unit tests of recstore.c: the records listed and read as a query reads them, nothing written. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "checkutil.h"
#include "db/recstore.h"

/* A record of package NAME holding /usr, as the admin directory holds it. */
static void
write_record(const char *name)
{
	char file[64], buf[256];

	snprintf(file, sizeof(file), "admin/%s.record", name);
	snprintf(buf, sizeof(buf), "debunpack-record 1\nPackage: %s\n"
	    "Version: 1\nArchitecture: all\n\nd\t-\t0755\t0:0\t-\t-\t/usr\n",
	    name);
	checkutil_write(file, buf);
}

/* The store of the scratch directory's "admin", its records B, A, C. */
static struct recstore *
open_store(void)
{
	struct dbp_error err;
	struct recstore *s;
	int fd;

	checkutil_mkdir("admin");
	write_record("b");
	write_record("a");
	write_record("c");
	fd = open(checkutil_at("admin"), O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(recstore_open(&s, fd, "admin", &err), 0);
	/* The store keeps its own descriptor. */
	ck_assert_int_eq(close(fd), 0);
	return s;
}

START_TEST(test_recstore_names_sorted)
{
	struct dbp_error err;
	struct recstore *s = open_store();
	char **names;

	/* Not records: another suffix, the suffix alone, a directory's. */
	checkutil_write("admin/journal", "");
	checkutil_write("admin/x.record.new", "");
	checkutil_write("admin/.record", "");
	ck_assert_int_eq(recstore_names(s, &names, &err), 0);
	ck_assert_str_eq(names[0], "a");
	ck_assert_str_eq(names[1], "b");
	ck_assert_str_eq(names[2], "c");
	ck_assert_ptr_null(names[3]);
	recstore_names_free(names);
	recstore_free(s);
}
END_TEST

START_TEST(test_recstore_load)
{
	struct dbp_error err;
	struct recstore *s = open_store();
	struct record *r;
	const char *stale = "x";

	ck_assert_int_eq(recstore_load(s, "b", &r, &stale, &err), 0);
	ck_assert_str_eq(control_get(r->ctl, "Package"), "b");
	ck_assert_uint_eq(r->n, 1);
	ck_assert_ptr_null(stale);
	record_free(r);
	ck_assert_int_eq(recstore_load(s, "d", &r, NULL, &err), -ENOENT);
	recstore_free(s);
}
END_TEST

/* Names that are no package's read as none, never as a path. */
START_TEST(test_recstore_bad_names)
{
	static const char *const bad[] = { "", "../admin/a", "a/b", "A", "-a",
	    ".a", "a b", "a\n" };
	struct dbp_error err;
	struct recstore *s = open_store();
	struct record *r;
	size_t i;

	checkutil_write("admin/A.record", "");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(recstore_load(s, bad[i], &r, NULL, &err),
		    -ENOENT);
	ck_assert(recstore_valid_name("a"));
	ck_assert(recstore_valid_name("0ad+x-1.2"));
	ck_assert(!recstore_valid_name("../a"));
	recstore_free(s);
}
END_TEST

/* A record that cannot be read is an error naming it, not a miss. */
START_TEST(test_recstore_load_errors)
{
	struct dbp_error err;
	struct recstore *s = open_store();
	struct record *r;

	checkutil_write("admin/bad.record", "not a record\n");
	dbp_err_clear(&err);
	ck_assert_int_lt(recstore_load(s, "bad", &r, NULL, &err), 0);
	ck_assert_int_ne(recstore_load(s, "bad", &r, NULL, &err), -ENOENT);
	ck_assert_str_eq(err.path, "bad.record");
	/* A symlink is not a record of ours, even to one. */
	checkutil_symlink("a.record", "admin/l.record");
	ck_assert_int_eq(recstore_load(s, "l", &r, NULL, &err), -ELOOP);
	recstore_free(s);
}
END_TEST

static bool
stale_b(void *ctx, const struct record *r, const char **what)
{
	(*(int *)ctx)++;
	*what = "not installed";
	return strcmp(control_get(r->ctl, "Package"), "b") == 0;
}

/* What the stale callback rejects reads as none, and says why. */
START_TEST(test_recstore_stale)
{
	struct dbp_error err;
	struct recstore *s = open_store();
	struct record *r;
	const char *stale;
	char **names;
	int calls = 0;

	recstore_set_stale(s, stale_b, &calls);
	ck_assert_int_eq(recstore_load(s, "b", &r, &stale, &err), -ENOENT);
	ck_assert_ptr_null(r);
	ck_assert_str_eq(stale, "not installed");
	ck_assert_int_eq(recstore_load(s, "b", &r, NULL, &err), -ENOENT);
	ck_assert_int_eq(recstore_load(s, "a", &r, &stale, &err), 0);
	ck_assert_ptr_null(stale);
	record_free(r);
	ck_assert_int_eq(calls, 3);
	/* A miss is no verdict. */
	ck_assert_int_eq(recstore_load(s, "d", &r, &stale, &err), -ENOENT);
	ck_assert_ptr_null(stale);
	/* The listing is the directory's: the readers judge each record. */
	ck_assert_int_eq(recstore_names(s, &names, &err), 0);
	ck_assert_str_eq(names[1], "b");
	recstore_names_free(names);
	recstore_set_stale(s, NULL, NULL);
	ck_assert_int_eq(recstore_load(s, "b", &r, NULL, &err), 0);
	record_free(r);
	recstore_free(s);
}
END_TEST

/*
 * The store reads and nothing else: no lock taken, nothing made, no
 * descriptor left behind.
 */
START_TEST(test_recstore_reads_only)
{
	struct dbp_error err;
	struct recstore *s;
	struct record *r;
	char **names;
	int fds = checkutil_count_fds(), fd;

	s = open_store();
	ck_assert_int_eq(recstore_names(s, &names, &err), 0);
	recstore_names_free(names);
	ck_assert_int_eq(recstore_load(s, "a", &r, NULL, &err), 0);
	record_free(r);
	fd = open(checkutil_at("admin"), O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_EX | LOCK_NB), 0);
	ck_assert_int_eq(close(fd), 0);
	ck_assert_int_eq(recstore_names(s, &names, &err), 0);
	ck_assert_ptr_null(names[3]);
	recstore_names_free(names);
	recstore_free(s);
	ck_assert_int_eq(checkutil_count_fds(), fds);
	recstore_free(NULL);
}
END_TEST

static Suite *
recstore_suite(void)
{
	Suite *s = suite_create("recstore");
	TCase *tc;

	tc = checkutil_scratch_tcase(s, "core", NULL, NULL);
	tcase_add_test(tc, test_recstore_names_sorted);
	tcase_add_test(tc, test_recstore_load);
	tcase_add_test(tc, test_recstore_stale);
	tcase_add_test(tc, test_recstore_reads_only);

	tc = checkutil_scratch_tcase(s, "limits", NULL, NULL);
	tcase_add_test(tc, test_recstore_bad_names);
	tcase_add_test(tc, test_recstore_load_errors);
	return s;
}

int
main(void)
{
	return checkutil_run(recstore_suite());
}
