/* SPDX-License-Identifier: MIT */
/* The run's manifest: the paths it installs, and its records (db/recstage.h, db/recowners.h) under one handle. */
#ifndef DEBUNPACK_MANIFEST_H
#define DEBUNPACK_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "db/record.h"
#include "db/recstage.h"
#include "db/recstore.h"
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
struct recstage;
struct syncbatch;
struct journal;

/* A manifest with no path and no records (recstage_new). */
int manifest_new(struct manifest **out);
/* Free M, its paths and its records; NULL is a no-op. */
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
 * The run's records.  Each call below is the db/recstage.h or
 * db/recowners.h function its comment names, with that function's
 * contract: the run's modules keep the one handle they pass around.
 * Queries read the records through a recstore (db/recstore.h) instead,
 * and nothing of these.
 */

/*
 * The records themselves, M's (they live as long as M), for a module of
 * their own floor that only asks them (db/recowners.h) and may not reach
 * up to the manifest: dpkg's database (dpkgdb_open).
 */
struct recstage *manifest_records(struct manifest *m);

/* recstage_attach: the admin directory DIRFD, its batch beside PEER's. */
int manifest_admin(struct manifest *m, int dirfd, const char *name,
    bool openat2, struct syncbatch *peer, struct stats *st,
    struct dbp_error *err);
/* recstage_lock: the admin directory for this run alone (or SHARED). */
int manifest_lock(struct manifest *m, bool shared, struct dbp_error *err);
/* recstage_admin_fd: the admin directory's descriptor, for the journal. */
int manifest_admin_fd(const struct manifest *m);
/* recstage_set_dpkg_db: the records staged say dpkg's database has them. */
void manifest_set_dpkg_db(struct manifest *m);
/* recstage_set_adopt: FN adds the packages dpkg installed, typed in RF. */
void manifest_set_adopt(struct manifest *m, recstage_adopt_fn *fn, void *ctx,
    const struct rootfs *rf);
/* recstage_set_divert: the installed records follow diversions D. */
void manifest_set_divert(struct manifest *m, const struct dpkgdivert *d);

/* recstage_set_stale: FN judges the installed records; FORGET drops them. */
void manifest_set_stale(struct manifest *m, recstore_stale_fn *fn, void *ctx,
    bool forget);
/* recstage_names: the recorded packages' names (manifest_names_free). */
int manifest_names(struct manifest *m, char ***names, struct dbp_error *err);
/* recstore_names_free: frees what manifest_names gave. */
void manifest_names_free(char **names);

/* recstage_stage: R (taken) is the record of the run's next package. */
int manifest_stage(struct manifest *m, struct record *r,
    struct dbp_error *err);
/* recstage_in_run: whether a package named NAME is staged already. */
int manifest_in_run(const struct manifest *m, const char *name);
/* recstage_run_name: the name of the run's package number PKG. */
const char *manifest_run_name(const struct manifest *m, unsigned pkg);
/* recstage_nstaged, recstage_staged: the run's records, by package. */
size_t manifest_nstaged(const struct manifest *m);
struct record *manifest_staged(const struct manifest *m, size_t pkg);
/* recstage_staged_lacks: NAME is staged without ABSPATH (or gives it up). */
bool manifest_staged_lacks(const struct manifest *m, const char *name,
    const char *abspath);
/* recstage_disown_staged: the run's package PKG gives ABSPATH up. */
int manifest_disown_staged(struct manifest *m, unsigned pkg,
    const char *abspath);
/* recstage_drop: package R (taken) is removed whole. */
int manifest_drop(struct manifest *m, struct record *r);
/* recstage_ndropped, recstage_dropped: the packages removed whole. */
size_t manifest_ndropped(const struct manifest *m);
struct record *manifest_dropped(const struct manifest *m, size_t i);
/* recstage_nforgotten, recstage_forgotten: the stale records dropped. */
size_t manifest_nforgotten(const struct manifest *m);
const char *manifest_forgotten(const struct manifest *m, size_t i,
    const char **what);

/* recstage_prepare: the records written as temporaries, journaled in J. */
int manifest_prepare(struct manifest *m, struct journal *j,
    struct dbp_error *err);
/* recstage_commit: the records renamed into place, after their files. */
int manifest_commit(struct manifest *m, struct dbp_error *err);
/* recstage_sync: the new names durable. */
int manifest_sync(struct manifest *m, struct dbp_error *err);
/* recstage_finish: the run succeeded; the backups go. */
int manifest_finish(struct manifest *m);
/* recstage_drop_records: the dropped and stale records removed, durably. */
int manifest_drop_records(struct manifest *m, struct dbp_error *err);
/* recstage_abort: the records as they were before the run. */
int manifest_abort(struct manifest *m);

/* recowners_load: every installed record read, and its paths indexed. */
int manifest_load_installed(struct manifest *m, struct dbp_error *err);
/* recowners_installed: the installed record of package NAME, or NULL. */
struct record *manifest_installed_record(struct manifest *m,
    const char *name);
/* recowners_installed_entry: ABSPATH in NAME's installed record, or NULL. */
const struct record_entry *manifest_installed_entry(struct manifest *m,
    const char *name, const char *abspath);
/* recowners_diverted_entry: another's ABSPATH, diverted elsewhere. */
const struct record_entry *manifest_diverted_entry(struct manifest *m,
    const char *abspath, const char *self, const char **owner);
/* recowners_owner: an installed package but NAME with file ABSPATH. */
const char *manifest_owner(struct manifest *m, const char *abspath,
    const char *name);
/* recowners_other_owner: another package, installed or staged, with ABSPATH. */
const char *manifest_other_owner(struct manifest *m, const char *abspath,
    const char *name);
/* recowners_disown: installed package OWNER gives ABSPATH up. */
int manifest_disown(struct manifest *m, const char *owner,
    const char *abspath);
/* recowners_lost: installed package NAME lost a path to the run. */
void manifest_lost(struct manifest *m, const char *name);
/* recowners_disowned_nth: the next installed package that gave paths up. */
struct record *manifest_disowned_nth(struct manifest *m, size_t *i);
/* recowners_disappearing: the next package left with directories only. */
const char *manifest_disappearing(struct manifest *m, size_t *i,
    struct record **staged, struct record **inst);

#endif
