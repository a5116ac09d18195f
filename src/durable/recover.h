/* SPDX-License-Identifier: MIT */
/* Repairing what an interrupted run left, from its journal. */
#ifndef DEBUNPACK_RECOVER_H
#define DEBUNPACK_RECOVER_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"
#include "durable/rootfs.h"

/* What a repair did. */
struct recover_result {
	bool found;		/* a journal was there */
	bool forward;		/* it had reached its commit point */
	size_t items;		/* renames it undid or whose backups it dropped */
	size_t removed;		/* leftover temporaries and backups removed */
	size_t gone;		/* paths of old versions removed (forward) */
};

/*
 * If admin directory ADMFD holds a journal, repair the root RF as it
 * says and remove it: before its commit point the run is undone (old
 * versions back from their backups, new names, temporaries and created
 * directories removed, directory times restored), after it the run is
 * finished (backups and the old versions' obsolete paths removed).  The
 * caller holds the admin directory's lock.  Returns 0 (RES says what was
 * done) or -errno with ERR filled; on error the journal stays, and a
 * later repair goes on from where this one stopped.
 */
/*
 * What the journal of an interrupted run in ADMFD says, read without
 * repairing anything (queries and dry runs never write): whether there
 * is one, whether it reached its commit point, and what that makes of
 * the records in the admin directory.
 */
struct recover_pending {
	bool found;
	bool committed;		/* the new records stand; cleanup is left */
	bool records_moving;	/* before it: some records may be new */
	char **dropped;		/* committed: records (FILE names) of
				   packages removed whole, still there */
	size_t ndropped;
};

/* 0 (P filled, to free with recover_pending_free) or -errno with ERR. */
int recover_pending(int admfd, struct recover_pending *p,
    struct dbp_error *err);
void recover_pending_free(struct recover_pending *p);

/* Whether P says the record file FILE goes with the interrupted run. */
bool recover_pending_drops(const struct recover_pending *p, const char *file);

int recover_run(const struct rootfs *rf, int admfd, struct recover_result *res,
    struct dbp_error *err);

#endif
