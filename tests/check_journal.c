/* SPDX-License-Identifier: MIT */
/* Unit tests of the journal and the repair: lines written by journal.c, read back and acted on by recover.c. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkutil.h"
#include "durable/fileat.h"
#include "durable/fskind.h"
#include "durable/journal.h"
#include "durable/names.h"
#include "durable/recover.h"
#include "durable/rootfs.h"
#include "util/stats.h"

/*
 * The scratch directory is the root; its "adm" directory holds the
 * journal, as ROOT/var/lib/debunpack would.
 */
static struct rootfs rf;
static struct journal *j;
static struct stats st;
static int admfd = -1;

static void
setup(void)
{
	struct dbp_error err;

	umask(022);
	ck_assert_int_eq(rootfs_open(&rf, checkutil_scratch(), &err), 0);
	checkutil_mkdir("adm");
	admfd = open(checkutil_at("adm"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(admfd, 0);
	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(journal_new(&j, true, &st), 0);
}

static void
teardown(void)
{
	journal_free(j);
	j = NULL;
	if (admfd >= 0)
		close(admfd);
	admfd = -1;
	rootfs_close(&rf);
}

/* Rename FROM to TO, both in the scratch directory. */
static void
mv(const char *from, const char *to)
{
	char a[PATH_MAX];

	snprintf(a, sizeof(a), "%s", checkutil_at(from));
	ck_assert_int_eq(rename(a, checkutil_at(to)), 0);
}

/* The journal ends here as a killed run leaves it: not removed. */
static void
journal_kill(void)
{
	struct dbp_error err;

	ck_assert_int_eq(journal_sync(j, &err), 0);
	journal_free(j);
	j = NULL;
}

static void
repair(struct recover_result *res)
{
	struct dbp_error err;

	dbp_err_clear(&err);
	ck_assert_msg(recover_run(&rf, admfd, res, &err) == 0, "repair: %s",
	    err.msg);
	ck_assert(res->found);
	ck_assert(!checkutil_exists("adm/" JOURNAL_NAME));
}

/*
 * The commit's half way: "d/x" replaced (its old version kept as the
 * backup, as syncbatch_prepare keeps it), "d/y" new, both renamed; the
 * temporary of "d/z" made but not renamed yet.
 */
static void
half_commit(void)
{
	struct timespec t[2] = { { 1, 0 }, { 2, 0 } };
	struct dbp_error err;
	char old[NAME_MAX + 1], src[PATH_MAX];

	checkutil_mkdir("d");
	checkutil_write("d/x", "old x");
	ck_assert_int_eq(journal_open(j, admfd, "adm", &err), 0);
	ck_assert_int_eq(journal_dir(j, "d", t, rf.fd), 0);
	checkutil_write("d/x" NAMES_TMP_SUFFIX, "new x");
	checkutil_write("d/y" NAMES_TMP_SUFFIX, "new y");
	checkutil_write("d/z" NAMES_TMP_SUFFIX, "new z");
	names_old("x" NAMES_TMP_SUFFIX, old, sizeof(old));
	ck_assert_str_eq(old, "x" NAMES_OLD_SUFFIX);
	snprintf(src, sizeof(src), "%s", checkutil_at("d/x"));
	ck_assert_int_eq(link(src, checkutil_at("d/x" NAMES_OLD_SUFFIX)), 0);
	ck_assert_int_eq(journal_item(j, JOURNAL_ROOT, true, "d",
	    "x" NAMES_TMP_SUFFIX, "x"), 0);
	ck_assert_int_eq(journal_item(j, JOURNAL_ROOT, false, "d",
	    "y" NAMES_TMP_SUFFIX, "y"), 0);
	ck_assert_int_eq(journal_item(j, JOURNAL_ROOT, false, "d",
	    "z" NAMES_TMP_SUFFIX, "z"), 0);
	ck_assert_int_eq(journal_sync(j, &err), 0);
	mv("d/x" NAMES_TMP_SUFFIX, "d/x");
	mv("d/y" NAMES_TMP_SUFFIX, "d/y");
}

/* Without its commit line the run is undone: old versions back. */
START_TEST(test_journal_undo_items)
{
	struct recover_result res;
	struct stat sb;

	half_commit();
	journal_kill();
	repair(&res);
	ck_assert(!res.forward);
	checkutil_assert_content("d/x", "old x");
	ck_assert(!checkutil_exists("d/y"));
	ck_assert(!checkutil_exists("d/z"));
	ck_assert(!checkutil_exists("d/z" NAMES_TMP_SUFFIX));
	ck_assert(!checkutil_exists("d/x" NAMES_OLD_SUFFIX));
	ck_assert_uint_eq(res.items, 2);
	/* The directory's times are those the journal had. */
	ck_assert_int_eq(stat(checkutil_at("d"), &sb), 0);
	ck_assert_int_eq(sb.st_mtim.tv_sec, 2);
}
END_TEST

/* With it, the run is finished: the backup and obsolete paths go. */
START_TEST(test_journal_forward)
{
	struct recover_result res;
	struct dbp_error err;

	half_commit();
	mv("d/z" NAMES_TMP_SUFFIX, "d/z");
	checkutil_write("d/obsolete", "of the old version");
	ck_assert_int_eq(journal_gone(j, 'f', "d/obsolete"), 0);
	ck_assert_int_eq(journal_commit(j, &err), 0);
	ck_assert(journal_committed(j));
	journal_kill();
	repair(&res);
	ck_assert(res.forward);
	checkutil_assert_content("d/x", "new x");
	checkutil_assert_content("d/y", "new y");
	checkutil_assert_content("d/z", "new z");
	ck_assert(!checkutil_exists("d/x" NAMES_OLD_SUFFIX));
	ck_assert(!checkutil_exists("d/obsolete"));
	ck_assert_uint_eq(res.gone, 1);
}
END_TEST

/*
 * Directories the run made go, once the temporaries in them are swept;
 * one that holds a file of someone else's since stays, and a symlink the
 * journal's "mkdir" line finds (a package's) is not followed.
 */
START_TEST(test_journal_undo_made_dirs)
{
	struct recover_result res;
	struct dbp_error err;

	ck_assert_int_eq(journal_open(j, admfd, "adm", &err), 0);
	ck_assert_int_eq(journal_dir(j, "", (struct timespec[2]){ { 1, 0 },
	    { 2, 0 } }, rf.fd), 0);
	ck_assert_int_eq(journal_dir(j, "n", NULL, rf.fd), 0);
	checkutil_mkdir("n");
	checkutil_write("n/f" NAMES_TMP_SUFFIX, "new");
	ck_assert_int_eq(journal_dir(j, "n/sub", NULL, rf.fd), 0);
	checkutil_mkdir("n/sub");
	checkutil_write("n/sub/g" NAMES_TMP_SUFFIX, "new");
	ck_assert_int_eq(journal_dir(j, "other", NULL, rf.fd), 0);
	checkutil_mkdir("other");
	checkutil_write("other/users", "not the run's");
	checkutil_mkdir("keep");
	checkutil_write("keep/k", "kept");
	ck_assert_int_eq(journal_dir(j, "bin", NULL, rf.fd), 0);
	checkutil_symlink("keep", "bin");
	journal_kill();
	repair(&res);
	ck_assert(!res.forward);
	ck_assert(!checkutil_exists("n"));
	checkutil_assert_content("other/users", "not the run's");
	checkutil_assert_content("keep/k", "kept");
	ck_assert(checkutil_exists("bin"));
	ck_assert_uint_eq(res.removed, 2);
}
END_TEST

/* Names with a tab or a newline come back as they were written. */
START_TEST(test_journal_escaped_names)
{
	struct recover_result res;
	struct dbp_error err;

	ck_assert_int_eq(journal_open(j, admfd, "adm", &err), 0);
	ck_assert_int_eq(journal_dir(j, "a\tb", NULL, rf.fd), 0);
	checkutil_mkdir("a\tb");
	ck_assert_int_eq(journal_dir(j, "a\tb/c\nd", NULL, rf.fd), 0);
	checkutil_mkdir("a\tb/c\nd");
	checkutil_write("a\tb/c\nd/e\\f" NAMES_TMP_SUFFIX, "x");
	journal_kill();
	repair(&res);
	ck_assert(!checkutil_exists("a\tb"));
}
END_TEST

/* A file that is not a journal is an error, and nothing changes. */
START_TEST(test_journal_refused)
{
	static const char *const bad[] = {
		"not a journal\n",
		JOURNAL_MAGIC "99\n",
		JOURNAL_MAGIC "1\nitem\tR\t2\td\tx" NAMES_TMP_SUFFIX "\tx\n",
		JOURNAL_MAGIC "1\nitem\tR\t0\td\t../x\tx\n",
		JOURNAL_MAGIC "1\nwhat\tever\n",
		/* An undo of these would remove names that are not the run's. */
		JOURNAL_MAGIC "1\nitem\tR\t0\td\tx\ty\n",
		JOURNAL_MAGIC "1\nitem\tR\t0\td\ty" NAMES_TMP_SUFFIX "\tx"
		    NAMES_OLD_SUFFIX "\n",
		JOURNAL_MAGIC "1\nitem\tA\t0\t.\tj" NAMES_TMP_SUFFIX "\t"
		    JOURNAL_NAME "\n",
	};
	struct recover_result res;
	struct dbp_error err;
	size_t i;

	checkutil_mkdir("d");
	checkutil_write("d/x", "old");
	checkutil_write("d/x" NAMES_TMP_SUFFIX, "new");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		checkutil_write("adm/" JOURNAL_NAME, bad[i]);
		dbp_err_clear(&err);
		ck_assert_msg(recover_run(&rf, admfd, &res, &err) < 0,
		    "journal %zu accepted", i);
		ck_assert_msg(err.msg[0] != '\0', "journal %zu: no message", i);
		ck_assert(checkutil_exists("adm/" JOURNAL_NAME));
		checkutil_assert_content("d/x", "old");
		checkutil_assert_content("d/x" NAMES_TMP_SUFFIX, "new");
	}
}
END_TEST

/* No journal: nothing to do, nothing found. */
START_TEST(test_journal_none)
{
	struct recover_result res;
	struct dbp_error err;

	ck_assert_int_eq(recover_run(&rf, admfd, &res, &err), 0);
	ck_assert(!res.found);
}
END_TEST

/* The calls that put the journal's lines on disk, whichever way. */
static unsigned long
ahead_calls(void)
{
	return st.calls[SC_SYNC_FILE_RANGE_WAIT] + st.calls[SC_FIEMAP] +
	    st.calls[SC_FDATASYNC];
}

/*
 * The calls one putting of the lines on disk counts here: none on a
 * tmpfs, nor for btrfs's fallocate, which is not a sync call.
 */
static unsigned long
ahead_each(void)
{
	return fskind_volatile(admfd) || fskind_extents_late(admfd) ? 0 : 1;
}

/*
 * A directory's line is on disk before the run touches the directory:
 * written back on the journal's own filesystem (the filesystem's commits
 * keep it in order), synced where the directory is on another (/proc
 * here); in memory until the journal exists, then written back with its
 * first lines.  On a tmpfs nothing needs to be.
 */
START_TEST(test_journal_ahead)
{
	unsigned long each = ahead_each();
	struct dbp_error err;
	char *buf;
	size_t len;
	int otherfd;

	ck_assert_int_eq(journal_dir(j, "early", NULL, rf.fd), 0);
	ck_assert_uint_eq(ahead_calls(), 0);
	ck_assert_int_eq(journal_open(j, admfd, "adm", &err), 0);
	ck_assert_uint_eq(ahead_calls(), each);
	ck_assert_int_eq(journal_dir(j, "d", NULL, rf.fd), 0);
	ck_assert_uint_eq(ahead_calls(), 2 * each);
	otherfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(otherfd, 0);
	st.calls[SC_FDATASYNC] = 0;
	ck_assert_int_eq(journal_dir(j, "elsewhere", NULL, otherfd), 0);
	ck_assert_uint_eq(st.calls[SC_FDATASYNC], 1);
	close(otherfd);
	/* Every line in the file, each whole. */
	ck_assert_int_eq(fileat_read(admfd, JOURNAL_NAME, &buf, &len), 0);
	ck_assert_ptr_nonnull(memmem(buf, len, "\nmkdir\tearly\n", 13));
	ck_assert_ptr_nonnull(memmem(buf, len, "\nmkdir\td\n", 9));
	ck_assert_ptr_nonnull(memmem(buf, len, "\nmkdir\telsewhere\n", 17));
	free(buf);
}
END_TEST

/*
 * A directory found is logged without a wait: its line goes on disk when
 * the run first uses it (journal_use), once for every line written so
 * far; on another filesystem (/proc here) only a sync covers it.
 */
START_TEST(test_journal_use)
{
	unsigned long each = ahead_each();
	struct timespec t[2] = { { 1, 0 }, { 2, 0 } };
	struct dbp_error err;
	unsigned long n;
	int otherfd;

	ck_assert_int_eq(journal_open(j, admfd, "adm", &err), 0);
	n = ahead_calls();
	ck_assert_int_eq(journal_dir(j, "a", t, rf.fd), 0);
	ck_assert_int_eq(journal_dir(j, "a/b", t, rf.fd), 0);
	ck_assert_uint_eq(ahead_calls(), n);
	ck_assert_int_eq(journal_use(j, rf.fd), 0);
	ck_assert_uint_eq(ahead_calls(), n + each);
	ck_assert_int_eq(journal_use(j, rf.fd), 0);
	ck_assert_uint_eq(ahead_calls(), n + each);
	otherfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(otherfd, 0);
	/* Written back is not enough there: synced. */
	st.calls[SC_FDATASYNC] = 0;
	ck_assert_int_eq(journal_use(j, otherfd), 0);
	ck_assert_uint_eq(st.calls[SC_FDATASYNC], 1);
	ck_assert_int_eq(journal_use(j, otherfd), 0);
	ck_assert_uint_eq(st.calls[SC_FDATASYNC], 1);
	/* A sync covers the journal's own filesystem too. */
	ck_assert_int_eq(journal_dir(j, "c", t, rf.fd), 0);
	ck_assert_int_eq(journal_use(j, otherfd), 0);
	ck_assert_uint_eq(st.calls[SC_FDATASYNC], 2);
	n = ahead_calls();
	ck_assert_int_eq(journal_use(j, rf.fd), 0);
	ck_assert_uint_eq(ahead_calls(), n);
	close(otherfd);
}
END_TEST

/* How many of the LEN bytes of BUF's lines are LINE. */
static size_t
count_lines(const char *buf, size_t len, const char *line)
{
	size_t n = 0, l = strlen(line);
	const char *p = buf, *end = buf + len, *nl;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if ((size_t)(nl - p) == l && memcmp(p, line, l) == 0)
			n++;
	}
	return n;
}

/*
 * Directories announced ahead (journal_mkdir_ahead) go on disk together,
 * with the next use; making one then writes no second line and waits for
 * nothing more, unless a line is owed again, or the directory is on
 * another filesystem (/proc here), where only a sync covers it.  A
 * repair removes those made, deepest first, and passes over the others.
 */
START_TEST(test_journal_mkdir_ahead)
{
	unsigned long each = ahead_each();
	struct timespec t[2] = { { 1, 0 }, { 2, 0 } };
	struct recover_result res;
	struct dbp_error err;
	unsigned long n;
	char *buf;
	size_t len;
	int otherfd;

	ck_assert_int_eq(journal_open(j, admfd, "adm", &err), 0);
	n = ahead_calls();
	ck_assert_int_eq(journal_mkdir_ahead(j, "p"), 0);
	ck_assert_int_eq(journal_mkdir_ahead(j, "p/q"), 0);
	ck_assert_int_eq(journal_mkdir_ahead(j, "p/q"), 0);
	ck_assert_int_eq(journal_mkdir_ahead(j, "never"), 0);
	ck_assert_uint_eq(ahead_calls(), n);
	ck_assert_int_eq(journal_use(j, rf.fd), 0);
	ck_assert_uint_eq(ahead_calls(), n + each);
	ck_assert_int_eq(journal_dir(j, "p", NULL, rf.fd), 0);
	checkutil_mkdir("p");
	ck_assert_int_eq(journal_dir(j, "p/q", NULL, rf.fd), 0);
	checkutil_mkdir("p/q");
	checkutil_write("p/q/f" NAMES_TMP_SUFFIX, "new");
	ck_assert_uint_eq(ahead_calls(), n + each);
	/* A line owed since: the next one made waits for it. */
	ck_assert_int_eq(journal_mkdir_ahead(j, "r"), 0);
	ck_assert_int_eq(journal_dir(j, "found", t, rf.fd), 0);
	ck_assert_int_eq(journal_dir(j, "r", NULL, rf.fd), 0);
	ck_assert_uint_eq(ahead_calls(), n + 2 * each);
	checkutil_mkdir("r");
	otherfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(otherfd, 0);
	ck_assert_int_eq(journal_mkdir_ahead(j, "s"), 0);
	st.calls[SC_FDATASYNC] = 0;
	ck_assert_int_eq(journal_dir(j, "s", NULL, otherfd), 0);
	ck_assert_uint_eq(st.calls[SC_FDATASYNC], 1);
	close(otherfd);
	/* One line each. */
	ck_assert_int_eq(fileat_read(admfd, JOURNAL_NAME, &buf, &len), 0);
	ck_assert_uint_eq(count_lines(buf, len, "mkdir\tp"), 1);
	ck_assert_uint_eq(count_lines(buf, len, "mkdir\tp/q"), 1);
	ck_assert_uint_eq(count_lines(buf, len, "mkdir\tnever"), 1);
	free(buf);
	journal_kill();
	repair(&res);
	ck_assert(!res.forward);
	ck_assert(!checkutil_exists("p"));
	ck_assert(!checkutil_exists("r"));
	ck_assert(!checkutil_exists("never"));
}
END_TEST

/*
 * A journal that is not durable only writes (_i 0).  Nor is anything
 * waited for under debunpack-nosync (_i 1), whose run's syncs do nothing:
 * not even with the calls nosync lets through (an overlay's FIEMAP,
 * btrfs's fallocate).
 */
START_TEST(test_journal_ahead_none)
{
	struct dbp_error err;
	int otherfd;

	if (_i == 0) {
		journal_free(j);
		ck_assert_int_eq(journal_new(&j, false, &st), 0);
	} else
		st.nosync = true;
	ck_assert_int_eq(journal_open(j, admfd, "adm", &err), 0);
	ck_assert_int_eq(journal_dir(j, "d", NULL, rf.fd), 0);
	otherfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(otherfd, 0);
	ck_assert_int_eq(journal_dir(j, "e", NULL, otherfd), 0);
	close(otherfd);
	ck_assert_uint_eq(ahead_calls(), 0);
	st.nosync = false;
}
END_TEST

static Suite *
journal_suite(void)
{
	Suite *s = suite_create("journal");
	TCase *tc;

	tc = checkutil_scratch_tcase(s, "core", setup, teardown);
	tcase_add_test(tc, test_journal_undo_items);
	tcase_add_test(tc, test_journal_forward);
	tcase_add_test(tc, test_journal_undo_made_dirs);
	tcase_add_test(tc, test_journal_none);
	tcase_add_test(tc, test_journal_ahead);
	tcase_add_test(tc, test_journal_mkdir_ahead);
	tcase_add_test(tc, test_journal_use);
	tcase_add_loop_test(tc, test_journal_ahead_none, 0, 2);
	tcase_set_timeout(tc, 30);
	tc = checkutil_scratch_tcase(s, "limits", setup, teardown);
	tcase_add_test(tc, test_journal_escaped_names);
	tcase_add_test(tc, test_journal_refused);
	tcase_set_timeout(tc, 30);
	return s;
}

int
main(void)
{
	return checkutil_run(journal_suite());
}
