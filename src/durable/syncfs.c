/* SPDX-License-Identifier: MIT */
/* The syncfs strategy: start writeback early, one syncfs per barrier. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "durable/fileat.h"
#include "durable/fsset.h"
#include "durable/journal.h"
#include "durable/syncbatch_int.h"
#include "durable/syncstep.h"

/*
 * What the syncfs strategy syncs, shared by the batches of a run (files
 * and records): one barrier covers them all.  Each filesystem is synced
 * through a descriptor opened before the run wrote anything there, since
 * syncfs reports a writeback error only to descriptors older than it.
 */
struct sb_fsset {
	struct fsset *set;
	struct dirs *tab[2];	/* the directory tables of the batches */
	size_t ntab;
	unsigned refs;
	struct syncbatch *batch[2];	/* the batches sharing it */
	size_t nbatch;
	bool data;		/* files written since the last syncfs */
	bool names;		/* names changed since the last syncfs */
	bool covered;		/* ... some of them not the batches' (cover) */
	bool owed;		/* data waited for, its commit still to come
				   (syncfs_wait_data) */
	bool left;		/* names and commit line ordered, not yet
				   committed (syncfs_leave) */
};

/*
 * Why this is as safe as batched: syncfs(2) writes back every dirty page
 * and inode of the filesystem, waits for it, commits the filesystem's
 * journal (ext4: a jbd2 commit; xfs: a log force; btrfs: a transaction
 * commit, which also makes the log tree unnecessary) and flushes the
 * device cache, and since Linux 5.8 it returns the writeback errors of
 * the whole filesystem.  So after the data barrier every temporary's
 * data and inode are durable, and no rename has been made yet; after the
 * names barrier every rename and directory change is.  Its cost does not
 * depend on the number of files: a few device flushes per barrier where
 * batched pays one fdatasync, thus one flush (btrfs: one log-tree sync),
 * per file.  What it costs instead is writing back whatever else is
 * dirty on that filesystem, which for a root being built is the root.
 */

static int
syncfs_written(struct syncbatch *sb, struct sb_item *it,
    struct dbp_error *err)
{
	enum fskind_sync kind;
	int r;

	/*
	 * The first file written on a filesystem is the one that is old
	 * enough to hear of every writeback error of the run there.
	 */
	if ((r = fsset_add(sb->fs->set, it->fd, it->path, &kind)) != 0)
		return dbp_err(err, -r, it->path, "cannot open filesystem");
	if (kind == FSKIND_SYNCFS_CHECK) {
		/*
		 * An overlay (fskind.c): sync_file_range does nothing there,
		 * DONTNEED starts the upper file's writeback, as dpkg does;
		 * the file stays open for its check after the barrier.
		 */
		sb->fs->data = true;
		it->check = true;
		sb->st->calls[SC_FADVISE]++;
		(void)posix_fadvise(it->fd, 0, 0, POSIX_FADV_DONTNEED);
		return 0;
	}
	if (kind == FSKIND_PERFILE) {
		/* Where syncfs is not trusted, the file is synced itself. */
		if ((r = syncstep_journal_first(sb, err)) != 0)
			return r;
		sb->st->calls[SC_FDATASYNC]++;
		if (fdatasync(it->fd) != 0)
			return dbp_err(err, errno, it->path, "cannot sync");
		return 0;
	}
	/*
	 * A clone of durable data (the store's) has nothing to write back:
	 * its new extent map is metadata, which reaches the disk in the
	 * filesystem's journal (xfs) or transaction (btrfs) before any
	 * rename made after it, with the names barrier's commit.  Nothing
	 * to wait for, nor to settle, at the data barrier.
	 */
	if (it->cloned && fsset_in_order(sb->fs->set, it->fd)) {
		it->data = false;
		return 0;
	}
	sb->fs->data = true;
	/* Kept open where the data barrier may wait for it instead. */
	it->wait = fsset_ordered(sb->fs->set) || fsset_settles(sb->fs->set);
	/* Writeback overlaps extraction: the barrier finds little to write. */
	return syncstep_writeback(sb, it, err);
}

/* What --stats says of each filesystem: how it was synced, and why. */
static void
syncfs_report(struct syncbatch *sb)
{
	struct fsset *set = sb->fs->set;
	enum fskind_sync kind;
	size_t i;

	for (i = 0; i < fsset_count(set) && i < STATS_MAXFS; i++) {
		fsset_get(set, i, &kind, sb->st->fs[i].type,
		    sizeof(sb->st->fs[i].type));
		sb->st->fs[i].how = fskind_how(kind);
		sb->st->fs[i].why = fskind_why(kind);
	}
	sb->st->nfs = i;
}

/*
 * The journal's pending lines, before the barrier: made durable by it
 * where the journal and everything the run wrote are on one filesystem
 * whose syncfs is trusted (*CARRIED), else synced by themselves first.
 * A syncfs commits what it finds in more than one transaction (ext4: one
 * before it waits for the writeback, one after), and a journal's new
 * lines become visible only with its size, updated when its pages are
 * written back: left to the syncfs, the first transaction could hold the
 * temporaries' names without the lines that name them (the power-loss
 * matrix finds that state).  So the lines are written back and waited
 * for first (journal_writeback): their size and blocks are then in the
 * running transaction, and whichever commit makes the names durable
 * makes them durable too; the lines' own fdatasync, one more commit of
 * the file system, is saved.  xfs does nothing in syncfs's first pass
 * and btrfs commits its transaction whole: one commit carries all.
 * The commit line needs no more: it may reach the disk before the
 * renames made before it, never the other way round, since the
 * filesystem's journal keeps its metadata in order.
 * Across filesystems there is no such order: the lines are synced
 * first, and a commit line after the barrier.
 */
static int
syncfs_journal(struct syncbatch *sb, bool *carried, struct dbp_error *err)
{
	enum fskind_sync kind;
	const char *name;
	bool committed;
	int fd, r;

	*carried = false;
	if (sb->journal == NULL || !journal_pending(sb->journal))
		return 0;
	committed = journal_committed(sb->journal);
	if (sb->aborting || (fd = journal_dirfd(sb->journal, &name)) < 0)
		return syncstep_journal_first(sb, err);
	if ((r = fsset_add(sb->fs->set, fd, name, &kind)) != 0)
		return dbp_err(err, -r, name, "cannot open filesystem");
	if (kind != FSKIND_SYNCFS || fsset_count(sb->fs->set) > 1)
		return committed ? 0 : syncstep_journal_first(sb, err);
	if ((r = committed ? journal_flush(sb->journal, err) :
	    journal_writeback(sb->journal, err)) != 0)
		return r;
	*carried = true;
	return 0;
}

/* Which directories syncfs_add_dirs adds to the set. */
enum sf_dirs {
	SF_CHANGED,		/* those the run changed */
	SF_CHANGED_SYNC,	/* ... fsynced where syncfs is not trusted */
	/*
	 * Every one the batches know, unchanged ones too: the cleanup
	 * changes some of them (the paths an old version drops, planned
	 * before the commit), syncfs_may_leave.
	 */
	SF_KNOWN,
};

/*
 * Add the filesystems of the directories the run changed (a package of
 * directories and symlinks writes no file), or of all it knows, to the
 * set; SF_CHANGED_SYNC: on a filesystem where syncfs is not trusted,
 * fsync those directories.  0, or an error; SF_KNOWN: 1 when one of them
 * cannot be opened.
 */
static int
syncfs_add_dirs(struct syncbatch *sb, enum sf_dirs which,
    struct dbp_error *err)
{
	struct sb_fsset *fs = sb->fs;
	enum fskind_sync kind;
	size_t i, t;
	int fd, r;

	for (t = 0; t < fs->ntab; t++)
		for (i = 0; i < dirs_count(fs->tab[t]); i++) {
			struct dirs *d = fs->tab[t];

			if (which == SF_KNOWN ? (dirs_flags(d, i) &
			    (DIR_PLANNED | DIR_GONE)) != 0 :
			    !dirs_unsynced(d, i))
				continue;
			/* A sync makes no name: it owes the journal nothing. */
			if ((fd = dirs_fd_look(d, i)) < 0)
				return which == SF_KNOWN ? 1 : dbp_err(err, -fd,
				    dirs_path(d, i), "cannot open directory");
			if ((r = fsset_add(fs->set, fd, dirs_path(d, i),
			    &kind)) != 0)
				return dbp_err(err, -r, dirs_path(d, i),
				    "cannot open filesystem");
			if (which == SF_CHANGED_SYNC &&
			    kind == FSKIND_PERFILE &&
			    (r = dirs_sync_one(d, i, &sb->st->calls[SC_FSYNC],
			    err)) != 0)
				return r;
		}
	return 0;
}

/*
 * syncfs every filesystem of the set, and of the directories the run
 * changed; on a filesystem where syncfs is not trusted, fsync the
 * changed directories.  A pending commit line the barrier cannot carry
 * is synced after it.
 */
static int
syncfs_all(struct syncbatch *sb, struct dbp_error *err)
{
	struct sb_fsset *fs = sb->fs;
	bool carried;
	size_t i, t;
	int r;

	/*
	 * Every filesystem the barrier syncs known first, so that the
	 * journal knows whether it can carry it; the journal before any
	 * directory is synced.
	 */
	if ((r = syncfs_add_dirs(sb, SF_CHANGED, err)) != 0 ||
	    (r = syncfs_journal(sb, &carried, err)) != 0 ||
	    (r = syncfs_add_dirs(sb, SF_CHANGED_SYNC, err)) != 0)
		return r;
	if ((r = fsset_syncfs(fs->set, &sb->st->calls[SC_SYNCFS], err)) != 0)
		return r;
	if (carried)
		journal_covered(sb->journal);
	else if ((r = syncstep_journal_first(sb, err)) != 0)
		return r;
	syncfs_report(sb);
	/* Every batch's directories are durable now, not only this one's. */
	for (t = 0; t < fs->ntab; t++)
		for (i = 0; i < dirs_count(fs->tab[t]); i++)
			if (dirs_unsynced(fs->tab[t], i))
				dirs_mark(fs->tab[t], i, DIR_SYNCED);
	fs->data = fs->names = fs->covered = fs->owed = fs->left = false;
	return 0;
}

/*
 * Whether the names barrier to come can carry the journal's commit line:
 * where the journal and every name the run changed are on one
 * filesystem, and syncfs is trusted there.  Its journal (ext4's jbd2,
 * xfs's log, btrfs's transactions) keeps metadata changes in the order
 * they were made, so the line, written after the last rename, cannot be
 * durable before the renames are; one syncfs then makes them durable
 * together, where the line's own fdatasync would cost one more commit.
 * Across filesystems there is no such order: the line is written and
 * synced after the names barrier.
 */
static int
syncfs_carries(struct syncbatch *sb, struct dbp_error *err)
{
	enum fskind_sync kind;
	const char *name;
	int fd, r;

	if (sb->aborting || sb->journal == NULL ||
	    (fd = journal_dirfd(sb->journal, &name)) < 0)
		return 0;
	if ((r = syncfs_add_dirs(sb, SF_CHANGED, err)) != 0)
		return r;
	if ((r = fsset_add(sb->fs->set, fd, name, &kind)) != 0)
		return dbp_err(err, -r, name, "cannot open filesystem");
	return kind == FSKIND_SYNCFS && fsset_count(sb->fs->set) == 1;
}

/* Whether a directory of a batch changed since the last barrier. */
static bool
sb_dirs_changed(const struct sb_fsset *fs)
{
	size_t i, t;

	for (t = 0; t < fs->ntab; t++)
		for (i = 0; i < dirs_count(fs->tab[t]); i++)
			if (dirs_unsynced(fs->tab[t], i))
				return true;
	return false;
}

/*
 * After the syncfs, the files whose writeback errors it cannot report
 * (an overlay's) are checked one by one, and closed.
 */
static int
syncfs_check(struct syncbatch *sb, struct dbp_error *err)
{
	bool reopened;
	size_t i;
	int fd, r;

	for (i = 0; i < sb->n; i++) {
		struct sb_item *it = &sb->v[i];

		if (!it->check || it->state != SB_PENDING)
			continue;
		if ((fd = sb_item_fd(sb, it, &reopened, err)) < 0)
			return fd;
		r = syncstep_check(sb, it, fd, err);
		if (reopened)
			close(fd);
		else if (r == 0)
			r = sb_close(sb, it, err);
		if (r != 0)
			return r;
		it->check = false;
	}
	return 0;
}

/*
 * The data barrier without a commit of its own, where one is enough for
 * data and names: the journal and everything the run changed on one
 * filesystem whose journal commits every change in the order it was made
 * and flushes the device's cache before a commit's record
 * (fsset_ordered: xfs, a journaled ext4 without fast commits).  Each
 * file is written back and waited for, as the journal's lines are: its
 * blocks are then on the device, and its blocks' mapping and size in the
 * running transaction (ext4 maps delayed blocks at writeback and converts
 * unwritten extents before the pages' writeback ends; xfs logs the size
 * and the conversion when the write completes, before it ends them).
 * Every rename comes after, in the same or a later transaction, so no
 * commit, the filesystem's own every few seconds or another program's
 * fsync, can make a name durable before the data it points at: the
 * names barrier's syncfs makes both durable, one commit where the data's
 * syncfs cost one more (two device flushes on ext4 and xfs).  The same
 * order the journal's lines rely on (journal.c), and the new status
 * file of dpkg's (unpackseq_status.c); the power-loss matrix checks it.
 * On btrfs (fsset_settles) too, each file settled rather than written
 * back: btrfs records a write's extents and size in a worker after the
 * write completes, and its fiemap with FIEMAP_FLAG_SYNC waits for that
 * (fileat_writeback_mapped, fskind_settles), so they are in the running
 * transaction before any rename.  btrfs commits whole transactions in
 * turn, so its commit every 30 s, or another program's syncfs, cannot
 * carry a rename without the data it names.  An fsync there writes the
 * log tree instead, which is not ordered with the rest: the run itself
 * logs nothing on btrfs, and a file's log carries its own names only.
 * A directory's log carries every name it gained, and the files they
 * name only as last logged or committed (a new one empty): btrfs falls
 * back to a full commit only for a directory that lost a name to
 * another one in the running transaction (btrfs_record_unlink_dir on a
 * cross-directory rename), and the temporaries are renamed within
 * their directory.  So another program's fsync of a directory the
 * batch renamed in, between the first rename and the names barrier's
 * commit, can make its new names durable alone, where a per-file fsync
 * would have made their data durable first: the one window in which
 * btrfs is weaker here than dpkg (xfs, and ext4 without fast commits,
 * commit their whole journal): well under a second per batch, and only
 * for a program that fsyncs directories of /usr while packages are
 * installed.  For the same
 * reason the names barrier keeps its commit there (syncfs_may_leave):
 * the cleanup's removals, and the maintainer scripts after the batch,
 * whose fsyncs are logs of their own, come after it.  Not for files
 * written beside the batches (the store's), nor for one closed past
 * the descriptor limit, nor one the filesystem cannot settle: the
 * syncfs, as before.  1 done,
 * 0 not here, or an error.
 */
static int
syncfs_wait_data(struct syncbatch *sb, struct dbp_error *err)
{
	struct sb_fsset *fs = sb->fs;
	bool settle;
	size_t b, i;
	int one, r;

	if (fs->covered)
		return 0;
	if ((one = syncfs_carries(sb, err)) <= 0)
		return one;
	settle = fsset_settles(fs->set);
	if (!fsset_ordered(fs->set) && !settle)
		return 0;
	if ((r = journal_writeback(sb->journal, err)) != 0)
		return r;
	/*
	 * A file closed past the descriptor limit, or one that cannot be
	 * waited for alone: the syncfs, which finds the waited ones done.
	 */
	for (b = 0; b < fs->nbatch; b++)
		for (i = 0; i < fs->batch[b]->n; i++) {
			struct sb_item *it = &fs->batch[b]->v[i];

			if (it->state != SB_PENDING || !it->data)
				continue;
			if (it->fd < 0 || !it->wait)
				return 0;
			sb->st->calls[settle ? SC_FIEMAP :
			    SC_SYNC_FILE_RANGE_WAIT]++;
			if ((r = settle ? fileat_writeback_mapped(it->fd) :
			    fileat_writeback(it->fd)) < 0)
				return dbp_err(err, errno, it->path,
				    "cannot write");
			if (r > 0)
				return 0;
		}
	fs->data = false;
	fs->owed = true;
	return 1;
}

static int
syncfs_data_barrier(struct syncbatch *sb, struct dbp_error *err)
{
	double t0 = stats_now();
	int r = 0;

	/*
	 * Another batch's barrier may have covered this one's files; the
	 * journal is synced before any rename all the same, or where that
	 * barrier only waited for them, written back in the same order.
	 */
	if (sb->fs->data) {
		if ((r = syncfs_wait_data(sb, err)) == 0)
			r = syncfs_all(sb, err);
		else if (r > 0)
			r = 0;
	} else if (sb->fs->owed && sb->journal != NULL)
		r = journal_writeback(sb->journal, err);
	else
		r = syncstep_journal_first(sb, err);
	if (r == 0)
		r = syncfs_check(sb, err);
	sb->st->phase[PH_FDATASYNC] += stats_now() - t0;
	return r;
}

static int
syncfs_renamed(struct syncbatch *sb, struct sb_item *it,
    struct dbp_error *err)
{
	(void)it;
	(void)err;
	sb->fs->names = true;
	return 0;
}

/*
 * Whether the names barrier may leave its commit to the cleanup's (or to
 * the caller's sync, syncbatch_defer_end): past the commit line, with
 * every file's data waited for or synced, the journal, every name and
 * every directory the cleanup may change on one filesystem that keeps
 * its changes in order (fsset_ordered, as for syncfs_wait_data).  1, 0,
 * or an error.
 */
static int
syncfs_may_leave(struct syncbatch *sb, struct dbp_error *err)
{
	int one;

	if (sb->aborting || sb->fs->data || sb->fs->covered ||
	    sb->journal == NULL || !journal_committed(sb->journal))
		return 0;
	if ((one = syncfs_add_dirs(sb, SF_KNOWN, err)) != 0)
		return one < 0 ? one : 0;
	if ((one = syncfs_carries(sb, err)) <= 0)
		return one;
	return fsset_ordered(sb->fs->set) ? 1 : 0;
}

/*
 * The names barrier without a commit: the commit line, written after the
 * last rename, written back and waited for, as the journal's other lines
 * are (syncfs_journal).  Its blocks and size are then in the running
 * transaction, in the same one as the last rename or a later one, so
 * every change the cleanup makes from here on (the backups' removal
 * first) is in that transaction or a later one: no commit, the file
 * system's own or another program's fsync, can make a backup's removal
 * durable without the line that says the batch is done.  A crash before
 * the line is durable leaves every backup, and the repair undoes the
 * renames; after it, the repair finishes the cleanup.  The one commit
 * that makes data, lines, names and cleanup durable together is the
 * cleanup barrier's, or, where the caller syncs the filesystem itself
 * (defer_end), the caller's: an upgrade pays one commit of the file
 * system where it paid two, and the batches of one apt call one in all.
 */
static int
syncfs_leave(struct syncbatch *sb, struct dbp_error *err)
{
	int r;

	if ((r = journal_writeback(sb->journal, err)) != 0)
		return r;
	/* Its sync is the barrier's to come, or the caller's. */
	journal_covered(sb->journal);
	syncfs_report(sb);
	sb->fs->names = sb->fs->owed = false;
	sb->fs->left = true;
	return 0;
}

static int
syncfs_names_barrier(struct syncbatch *sb, struct dbp_error *err)
{
	struct sb_fsset *fs = sb->fs;
	int r;

	if (!fs->data && !fs->names && !fs->owed &&
	    (fs->left || !sb_dirs_changed(fs)))
		return 0;
	if ((r = syncfs_may_leave(sb, err)) < 0)
		return r;
	return r > 0 ? syncfs_leave(sb, err) : syncfs_all(sb, err);
}

/*
 * Past the commit point, the cleanup's barrier is left out where all it
 * would make durable is the removal of names in a database's directories
 * (DIR_ADMIN: the backups of dpkg's status and info files, of records,
 * dropped records), on the one filesystem that also holds the journal,
 * and syncfs is trusted there.  Nothing in the tree waits for it, so
 * once the run's exit is durable the tree is the new one without it.
 * The filesystem's journal keeps the removals in the order they were
 * made, and the run's journal is removed last: whenever its removal
 * reaches the disk, theirs has; before that a crash leaves the committed
 * journal, and the next run's repair removes what is left (each of its
 * steps can be repeated).  A tree directory, another filesystem, or
 * anything written since the last barrier: the barrier, as before.
 */
static int
syncfs_cleanup_barrier(struct syncbatch *sb, struct dbp_error *err)
{
	struct sb_fsset *fs = sb->fs;
	enum fskind_sync kind;
	size_t i, t;
	int one;

	/*
	 * The run's one commit, or the caller's (syncfs_leave).  A status
	 * write to carry the cleanup (carried_by) only comes from a caller
	 * that takes the commit itself (defer_end).
	 */
	if (fs->left && !fs->data)
		return sb->defer_end ? 0 : syncfs_all(sb, err);
	if (!fs->data && !fs->names && !fs->owed && !sb_dirs_changed(fs))
		return 0;
	if (fs->data || fs->names || fs->owed || fs->left ||
	    sb->journal == NULL || !journal_committed(sb->journal))
		return syncfs_all(sb, err);
	/*
	 * The caller's syncfs to come (syncbatch_cleanup_carried) commits
	 * every change made before it, the journal's removal after the
	 * cleanup's: the same argument as above, for the tree's
	 * directories too.  The names are durable already (the names
	 * barrier committed them, else fs->left above), so what waits is
	 * the backups' removal, which the journal's repair finishes after
	 * a crash.  On btrfs too, whose transactions commit in order: only
	 * a log-tree sync of the run's admin directory, which nothing
	 * makes, could make the journal's removal durable before them.
	 */
	if (sb->carried_by >= 0) {
		if ((one = syncfs_carries(sb, err)) < 0)
			return one;
		if (one && fsset_has(fs->set, sb->carried_by, &kind) &&
		    kind == FSKIND_SYNCFS)
			return 0;
	}
	for (t = 0; t < fs->ntab; t++)
		for (i = 0; i < dirs_count(fs->tab[t]); i++)
			if (dirs_unsynced(fs->tab[t], i) &&
			    !(dirs_flags(fs->tab[t], i) & DIR_ADMIN))
				return syncfs_all(sb, err);
	/* The journal and every directory on one trusted filesystem. */
	if ((one = syncfs_carries(sb, err)) < 0)
		return one;
	return one ? 0 : syncfs_all(sb, err);
}

/*
 * Files written beside the batch (the store's) on a filesystem the data
 * barrier syncs anyway: it covers them, where their own syncfs would
 * cost one more commit.  Only a filesystem already in the set: another
 * one would make the run's barrier fail for what is not the root's.
 */
static int
syncfs_cover(struct syncbatch *sb, int fd)
{
	enum fskind_sync kind;

	if (!fsset_has(sb->fs->set, fd, &kind) || kind != FSKIND_SYNCFS)
		return 0;
	sb->fs->data = sb->fs->covered = true;
	return 1;
}

/*
 * A name made before the batch's renames on a filesystem that settles
 * (btrfs: fsset_settles), its data settled: in the running transaction
 * or an earlier one, so any commit that carries a rename of the batch
 * carries it, and no log can carry those renames alone (syncfs_wait_data).
 * The names barrier is then sure to commit (fs->names), never left on
 * btrfs (syncfs_may_leave): that commit makes it durable.
 */
static int
syncfs_cover_settled(struct syncbatch *sb, int fd)
{
	enum fskind_sync kind;

	/* One filesystem that settles: syncfs is trusted there. */
	if (sb->aborting || !fsset_settles(sb->fs->set) ||
	    !fsset_has(sb->fs->set, fd, &kind))
		return 0;
	sb->fs->names = true;
	return 1;
}

static int
syncfs_init(struct syncbatch *sb)
{
	if ((sb->fs = calloc(1, sizeof(*sb->fs))) == NULL)
		return -ENOMEM;
	if (fsset_new(&sb->fs->set) != 0) {
		free(sb->fs);
		sb->fs = NULL;
		return -ENOMEM;
	}
	sb->fs->refs = 1;
	sb->fs->tab[sb->fs->ntab++] = sb->dirs;
	sb->fs->batch[sb->fs->nbatch++] = sb;
	return 0;
}

static int
syncfs_join(struct syncbatch *sb, struct syncbatch *peer)
{
	struct sb_fsset *fs = peer->fs;

	if (fs->nbatch == sizeof(fs->batch) / sizeof(fs->batch[0]))
		return -ENOSPC;
	if (fs->tab[0] != sb->dirs) {
		if (fs->ntab == sizeof(fs->tab) / sizeof(fs->tab[0]))
			return -ENOSPC;
		fs->tab[fs->ntab++] = sb->dirs;
	}
	fs->batch[fs->nbatch++] = sb;
	fs->refs++;
	sb->fs = fs;
	return 0;
}

/* Close the set's descriptors (a file each, opened for writing). */
static void
syncfs_close(struct syncbatch *sb)
{
	fsset_close(sb->fs->set);
}

static void
syncfs_put(struct syncbatch *sb)
{
	struct sb_fsset *fs = sb->fs;
	size_t b;

	sb->fs = NULL;
	for (b = 0; b < fs->nbatch; b++)
		if (fs->batch[b] == sb) {
			fs->batch[b] = fs->batch[--fs->nbatch];
			break;
		}
	if (--fs->refs > 0)
		return;
	fsset_free(fs->set);
	free(fs);
}

static bool
syncfs_owed(const struct syncbatch *sb)
{
	return sb->fs != NULL && sb->fs->left;
}

const struct syncbatch_ops syncbatch_syncfs = {
	.name = "syncfs",
	.durable = true,
	.link_new = true,
	.carries_commit = syncfs_carries,
	.cover = syncfs_cover,
	.cover_settled = syncfs_cover_settled,
	.init = syncfs_init,
	.join = syncfs_join,
	.put = syncfs_put,
	.close = syncfs_close,
	.written = syncfs_written,
	.data_barrier = syncfs_data_barrier,
	.renamed = syncfs_renamed,
	.names_barrier = syncfs_names_barrier,
	.cleanup_barrier = syncfs_cleanup_barrier,
	.owed = syncfs_owed,
	.journal_in_barrier = true,
};
