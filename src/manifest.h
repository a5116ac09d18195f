/* SPDX-License-Identifier: MIT */
/* Records of installed files: the run's path table and the admin directory. */
#ifndef DEBUNPACK_MANIFEST_H
#define DEBUNPACK_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "db/record.h"
#include "db/recstore.h"
#include "durable/dirs.h"
#include "util/stats.h"

/*
 * A non-directory path installed by this run.  Paths are keyed by the
 * directory they land in (an index of the run's directory table, so
 * "bin/ls" and "usr/bin/ls" on a merged-/usr root are the same path) and
 * their last component.
 */
struct manifest_entry {
	size_t dir;
	char *name;
	size_t item;		/* syncbatch item holding its temporary */
	unsigned pkg;		/* index of the package on the command line */
	unsigned type;		/* AE_IFREG, AE_IFLNK, ... (archive_entry.h) */
	uint64_t size;		/* regular files: for records of hardlinks */
	unsigned char sha256[32];
};

struct manifest;
struct syncbatch;
struct journal;

int manifest_new(struct manifest **out);
void manifest_free(struct manifest *m);

/* The entry for NAME in directory DIR, or NULL. */
struct manifest_entry *manifest_find(struct manifest *m, size_t dir,
    const char *name);

/*
 * Record NAME in DIR; when already recorded (a later package replaces an
 * earlier one's path) the entry is updated in place.  -ENOMEM on failure.
 */
int manifest_put(struct manifest *m, size_t dir, const char *name,
    size_t item, unsigned pkg, unsigned type);

/* NAME in DIR is not the run's after all (a conffile dpkg would not write). */
void manifest_forget_path(struct manifest *m, size_t dir, const char *name);
/* Number of paths recorded. */
size_t manifest_count(const struct manifest *m);

/*
 * Attach the admin directory open as DIRFD (duplicated; the caller keeps
 * its own), called NAME in errors (kept by reference), through a
 * recstore (recstore.h), which reads them.  Records are committed with the sync strategy of the files'
 * batch PEER, sharing its barriers (none when PEER is NULL), counted in
 * ST.  OPENAT2 tells whether the kernel has openat2 (see rootfs.h).
 */
int manifest_admin(struct manifest *m, int dirfd, const char *name,
    bool openat2, struct syncbatch *peer, struct stats *st,
    struct dbp_error *err);

/*
 * Keep R, the record of the run's next package, for manifest_prepare,
 * which writes it as a temporary next to its final name.  Checks the
 * package name.  Takes R (also on error).  Nothing becomes visible before
 * the commit.
 */
int manifest_stage(struct manifest *m, struct record *r,
    struct dbp_error *err);

/*
 * Whether package NAME is staged by the run already, in a version that
 * does not have ABSPATH (its installed version gives it up), or has it
 * as an obsolete conffile, which it then gives up.
 */
bool manifest_staged_lacks(const struct manifest *m, const char *name,
    const char *abspath);
/* Whether a package named NAME is staged already (one version per run). */
int manifest_in_run(const struct manifest *m, const char *name);

/* Name of the run's package number PKG (staged in that order). */
const char *manifest_run_name(const struct manifest *m, unsigned pkg);

/*
 * Take the admin directory for this run (flock, released when the
 * manifest is freed): -EWOULDBLOCK when another run has it.  SHARED: a
 * dry run's, which only reads and may run beside another reader.  No
 * admin directory attached: nothing to take.
 */
int manifest_lock(struct manifest *m, bool shared, struct dbp_error *err);

/* The admin directory's descriptor (the manifest's), for the journal. */
int manifest_admin_fd(const struct manifest *m);

/*
 * Keep backups of the records the staged ones replace and tell journal J
 * of the renames to come (syncbatch_prepare).
 * Installed packages that gave up paths (manifest_disown) get new
 * records in the same batch.
 */
int manifest_prepare(struct manifest *m, struct journal *j,
    struct dbp_error *err);

/*
 * Make the staged records durable and rename them into place: called
 * after the files they describe are renamed, so that a record never
 * lists files that are not there.  manifest_sync makes the new names
 * durable (one barrier with the files' where the strategy allows).
 */
int manifest_commit(struct manifest *m, struct dbp_error *err);
int manifest_sync(struct manifest *m, struct dbp_error *err);

/* Read every installed record, for manifest_owner and upgrades. */
/* No admin directory attached (a dry run on a new root): none installed. */
int manifest_load_installed(struct manifest *m, struct dbp_error *err);

/*
 * The installed package, other than NAME, whose record holds non-directory
 * ABSPATH ("/usr/bin/x"), or NULL.
 */
const char *manifest_owner(struct manifest *m, const char *abspath,
    const char *name);

/* The installed record of package NAME, or NULL. */
struct record *manifest_installed_record(struct manifest *m,
    const char *name);

/* The entry for ABSPATH in the installed record of NAME, or NULL. */
const struct record_entry *manifest_installed_entry(struct manifest *m,
    const char *name, const char *abspath);

/*
 * A package other than NAME, installed or staged by this run, whose record
 * has ABSPATH of any type, or NULL.
 */
const char *manifest_other_owner(struct manifest *m, const char *abspath,
    const char *name);

/* How many packages the run staged, and the record of number PKG. */
size_t manifest_nstaged(const struct manifest *m);
struct record *manifest_staged(const struct manifest *m, size_t pkg);

/*
 * The next installed package from *I on (start at 0) that gave paths up
 * to the run's packages and is not in the run itself, its record as it
 * now stands; NULL after the last.
 */
struct record *manifest_disowned_nth(const struct manifest *m, size_t *i);
/* The run's package number PKG gives ABSPATH up to a later one. */
int manifest_disown_staged(struct manifest *m, unsigned pkg,
    const char *abspath);

/* Installed package NAME lost a path to the run (its new version lacks it). */
void manifest_lost(struct manifest *m, const char *name);
/*
 * The next package from *I on (start at 0) that lost paths to the run's
 * packages (installed, or earlier in the run) and has nothing left but
 * directories, in its new version staged by the run (*STAGED) or as
 * installed (*INST; NULL for a package new in the run): it
 * disappears, as dpkg makes such a package disappear (its record to be
 * dropped, *STAGED marked gone).  Essential and protected packages never
 * do.  NULL after the last.
 */
const char *manifest_disappearing(struct manifest *m, size_t *i,
    struct record **staged, struct record **inst);
/* Installed package OWNER gives ABSPATH up (--force-overwrite). */
int manifest_disown(struct manifest *m, const char *owner,
    const char *abspath);

/*
 * Package R (its control; taken, also on error) is removed whole: its
 * record goes after the commit point, journaled (journal_drop) by
 * manifest_prepare, removed by manifest_finish.  -ENOMEM.
 */
int manifest_drop(struct manifest *m, struct record *r);
size_t manifest_ndropped(const struct manifest *m);
struct record *manifest_dropped(const struct manifest *m, size_t i);
/* The run succeeded: drop the backups of the records it replaced. */
int manifest_finish(struct manifest *m);
/*
 * After the commit point: remove the records of the packages the run
 * removed whole (manifest_drop) and of those dpkg made stale, durably.
 * 0 or -errno with ERR: the journal then stays for a repair.
 */
int manifest_drop_records(struct manifest *m, struct dbp_error *err);

/*
 * Undo the records: put back the ones a commit replaced, remove every
 * staged one.  Best effort.
 */
int manifest_abort(struct manifest *m);

/*
 * FN judges the installed records (recstore_set_stale): one that no
 * longer stands reads as none.  With FORGET (a run, not a dry run's
 * plan), the run drops it after its commit point, journaled
 * (manifest_prepare, manifest_drop_records), and touches no path of it:
 * they are dpkg's, or gone.
 */
/* The run keeps dpkg's database too: the records it stages say so. */
void manifest_set_dpkg_db(struct manifest *m);
void manifest_set_stale(struct manifest *m, recstore_stale_fn *fn, void *ctx,
    bool forget);
/* The records dropped so, with what dpkg did, for the run to tell. */
size_t manifest_nforgotten(const struct manifest *m);
const char *manifest_forgotten(const struct manifest *m, size_t i,
    const char **what);

/*
 * Names of the recorded packages, as recstore_names; *NAMES is a
 * NULL-terminated array the caller frees with manifest_names_free.
 * -EBADF without an admin directory.
 */
int manifest_names(struct manifest *m, char ***names, struct dbp_error *err);
void manifest_names_free(char **names);

#endif
