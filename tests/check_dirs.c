/* SPDX-License-Identifier: MIT */
/* Unit tests of dirs.c: lookup, creation, aliases, fd cache, fixup, undo. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkutil.h"
#include "durable/dirs.h"

static struct rootfs rf;	/* opened on the scratch directory */
static struct dirs *d;		/* the table under test, freed by the teardown */

static void
setup(void)
{
	struct dbp_error err;

	/* Modes on disk below assume it. */
	umask(022);
	ck_assert_int_eq(rootfs_open(&rf, checkutil_scratch(), &err), 0);
}

/* Free the table (also after a failed assertion in no-fork mode). */
static void
free_table(void)
{
	dirs_free(d);
	d = NULL;
}

static void
teardown(void)
{
	free_table();
	rootfs_close(&rf);
}

static void
mk_file(const char *rel)
{
	int fd = open(checkutil_at(rel), O_WRONLY | O_CREAT | O_EXCL, 0644);

	ck_assert_msg(fd >= 0, "create %s: %s", rel, strerror(errno));
	ck_assert_int_eq(close(fd), 0);
}

static struct stat
stat_of(const char *rel)
{
	struct stat st;

	ck_assert_msg(lstat(checkutil_at(rel), &st) == 0, "stat %s: %s", rel,
	    strerror(errno));
	return st;
}

static void
set_times(const char *rel, time_t sec)
{
	struct timespec ts[2] = { { sec, 0 }, { sec, 0 } };

	ck_assert_int_eq(utimensat(AT_FDCWD, checkutil_at(rel), ts, 0), 0);
}

/* dirs_get that must succeed. */
static size_t
get(struct dirs *dt, const char *rel, bool create, mode_t mode)
{
	struct dbp_error err;
	size_t idx;
	int r;

	dbp_err_clear(&err);
	r = dirs_get(dt, rel, create, mode, &idx, &err);
	ck_assert_msg(r == 0, "dirs_get \"%s\": %d: %s", rel, r, err.msg);
	return idx;
}

START_TEST(test_dirs_get_existing)
{
	size_t i, j;

	checkutil_mkdir("usr");
	ck_assert_int_eq(dirs_new(&d, &rf, 16), 0);
	i = get(d, "usr", false, 0755);
	ck_assert_str_eq(dirs_path(d, i), "usr");
	ck_assert_uint_eq(dirs_flags(d, i) & DIR_CREATED, 0);
	ck_assert_uint_eq(dirs_count(d), 1);
	j = get(d, "usr", true, 0755);
	ck_assert_uint_eq(i, j);
	ck_assert_uint_eq(dirs_count(d), 1);
	ck_assert_uint_eq(dirs_created(d), 0);
	i = get(d, "", false, 0755);
	ck_assert_str_eq(dirs_path(d, i), "");
	ck_assert_uint_eq(dirs_count(d), 2);
	free_table();
}
END_TEST

/* What the log callback was told, in order: one letter per call. */
static char logged[32];

static int
log_kinds(void *ctx, enum dirs_log kind, const char *path,
    const struct timespec *times, int fd)
{
	size_t n = strlen(logged);

	(void)ctx;
	(void)path;
	(void)times;
	ck_assert_int_ge(fd, kind == DIRS_LOG_AHEAD ? -1 : 0);
	ck_assert_uint_lt(n, sizeof(logged) - 1);
	logged[n] = "FMAUH"[kind];
	return 0;
}

/*
 * A directory found is logged when found, and told once more before its
 * descriptor is first handed out (DIRS_LOG_USE); one the run makes only
 * when it is made.  Looking one up, or making one below it, uses
 * nothing.
 */
START_TEST(test_dirs_log_use)
{
	size_t i, j;

	checkutil_mkdir("usr");
	checkutil_mkdir("usr/share");
	memset(logged, 0, sizeof(logged));
	ck_assert_int_eq(dirs_new(&d, &rf, 16), 0);
	dirs_set_log(d, log_kinds, NULL);
	i = get(d, "usr/share", false, 0755);
	ck_assert_str_eq(logged, "F");
	ck_assert_uint_ne(dirs_flags(d, i) & DIR_OWED, 0);
	j = get(d, "usr/share/new", true, 0755);
	ck_assert_str_eq(logged, "FM");
	ck_assert_uint_eq(dirs_flags(d, j) & DIR_OWED, 0);
	ck_assert_int_ge(dirs_fd(d, j), 0);
	ck_assert_str_eq(logged, "FM");
	ck_assert_int_ge(dirs_fd(d, i), 0);
	ck_assert_str_eq(logged, "FMU");
	ck_assert_uint_eq(dirs_flags(d, i) & DIR_OWED, 0);
	ck_assert_int_ge(dirs_fd(d, i), 0);
	ck_assert_str_eq(logged, "FMU");
	free_table();
}
END_TEST

/*
 * Directories announced ahead: only those missing are told (H), those
 * found join the table (F); below a file nothing is told.  The end of
 * the announcements uses the top directory (found, then U), and what is
 * then made is told as ever (M).  A dry run announces nothing.
 */
START_TEST(test_dirs_ahead)
{
	checkutil_mkdir("usr");
	checkutil_write("usr/f", "a file");
	memset(logged, 0, sizeof(logged));
	ck_assert_int_eq(dirs_new(&d, &rf, 16), 0);
	dirs_set_log(d, log_kinds, NULL);
	ck_assert_int_eq(dirs_ahead(d, "usr"), 0);
	ck_assert_int_eq(dirs_ahead(d, "usr/share"), 0);
	ck_assert_int_eq(dirs_ahead(d, "usr/share/doc"), 0);
	ck_assert_int_eq(dirs_ahead(d, "usr/f"), 0);
	ck_assert_int_eq(dirs_ahead(d, "usr/f/x"), 0);
	ck_assert_int_eq(dirs_ahead(d, ""), 0);
	ck_assert_str_eq(logged, "FHH");
	ck_assert_int_eq(dirs_ahead_done(d), 0);
	ck_assert_str_eq(logged, "FHHFU");
	(void)get(d, "usr/share/doc", true, 0755);
	ck_assert_str_eq(logged, "FHHFUMM");
	ck_assert(checkutil_exists("usr/share/doc"));
	free_table();
	memset(logged, 0, sizeof(logged));
	ck_assert_int_eq(dirs_new(&d, &rf, 16), 0);
	dirs_set_log(d, log_kinds, NULL);
	dirs_set_plan(d);
	ck_assert_int_eq(dirs_ahead(d, "var/new"), 0);
	ck_assert_int_eq(dirs_ahead_done(d), 0);
	ck_assert_str_eq(logged, "");
	free_table();
}
END_TEST

START_TEST(test_dirs_get_missing_no_create)
{
	struct dbp_error err;
	size_t idx;

	ck_assert_int_eq(dirs_new(&d, &rf, 16), 0);
	dbp_err_clear(&err);
	ck_assert_int_eq(dirs_get(d, "a/b", false, 0755, &idx, &err), -ENOENT);
	ck_assert_str_eq(err.path, "a/b");
	ck_assert_int_eq(err.errnum, ENOENT);
	ck_assert(!checkutil_exists("a"));
	ck_assert_uint_eq(dirs_created(d), 0);
	free_table();
}
END_TEST

START_TEST(test_dirs_get_create)
{
	size_t root, a, b, c;

	ck_assert_int_eq(dirs_new(&d, &rf, 16), 0);
	c = get(d, "a/b/c", true, 0750);
	ck_assert_str_eq(dirs_path(d, c), "a/b/c");
	ck_assert(S_ISDIR(stat_of("a/b/c").st_mode));
	ck_assert_uint_eq(dirs_created(d), 3);
	/* Known now: found without creating anything more. */
	a = get(d, "a", false, 0);
	b = get(d, "a/b", false, 0);
	root = get(d, "", false, 0);
	ck_assert_uint_eq(dirs_count(d), 4);
	ck_assert_uint_eq(get(d, "a/b/c", true, 0750), c);
	ck_assert_uint_eq(dirs_created(d), 3);
	/* REL with MODE, parents 0755 (umask 022 applies to mkdir). */
	ck_assert_uint_eq(stat_of("a").st_mode & 07777, 0755);
	ck_assert_uint_eq(stat_of("a/b").st_mode & 07777, 0755);
	ck_assert_uint_eq(stat_of("a/b/c").st_mode & 07777, 0750);
	ck_assert_uint_eq(dirs_flags(d, a) & (DIR_CREATED | DIR_META),
	    DIR_CREATED | DIR_META);
	ck_assert_uint_eq(dirs_flags(d, b) & (DIR_CREATED | DIR_META),
	    DIR_CREATED | DIR_META);
	ck_assert_uint_eq(dirs_flags(d, c) & (DIR_CREATED | DIR_META),
	    DIR_CREATED | DIR_META);
	ck_assert_uint_eq(dirs_flags(d, root) & DIR_CREATED, 0);
	/* The parents gained names: they must be synced at commit. */
	ck_assert_uint_ne(dirs_flags(d, root) & DIR_NAMES, 0);
	ck_assert_uint_ne(dirs_flags(d, a) & DIR_NAMES, 0);
	ck_assert_uint_ne(dirs_flags(d, b) & DIR_NAMES, 0);
	ck_assert_uint_eq(dirs_flags(d, c) & DIR_NAMES, 0);
	free_table();
}
END_TEST

/*
 * A database's directories are DIR_ADMIN, known before or after the
 * prefix is set; a sibling that only starts with its name is not.
 */
START_TEST(test_dirs_admin_prefix)
{
	size_t var, db, info, other, top;

	checkutil_mkdir("var");
	ck_assert_int_eq(dirs_new(&d, &rf, 16), 0);
	db = get(d, "var/lib/dpkg", true, 0755);
	ck_assert_uint_eq(dirs_flags(d, db) & DIR_ADMIN, 0);
	ck_assert_int_eq(dirs_set_admin(d, "var/lib/dpkg"), 0);
	ck_assert_uint_ne(dirs_flags(d, db) & DIR_ADMIN, 0);
	info = get(d, "var/lib/dpkg/info", true, 0755);
	other = get(d, "var/lib/dpkgx", true, 0755);
	var = get(d, "var", false, 0);
	top = get(d, "", false, 0);
	ck_assert_uint_ne(dirs_flags(d, info) & DIR_ADMIN, 0);
	ck_assert_uint_eq(dirs_flags(d, other) & DIR_ADMIN, 0);
	ck_assert_uint_eq(dirs_flags(d, var) & DIR_ADMIN, 0);
	ck_assert_uint_eq(dirs_flags(d, top) & DIR_ADMIN, 0);
	/* "" takes every directory; a third prefix is refused. */
	ck_assert_int_eq(dirs_set_admin(d, ""), 0);
	ck_assert_uint_ne(dirs_flags(d, top) & DIR_ADMIN, 0);
	ck_assert_uint_ne(dirs_flags(d, other) & DIR_ADMIN, 0);
	ck_assert_int_eq(dirs_set_admin(d, "usr"), -ENOSPC);
	free_table();
}
END_TEST

/* A directory is made owner-writable whatever its final mode. */
START_TEST(test_dirs_create_owner_writable)
{
	struct dbp_error err;

	ck_assert_int_eq(dirs_new(&d, &rf, 16), 0);
	get(d, "ro", true, 0555);
	get(d, "none", true, 0);
	ck_assert_uint_eq(stat_of("ro").st_mode & 0700, 0700);
	ck_assert_uint_eq(stat_of("none").st_mode & 0700, 0700);
	/* ...so that it can be filled before the fixup. */
	get(d, "ro/sub", true, 0755);
	ck_assert_int_eq(dirs_fixup(d, &err), 0);
	ck_assert_uint_eq(stat_of("ro").st_mode & 07777, 0555);
	ck_assert_uint_eq(stat_of("none").st_mode & 07777, 0);
	free_table();
}
END_TEST

START_TEST(test_dirs_alias_symlink)
{
	size_t i, j;

	checkutil_mkdir("usr");
	checkutil_mkdir("usr/bin");
	checkutil_mkdir("usr/lib");
	checkutil_symlink("usr/bin", "bin");
	checkutil_symlink("/usr/lib", "lib");
	ck_assert_int_eq(dirs_new(&d, &rf, 16), 0);
	/* The real path first, then the symlink. */
	i = get(d, "usr/bin", false, 0);
	j = get(d, "bin", false, 0);
	ck_assert_uint_eq(i, j);
	ck_assert_uint_eq(dirs_count(d), 1);
	ck_assert_str_eq(dirs_path(d, j), "usr/bin");
	/* The symlink first (absolute this time), then the real path. */
	i = get(d, "lib", true, 0755);
	j = get(d, "usr/lib", true, 0755);
	ck_assert_uint_eq(i, j);
	ck_assert_uint_eq(dirs_count(d), 2);
	ck_assert_uint_eq(dirs_flags(d, i) & DIR_CREATED, 0);
	ck_assert_uint_eq(dirs_created(d), 0);
	free_table();
}
END_TEST

START_TEST(test_dirs_alias_create_through)
{
	size_t i, j;

	checkutil_mkdir("usr");
	checkutil_mkdir("usr/bin");
	checkutil_symlink("usr/bin", "bin");
	ck_assert_int_eq(dirs_new(&d, &rf, 16), 0);
	i = get(d, "bin/sub", true, 0755);
	ck_assert(S_ISDIR(stat_of("usr/bin/sub").st_mode));
	ck_assert(S_ISLNK(stat_of("bin").st_mode));
	j = get(d, "usr/bin/sub", false, 0);
	ck_assert_uint_eq(i, j);
	ck_assert_uint_eq(get(d, "bin", false, 0), get(d, "usr/bin", false, 0));
	ck_assert_uint_eq(dirs_created(d), 1);
	ck_assert_uint_ne(dirs_flags(d, i) & DIR_CREATED, 0);
	free_table();
}
END_TEST

/* Created in an order where parents come first and children later. */
START_TEST(test_dirs_remove_created)
{
	size_t keep, p, s;

	checkutil_mkdir("keep");
	mk_file("keep/file");
	ck_assert_int_eq(dirs_new(&d, &rf, 16), 0);
	keep = get(d, "keep", false, 0);
	p = get(d, "keep/p/q", true, 0755);
	s = get(d, "keep/p/q/r/s", true, 0755);
	get(d, "top/one", true, 0755);
	get(d, "top/two", true, 0755);
	ck_assert_uint_eq(dirs_created(d), 7);
	ck_assert_int_eq(dirs_remove_created(d), 0);
	/* Deepest first, or "keep/p" would not be empty when removed. */
	ck_assert(!checkutil_exists("keep/p"));
	ck_assert(!checkutil_exists("top"));
	ck_assert(checkutil_exists("keep"));
	ck_assert(checkutil_exists("keep/file"));
	ck_assert_uint_ne(dirs_flags(d, p) & DIR_GONE, 0);
	ck_assert_uint_ne(dirs_flags(d, s) & DIR_GONE, 0);
	ck_assert_uint_eq(dirs_flags(d, keep) & DIR_GONE, 0);
	/* Its names changed again: sync it at the end. */
	ck_assert_uint_ne(dirs_flags(d, keep) & DIR_NAMES, 0);
	free_table();
}
END_TEST

/* A created directory that holds something else stays. */
START_TEST(test_dirs_remove_created_keeps_nonempty)
{
	size_t full, empty;

	ck_assert_int_eq(dirs_new(&d, &rf, 16), 0);
	full = get(d, "full", true, 0755);
	empty = get(d, "full/empty", true, 0755);
	mk_file("full/committed");
	ck_assert_int_eq(dirs_remove_created(d), 0);
	ck_assert(checkutil_exists("full/committed"));
	ck_assert(!checkutil_exists("full/empty"));
	ck_assert_uint_eq(dirs_flags(d, full) & DIR_GONE, 0);
	ck_assert_uint_ne(dirs_flags(d, empty) & DIR_GONE, 0);
	free_table();
}
END_TEST

START_TEST(test_dirs_fixup_created_only)
{
	struct dir_meta m;
	struct dbp_error err;
	size_t old, nw, sub, autop;
	struct stat st;

	checkutil_mkdir("old");
	ck_assert_int_eq(chmod(checkutil_at("old"), 0750), 0);
	set_times("old", 1000000000);
	ck_assert_int_eq(dirs_new(&d, &rf, 16), 0);
	old = get(d, "old", true, 0700);
	nw = get(d, "new", true, 0755);
	sub = get(d, "new/sub", true, 0755);
	autop = get(d, "auto/leaf", true, 0711);
	autop = get(d, "auto", false, 0);

	memset(&m, 0, sizeof(m));
	m.mode = 0700;
	m.mtime.tv_sec = 1234567890;
	ck_assert_int_eq(dirs_set_meta(d, old, &m, NULL), 0);
	ck_assert_uint_eq(dirs_flags(d, old) & DIR_META, 0);
	m.mode = 0751;
	m.mtime.tv_sec = 1234567890;
	m.mtime.tv_nsec = 500;
	ck_assert_int_eq(dirs_set_meta(d, nw, &m, NULL), 0);
	m.mode = 0705;
	m.mtime.tv_sec = 1300000000;
	m.mtime.tv_nsec = 0;
	ck_assert_int_eq(dirs_set_meta(d, sub, &m, NULL), 0);
	ck_assert_int_eq(dirs_fixup(d, &err), 0);

	st = stat_of("new");
	ck_assert_uint_eq(st.st_mode & 07777, 0751);
	ck_assert_int_eq(st.st_mtim.tv_sec, 1234567890);
	ck_assert_int_eq(st.st_mtim.tv_nsec, 500);
	st = stat_of("new/sub");
	ck_assert_uint_eq(st.st_mode & 07777, 0705);
	ck_assert_int_eq(st.st_mtim.tv_sec, 1300000000);
	/* Without an archive entry: MODE for the path, 0755 for parents. */
	ck_assert_uint_eq(stat_of("auto").st_mode & 07777, 0755);
	ck_assert_uint_eq(stat_of("auto/leaf").st_mode & 07777, 0711);
	ck_assert_uint_ne(dirs_flags(d, autop) & DIR_CREATED, 0);
	/* What existed before the run is kept as it was. */
	st = stat_of("old");
	ck_assert_uint_eq(st.st_mode & 07777, 0750);
	ck_assert_int_eq(st.st_mtim.tv_sec, 1000000000);
	free_table();
}
END_TEST

/* Owners are applied as root only; the mode goes after the chown. */
START_TEST(test_dirs_fixup_owner)
{
	struct dir_meta m;
	struct dbp_error err;
	struct stat st;
	size_t i;

	ck_assert_int_eq(dirs_new(&d, &rf, 16), 0);
	i = get(d, "owned", true, 0755);
	memset(&m, 0, sizeof(m));
	m.mode = 02750;
	m.mtime.tv_sec = 1234567890;
	m.chown = geteuid() == 0;
	m.uid = 1234;
	m.gid = 4321;
	ck_assert_int_eq(dirs_set_meta(d, i, &m, NULL), 0);
	ck_assert_int_eq(dirs_fixup(d, &err), 0);
	st = stat_of("owned");
	ck_assert_int_eq(st.st_mtim.tv_sec, 1234567890);
	if (geteuid() == 0) {
		ck_assert_uint_eq(st.st_uid, 1234);
		ck_assert_uint_eq(st.st_gid, 4321);
		ck_assert_uint_eq(st.st_mode & 07777, 02750);
	} else {
		/* Without root, setgid to a group we are in is all we know. */
		ck_assert_uint_eq(st.st_mode & 0777, 0750);
	}
	free_table();
}
END_TEST

START_TEST(test_dirs_fd_cache)
{
	enum { NDIRS = 50, MAXFDS = 4 };
	size_t idx[NDIRS];
	char name[32];
	struct stat want, got;
	int before, inuse, round, i, k, fd, pfd;

	for (i = 0; i < NDIRS; i += 2) {
		snprintf(name, sizeof(name), "d%02d", i);
		checkutil_mkdir(name);
	}
	before = checkutil_count_fds();
	ck_assert_int_eq(dirs_new(&d, &rf, MAXFDS), 0);
	/* Even ones existed, odd ones are created. */
	for (i = 0; i < NDIRS; i++) {
		snprintf(name, sizeof(name), "d%02d", i);
		idx[i] = get(d, name, i % 2 == 1, 0755);
		ck_assert_int_le(checkutil_count_fds() - before, MAXFDS);
	}
	ck_assert_uint_eq(dirs_created(d), NDIRS / 2);
	for (round = 0; round < 3; round++)
		for (k = 0; k < NDIRS; k++) {
			i = (k * 7 + round) % NDIRS;
			snprintf(name, sizeof(name), "d%02d", i);
			fd = dirs_fd(d, idx[i]);
			ck_assert_msg(fd >= 0, "dirs_fd %s: %s", name,
			    strerror(-fd));
			ck_assert_int_eq(fstat(fd, &got), 0);
			want = stat_of(name);
			ck_assert(got.st_ino == want.st_ino &&
			    got.st_dev == want.st_dev);
			snprintf(name, sizeof(name), "probe%d", round);
			pfd = openat(fd, name, O_WRONLY | O_CREAT | O_EXCL,
			    0644);
			ck_assert_int_ge(pfd, 0);
			ck_assert_int_eq(close(pfd), 0);
			inuse = checkutil_count_fds() - before;
			ck_assert_int_le(inuse, MAXFDS);
		}
	for (i = 0; i < NDIRS; i++) {
		snprintf(name, sizeof(name), "d%02d/probe2", i);
		ck_assert(checkutil_exists(name));
	}
	free_table();
	ck_assert_int_eq(checkutil_count_fds(), before);
}
END_TEST

/* An evicted directory replaced behind our back is not silently reopened. */
START_TEST(test_dirs_fd_stale)
{
	char name[16], moved[PATH_MAX];
	size_t victim;
	int i;

	checkutil_mkdir("victim");
	ck_assert_int_eq(dirs_new(&d, &rf, 4), 0);
	victim = get(d, "victim", false, 0);
	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "o%d", i);
		get(d, name, true, 0755);
	}
	snprintf(moved, sizeof(moved), "%s", checkutil_at("victim.old"));
	ck_assert_int_eq(rename(checkutil_at("victim"), moved), 0);
	checkutil_mkdir("victim");
	ck_assert_int_eq(dirs_fd(d, victim), -ESTALE);
	free_table();
}
END_TEST

struct guard_log {
	int calls;
	size_t pidx[8];
	char base[8][32];
};

static int
guard(void *ctx, size_t pidx, const char *base)
{
	struct guard_log *g = ctx;

	if (g->calls < 8) {
		g->pidx[g->calls] = pidx;
		snprintf(g->base[g->calls], sizeof(g->base[0]), "%s", base);
	}
	g->calls++;
	return strcmp(base, "blocked") == 0 ? -EEXIST : 0;
}

START_TEST(test_dirs_guard_refuses)
{
	struct guard_log g;
	struct dbp_error err;
	size_t x, idx, root;

	checkutil_mkdir("pre");
	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(dirs_new(&d, &rf, 16), 0);
	dirs_set_guard(d, guard, &g);
	dbp_err_clear(&err);
	/* The errno itself is test_dirs_enotdir's business. */
	ck_assert_int_lt(dirs_get(d, "x/blocked", true, 0755, &idx, &err), 0);
	ck_assert_str_eq(err.path, "x/blocked");
	ck_assert(!checkutil_exists("x/blocked"));
	root = get(d, "", false, 0);
	x = get(d, "x", false, 0);
	ck_assert_int_eq(g.calls, 2);
	ck_assert_uint_eq(g.pidx[0], root);
	ck_assert_str_eq(g.base[0], "x");
	ck_assert_uint_eq(g.pidx[1], x);
	ck_assert_str_eq(g.base[1], "blocked");
	/* Only missing directories are asked about. */
	get(d, "x", true, 0755);
	get(d, "pre", true, 0755);
	ck_assert_int_eq(g.calls, 2);
	get(d, "x/fine", true, 0755);
	ck_assert_int_eq(g.calls, 3);
	dirs_set_guard(d, NULL, NULL);
	get(d, "x/blocked", true, 0755);
	ck_assert(checkutil_exists("x/blocked"));
	free_table();
}
END_TEST

START_TEST(test_dirs_enotdir)
{
	struct dbp_error err;
	size_t idx;

	mk_file("f");
	checkutil_symlink("nowhere", "dangling");
	ck_assert_int_eq(dirs_new(&d, &rf, 16), 0);
	ck_assert_int_eq(dirs_get(d, "f", false, 0, &idx, &err), -ENOTDIR);
	ck_assert_int_eq(dirs_get(d, "f", true, 0755, &idx, &err), -ENOTDIR);
	ck_assert_str_eq(err.path, "f");
	ck_assert_int_eq(dirs_get(d, "f/sub", true, 0755, &idx, &err),
	    -ENOTDIR);
	ck_assert_int_eq(dirs_get(d, "dangling", true, 0755, &idx, &err),
	    -ENOTDIR);
	ck_assert(!checkutil_exists("nowhere"));
	ck_assert(S_ISREG(stat_of("f").st_mode));
	ck_assert_uint_eq(dirs_created(d), 0);
	free_table();
}
END_TEST

START_TEST(test_dirs_sync_counts)
{
	struct dbp_error err;
	unsigned long n = 0;
	size_t s2;

	checkutil_mkdir("quiet");
	ck_assert_int_eq(dirs_new(&d, &rf, 16), 0);
	get(d, "quiet", false, 0);
	s2 = get(d, "s1/s2", true, 0755);
	/* The root and s1 gained names, s1 and s2 have metadata to apply. */
	ck_assert_int_eq(dirs_sync(d, &n, &err), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_ne(dirs_flags(d, s2) & DIR_SYNCED, 0);
	ck_assert_int_eq(dirs_sync(d, &n, &err), 0);
	ck_assert_uint_eq(n, 3);
	dirs_mark(d, s2, DIR_NAMES);
	ck_assert_uint_eq(dirs_flags(d, s2) & DIR_SYNCED, 0);
	ck_assert_int_eq(dirs_sync_one(d, s2, &n, &err), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(dirs_sync_one(d, s2, &n, &err), 0);
	ck_assert_uint_eq(n, 4);
	free_table();
}
END_TEST

/* Undo works through the fd cache too: parents are reopened by path. */
START_TEST(test_dirs_remove_created_evicted)
{
	char name[64];
	int i;

	ck_assert_int_eq(dirs_new(&d, &rf, 4), 0);
	for (i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "n%d/deep%d/deeper", i % 5, i);
		get(d, name, true, 0755);
	}
	ck_assert_uint_eq(dirs_created(d), 45);
	ck_assert_int_eq(dirs_remove_created(d), 0);
	for (i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		ck_assert(!checkutil_exists(name));
	}
	free_table();
}
END_TEST

/*
 * Undo gives a directory that existed its times back, unless a name was
 * committed in it.
 */
START_TEST(test_dirs_restore_times)
{
	size_t kept;

	checkutil_mkdir("old");
	checkutil_mkdir("kept");
	set_times("old", 1000000000);
	set_times("kept", 1000000000);
	ck_assert_int_eq(dirs_new(&d, &rf, 16), 0);
	/* Known before anything changes in them: their times are noted. */
	get(d, "old", false, 0);
	kept = get(d, "kept", false, 0);
	get(d, "old/new", true, 0755);
	get(d, "kept/new", true, 0755);
	mk_file("kept/committed");
	dirs_mark(d, kept, DIR_NAMES | DIR_RENAMED);
	ck_assert_int_eq(dirs_remove_created(d), 0);
	ck_assert_int_ne(stat_of("old").st_mtim.tv_sec, 1000000000);
	dirs_restore_times(d);
	ck_assert_int_eq(stat_of("old").st_mtim.tv_sec, 1000000000);
	ck_assert_int_eq(stat_of("old").st_atim.tv_sec, 1000000000);
	ck_assert_int_ne(stat_of("kept").st_mtim.tv_sec, 1000000000);
	free_table();
}
END_TEST

static Suite *
dirs_suite(void)
{
	Suite *s = suite_create("dirs");
	TCase *tc;

	tc = checkutil_scratch_tcase(s, "core", setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_dirs_get_existing);
	tcase_add_test(tc, test_dirs_log_use);
	tcase_add_test(tc, test_dirs_get_missing_no_create);
	tcase_add_test(tc, test_dirs_get_create);
	tcase_add_test(tc, test_dirs_admin_prefix);
	tcase_add_test(tc, test_dirs_create_owner_writable);
	tcase_add_test(tc, test_dirs_alias_symlink);
	tcase_add_test(tc, test_dirs_alias_create_through);
	tcase_add_test(tc, test_dirs_remove_created);
	tcase_add_test(tc, test_dirs_remove_created_keeps_nonempty);
	tcase_add_test(tc, test_dirs_fixup_created_only);
	tcase_add_test(tc, test_dirs_fixup_owner);
	tcase_add_test(tc, test_dirs_guard_refuses);
	tcase_add_test(tc, test_dirs_sync_counts);
	tcase_add_test(tc, test_dirs_restore_times);

	tc = checkutil_scratch_tcase(s, "limits", setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_dirs_fd_cache);
	tcase_add_test(tc, test_dirs_fd_stale);
	tcase_add_test(tc, test_dirs_enotdir);
	tcase_add_test(tc, test_dirs_remove_created_evicted);
	tcase_add_test(tc, test_dirs_ahead);
	return s;
}

int
main(void)
{
	return checkutil_run(dirs_suite());
}
