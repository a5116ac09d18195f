/* SPDX-License-Identifier: MIT */
/* The batched, perfile and none strategies (syncfs.c has the syncfs one). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durable/fskind.h"
#include "durable/syncbatch_int.h"
#include "durable/syncstep.h"

/* --- batched: start writeback early, wait and flush once at the end --- */

/*
 * Run FN on the descriptor of every file whose data must be made durable,
 * reopening those closed past the limit.  FN returns 0 or an error; when
 * LAST, descriptors kept open are closed after it (close errors count).
 */
static int
sb_each_data(struct syncbatch *sb, bool last,
    int (*fn)(struct syncbatch *, struct sb_item *, int, void *,
    struct dbp_error *), void *arg, struct dbp_error *err)
{
	bool reopened;
	size_t i;
	int fd, r;

	for (i = 0; i < sb->n; i++) {
		struct sb_item *it = &sb->v[i];

		if (!it->data || it->state != SB_PENDING)
			continue;
		if ((fd = sb_item_fd(sb, it, &reopened, err)) < 0)
			return fd;
		r = fn(sb, it, fd, arg, err);
		if (reopened)
			close(fd);
		else if (r == 0 && last)
			r = sb_close(sb, it, err);
		if (r != 0)
			return r;
	}
	return 0;
}

#ifdef HAVE_SYNC_FILE_RANGE
static int
batched_wait(struct syncbatch *sb, struct sb_item *it, int fd,
    void *arg, struct dbp_error *err)
{
	(void)arg;
	sb->st->calls[SC_SYNC_FILE_RANGE_WAIT]++;
	if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE) != 0 &&
	    errno != ENOSYS && errno != EINVAL)
		return dbp_err(err, errno, it->path, "cannot wait for writeback");
	return 0;
}
#endif

/*
 * The filesystems on which the data barrier is one syncfs, not a
 * fdatasync per file: those whose fsync writes the file's changes in a
 * log of their own (fskind_fsync_logs: btrfs's log tree, ext4's fast
 * commits), where syncfs is trusted.  On btrfs each fdatasync costs a
 * log-tree sync (two device flushes) per file, and it logs the file's
 * inode: a rename of
 * an inode logged in the running transaction is logged at once, and any
 * later log-tree sync makes it durable, this run's or another program's.
 * The renames of the synced files (dpkg's new status among them) could
 * then be durable before those of files never synced (a symlink, whose
 * directory's fsync comes later), so that dpkg's status says "unpacked"
 * over names still old; the power-loss matrix finds that state.  After
 * one syncfs, a transaction commit, no inode of the batch is logged and
 * its renames wait for their directories' fsyncs, in dirs_sync's order.
 */
struct bd_fs {
	dev_t dev;
	bool whole;		/* one syncfs for all its files */
};

#define BD_MAXFS	8

struct bd_state {
	struct bd_fs fs[BD_MAXFS];
	size_t nfs;
	size_t dir;		/* the last file's directory, and its ... */
	bool whole;		/* ... filesystem's way */
};

/* Whether IT's filesystem was synced whole (1), not (0), or an error. */
static int
bd_whole(struct syncbatch *sb, struct bd_state *bs, struct sb_item *it,
    int fd, struct dbp_error *err)
{
	struct stat st;
	size_t i;

	if (bs->nfs > 0 && it->dir == bs->dir)
		return bs->whole;
	if (fstat(fd, &st) != 0)
		return dbp_err(err, errno, it->path, "cannot stat");
	bs->dir = it->dir;
	for (i = 0; i < bs->nfs; i++)
		if (bs->fs[i].dev == st.st_dev)
			return bs->whole = bs->fs[i].whole;
	/* More filesystems than that: the rest synced file by file. */
	if (bs->nfs == BD_MAXFS)
		return bs->whole = false;
	bs->fs[bs->nfs].dev = st.st_dev;
	bs->whole = fskind_sync(fd) == FSKIND_SYNCFS && fskind_fsync_logs(fd);
	bs->fs[bs->nfs++].whole = bs->whole;
	if (bs->whole) {
		sb->st->calls[SC_SYNCFS]++;
		if (syncfs(fd) != 0)
			return dbp_err(err, errno, it->path,
			    "cannot sync its filesystem");
	}
	return bs->whole;
}

static int
batched_fdatasync(struct syncbatch *sb, struct sb_item *it, int fd,
    void *arg, struct dbp_error *err)
{
	int r;

	if ((r = bd_whole(sb, arg, it, fd, err)) != 0)
		return r < 0 ? r : 0;
	sb->st->calls[SC_FDATASYNC]++;
	if (fdatasync(fd) != 0)
		return dbp_err(err, errno, it->path, "cannot sync");
	return 0;
}

static int
batched_data_barrier(struct syncbatch *sb, struct dbp_error *err)
{
	struct bd_state bs = { .nfs = 0 };
	double t0 = stats_now();
	int r = 0;

#ifdef HAVE_SYNC_FILE_RANGE
	/* Wait for all writeback first, so the flushes below overlap nothing. */
	r = sb_each_data(sb, false, batched_wait, NULL, err);
#endif
	sb->st->phase[PH_WAIT] += stats_now() - t0;
	if (r != 0)
		return r;
	t0 = stats_now();
	/*
	 * The first fdatasync commits the journal transaction that holds
	 * every file's metadata; the others mostly find nothing to do.
	 * Where a fsync commits only its own file, one syncfs (bd_whole).
	 */
	r = sb_each_data(sb, true, batched_fdatasync, &bs, err);
	sb->st->phase[PH_FDATASYNC] += stats_now() - t0;
	return r;
}

static int
sync_names(struct syncbatch *sb, struct dbp_error *err)
{
	return dirs_sync(sb->dirs, &sb->st->calls[SC_FSYNC], err);
}

/* --- perfile: the classic write, fsync, rename, fsync directory --- */

static int
perfile_written(struct syncbatch *sb, struct sb_item *it,
    struct dbp_error *err)
{
	int r;

	if ((r = syncstep_journal_first(sb, err)) != 0)
		return r;
	sb->st->calls[SC_FSYNC]++;
	if (fsync(it->fd) != 0)
		return dbp_err(err, errno, it->path, "cannot sync");
	return 0;
}

static int
perfile_renamed(struct syncbatch *sb, struct sb_item *it,
    struct dbp_error *err)
{
	return dirs_sync_one(sb->dirs, it->dir, &sb->st->calls[SC_FSYNC], err);
}

/* --- none: atomic renames, no durability --- */

static int
none_barrier(struct syncbatch *sb, struct dbp_error *err)
{
	(void)sb;
	(void)err;
	return 0;
}

static int
none_written(struct syncbatch *sb, struct sb_item *it, struct dbp_error *err)
{
	(void)it;
	return none_barrier(sb, err);
}

const struct syncbatch_ops syncbatch_batched = {
	.name = "batched",
	.durable = true,
	.link_new = true,
	.keep_fds = true,
	.written = syncstep_writeback,
	.data_barrier = batched_data_barrier,
	.names_barrier = sync_names,
};
/* The per-file recipe as such: renames only, each followed by its sync. */
const struct syncbatch_ops syncbatch_perfile = {
	.name = "perfile",
	.durable = true,
	.written = perfile_written,
	.data_barrier = none_barrier,
	.renamed = perfile_renamed,
	.names_barrier = sync_names,
};
const struct syncbatch_ops syncbatch_none = {
	.name = "none",
	.link_new = true,
	.written = none_written,
	.data_barrier = none_barrier,
	.names_barrier = none_barrier,
};
