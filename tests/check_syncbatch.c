/* SPDX-License-Identifier: MIT */
/* Unit tests of syncbatch.c: each strategy's commit, counters, drop, abort. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "checkutil.h"
#include "durable/fskind.h"
#include "syncbatch.h"
#include "durable/syncbatch_int.h"	/* links: to test them on any filesystem */

#define TMP_SUFFIX	".debunpack-new"

static struct rootfs rf;	/* opened on the scratch directory */

/* One batch over the scratch root. */
struct fx {
	struct dirs *dirs;
	struct syncbatch *sb;
	struct stats st;
};
static struct fx f;	/* the batch under test, freed by the teardown */
/*
 * How fx_open's batches name new files: linked, then the temporaries
 * removed (1), whatever the test directory's filesystem would get, so
 * that the links are tested everywhere; -1: as the filesystem says.
 */
static int fx_links = 1;

static void
fx_open(struct fx *fb, const char *mode, size_t maxfds)
{
	memset(fb, 0, sizeof(*fb));
	ck_assert_int_eq(dirs_new(&fb->dirs, &rf, 4), 0);
	ck_assert_int_eq(syncbatch_new(&fb->sb, mode, rf.fd, fb->dirs, &fb->st,
	    maxfds), 0);
	ck_assert_str_eq(fb->st.mode, mode);
	fb->sb->links = fx_links;
}

/* Free the batch (also after a failed assertion in no-fork mode). */
static void
fx_close(struct fx *fb)
{
	syncbatch_free(fb->sb);
	dirs_free(fb->dirs);
	fb->sb = NULL;
	fb->dirs = NULL;
}

static void
setup(void)
{
	struct dbp_error err;

	umask(022);
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(rootfs_open(&rf, checkutil_scratch(), &err), 0);
}

static void
teardown(void)
{
	fx_close(&f);
	rootfs_close(&rf);
}

static int ntemps;

static int
count_temp(const char *path, const struct stat *sb, int type,
    struct FTW *ftw)
{
	(void)sb;
	(void)type;
	if (strstr(path + ftw->base, TMP_SUFFIX) != NULL)
		ntemps++;
	return 0;
}

/* Temporaries left anywhere in the root. */
static int
count_temps(void)
{
	ntemps = 0;
	ck_assert_int_eq(nftw(checkutil_scratch(), count_temp, 16, FTW_PHYS),
	    0);
	return ntemps;
}

/* Directory of PATH (made if missing) and its last component. */
static size_t
parent_of(struct fx *fb, const char *path, const char **name)
{
	struct dbp_error err;
	char parent[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t dir;

	snprintf(parent, sizeof(parent), "%.*s",
	    slash != NULL ? (int)(slash - path) : 0, path);
	*name = slash != NULL ? slash + 1 : path;
	ck_assert_int_eq(dirs_get(fb->dirs, parent, true, 0755, &dir, &err), 0);
	return dir;
}

/*
 * What the extraction does for a regular file: create NAME.debunpack-new
 * next to PATH, register it, write CONTENT, hand the fd to the batch.
 */
static size_t
add_file(struct fx *fb, const char *path, const char *content)
{
	struct dbp_error err;
	char tmp[NAME_MAX + 1];
	const char *name;
	size_t dir, item, len = strlen(content);
	int dfd, fd;

	dir = parent_of(fb, path, &name);
	snprintf(tmp, sizeof(tmp), "%s" TMP_SUFFIX, name);
	dfd = dirs_fd(fb->dirs, dir);
	ck_assert_int_ge(dfd, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	ck_assert_msg(fd >= 0, "create %s: %s", tmp, strerror(errno));
	ck_assert_int_eq(syncbatch_add(fb->sb, dir, path, tmp, &item), 0);
	dirs_mark(fb->dirs, dir, DIR_NAMES);
	ck_assert_str_eq(syncbatch_tmpname(fb->sb, item), tmp);
	ck_assert_uint_eq(syncbatch_dir(fb->sb, item), dir);
	ck_assert_int_eq(write(fd, content, len), (ssize_t)len);
	ck_assert_int_eq(syncbatch_written(fb->sb, item, fd, &err), 0);
	return item;
}

/* A symlink: registered, never written. */
static size_t
add_symlink(struct fx *fb, const char *path, const char *target)
{
	char tmp[NAME_MAX + 1];
	const char *name;
	size_t dir, item;

	dir = parent_of(fb, path, &name);
	snprintf(tmp, sizeof(tmp), "%s" TMP_SUFFIX, name);
	ck_assert_int_eq(symlinkat(target, dirs_fd(fb->dirs, dir), tmp), 0);
	ck_assert_int_eq(syncbatch_add(fb->sb, dir, path, tmp, &item), 0);
	dirs_mark(fb->dirs, dir, DIR_NAMES);
	return item;
}

static const char *const file_dirs[] = { "", "a/", "a/b/", "c/d/e/" };
#define NFILES	12

/* Commit NFILES files over new and existing directories in MODE. */
static void
commit_files(struct fx *fb, const char *mode)
{
	struct dbp_error err;
	char path[64], content[64];
	struct stat st;
	int i;

	mkdir(checkutil_at("a"), 0755);
	fx_open(fb, mode, 64);
	for (i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "%sfile%d", file_dirs[i % 4], i);
		snprintf(content, sizeof(content), "content of %d\n", i);
		add_file(fb, path, content);
	}
	ck_assert_int_eq(count_temps(), NFILES);
	dbp_err_clear(&err);
	ck_assert_msg(syncbatch_commit(fb->sb, &err) == 0, "commit: %s: %s",
	    err.path, err.msg);
	for (i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "%sfile%d", file_dirs[i % 4], i);
		snprintf(content, sizeof(content), "content of %d\n", i);
		checkutil_assert_content(path, content);
	}
	ck_assert_int_eq(count_temps(), 0);
	/*
	 * New names are linked where links are asked for, but by the
	 * per-file recipe.
	 */
	ck_assert_uint_eq(fb->st.calls[SC_LINK] + fb->st.calls[SC_RENAME],
	    NFILES);
	ck_assert_uint_eq(fb->st.calls[strcmp(mode, "perfile") != 0 &&
	    (fx_links == 1 || (fx_links < 0 && fskind_links_new(rf.fd))) ?
	    SC_LINK : SC_RENAME], NFILES);
	/* Directories the batch made got their final mode at commit. */
	ck_assert_int_eq(stat(checkutil_at("c/d/e"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0755);
}

START_TEST(test_syncbatch_modes_list)
{
	struct syncbatch *sb;
	struct stats st;

	ck_assert_str_eq(syncbatch_modes[0], "auto");
	ck_assert_str_eq(syncbatch_modes[1], "syncfs");
	ck_assert_str_eq(syncbatch_modes[2], "batched");
	ck_assert_str_eq(syncbatch_modes[3], "perfile");
	ck_assert_str_eq(syncbatch_modes[4], "none");
	ck_assert_ptr_null(syncbatch_modes[5]);
	ck_assert_int_eq(syncbatch_new(&sb, "fsync", rf.fd, f.dirs, &st, 4),
	    -EINVAL);
}
END_TEST

/* "auto" becomes the strategy of the filesystem it is judged on. */
START_TEST(test_syncbatch_auto_resolved)
{
	struct stats st;
	int p[2];

	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(dirs_new(&f.dirs, &rf, 4), 0);
	ck_assert_int_eq(syncbatch_new(&f.sb, "auto", rf.fd, f.dirs, &st, 4), 0);
	ck_assert_str_eq(syncbatch_mode(f.sb), syncbatch_auto(rf.fd));
	ck_assert_str_eq(st.mode, syncbatch_auto(rf.fd));
	ck_assert(syncbatch_durable(f.sb));
	syncbatch_free(f.sb);
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(syncbatch_new(&f.sb, "auto", p[0], f.dirs, &st, 4), 0);
	close(p[0]);
	close(p[1]);
	ck_assert_str_eq(syncbatch_mode(f.sb), "batched");
	syncbatch_free(f.sb);
	ck_assert_int_eq(syncbatch_new(&f.sb, "none", -1, f.dirs, &st, 4), 0);
	ck_assert(!syncbatch_durable(f.sb));
}
END_TEST

/* auto picks by the filesystem's magic: a pipe's is on no list. */
START_TEST(test_syncbatch_auto)
{
	struct statfs sfs;
	const char *want;
	int p[2];

	ck_assert_int_eq(fstatfs(rf.fd, &sfs), 0);
	switch ((unsigned long)sfs.f_type) {
	case 0xef53: case 0x58465342: case 0x9123683e: case 0xf2f52010:
	case 0x01021994:
		want = "syncfs";
		break;
	default:
		want = "batched";
	}
	ck_assert_str_eq(syncbatch_auto(rf.fd), want);
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_str_eq(syncbatch_auto(p[0]), "batched");
	close(p[0]);
	close(p[1]);
	ck_assert_str_eq(syncbatch_auto(-1), "batched");
}
END_TEST

/*
 * syncfs: no per-file sync at all, one syncfs for the data before the
 * renames and one for the names, and no file kept open.
 */
/*
 * Left to the filesystem, new names are renamed where links cost more
 * than they save (fskind_links_new): ext4's and btrfs's test directories.
 */
START_TEST(test_syncbatch_links_by_fs)
{
	fx_links = -1;
	commit_files(&f, "batched");
	fx_links = 1;
}
END_TEST

START_TEST(test_syncbatch_commit_syncfs)
{
	commit_files(&f, "syncfs");
	ck_assert_uint_eq(f.st.calls[SC_SYNCFS], 2);
	ck_assert_uint_eq(f.st.calls[SC_FDATASYNC], 0);
	ck_assert_uint_eq(f.st.calls[SC_FSYNC], 0);
	ck_assert_uint_eq(f.st.calls[SC_REOPEN], 0);
#ifdef HAVE_SYNC_FILE_RANGE
	ck_assert_uint_eq(f.st.calls[SC_SYNC_FILE_RANGE_WRITE], NFILES);
	ck_assert_uint_eq(f.st.calls[SC_SYNC_FILE_RANGE_WAIT], 0);
#endif
	fx_close(&f);
}
END_TEST

/*
 * Two batches sharing barriers (files and records): renaming both before
 * one names barrier costs two syncfs in all, not four.
 */
START_TEST(test_syncbatch_syncfs_shared)
{
	struct syncbatch *peer;
	struct dirs *pdirs;
	struct dbp_error err;
	size_t dir, item;
	int fd;

	fx_open(&f, "syncfs", 64);
	add_file(&f, "one", "1\n");
	ck_assert_int_eq(dirs_new(&pdirs, &rf, 4), 0);
	ck_assert_int_eq(syncbatch_new_like(&peer, f.sb, pdirs, 8), 0);
	ck_assert_str_eq(syncbatch_mode(peer), "syncfs");
	ck_assert_int_eq(dirs_get(pdirs, "", false, 0, &dir, &err), 0);
	fd = openat(dirs_fd(pdirs, dir), "two.tmp", O_CREAT | O_EXCL |
	    O_WRONLY | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "2\n", 2), 2);
	ck_assert_int_eq(syncbatch_add(peer, dir, "two", "two.tmp", &item), 0);
	ck_assert_int_eq(syncbatch_written(peer, item, fd, &err), 0);
	ck_assert_int_eq(syncbatch_rename(f.sb, &err), 0);
	ck_assert_int_eq(syncbatch_rename(peer, &err), 0);
	ck_assert_uint_eq(f.st.calls[SC_SYNCFS], 1);
	ck_assert_int_eq(syncbatch_sync_dirs(f.sb, &err), 0);
	ck_assert_int_eq(syncbatch_sync_dirs(peer, &err), 0);
	ck_assert_uint_eq(f.st.calls[SC_SYNCFS], 2);
	/* Nothing changed since: no barrier costs anything. */
	ck_assert_int_eq(syncbatch_sync_dirs(f.sb, &err), 0);
	ck_assert_uint_eq(f.st.calls[SC_SYNCFS], 2);
	checkutil_assert_content("one", "1\n");
	checkutil_assert_content("two", "2\n");
	syncbatch_free(peer);
	dirs_free(pdirs);
	fx_close(&f);
}
END_TEST

/*
 * Batched's data barrier, on the scratch directory's filesystem: one
 * fdatasync per file (WANT), or one syncfs where a file's fsync writes a
 * log of its own and syncfs is trusted (syncmodes.c: btrfs, ext4 with
 * fast commits).
 */
static void
assert_data_barrier(const struct stats *st, unsigned long want)
{
	if (fskind_sync(rf.fd) == FSKIND_SYNCFS && fskind_fsync_logs(rf.fd)) {
		ck_assert_uint_eq(st->calls[SC_FDATASYNC], 0);
		ck_assert_uint_eq(st->calls[SC_SYNCFS], 1);
	} else
		ck_assert_uint_eq(st->calls[SC_FDATASYNC], want);
}

START_TEST(test_syncbatch_commit_batched)
{

	commit_files(&f, "batched");
#ifdef HAVE_SYNC_FILE_RANGE
	ck_assert_uint_eq(f.st.calls[SC_SYNC_FILE_RANGE_WRITE], NFILES);
	ck_assert_uint_eq(f.st.calls[SC_SYNC_FILE_RANGE_WAIT], NFILES);
#elif defined(HAVE_POSIX_FADVISE)
	ck_assert_uint_eq(f.st.calls[SC_FADVISE], NFILES);
#endif
	assert_data_barrier(&f.st, NFILES);
	/* Each file's data once; the names once per directory. */
	ck_assert_uint_ge(f.st.calls[SC_FSYNC], 1);
	ck_assert_uint_lt(f.st.calls[SC_FSYNC], NFILES);
	ck_assert_uint_eq(f.st.calls[SC_REOPEN], 0);
	fx_close(&f);
}
END_TEST

START_TEST(test_syncbatch_commit_perfile)
{

	commit_files(&f, "perfile");
	/* Every file, then its directory after each rename. */
	ck_assert_uint_ge(f.st.calls[SC_FSYNC], 2 * NFILES);
	ck_assert_uint_eq(f.st.calls[SC_FDATASYNC], 0);
	ck_assert_uint_eq(f.st.calls[SC_SYNC_FILE_RANGE_WRITE], 0);
	fx_close(&f);
}
END_TEST

START_TEST(test_syncbatch_commit_none)
{

	commit_files(&f, "none");
	ck_assert_uint_eq(f.st.calls[SC_FSYNC], 0);
	ck_assert_uint_eq(f.st.calls[SC_FDATASYNC], 0);
	ck_assert_uint_eq(f.st.calls[SC_SYNCFS], 0);
	ck_assert_uint_eq(f.st.calls[SC_SYNC_FILE_RANGE_WRITE], 0);
	ck_assert_uint_eq(f.st.calls[SC_SYNC_FILE_RANGE_WAIT], 0);
	ck_assert_uint_eq(f.st.calls[SC_FADVISE], 0);
	fx_close(&f);
}
END_TEST

/* Directories made for the batch get their mode once every name is in. */
START_TEST(test_syncbatch_commit_dir_fixup)
{
	struct dbp_error err;
	struct dir_meta m;
	struct stat st;
	size_t dir;

	fx_open(&f, "none", 64);
	add_file(&f, "ro/file", "x");
	ck_assert_int_eq(dirs_get(f.dirs, "ro", false, 0, &dir, &err), 0);
	memset(&m, 0, sizeof(m));
	m.mode = 0555;
	m.mtime.tv_sec = 1234567890;
	ck_assert_int_eq(dirs_set_meta(f.dirs, dir, &m, NULL), 0);
	ck_assert_int_eq(syncbatch_commit(f.sb, &err), 0);
	checkutil_assert_content("ro/file", "x");
	ck_assert_int_eq(stat(checkutil_at("ro"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0555);
	/* The rename did not come after the mtime was set. */
	ck_assert_int_eq(st.st_mtim.tv_sec, 1234567890);
	fx_close(&f);
}
END_TEST

START_TEST(test_syncbatch_symlink_item)
{
	struct dbp_error err;
	char buf[64];
	ssize_t n;

	fx_open(&f, "batched", 64);
	add_file(&f, "bin/prog", "#!/bin/sh\n");
	add_symlink(&f, "bin/alias", "prog");
	ck_assert_int_eq(syncbatch_commit(f.sb, &err), 0);
	n = readlink(checkutil_at("bin/alias"), buf, sizeof(buf) - 1);
	ck_assert_int_eq(n, 4);
	buf[n] = '\0';
	ck_assert_str_eq(buf, "prog");
	ck_assert_uint_eq(f.st.calls[SC_LINK], 2);
	ck_assert_uint_eq(f.st.calls[SC_RENAME], 0);
	/* Only regular files have data to flush. */
	assert_data_barrier(&f.st, 1);
	ck_assert_int_eq(count_temps(), 0);
	fx_close(&f);
}
END_TEST

START_TEST(test_syncbatch_drop)
{
	struct dbp_error err;
	size_t first;

	fx_open(&f, "batched", 64);
	first = add_file(&f, "etc/conf", "old");
	ck_assert_int_eq(syncbatch_drop(f.sb, first, &err), 0);
	ck_assert(!checkutil_exists("etc/conf" TMP_SUFFIX));
	/* Dropping twice is harmless. */
	ck_assert_int_eq(syncbatch_drop(f.sb, first, &err), 0);
	/* The later entry takes the same temporary name. */
	add_file(&f, "etc/conf", "new");
	ck_assert_int_eq(syncbatch_commit(f.sb, &err), 0);
	checkutil_assert_content("etc/conf", "new");
	ck_assert_uint_eq(f.st.calls[SC_LINK], 1);
	assert_data_barrier(&f.st, 1);
	ck_assert_int_eq(count_temps(), 0);
	fx_close(&f);
}
END_TEST

/* Abort removes temporaries and new directories, and nothing that was there. */
static void
abort_case(const char *mode)
{
	struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	struct stat st;

	ck_assert_int_eq(mkdir(checkutil_at("keep"), 0755), 0);
	checkutil_write("keep/old", "original");
	ck_assert_int_eq(utimensat(AT_FDCWD, checkutil_at("keep"), old, 0), 0);
	fx_open(&f, mode, 64);
	add_file(&f, "keep/old", "replacement");
	add_file(&f, "keep/added", "added");
	add_file(&f, "fresh/deep/f", "f");
	add_file(&f, "fresh/g", "g");
	add_symlink(&f, "fresh/link", "g");
	ck_assert_int_eq(count_temps(), 5);
	ck_assert_int_eq(syncbatch_abort(f.sb), 0);
	ck_assert_int_eq(syncbatch_abort_dirs(f.sb), 0);
	ck_assert_int_eq(count_temps(), 0);
	ck_assert(!checkutil_exists("fresh"));
	ck_assert(!checkutil_exists("keep/added"));
	checkutil_assert_content("keep/old", "original");
	/* The directory looks untouched: its times are given back too. */
	ck_assert_int_eq(stat(checkutil_at("keep"), &st), 0);
	ck_assert_int_eq(st.st_mtim.tv_sec, 1000000000);
	fx_close(&f);
}

/*
 * A commit that fails after linking new names and renaming old ones
 * takes all of it back: no new name, no temporary, the old versions.
 */
START_TEST(test_syncbatch_rollback_links)
{
	struct dbp_error err;

	ck_assert_int_eq(mkdir(checkutil_at("full"), 0755), 0);
	checkutil_write("full/x", "x");
	checkutil_write("old", "original");
	fx_open(&f, "batched", 64);
	add_file(&f, "new1", "1");
	add_file(&f, "old", "replacement");
	add_file(&f, "sub/new2", "2");
	add_file(&f, "full", "a file for a full directory");
	dbp_err_clear(&err);
	ck_assert_int_ne(syncbatch_commit(f.sb, &err), 0);
	ck_assert_msg(strstr(err.msg, "not empty") != NULL, "%s", err.msg);
	ck_assert_uint_eq(f.st.calls[SC_LINK], 2);
	ck_assert_uint_eq(f.st.calls[SC_RENAME], 1);
	ck_assert_int_eq(syncbatch_abort(f.sb), 0);
	ck_assert_int_eq(syncbatch_abort_dirs(f.sb), 0);
	ck_assert_int_eq(count_temps(), 0);
	ck_assert(!checkutil_exists("new1"));
	ck_assert(!checkutil_exists("sub"));
	checkutil_assert_content("old", "original");
	checkutil_assert_content("full/x", "x");
	fx_close(&f);
}
END_TEST

START_TEST(test_syncbatch_abort_batched)
{
	abort_case("batched");
}
END_TEST

START_TEST(test_syncbatch_abort_perfile)
{
	abort_case("perfile");
}
END_TEST

START_TEST(test_syncbatch_abort_none)
{
	abort_case("none");
}
END_TEST

START_TEST(test_syncbatch_unknown_mode)
{
	static const char *const bad[] = { "fast", "", "Batched", "batched ",
	    "perfil" };
	size_t i;

	ck_assert_int_eq(dirs_new(&f.dirs, &rf, 4), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(syncbatch_new(&f.sb, bad[i], rf.fd, f.dirs, &f.st,
		    16), -EINVAL);
		ck_assert_ptr_null(f.sb);
		ck_assert_ptr_null(f.st.mode);
	}
}
END_TEST

/* Past MAXFDS written files are closed and reopened by name to flush them. */
START_TEST(test_syncbatch_reopen)
{
	enum { FILES = 20, MAXFDS = 2 };
	struct dbp_error err;
	char path[32], content[32];
	int before, i;

	before = checkutil_count_fds();
	fx_open(&f, "batched", MAXFDS);
	for (i = 0; i < FILES; i++) {
		snprintf(path, sizeof(path), "d%d/f%d", i % 3, i);
		snprintf(content, sizeof(content), "data %d", i);
		add_file(&f, path, content);
		/* Kept files plus the directory cache (at most 4). */
		ck_assert_int_le(checkutil_count_fds() - before, MAXFDS + 4);
	}
	ck_assert_int_eq(syncbatch_commit(f.sb, &err), 0);
	ck_assert_uint_gt(f.st.calls[SC_REOPEN], 0);
	assert_data_barrier(&f.st, FILES);
	ck_assert_uint_eq(f.st.calls[SC_LINK], FILES);
	for (i = 0; i < FILES; i++) {
		snprintf(path, sizeof(path), "d%d/f%d", i % 3, i);
		snprintf(content, sizeof(content), "data %d", i);
		checkutil_assert_content(path, content);
	}
	ck_assert_int_eq(count_temps(), 0);
	fx_close(&f);
	ck_assert_int_eq(checkutil_count_fds(), before);
}
END_TEST

/* More items than the first allocation holds. */
START_TEST(test_syncbatch_many_files)
{
	enum { FILES = 600 };
	struct dbp_error err;
	char path[32], content[32];
	int i;

	fx_open(&f, "none", 64);
	for (i = 0; i < FILES; i++) {
		snprintf(path, sizeof(path), "m%d/f%d", i % 7, i);
		snprintf(content, sizeof(content), "%d", i);
		add_file(&f, path, content);
	}
	ck_assert_int_eq(syncbatch_commit(f.sb, &err), 0);
	ck_assert_uint_eq(f.st.calls[SC_LINK], FILES);
	for (i = 0; i < FILES; i += 37) {
		snprintf(path, sizeof(path), "m%d/f%d", i % 7, i);
		snprintf(content, sizeof(content), "%d", i);
		checkutil_assert_content(path, content);
	}
	ck_assert_int_eq(count_temps(), 0);
	fx_close(&f);
}
END_TEST

/* An abort after some files were dropped and some fds evicted. */
START_TEST(test_syncbatch_abort_after_reopen)
{
	char path[32];
	size_t item;
	int i;

	fx_open(&f, "batched", 2);
	for (i = 0; i < 10; i++) {
		snprintf(path, sizeof(path), "x%d/y/f", i);
		item = add_file(&f, path, "z");
		if (i % 4 == 0) {
			struct dbp_error err;

			ck_assert_int_eq(syncbatch_drop(f.sb, item, &err), 0);
		}
	}
	ck_assert_int_eq(syncbatch_abort(f.sb), 0);
	ck_assert_int_eq(syncbatch_abort_dirs(f.sb), 0);
	ck_assert_int_eq(count_temps(), 0);
	for (i = 0; i < 10; i++) {
		snprintf(path, sizeof(path), "x%d", i);
		ck_assert(!checkutil_exists(path));
	}
	fx_close(&f);
}
END_TEST

static Suite *
syncbatch_suite(void)
{
	Suite *s = suite_create("syncbatch");
	TCase *tc;

	tc = checkutil_scratch_tcase(s, "core", setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_syncbatch_modes_list);
	tcase_add_test(tc, test_syncbatch_auto);
	tcase_add_test(tc, test_syncbatch_auto_resolved);
	tcase_add_test(tc, test_syncbatch_commit_syncfs);
	tcase_add_test(tc, test_syncbatch_links_by_fs);
	tcase_add_test(tc, test_syncbatch_syncfs_shared);
	tcase_add_test(tc, test_syncbatch_commit_batched);
	tcase_add_test(tc, test_syncbatch_commit_perfile);
	tcase_add_test(tc, test_syncbatch_commit_none);
	tcase_add_test(tc, test_syncbatch_commit_dir_fixup);
	tcase_add_test(tc, test_syncbatch_symlink_item);
	tcase_add_test(tc, test_syncbatch_drop);
	tcase_add_test(tc, test_syncbatch_rollback_links);
	tcase_add_test(tc, test_syncbatch_abort_batched);
	tcase_add_test(tc, test_syncbatch_abort_perfile);
	tcase_add_test(tc, test_syncbatch_abort_none);

	tc = checkutil_scratch_tcase(s, "limits", setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_syncbatch_unknown_mode);
	tcase_add_test(tc, test_syncbatch_reopen);
	tcase_add_test(tc, test_syncbatch_many_files);
	tcase_add_test(tc, test_syncbatch_abort_after_reopen);
	return s;
}

int
main(void)
{
	return checkutil_run(syncbatch_suite());
}
