/*
 * Inside the batch: what its strategies share (syncbatch.c holds the
 * batch and the batched, perfile and none strategies; syncfs.c the syncfs
 * one).  Not for other modules.
 */
#ifndef DEBUNPACK_SYNCBATCH_INT_H
#define DEBUNPACK_SYNCBATCH_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "dirs.h"
#include "error.h"
#include "stats.h"

struct journal;

enum sb_state { SB_PENDING, SB_RENAMED, SB_GONE };

struct sb_item {
	size_t dir;
	char *path;		/* root-relative, for messages */
	const char *name;	/* last component of path */
	char *tmp;		/* == name: made under its final name */
	bool direct;		/* ... so there is nothing to rename */
	int fd;			/* open until commit, or -1 */
	bool data;		/* regular file: its data must be made durable */
	enum sb_state state;
	bool backup;		/* the old NAME is kept as its backup name */
	bool backup_dir;	/* ... and is an empty directory, moved there
				   at the rename (a directory has no links) */
	bool dir_moved;		/* it was moved */
	size_t link_of;		/* hardlink: item of the file it links to */
	size_t nlinks;		/* hardlinks made to this item */
};

#define SB_NONE	((size_t)-1)

struct syncbatch;

/*
 * A strategy.  The extraction code never asks which one runs: it calls
 * syncbatch_written and syncbatch_commit, and these call the hooks.
 */
struct syncbatch_ops {
	const char *name;
	bool keep_fds;		/* keep written files open until the commit */
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
};

struct sb_fsset;

struct syncbatch {
	const struct syncbatch_ops *ops;
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
};

/* Nothing of the run is made durable before the journal (syncbatch.c). */
int sb_journal_first(struct syncbatch *sb, struct dbp_error *err);

/* Start the writeback of IT's data without waiting (syncbatch.c). */
int sb_start_writeback(struct syncbatch *sb, struct sb_item *it,
    struct dbp_error *err);

/* The syncfs strategy (syncfs.c), and its state shared by peer batches. */
extern const struct syncbatch_ops syncbatch_syncfs;
int syncfs_set_new(struct syncbatch *sb);
int syncfs_set_join(struct syncbatch *sb, struct syncbatch *peer);
void syncfs_set_put(struct sb_fsset *fs);
/* Close the set's descriptors (a file each, opened for writing). */
void syncfs_set_close(struct sb_fsset *fs);

#endif
