/* SPDX-License-Identifier: MIT */
/* The admin directory of a root: where it is, opening it, repairing an interrupted run there. */
#ifndef DEBUNPACK_ADMIN_H
#define DEBUNPACK_ADMIN_H

#include <stdbool.h>

#include "util/error.h"
#include "durable/recover.h"
#include "durable/rootfs.h"

/* Where records go unless the options say otherwise, inside the root. */
#define ADMIN_DIR_DEFAULT	"var/lib/debunpack"

/* What errors call the admin directory DIR (NULL: the default). */
const char *admin_name(const char *dir);

/*
 * Open admin directory DIR (NULL: ROOT/ADMIN_DIR_DEFAULT, resolved in RF)
 * read-only: a descriptor, or -errno (-ENOENT when nothing was ever
 * installed).
 */
int admin_open(const char *dir, const struct rootfs *rf);

/*
 * If admin directory DIR holds the journal of an interrupted run, repair
 * the root RF as it says, holding the directory's lock; RES tells what
 * was done (RES->found is false when there was nothing to repair).
 * LOCK: the directory must not be in use (an install); otherwise a run
 * in progress is left alone.  0 or -errno with ERR filled.
 */
int admin_recover(const char *dir, const struct rootfs *rf, bool lock,
    struct recover_result *res, struct dbp_error *err);

/*
 * The records as the last committed run left them, read without writing
 * (queries and dry runs): dpkg's verdict on them (dpkgstale.h), and the
 * journal of an interrupted run, which a repair would act on and these
 * readers never do.  Its committed removals read as done.
 */
struct dpkgstale;
struct record;

struct admin_view {
	struct recover_pending pending;	/* .found: a repair is due */
	struct dpkgstale *stale;
	const struct rootfs *rf;	/* admin_view_open's */
};

/*
 * Read what admin directory DIR's journal and dpkg's status in root RF
 * say.  A journal cut between renaming the new records and its commit
 * point leaves no sound committed state: an error that names --recover.
 * 0 or -errno with ERR filled; V is to close either way.
 */
int admin_view_open(struct admin_view *v, const char *dir,
    const struct rootfs *rf, struct dbp_error *err);
void admin_view_close(struct admin_view *v);

/* recstore_set_stale's callback for V: what the view says is not there. */
bool admin_view_stale(void *ctx, const struct record *r, const char **what);

/*
 * recstage_set_adopt's callback for V (its CTX): the packages of dpkg's
 * status in V's root that have files and no record of RS's standing,
 * read by dpkgadopt_all.
 */
struct recstage;
int admin_view_adopt(void *ctx, const struct recstage *rs,
    struct record ***out, size_t *nout, struct dbp_error *err);

#endif
