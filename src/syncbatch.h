/* SPDX-License-Identifier: MIT */
/* When and how written files become durable: the sync strategies and the commit. */
#ifndef DEBUNPACK_SYNCBATCH_H
#define DEBUNPACK_SYNCBATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "durable/dirs.h"
#include "util/error.h"
#include "util/stats.h"

struct syncbatch;
struct journal;

/* The strategy names, NULL-terminated, in the order --help lists them. */
extern const char *const syncbatch_modes[];

/*
 * A batch for the whole run.  MODE is one of syncbatch_modes (-EINVAL
 * otherwise); "auto" is judged on FD's filesystem (syncbatch_auto).
 * MAXFDS bounds the file descriptors of written files kept open until
 * the commit; past it files are closed and reopened by name.  DIRS and
 * ST must outlive the batch.
 */
int syncbatch_new(struct syncbatch **out, const char *mode, int fd,
    struct dirs *dirs, struct stats *st, size_t maxfds);

/*
 * A batch with PEER's strategy whose barriers are PEER's too: with
 * syncfs, one barrier covers both (the files and their records).
 */
int syncbatch_new_like(struct syncbatch **out, struct syncbatch *peer,
    struct dirs *dirs, size_t maxfds);

/*
 * The strategy "auto" stands for on the filesystem of FD: "syncfs" where
 * syncfs is known to write back, commit and flush the device cache, and
 * report errors (ext4, xfs, btrfs, f2fs, tmpfs), "batched" elsewhere.
 */
const char *syncbatch_auto(int fd);

/* The strategy's name. */
const char *syncbatch_mode(const struct syncbatch *sb);

/*
 * Whether the strategy makes anything durable ("none" does not): the
 * journal is synced only then.
 */
bool syncbatch_durable(const struct syncbatch *sb);

/*
 * Journal J (not taken) is made durable before anything of the batch is:
 * it names the directories where the batch's files are.
 */
void syncbatch_set_journal(struct syncbatch *sb, struct journal *j);

/*
 * Register temporary TMP, already created in directory DIR, that will be
 * renamed at commit to the last component of PATH (root-relative).
 * Register right after creating it, before writing, so that an abort
 * removes it.  *IDX identifies it afterwards.  TMP NULL: a dry run's
 * entry, never made; it is planned, never written, synced nor renamed.
 */
int syncbatch_add(struct syncbatch *sb, size_t dir, const char *path,
    const char *tmp, size_t *idx);

/*
 * The data and metadata of regular file IDX are written through FD: start
 * making it durable as the strategy says.  Takes FD (closed now or at
 * commit; a close error is reported where it happens).
 */
int syncbatch_written(struct syncbatch *sb, size_t idx, int fd,
    struct dbp_error *err);

/*
 * syncbatch_written for a file whose data FD shares with a file already
 * durable (FICLONE from the store): only its metadata is new.  Where the
 * filesystem keeps its changes in order and syncfs carries the batch,
 * nothing is written back or waited for (syncfs.c); elsewhere as any
 * file.
 */
int syncbatch_written_cloned(struct syncbatch *sb, size_t idx, int fd,
    struct dbp_error *err);

/*
 * A later entry of the run replaces the not yet committed IDX: remove its
 * temporary now so that the new one can take the name.
 */
int syncbatch_drop(struct syncbatch *sb, size_t idx, struct dbp_error *err);

/*
 * Item IDX is a hardlink to item TARGET (same inode).  If TARGET is
 * dropped before the commit, IDX takes over making the data durable.
 */
int syncbatch_link(struct syncbatch *sb, size_t idx, size_t target);

/* Root-relative path IDX was registered for. */
const char *syncbatch_path(const struct syncbatch *sb, size_t idx);

/* Temporary name of IDX, for linking to it. */
const char *syncbatch_tmpname(const struct syncbatch *sb, size_t idx);
size_t syncbatch_dir(const struct syncbatch *sb, size_t idx);

/*
 * First half of the commit: keep each name's old version as a backup (a
 * hardlink named like the temporary with "-new" turned into "-old") until
 * syncbatch_finish, and tell journal J (if not NULL) of each rename to
 * come, as TREE's items, for the caller to sync.  Nothing is renamed and
 * nothing synced yet: one journal sync can cover several batches.
 */
int syncbatch_prepare(struct syncbatch *sb, struct journal *j, char tree,
    struct dbp_error *err);

/*
 * Second half (with the first if it was not called): make every
 * registered file durable (after the journal, if one was set), rename all
 * over their final names and apply directory metadata.  Nothing is
 * renamed before all data is durable.  The names are made durable by
 * syncbatch_sync_dirs, so that batches sharing barriers
 * (syncbatch_new_like) rename all before one barrier.  If anything
 * fails, syncbatch_abort puts the old versions back.
 */
int syncbatch_rename(struct syncbatch *sb, struct dbp_error *err);

/* syncbatch_rename, then syncbatch_sync_dirs. */
int syncbatch_commit(struct syncbatch *sb, struct dbp_error *err);

/*
 * Make the names changed since the last barrier durable (the renames, or
 * an upgrade's removed obsolete files) as the strategy says.
 */
int syncbatch_sync_dirs(struct syncbatch *sb, struct dbp_error *err);

/*
 * Past the commit point: make the cleanup (backups, obsolete paths,
 * dropped records) durable before the run ends, as syncbatch_sync_dirs.
 * The strategy may leave it to the filesystem where everything the
 * cleanup changed is in a database's directories (DIR_ADMIN) and a
 * repair would redo it (see syncfs.c).
 */
int syncbatch_sync_cleanup(struct syncbatch *sb, struct dbp_error *err);

/*
 * Whether the data barrier of syncbatch_rename makes what was written on
 * FD's filesystem durable too (1; else 0, and the caller syncs it):
 * files beside the batch, such as the store's, on the root's filesystem.
 * Ask before syncbatch_rename.
 */
int syncbatch_cover(struct syncbatch *sb, int fd);

/*
 * Whether a name made on FD's filesystem before the batch's renames,
 * its data settled (fskind_settles), is made durable by the batch's names
 * barrier, with the renames and before any of them can be (1; else 0,
 * and the caller commits it): where that barrier commits the whole
 * filesystem and its data barrier only settles (btrfs, syncfs.c).  Ask
 * before syncbatch_rename.
 */
int syncbatch_cover_settled(struct syncbatch *sb, int fd);

/*
 * Whether the next syncbatch_sync_dirs can make the journal's commit line
 * durable with the names, in one barrier: then the caller writes the line
 * first (journal_commit_line), and that barrier is the commit point;
 * else the line is written and synced after it (journal_commit).  1, 0,
 * or -errno with ERR set.
 */
int syncbatch_carries_commit(struct syncbatch *sb, struct dbp_error *err);

/*
 * The caller syncs FD's filesystem (syncfs) once the batch is finished,
 * before it returns (after a write of dpkg's status): where syncfs is
 * trusted there and the batch and its journal are on that filesystem
 * alone, the cleanup's barrier is left to it (syncfs strategy).  Call
 * before syncbatch_sync_cleanup; FD must stay open until then.
 */
void syncbatch_cleanup_carried(struct syncbatch *sb, int fd);

/*
 * The caller syncs the root's filesystem itself before it runs anything
 * more and before it returns (unpackseq: one syncfs for every batch of
 * an apt call): where that filesystem keeps every change in order, the
 * batch ends without a commit of its own (syncfs strategy), and
 * syncbatch_owed says so.  Call before syncbatch_rename.
 */
void syncbatch_defer_end(struct syncbatch *sb, bool on);

/* Whether the batch left its commit to the caller's sync (defer_end). */
bool syncbatch_owed(const struct syncbatch *sb);

/*
 * The run succeeded: remove the backups that the commit kept of the names
 * it replaced (NAME.debunpack-old, hardlinks to the old versions).
 */
int syncbatch_finish(struct syncbatch *sb);

/*
 * Undo whatever is not committed: put back the old versions of names the
 * commit already replaced (from their backups; names that were new are
 * removed), close files, remove every temporary and backup still
 * present.  Also after a successful syncbatch_commit, as long as
 * syncbatch_finish was not called.  Returns the first error met (the
 * cleanup goes on past it).
 */
int syncbatch_abort(struct syncbatch *sb);

/*
 * After syncbatch_abort: remove the directories the run created that are
 * empty, give the others back their times and make it durable.  Best
 * effort; returns the first error.
 */
int syncbatch_abort_dirs(struct syncbatch *sb);

/*
 * The run is over: close the descriptors the batch still keeps (syncfs
 * keeps one written file per filesystem, shared with its peers), which
 * would stop that file from being executed.  Nothing can be synced after.
 */
void syncbatch_close_fds(struct syncbatch *sb);

void syncbatch_free(struct syncbatch *sb);

#endif
