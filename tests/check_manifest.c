/* SPDX-License-Identifier: MIT */
/* Unit tests of manifest.c: recording, finding and updating installed paths. */
#include "config.h"

#include <archive_entry.h>
#include <check.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkutil.h"
#include "manifest.h"
#include "db/recowners.h"
#include "util/stats.h"

/* E records NAME in directory DIR, from ITEM of package PKG, of TYPE. */
static void
assert_entry(const struct manifest_entry *e, size_t dir, const char *name,
    size_t item, unsigned pkg, unsigned type)
{
	ck_assert_uint_eq(e->dir, dir);
	ck_assert_str_eq(e->name, name);
	ck_assert_uint_eq(e->item, item);
	ck_assert_uint_eq(e->pkg, pkg);
	ck_assert_uint_eq(e->type, type);
}

START_TEST(test_manifest_empty)
{
	struct manifest *m;

	ck_assert_int_eq(manifest_new(&m), 0);
	ck_assert_uint_eq(manifest_count(m), 0);
	ck_assert_ptr_null(manifest_find(m, 0, "ls"));
	ck_assert_ptr_null(manifest_find(m, 0, ""));
	manifest_free(m);
}
END_TEST

START_TEST(test_manifest_put_find)
{
	struct manifest *m;
	struct manifest_entry *e;
	char name[16];

	ck_assert_int_eq(manifest_new(&m), 0);
	strcpy(name, "ls");
	ck_assert_int_eq(manifest_put(m, 3, name, 17, 2, AE_IFREG), 0);
	/* The manifest keeps its own copy of the name. */
	strcpy(name, "XX");
	e = manifest_find(m, 3, "ls");
	ck_assert_ptr_nonnull(e);
	assert_entry(e, 3, "ls", 17, 2, AE_IFREG);
	ck_assert_uint_eq(manifest_count(m), 1);
	ck_assert_ptr_null(manifest_find(m, 3, "XX"));
	ck_assert_ptr_null(manifest_find(m, 3, "l"));
	ck_assert_ptr_null(manifest_find(m, 3, "lss"));
	manifest_free(m);
}
END_TEST

START_TEST(test_manifest_keyed_by_dir)
{
	struct manifest *m;
	struct manifest_entry *a, *b;

	ck_assert_int_eq(manifest_new(&m), 0);
	ck_assert_int_eq(manifest_put(m, 1, "x", 10, 0, AE_IFREG), 0);
	ck_assert_int_eq(manifest_put(m, 2, "x", 20, 0, AE_IFLNK), 0);
	ck_assert_uint_eq(manifest_count(m), 2);
	a = manifest_find(m, 1, "x");
	b = manifest_find(m, 2, "x");
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_ne(a, b);
	ck_assert_uint_eq(a->item, 10);
	ck_assert_uint_eq(b->item, 20);
	ck_assert_uint_eq(b->type, AE_IFLNK);
	ck_assert_ptr_null(manifest_find(m, 0, "x"));
	ck_assert_ptr_null(manifest_find(m, 3, "x"));
	manifest_free(m);
}
END_TEST

START_TEST(test_manifest_update_in_place)
{
	struct manifest *m;
	struct manifest_entry *e, *e2;

	ck_assert_int_eq(manifest_new(&m), 0);
	ck_assert_int_eq(manifest_put(m, 5, "sh", 1, 0, AE_IFREG), 0);
	e = manifest_find(m, 5, "sh");
	ck_assert_ptr_nonnull(e);
	/* A later package replaces the path: one entry, new fields. */
	ck_assert_int_eq(manifest_put(m, 5, "sh", 9, 1, AE_IFLNK), 0);
	ck_assert_uint_eq(manifest_count(m), 1);
	e2 = manifest_find(m, 5, "sh");
	ck_assert_ptr_eq(e, e2);
	assert_entry(e2, 5, "sh", 9, 1, AE_IFLNK);
	manifest_free(m);
}
END_TEST

START_TEST(test_manifest_free_null)
{
	manifest_free(NULL);
}
END_TEST

START_TEST(test_manifest_many_entries)
{
	struct manifest *m;
	struct manifest_entry *e;
	char name[32];
	size_t dir, i, n = 0;

	ck_assert_int_eq(manifest_new(&m), 0);
	for (dir = 0; dir < 100; dir++)
		for (i = 0; i < 200; i++) {
			snprintf(name, sizeof(name), "file-%05zu", i);
			ck_assert_int_eq(manifest_put(m, dir, name,
			    dir * 1000 + i, (unsigned)(dir % 7), AE_IFREG), 0);
			n++;
		}
	ck_assert_uint_eq(manifest_count(m), n);
	/* Replace every third entry: the count stays. */
	for (dir = 0; dir < 100; dir++)
		for (i = 0; i < 200; i += 3) {
			snprintf(name, sizeof(name), "file-%05zu", i);
			ck_assert_int_eq(manifest_put(m, dir, name, i, 99,
			    AE_IFLNK), 0);
		}
	ck_assert_uint_eq(manifest_count(m), n);
	for (dir = 0; dir < 100; dir++)
		for (i = 0; i < 200; i++) {
			snprintf(name, sizeof(name), "file-%05zu", i);
			e = manifest_find(m, dir, name);
			ck_assert_ptr_nonnull(e);
			if (i % 3 == 0)
				assert_entry(e, dir, name, i, 99, AE_IFLNK);
			else
				assert_entry(e, dir, name, dir * 1000 + i,
				    (unsigned)(dir % 7), AE_IFREG);
		}
	ck_assert_ptr_null(manifest_find(m, 100, "file-00000"));
	ck_assert_ptr_null(manifest_find(m, 0, "file-00200"));
	manifest_free(m);
}
END_TEST

START_TEST(test_manifest_odd_names)
{
	static const char *const names[] = {
		"", "a", "ab", "a\xc3\xa9", "a b", "\x7f", "-", ".hidden",
		"name.debunpack-new",
	};
	struct manifest *m;
	size_t i, n = sizeof(names) / sizeof(names[0]);
	char *longname;

	ck_assert_int_eq(manifest_new(&m), 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(manifest_put(m, 0, names[i], i, 0, AE_IFREG),
		    0);
	longname = malloc(4096);
	ck_assert_ptr_nonnull(longname);
	memset(longname, 'n', 4095);
	longname[4095] = '\0';
	ck_assert_int_eq(manifest_put(m, 0, longname, n, 0, AE_IFREG), 0);
	ck_assert_uint_eq(manifest_count(m), n + 1);
	for (i = 0; i < n; i++) {
		ck_assert_ptr_nonnull(manifest_find(m, 0, names[i]));
		ck_assert_uint_eq(manifest_find(m, 0, names[i])->item, i);
	}
	ck_assert_uint_eq(manifest_find(m, 0, longname)->item, n);
	/* Directory indexes at the ends of the range are ordinary keys. */
	ck_assert_int_eq(manifest_put(m, (size_t)-1, "top", 1, 0, AE_IFREG), 0);
	ck_assert_ptr_nonnull(manifest_find(m, (size_t)-1, "top"));
	ck_assert_ptr_null(manifest_find(m, 0, "top"));
	free(longname);
	manifest_free(m);
}
END_TEST

/* A record of package NAME with PATH lines (type, path), as the admin directory holds. */
static void
write_record(const char *name, const char *const *lines)
{
	char file[64], buf[4096];
	size_t o;

	snprintf(file, sizeof(file), "admin/%s.record", name);
	o = (size_t)snprintf(buf, sizeof(buf), "debunpack-record 1\n"
	    "Package: %s\nVersion: 1\nArchitecture: all\n\n", name);
	for (; *lines != NULL; lines += 2)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s\t-\t0755\t0:0"
		    "\t-\t-\t%s\n", lines[0], lines[1]);
	checkutil_write(file, buf);
}

/* Owners through the index of every installed path, and after a take-over. */
START_TEST(test_manifest_owner_index)
{
	static const char *const a[] = { "d", "/usr", "d", "/usr/bin",
	    "p", "/usr/bin/x", "p", "/usr/bin/shared", NULL };
	static const char *const b[] = { "d", "/usr", "d", "/usr/bin",
	    "p", "/usr/bin/y", NULL };
	static const char *const c[] = { "d", "/usr", "p", "/usr/bin/shared",
	    NULL };
	struct dbp_error err;
	struct manifest *m;
	struct stats st;
	int fd;

	memset(&st, 0, sizeof(st));
	checkutil_mkdir("admin");
	write_record("a", a);
	write_record("b", b);
	write_record("c", c);
	ck_assert_int_eq(manifest_new(&m), 0);
	fd = open(checkutil_at("admin"), O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(manifest_admin(m, fd, "admin", false, NULL, &st, &err), 0);
	close(fd);
	if (manifest_load_installed(m, &err) != 0)
		ck_abort_msg("%s: %s", err.path, err.msg);
	/* Directories have no owner in the conflict sense; others do. */
	ck_assert_ptr_null(manifest_owner(m, "/usr/bin", "z"));
	ck_assert_str_eq(manifest_owner(m, "/usr/bin/x", "z"), "a");
	ck_assert_str_eq(manifest_owner(m, "/usr/bin/y", "a"), "b");
	ck_assert_ptr_null(manifest_owner(m, "/usr/bin/y", "b"));
	ck_assert_ptr_null(manifest_owner(m, "/usr/bin/zz", "a"));
	ck_assert_ptr_null(manifest_owner(m, "/", "a"));
	ck_assert_str_eq(manifest_owner(m, "/usr/bin/shared", "a"), "c");
	ck_assert_str_eq(manifest_owner(m, "/usr/bin/shared", "c"), "a");
	ck_assert_str_eq(manifest_other_owner(m, "/usr/bin", "a"), "b");
	/* The records themselves answer as the manifest does. */
	ck_assert_ptr_nonnull(manifest_installed_record(m, "a"));
	ck_assert_ptr_eq(recowners_installed(manifest_records(m), "a"),
	    manifest_installed_record(m, "a"));
	ck_assert_ptr_null(recowners_installed(manifest_records(m), "z"));
	ck_assert_ptr_eq(recowners_installed_entry(manifest_records(m), "b",
	    "/usr/bin/y"), manifest_installed_entry(m, "b", "/usr/bin/y"));
	ck_assert_ptr_nonnull(manifest_installed_entry(m, "b", "/usr/bin/y"));
	/* Taken over from a: only c is left with it. */
	ck_assert_int_eq(manifest_disown(m, "a", "/usr/bin/shared"), 0);
	ck_assert_str_eq(manifest_owner(m, "/usr/bin/shared", "z"), "c");
	ck_assert_ptr_null(manifest_owner(m, "/usr/bin/shared", "c"));
	ck_assert_str_eq(manifest_owner(m, "/usr/bin/x", "z"), "a");
	manifest_free(m);
}
END_TEST

static Suite *
manifest_suite(void)
{
	Suite *s = suite_create("manifest");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_test(tc, test_manifest_empty);
	tcase_add_test(tc, test_manifest_put_find);
	tcase_add_test(tc, test_manifest_keyed_by_dir);
	tcase_add_test(tc, test_manifest_update_in_place);
	tcase_add_test(tc, test_manifest_free_null);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_test(tc, test_manifest_many_entries);
	tcase_add_test(tc, test_manifest_odd_names);
	suite_add_tcase(s, tc);

	tc = checkutil_scratch_tcase(s, "records", NULL, NULL);
	tcase_add_test(tc, test_manifest_owner_index);
	return s;
}

int
main(void)
{
	return checkutil_run(manifest_suite());
}
