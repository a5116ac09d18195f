/* SPDX-License-Identifier: MIT */
/* Unit tests of stats.c: the text and JSON reports of a run's counters. */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <sys/statfs.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "checkutil.h"
#include "cli/devstat.h"
#include "util/stats.h"

static const char *const entry_keys[] = {
	"file", "hardlink", "symlink", "dir", "char", "block", "fifo",
	"skipped",
};
static const char *const call_keys[] = {
	"sync_file_range_write", "sync_file_range_wait", "fadvise",
	"fdatasync", "fsync", "syncfs", "rename", "link", "reopen", "fiemap",
};
static const char *const phase_keys[] = {
	"extract", "writeback_wait", "fdatasync", "rename", "dir_sync", "total",
};

/* Run FN on ST into a string; the caller frees it. */
static char *
report(void (*fn)(FILE *, const struct stats *), const struct stats *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	fp = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(fp);
	fn(fp, st);
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(strlen(buf), len);
	return buf;
}

static void
fill(struct stats *st)
{
	int i;

	memset(st, 0, sizeof(*st));
	st->mode = "batched";
	st->packages = 3;
	for (i = 0; i < ST_NENTRY; i++)
		st->entries[i] = 10 + (unsigned long)i;
	st->bytes = 123456789;
	for (i = 0; i < SC_NCALL; i++)
		st->calls[i] = 100 + (unsigned long)i;
	st->phase[PH_EXTRACT] = 1.5;
	st->phase[PH_WAIT] = 0.25;
	st->phase[PH_FDATASYNC] = 0.125;
	st->phase[PH_RENAME] = 0.0625;
	st->phase[PH_DIRSYNC] = 0.0625;
}

static void
assert_has(const char *s, const char *part)
{
	ck_assert_msg(strstr(s, part) != NULL, "\"%s\" not in \"%s\"", part, s);
}

/* S holds "KEY":{ ... "NAME":... } with each of NAMES inside the object. */
static void
assert_object(const char *s, const char *key, const char *const *names,
    size_t n)
{
	char want[64];
	const char *obj, *end;
	size_t i;

	snprintf(want, sizeof(want), "\"%s\":{", key);
	obj = strstr(s, want);
	ck_assert_msg(obj != NULL, "no object \"%s\" in %s", key, s);
	end = strchr(obj, '}');
	ck_assert_ptr_nonnull(end);
	for (i = 0; i < n; i++) {
		const char *k;

		snprintf(want, sizeof(want), "\"%s\":", names[i]);
		k = strstr(obj, want);
		ck_assert_msg(k != NULL && k < end, "key \"%s\" not in \"%s\"",
		    names[i], key);
	}
}

/* One JSON object on one line, braces and quotes balanced, no empty members. */
static void
assert_json_line(const char *s)
{
	size_t len = strlen(s);
	int depth = 0, quotes = 0;
	const char *p;

	ck_assert_uint_gt(len, 2);
	ck_assert_int_eq(s[0], '{');
	ck_assert_int_eq(s[len - 1], '\n');
	ck_assert_int_eq(s[len - 2], '}');
	ck_assert_ptr_eq(strchr(s, '\n'), s + len - 1);
	for (p = s; *p != '\0'; p++) {
		if (*p == '"')
			quotes++;
		else if (*p == '{')
			depth++;
		else if (*p == '}') {
			depth--;
			/* The outer object closes only at the very end. */
			ck_assert_msg(depth > 0 || p == s + len - 2,
			    "object closed early at offset %td", p - s);
		}
		ck_assert_int_ge(depth, 0);
	}
	ck_assert_int_eq(depth, 0);
	ck_assert_int_eq(quotes % 2, 0);
	ck_assert_ptr_null(strstr(s, ",}"));
	ck_assert_ptr_null(strstr(s, "{,"));
	ck_assert_ptr_null(strstr(s, ",,"));
	ck_assert_ptr_null(strstr(s, "nan"));
	ck_assert_ptr_null(strstr(s, "(null)"));
}

START_TEST(test_stats_json_one_line)
{
	struct stats st;
	char *s;

	fill(&st);
	s = report(stats_write_json, &st);
	assert_json_line(s);
	ck_assert_msg(strncmp(s, "{\"sync_mode\":\"batched\",", 23) == 0,
	    "does not start with the sync mode: %s", s);
	assert_has(s, "\"packages\":3,");
	assert_has(s, "\"bytes\":123456789,");
	assert_object(s, "entries", entry_keys,
	    sizeof(entry_keys) / sizeof(entry_keys[0]));
	assert_object(s, "calls", call_keys,
	    sizeof(call_keys) / sizeof(call_keys[0]));
	assert_object(s, "seconds", phase_keys,
	    sizeof(phase_keys) / sizeof(phase_keys[0]));
	free(s);
}
END_TEST

START_TEST(test_stats_json_values)
{
	struct stats st;
	char *s;

	fill(&st);
	s = report(stats_write_json, &st);
	assert_has(s, "\"entries\":{\"file\":10,\"hardlink\":11,");
	assert_has(s, "\"skipped\":17}");
	assert_has(s, "\"calls\":{\"sync_file_range_write\":100,");
	assert_has(s, "\"rename\":106,\"link\":107,\"reopen\":108,"
	    "\"fiemap\":109}");
	assert_has(s, "\"extract\":1.500000,");
	assert_has(s, "\"dir_sync\":0.062500,");
	/* The total is the sum of the phases. */
	assert_has(s, "\"total\":2.000000},\"filesystems\":[],");
	/* No disk under the root: said, not left out. */
	assert_has(s, ",\"device\":null}\n");
	free(s);
}
END_TEST

/* The disk's counters: marked as the whole disk's, in both forms. */
START_TEST(test_stats_device)
{
	struct stats st;
	char *s;

	fill(&st);
	s = report(stats_write_text, &st);
	ck_assert_ptr_null(strstr(s, "device:"));
	free(s);
	snprintf(st.dev.name, sizeof(st.dev.name), "loop7");
	st.dev.flushes = 4;
	st.dev.flush_ms = 12;
	st.dev.written = 90112;
	s = report(stats_write_json, &st);
	assert_json_line(s);
	assert_has(s, ",\"device\":{\"name\":\"loop7\",\"scope\":"
	    "\"device-wide\",\"flushes\":4,\"flush_ms\":12,"
	    "\"written_bytes\":90112}}\n");
	free(s);
	s = report(stats_write_text, &st);
	assert_has(s, "\ndevice:     loop7 (device-wide) flushes 4 flush_ms 12"
	    " written_bytes 90112\n");
	free(s);
}
END_TEST

START_TEST(test_stats_text_sync_mode)
{
	struct stats st;
	char *s;

	fill(&st);
	st.mode = "perfile";
	s = report(stats_write_text, &st);
	ck_assert_msg(strncmp(s, "sync mode:", 10) == 0,
	    "first line is not \"sync mode:\": %s", s);
	assert_has(s, "sync mode:  perfile\n");
	assert_has(s, "\npackages:   3\n");
	assert_has(s, "\nbytes:      123456789\n");
	assert_has(s, "\nentries:    file 10 hardlink 11");
	assert_has(s, "\ncalls:      sync_file_range_write 100");
	assert_has(s, " link 107 reopen 108 fiemap 109\n");
	assert_has(s, "\nseconds:    extract 1.500");
	assert_has(s, " total 2.000\n");
	ck_assert_int_eq(s[strlen(s) - 1], '\n');
	free(s);
}
END_TEST

START_TEST(test_stats_now_monotonic)
{
	double a, b;

	a = stats_now();
	b = stats_now();
	ck_assert(a > 0);
	ck_assert(b >= a);
}
END_TEST

/* Each filesystem synced: its type, how and why, in both forms. */
START_TEST(test_stats_filesystems)
{
	struct stats st;
	char *s;

	fill(&st);
	snprintf(st.fs[0].type, sizeof(st.fs[0].type), "overlay");
	st.fs[0].how = "syncfs+check";
	st.fs[0].why = "each file checked";
	snprintf(st.fs[1].type, sizeof(st.fs[1].type), "fuse");
	st.fs[1].how = "fdatasync";
	st.fs[1].why = "not trusted";
	st.nfs = 2;
	s = report(stats_write_json, &st);
	assert_json_line(s);
	assert_has(s, ",\"filesystems\":[{\"type\":\"overlay\",\"sync\":"
	    "\"syncfs+check\",\"why\":\"each file checked\"},{\"type\":"
	    "\"fuse\",\"sync\":\"fdatasync\",\"why\":\"not trusted\"}],");
	free(s);
	s = report(stats_write_text, &st);
	assert_has(s, "\nfilesystem: overlay syncfs+check (each file checked)\n"
	    "filesystem: fuse fdatasync (not trusted)\n");
	free(s);
}
END_TEST

START_TEST(test_stats_zero)
{
	struct stats st;
	char *s;

	memset(&st, 0, sizeof(st));
	st.mode = "none";
	s = report(stats_write_json, &st);
	assert_json_line(s);
	assert_has(s, "\"sync_mode\":\"none\"");
	assert_has(s, "\"bytes\":0,");
	assert_has(s, "\"total\":0.000000},\"filesystems\":[],"
	    "\"device\":null}");
	free(s);
	s = report(stats_write_text, &st);
	assert_has(s, "sync mode:  none\n");
	free(s);
}
END_TEST

START_TEST(test_stats_large_counters)
{
	struct stats st;
	char *s, want[64];

	memset(&st, 0, sizeof(st));
	st.mode = "batched";
	st.bytes = UINT64_MAX;
	st.packages = (unsigned long)-1;
	st.entries[ST_FILE] = (unsigned long)-1;
	st.calls[SC_FIEMAP] = (unsigned long)-1;
	s = report(stats_write_json, &st);
	assert_json_line(s);
	assert_has(s, "\"bytes\":18446744073709551615,");
	snprintf(want, sizeof(want), "\"packages\":%lu,", (unsigned long)-1);
	assert_has(s, want);
	snprintf(want, sizeof(want), "\"fiemap\":%lu}", (unsigned long)-1);
	assert_has(s, want);
	free(s);
	s = report(stats_write_text, &st);
	assert_has(s, "bytes:      18446744073709551615\n");
	free(s);
}
END_TEST

/*
 * The disk under a directory: a name whose stat file reads, counters that
 * do not go back; a filesystem on no disk (tmpfs, proc) is said so.
 */
START_TEST(test_devstat_find)
{
	static const char *const dirs[] = { "/", "/tmp", "/var/tmp", "/proc",
	    "/dev/shm" };
	struct devstat ds, again;
	char path[160];
	struct statfs sf;
	size_t i;
	int r;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (statfs(dirs[i], &sf) != 0)
			continue;
		r = devstat_open(&ds, dirs[i]);
		/* tmpfs and proc: no block device under them. */
		if (sf.f_type == 0x01021994 || sf.f_type == 0x9fa0) {
			ck_assert_int_eq(r, -ENODEV);
			continue;
		}
		if (r == -ENODEV)
			continue;	/* NFS, FUSE, overlayfs: no disk */
		ck_assert_int_eq(r, 0);
		ck_assert_str_ne(ds.name, "");
		ck_assert_ptr_null(strchr(ds.name, '/'));
		snprintf(path, sizeof(path), "/sys/block/%s/stat", ds.name);
		ck_assert_int_eq(access(path, R_OK), 0);
		again = ds;
		ck_assert_int_eq(devstat_read(&again), 0);
		ck_assert_uint_ge(again.flushes, ds.flushes);
		ck_assert_uint_ge(again.written, ds.written);
	}
	ck_assert_int_ne(devstat_open(&ds, "/nonexistent/dir"), 0);
}
END_TEST

START_TEST(test_stats_nosync)
{
	struct stats st;
	char *s;

	/* Said only when the run was under debunpack-nosync. */
	memset(&st, 0, sizeof(st));
	st.mode = "syncfs";
	s = report(stats_write_text, &st);
	ck_assert_ptr_null(strstr(s, "nosync"));
	free(s);
	s = report(stats_write_json, &st);
	assert_has(s, "{\"sync_mode\":\"syncfs\",\"nosync\":false,");
	free(s);
	st.nosync = true;
	s = report(stats_write_text, &st);
	assert_has(s, "sync mode:  syncfs\nnosync:     yes ");
	free(s);
	s = report(stats_write_json, &st);
	assert_has(s, "{\"sync_mode\":\"syncfs\",\"nosync\":true,");
	free(s);
}
END_TEST

START_TEST(test_stats_cache_packages)
{
	struct stats st;
	char *s;

	/* Without --cache: no line, no key, whatever was noted. */
	memset(&st, 0, sizeof(st));
	st.mode = "syncfs";
	ck_assert_int_eq(stats_add_pkg(&st, "a", 1, 100, false), 0);
	s = report(stats_write_text, &st);
	ck_assert_ptr_null(strstr(s, "cache"));
	free(s);
	st.cache = true;
	st.cache_pkgs[0] = 1;
	st.cache_pkgs[1] = 1;
	st.cache_saved = 100;
	st.cache_filled = 1;
	/* A name from a control file: escaped in both forms. */
	ck_assert_int_eq(stats_add_pkg(&st, "b\x1b[2J\"", 0, 0, true), 0);
	ck_assert_int_eq(stats_add_pkg(&st, "c", 2, 7, false), 0);
	ck_assert_uint_eq(st.npkg, 3);
	s = report(stats_write_text, &st);
	/* The totals' line first, as before, then a line a package. */
	assert_has(s, "cache:      decoded 1 cloned 1 copied 0 bytes_not_decoded"
	    " 100 filled 1\ncache pkg:  a cloned bytes_not_decoded 100 filled"
	    " no\ncache pkg:  b\\x1b[2J\" decoded bytes_not_decoded 0 filled"
	    " yes\ncache pkg:  c copied bytes_not_decoded 7 filled no\n");
	ck_assert_ptr_null(strchr(s, 0x1b));
	free(s);
	s = report(stats_write_json, &st);
	assert_has(s, ",\"cache\":{\"decoded\":1,\"cloned\":1,\"copied\":0,"
	    "\"bytes_not_decoded\":100,\"filled\":1,\"packages\":["
	    "{\"name\":\"a\",\"how\":\"cloned\",\"bytes_not_decoded\":100,"
	    "\"filled\":false},{\"name\":\"b\\u001b[2J\\\"\",\"how\":"
	    "\"decoded\",\"bytes_not_decoded\":0,\"filled\":true},"
	    "{\"name\":\"c\",\"how\":\"copied\",\"bytes_not_decoded\":7,"
	    "\"filled\":false}]}");
	free(s);
	stats_free(&st);
	ck_assert_ptr_null(st.pkg);
	ck_assert_uint_eq(st.npkg, 0);
	/* An empty list is still an array. */
	s = report(stats_write_json, &st);
	assert_has(s, "\"filled\":1,\"packages\":[]}");
	free(s);
}
END_TEST

static Suite *
stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_test(tc, test_stats_json_one_line);
	tcase_add_test(tc, test_stats_json_values);
	tcase_add_test(tc, test_stats_device);
	tcase_add_test(tc, test_stats_filesystems);
	tcase_add_test(tc, test_devstat_find);
	tcase_add_test(tc, test_stats_text_sync_mode);
	tcase_add_test(tc, test_stats_nosync);
	tcase_add_test(tc, test_stats_cache_packages);
	tcase_add_test(tc, test_stats_now_monotonic);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_test(tc, test_stats_zero);
	tcase_add_test(tc, test_stats_large_counters);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return checkutil_run(stats_suite());
}
