/* SPDX-License-Identifier: MIT */
/* The run's records: staged as temporaries, committed after the files they list, dropped or put back. */
#ifndef DEBUNPACK_RECSTAGE_H
#define DEBUNPACK_RECSTAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "db/record.h"
#include "db/recstore.h"
#include "durable/rootfs.h"
#include "util/error.h"
#include "util/stats.h"

/*
 * The records of a run: those installed before it (read through a
 * recstore, asked about by recowners.h) and those it writes.  Queries do
 * not take this: they read through a recstore alone.
 */
struct recstage;
struct syncbatch;
struct journal;

int recstage_new(struct recstage **out);
/* Free RS, its records and its batch; NULL is a no-op. */
void recstage_free(struct recstage *rs);

/*
 * Attach the admin directory open as DIRFD (duplicated; the caller keeps
 * its own), called NAME in errors (kept by reference).  Records are
 * committed with the sync strategy of the files' batch PEER, sharing its
 * barriers (none when PEER is NULL), counted in ST.  OPENAT2 tells
 * whether the kernel has openat2 (see rootfs.h).  Without it (a dry run
 * on a new root) the run has no records to read and none to write.
 */
int recstage_attach(struct recstage *rs, int dirfd, const char *name,
    bool openat2, struct syncbatch *peer, struct stats *st,
    struct dbp_error *err);

/*
 * Take the admin directory for this run (flock, released when RS is
 * freed): -EWOULDBLOCK when another run has it.  SHARED: a dry run's,
 * which only reads and may run beside another reader.  No admin
 * directory attached: nothing to take.
 */
int recstage_lock(struct recstage *rs, bool shared, struct dbp_error *err);

/* The admin directory's descriptor (RS's; -1 without one), for the journal. */
int recstage_admin_fd(const struct recstage *rs);

/* The run keeps dpkg's database too: the records it stages say so. */
void recstage_set_dpkg_db(struct recstage *rs);

/*
 * FN judges the installed records (recstore_set_stale); with FORGET (a
 * run, not a dry run's plan) the run drops the stale ones after its
 * commit point, journaled (recstage_prepare, recstage_drop_records), and
 * touches no path of them: they are dpkg's, or gone.
 */
/* The installed records are read where diversions D send their paths. */
void recstage_set_divert(struct recstage *rs, const struct dpkgdivert *d);

void recstage_set_stale(struct recstage *rs, recstore_stale_fn *fn,
    void *ctx, bool forget);

/*
 * FN adds to the installed records those of packages debunpack has no
 * record of that stand (recowners_installed answers for its own): the
 * packages dpkg installed, read from its database (dpkgadopt.h), each
 * record->adopted.  Called once by recowners_load; *OUT and its records
 * become RS's.  0 or -errno with ERR.  Records FN reads untyped
 * (DPKGADOPT_LAZY) are typed in root RF when the run asks for them.
 */
typedef int recstage_adopt_fn(void *ctx, const struct recstage *rs,
    struct record ***out, size_t *nout, struct dbp_error *err);
void recstage_set_adopt(struct recstage *rs, recstage_adopt_fn *fn,
    void *ctx, const struct rootfs *rf);

/*
 * The recorded packages' names, as recstore_names (free them with
 * recstore_names_free).  -EBADF without an admin directory.
 */
int recstage_names(struct recstage *rs, char ***names,
    struct dbp_error *err);

/*
 * Keep R, the record of the run's next package, for recstage_prepare,
 * which writes it as a temporary next to its final name.  Checks the
 * package name.  Takes R (also on error).  Nothing becomes visible before
 * the commit.
 */
int recstage_stage(struct recstage *rs, struct record *r,
    struct dbp_error *err);
/* Whether a package named NAME is staged already (one version per run). */
int recstage_in_run(const struct recstage *rs, const char *name);
/* Name of the run's package number PKG (staged in that order). */
const char *recstage_run_name(const struct recstage *rs, unsigned pkg);
/* How many packages the run staged, and the record of number PKG. */
size_t recstage_nstaged(const struct recstage *rs);
struct record *recstage_staged(const struct recstage *rs, size_t pkg);

/*
 * Whether package NAME is staged by the run already, in a version that
 * does not have ABSPATH (its installed version gives it up), or has it
 * as an obsolete conffile, which it then gives up.
 */
bool recstage_staged_lacks(const struct recstage *rs, const char *name,
    const char *abspath);
/* The run's package number PKG gives ABSPATH up to a later one. */
int recstage_disown_staged(struct recstage *rs, unsigned pkg,
    const char *abspath);

/*
 * Package R (its control; taken, also on error) is removed whole: its
 * record goes after the commit point, journaled (journal_drop) by
 * recstage_prepare, removed by recstage_drop_records.  -ENOMEM.
 */
int recstage_drop(struct recstage *rs, struct record *r);
size_t recstage_ndropped(const struct recstage *rs);
struct record *recstage_dropped(const struct recstage *rs, size_t i);

/* The records dropped as stale, with what dpkg did, for the run to tell. */
size_t recstage_nforgotten(const struct recstage *rs);
const char *recstage_forgotten(const struct recstage *rs, size_t i,
    const char **what);

/*
 * Write the staged records as temporaries, keep backups of the records
 * they replace and tell journal J of the renames to come
 * (syncbatch_prepare), and of the records to drop.  Installed packages
 * that gave up paths (recowners_disown) get new records in the same
 * batch.
 */
int recstage_prepare(struct recstage *rs, struct journal *j,
    struct dbp_error *err);

/*
 * Make the staged records durable and rename them into place: called
 * after the files they describe are renamed, so that a record never
 * lists files that are not there.  recstage_sync makes the new names
 * durable (one barrier with the files' where the strategy allows).
 */
int recstage_commit(struct recstage *rs, struct dbp_error *err);
int recstage_sync(struct recstage *rs, struct dbp_error *err);

/* The run succeeded: drop the backups of the records it replaced. */
int recstage_finish(struct recstage *rs);
/*
 * After the commit point: remove the records of the packages the run
 * removed whole (recstage_drop) and of those dpkg made stale, durably.
 * 0 or -errno with ERR: the journal then stays for a repair.
 */
int recstage_drop_records(struct recstage *rs, struct dbp_error *err);

/*
 * Undo the records: put back the ones a commit replaced, remove every
 * staged one.  Best effort.
 */
int recstage_abort(struct recstage *rs);

#endif
