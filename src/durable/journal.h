/* SPDX-License-Identifier: MIT */
/* The run's journal: what an interrupted run leaves for the next one to repair. */
#ifndef DEBUNPACK_JOURNAL_H
#define DEBUNPACK_JOURNAL_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "util/error.h"

/* Its name in the admin directory. */
#define JOURNAL_NAME	"journal"
/* Line 1 of a journal is JOURNAL_MAGIC followed by JOURNAL_VERSION. */
#define JOURNAL_MAGIC	"debunpack-journal "
#define JOURNAL_VERSION	1

/* Which tree an item or directory line is about. */
#define JOURNAL_ROOT	'R'
#define JOURNAL_ADMIN	'A'

/*
 * The journal's lines, one table for the writer (journal.c) and the
 * reader (recover.c): a line is its WORD, then FIELDS fields, each after
 * a tab; the last ESCAPED of them are names, escaped (escape.h), which
 * may hold any byte but a NUL.
 *   dir TREE ATIME MTIME PATH       a directory the run uses, its times
 *   mkdir PATH                      a directory about to be made
 *   item TREE HADOLD DIR TMP NAME   a rename to come
 *   gone TYPE PATH                  after the commit, PATH goes
 *   aside PATH                      a file about to be moved aside
 *   drop FILE                       after the commit, a record goes
 *   dpkgdir PATH                    dpkg's database is host directory
 *                                   PATH (rootfs_open_dpkg), not
 *                                   ROOT/var/lib/dpkg
 *   commit                          the commit point
 */
enum journal_kind {
	JOURNAL_DIR, JOURNAL_MKDIR, JOURNAL_ITEM, JOURNAL_GONE,
	JOURNAL_ASIDE, JOURNAL_DROP, JOURNAL_COMMIT, JOURNAL_DPKGDIR,
	JOURNAL_NKINDS
};

struct journal_line {
	const char *word;
	unsigned fields;
	unsigned escaped;
};

extern const struct journal_line journal_lines[JOURNAL_NKINDS];

struct journal;

/*
 * A journal for one run, kept in memory until journal_open gives it a
 * file.  DURABLE says whether journal_sync and journal_commit make it
 * durable (false for --sync-mode=none); its sync calls are counted in ST,
 * which must outlive it.
 */
struct stats;
int journal_new(struct journal **out, bool durable, struct stats *st);

/*
 * Create JOURNAL_NAME in admin directory ADMFD (not taken), which errors
 * call NAME (kept by reference), and write what was logged so far.
 * -EEXIST when a journal is there: recover it first.
 */
int journal_open(struct journal *j, int admfd, const char *name,
    struct dbp_error *err);

/*
 * Directory PATH (root-relative) of the root is used by the run: it may
 * get temporaries.  TIMES are its access and modification times before
 * the run; NULL announces that the run is about to create it.  FD is the
 * directory, or its parent where it is about to be made.  On disk before
 * the caller touches the directory (journal.c: journal_ahead), so that a
 * killed run's journal, and a power cut's, names every directory where
 * it may have left something: a directory about to be made at once, one
 * found (TIMES) by journal_use before anything is made in it.
 */
int journal_dir(struct journal *j, const char *path,
    const struct timespec *times, int fd);

/*
 * Directory PATH (root-relative), missing from the root, may be made
 * soon: its "mkdir" line is written now, and reaches the disk with the
 * next journal_use, together with the lines written before it.
 * journal_dir, when PATH is then made, writes no second line and waits
 * only for what is still owed.  A directory announced and never made
 * costs a repair one rmdir that fails.
 */
int journal_mkdir_ahead(struct journal *j, const char *path);

/*
 * Directory FD, found and logged by journal_dir, is about to get
 * something: the lines not yet on disk go there first (nothing to do
 * when an earlier call put them there).
 */
int journal_use(struct journal *j, int fd);

/*
 * The non-directory PATH (root-relative) is about to be moved to PATH +
 * ".debunpack-old" to make room for a directory.  Written and synced at
 * once.
 */
int journal_aside(struct journal *j, const char *path);

/*
 * Temporary TMP in directory DIR of TREE (JOURNAL_ROOT: root-relative;
 * JOURNAL_ADMIN: "." is the admin directory) is about to be renamed to
 * NAME.  HADOLD: NAME's old version is kept as the backup name of TMP.
 * Buffered until journal_sync.
 */
int journal_item(struct journal *j, char tree, bool hadold, const char *dir,
    const char *tmp, const char *name);

/*
 * The root's var/lib/dpkg paths in this journal are in dpkg's database
 * at host path DIR (written absolute, symlinks resolved): a repair must
 * see the same directory there.  Logged before anything else.  0 or
 * -errno.
 */
int journal_dpkgdir(struct journal *j, const char *dir);

/* After the commit point, PATH (root-relative) of type TYPE goes away. */
int journal_gone(struct journal *j, char type, const char *path);

/*
 * After the commit point, FILE of the admin directory goes away: the
 * record of a package the run removes.  Buffered until journal_sync.
 */
int journal_drop(struct journal *j, const char *file);

/*
 * Write what is buffered and make it durable (if the journal is); nothing
 * to do when no line was written since the last time.
 */
int journal_sync(struct journal *j, struct dbp_error *err);

/*
 * For a barrier that makes the journal's filesystem durable as a whole
 * (syncfs): whether the journal has lines, or a name, not durable yet;
 * the admin directory to sync it through, and what errors call it (-1
 * before journal_open);
 * journal_flush hands what is buffered to the file system, and
 * journal_covered says that the barrier made it durable.
 */
bool journal_pending(const struct journal *j);
int journal_dirfd(const struct journal *j, const char **name);
int journal_flush(struct journal *j, struct dbp_error *err);
void journal_covered(struct journal *j);

/*
 * journal_flush, then the lines written back and waited for, without
 * a commit of the file system: the metadata that makes them visible
 * (the file's size, its blocks) is then in the file system's running
 * transaction, so the barrier's first commit carries them (syncfs.c).
 */
int journal_writeback(struct journal *j, struct dbp_error *err);

/*
 * The run's commit point: from the durable "commit" line on, a repair
 * rolls the run forward instead of back.
 */
int journal_commit(struct journal *j, struct dbp_error *err);

/*
 * journal_commit without the sync: the line is written, for a barrier
 * that makes it durable with the names (syncbatch_carries_commit).
 */
int journal_commit_line(struct journal *j, struct dbp_error *err);

/*
 * Whether the commit line may have reached the journal's file: false
 * when journal_commit failed to write it (a full disk, say), and the run
 * is then undone like any failure before its commit point.
 */
bool journal_committed(const struct journal *j);

/*
 * The run is over: remove the journal.  UNDONE: the run was undone, and
 * the admin directory gets its times back.
 */
int journal_end(struct journal *j, bool undone, struct dbp_error *err);

/* Close without removing (a failed undo leaves the journal for a repair). */
void journal_free(struct journal *j);

#endif
