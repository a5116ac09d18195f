/* SPDX-License-Identifier: MIT */
/* The directories a run touches: lookup, creation, a bounded fd cache, fixups. */
#ifndef DEBUNPACK_DIRS_H
#define DEBUNPACK_DIRS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "util/error.h"
#include "durable/rootfs.h"

/* Flags of a directory in the table. */
#define DIR_CREATED	0x01	/* made by this run: removed on abort */
#define DIR_NAMES	0x02	/* gained or lost names: fsync it at commit */
#define DIR_META	0x04	/* archive metadata to apply at commit */
#define DIR_SYNCED	0x08	/* fsynced since its last change */
#define DIR_GONE	0x10	/* removed: created, then undone by an abort,
				   or an old version's, by the cleanup */
#define DIR_RENAMED	0x20	/* a name in it was committed */
#define DIR_ASIDE	0x40	/* created where a file was moved aside */
#define DIR_SEALED	0x80	/* nothing may be made in it (the admin
				   directory: packages' entries are refused) */
#define DIR_PLANNED	0x100	/* made only in a dry run's plan: it does
				   not exist, and has no descriptor */
#define DIR_ADMIN	0x200	/* a database's (dirs_set_admin): what a
				   crash leaves there is the next run's */
#define DIR_OWED	0x400	/* found and logged: DIRS_LOG_USE is told
				   before its descriptor is first handed out */

/* What the log callback is told of a directory. */
enum dirs_log {
	DIRS_LOG_FOUND,		/* it exists; TIMES are its times */
	DIRS_LOG_MAKE,		/* it is about to be made */
	DIRS_LOG_ASIDE,		/* a file is about to be moved aside for it */
	DIRS_LOG_USE,		/* one found is about to be used (FD) */
	DIRS_LOG_AHEAD		/* it may be made soon (dirs_ahead) */
};

struct dir_meta {
	mode_t mode;
	uid_t uid;
	gid_t gid;
	struct timespec mtime;
	bool chown;
};

struct dirs;

/*
 * MAXFDS bounds how many directory descriptors stay open at once; past it
 * the oldest is closed and reopened by path when needed again.
 */
int dirs_new(struct dirs **out, const struct rootfs *rf, size_t maxfds);
void dirs_free(struct dirs *d);

/*
 * Index of directory REL ("" is the root), resolved inside the root.  With
 * CREATE, missing components are made: REL itself with MODE, parents with
 * 0755, owner-writable in any case until dirs_fixup applies the final
 * metadata (a package may fill a directory whose final mode forbids it).
 * Two paths reaching one directory (merged-/usr "bin" and "usr/bin") get
 * one index.  Errors: -ENOTDIR when a component exists as something else.
 */
int dirs_get(struct dirs *d, const char *rel, bool create, mode_t mode,
    size_t *idx, struct dbp_error *err);

/*
 * GUARD is asked before a missing directory BASE is made in directory
 * PIDX; a non-zero answer refuses it (a file of this run is pending there).
 */
void dirs_set_guard(struct dirs *d, int (*guard)(void *ctx, size_t pidx,
    const char *base), void *ctx);

/*
 * LOG is told of each directory before the run can change anything in
 * it: one that exists (with its access and modification times) when it
 * enters the table, one to be made before it is made, and a file moved
 * aside for one before it is moved; FD is the directory, or its parent
 * where it is about to be made (its filesystem).  A non-zero answer
 * (-errno) fails the lookup.
 */
void dirs_set_log(struct dirs *d, int (*log)(void *ctx, enum dirs_log kind,
    const char *path, const struct timespec *times, int fd), void *ctx);

/*
 * Directory REL (root-relative) is about to be needed, and made if it is
 * missing: where REL does not exist in the root, the log callback is
 * told so now (DIRS_LOG_AHEAD), ahead of DIRS_LOG_MAKE.  Called with
 * every directory a package needs, before its first entry, parents
 * first; dirs_ahead_done then tells the log callback, once, that they
 * are about to be used (DIRS_LOG_USE with the top directory): their
 * lines reach the disk together, where each would wait for its own.
 * Found directories join the table as dirs_get finds them.  Errors of
 * the log callback only: anything else is left to dirs_get.
 */
int dirs_ahead(struct dirs *d, const char *rel);
int dirs_ahead_done(struct dirs *d);

/*
 * DISPLACE is asked when a directory REL is to be made where a
 * non-directory is: 0 lets it move aside (to names_aside's name,
 * after the log callback was told with DIRS_LOG_ASIDE), 1 refuses with
 * "exists and is not a directory", -errno fails with ERR filled.  An
 * abort puts it back (dirs_remove_created), dirs_finish drops it.
 */
void dirs_set_displace(struct dirs *d, int (*displace)(void *ctx,
    const char *rel, struct dbp_error *err), void *ctx);

/*
 * A dry run: from now on nothing is made, moved or changed on disk.  A
 * directory to be made enters the table as DIR_PLANNED (with DIR_ASIDE
 * when a file would be moved aside for it, the displace callback asked
 * as in a run); the log callback is not told.  Planned directories reached
 * by two paths (merged /usr) get one index, as real ones do.
 */
void dirs_set_plan(struct dirs *d);

/*
 * PREFIX ("" for all) and every directory below it are a database's, not
 * the tree's (DIR_ADMIN): the directories known now and those to come.
 * At most two prefixes; 0 or -errno.
 */
int dirs_set_admin(struct dirs *d, const char *prefix);
bool dirs_plans(const struct dirs *d);

/*
 * A dry run's symlink REL -> directory IDX (merged /usr's "bin"): paths
 * through REL reach IDX.  0 or -ENOMEM.
 */
int dirs_plan_link(struct dirs *d, const char *rel, size_t idx);

/* Whether REL is such a planned link. */
bool dirs_planned_link(const struct dirs *d, const char *rel);

/* Whether directory NAME in DFD is empty (an unreadable one is not). */
bool dirs_empty(int dfd, const char *name);

/* The run succeeded: remove what was moved aside for directories. */
int dirs_finish(struct dirs *d);

/*
 * Descriptor of directory IDX, reopened if it was evicted; -errno on
 * error (-ENOENT for a dry run's planned directory).  The first time a
 * directory found (DIRS_LOG_FOUND) is handed out, the log callback is
 * told (DIRS_LOG_USE): anything may then be made in it.
 */
int dirs_fd(struct dirs *d, size_t idx);

/*
 * dirs_fd without DIRS_LOG_USE, for what makes no name in the directory:
 * a look through it, its own metadata and sync, an undo (which must not
 * depend on the journal whose failure it undoes).
 */
int dirs_fd_look(struct dirs *d, size_t idx);

const char *dirs_path(const struct dirs *d, size_t idx);
unsigned dirs_flags(const struct dirs *d, size_t idx);
void dirs_mark(struct dirs *d, size_t idx, unsigned flags);
void dirs_clear(struct dirs *d, size_t idx, unsigned flags);
/*
 * REL, a directory the run has removed (an old version's): if the table
 * has it, DIR_GONE, so that no barrier opens it again.  Its parent, which
 * lost the name, is the one to sync.
 */
void dirs_removed(struct dirs *d, const char *rel);
size_t dirs_count(const struct dirs *d);

/* Number of directories this run created. */
size_t dirs_created(const struct dirs *d);

/*
 * Archive metadata for IDX.  Only directories created by this run take
 * it: an existing directory (or symlink to one) is kept as it is.  Owner
 * and mode are applied at once, the mtime by dirs_fixup.
 */
int dirs_set_meta(struct dirs *d, size_t idx, const struct dir_meta *m,
    struct dbp_error *err);

/*
 * Apply remembered metadata, deepest directories first, after every name
 * is in place: creating entries inside a directory changes its mtime, and a
 * read-only mode would stop the renames.
 */
int dirs_fixup(struct dirs *d, struct dbp_error *err);

/*
 * fsync every directory flagged DIR_NAMES or DIR_META and not yet synced,
 * the tree's first, the databases' (DIR_ADMIN) last.  COUNT is
 * incremented per fsync call.
 */
int dirs_sync(struct dirs *d, unsigned long *count, struct dbp_error *err);

/*
 * What errors call the top directory (path ""): NAME, kept by reference;
 * "." by default.
 */
void dirs_set_top_name(struct dirs *d, const char *name);

/* Whether directory IDX changed since its last sync (and still exists). */
bool dirs_unsynced(const struct dirs *d, size_t idx);

/* The same for directory IDX alone (perfile mode, after each rename). */
int dirs_sync_one(struct dirs *d, size_t idx, unsigned long *count,
    struct dbp_error *err);

/*
 * Undo: remove the directories this run created, deepest first.  Used on
 * failure after every temporary file is gone; best effort, returns the
 * first error.
 */
int dirs_remove_created(struct dirs *d);

/*
 * Undo: give directories that existed before the run, and in which nothing
 * was committed, back their access and modification times (creating and
 * removing temporaries changed them).  Best effort.
 */
void dirs_restore_times(struct dirs *d);

#endif
