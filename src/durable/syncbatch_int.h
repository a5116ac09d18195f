/* SPDX-License-Identifier: MIT */
/*
 * Inside the batch: what its strategies share (syncbatch.c holds the
 * batch and the commit; syncmodes.c the batched, perfile and none
 * strategies; syncfs.c the syncfs one; syncstep.c the steps they
 * share).  Not for other modules.
 */
#ifndef DEBUNPACK_SYNCBATCH_INT_H
#define DEBUNPACK_SYNCBATCH_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "durable/dirs.h"
#include "util/error.h"
#include "util/stats.h"

struct journal;

enum sb_state { SB_PENDING, SB_RENAMED, SB_GONE };

struct sb_item {
	size_t dir;
	char *path;		/* root-relative, for messages */
	const char *name;	/* last component of path */
	char *tmp;
	int fd;			/* open until commit, or -1 */
	bool data;		/* regular file: its data must be made durable */
	bool check;		/* ... and its writeback error is seen only on
				   it: kept open, checked after the barrier */
	bool wait;		/* ... kept open, for the data barrier to wait
				   for its writeback (syncfs.c) */
	bool cloned;		/* its data is a clone of durable data */
	enum sb_state state;
	bool backup;		/* the old NAME is kept as its backup name */
	bool backup_dir;	/* ... and is an empty directory, moved there
				   at the rename (a directory has no links) */
	bool dir_moved;		/* it was moved */
	bool linked;		/* NAME is a new link to the temporary, which
				   is still there (see sb_rename_one) */
	size_t link_of;		/* hardlink: item of the file it links to */
	size_t nlinks;		/* hardlinks made to this item */
};

#define SB_NONE	((size_t)-1)

struct syncbatch;

/*
 * A strategy.  The extraction code never asks which one runs: it calls
 * syncbatch_written and syncbatch_commit, and these call the hooks.
 * Hooks left NULL have nothing to do (but the three barriers and
 * written, which every strategy has).
 */
struct syncbatch_ops {
	const char *name;
	bool durable;		/* its barriers make the batch durable */
	bool keep_fds;		/* keep written files open until the commit */
	bool link_new;		/* new names are linked, temporaries removed
				   after all links (see sb_rename_one) */
	bool journal_in_barrier;	/* data_barrier makes the journal
					   durable first, its own way */
	/* a batch starts: state of its own (syncbatch_new) */
	int (*init)(struct syncbatch *);
	/* a batch shares the barriers of PEER (syncbatch_new_like) */
	int (*join)(struct syncbatch *, struct syncbatch *peer);
	/* the batch is freed: drop its share of the state */
	void (*put)(struct syncbatch *);
	/* no sync will come: close what the state keeps open */
	void (*close)(struct syncbatch *);
	/* a regular file is fully written; it->fd is open */
	int (*written)(struct syncbatch *, struct sb_item *,
	    struct dbp_error *);
	/* before any rename: every file's data is durable after it */
	int (*data_barrier)(struct syncbatch *, struct dbp_error *);
	/* right after one rename */
	int (*renamed)(struct syncbatch *, struct sb_item *,
	    struct dbp_error *);
	/* after all renames and directory fixups: names are durable */
	int (*names_barrier)(struct syncbatch *, struct dbp_error *);
	/* whether the names barrier can carry the commit line (1 or 0) */
	int (*carries_commit)(struct syncbatch *, struct dbp_error *);
	/* whether the data barrier makes FD's filesystem durable (1 or 0) */
	int (*cover)(struct syncbatch *, int fd);
	int (*cover_settled)(struct syncbatch *, int fd);
	/* past the commit: the cleanup durable (names_barrier if NULL) */
	int (*cleanup_barrier)(struct syncbatch *, struct dbp_error *);
	/* whether the batch's end was left to the caller (defer_end) */
	bool (*owed)(const struct syncbatch *);
};

struct sb_fsset;

struct syncbatch {
	const struct syncbatch_ops *ops;
	int carried_by;		/* syncbatch_cleanup_carried's, or -1 */
	bool defer_end;		/* syncbatch_defer_end's */
	struct sb_fsset *fs;	/* syncfs strategy only */
	struct dirs *dirs;
	struct stats *st;
	struct sb_item *v;
	size_t n, cap;
	size_t maxfds, nopen;
	bool prepared;		/* data durable, backups kept */
	struct journal *journal;	/* synced before anything else is */
	bool renamed;		/* the commit renamed at least one name */
	bool aborting;		/* undoing: the journal is about to go */
	/*
	 * New names linked (1) or renamed (0) in every directory; -1, the
	 * default: in each directory as fskind_links_new says, judged once
	 * per change of directory (link_dir, link_ok).  The unit tests set
	 * 1 to test the links on any filesystem.
	 */
	int links;
	size_t link_dir;
	bool link_ok;
};

/*
 * The steps below are syncstep.c's: the batch (syncbatch.c) and every
 * strategy use them.
 */

/* Whether a file closed now (FD) can be opened again for reading. */
bool sb_reopenable(int fd);

/* Close IT's descriptor if open; a close error fails the file. */
int sb_close(struct syncbatch *, struct sb_item *, struct dbp_error *);

/*
 * The descriptor of a written file: the one kept open, or the temporary
 * reopened by name (*REOPENED tells the caller to close it).
 */
int sb_item_fd(struct syncbatch *, struct sb_item *, bool *reopened,
    struct dbp_error *);

/* The syncfs strategy (syncfs.c), with its state shared by peer batches. */
extern const struct syncbatch_ops syncbatch_syncfs;

/* The others (syncmodes.c). */
extern const struct syncbatch_ops syncbatch_batched;
extern const struct syncbatch_ops syncbatch_perfile;
extern const struct syncbatch_ops syncbatch_none;

#endif
