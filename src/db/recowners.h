/* SPDX-License-Identifier: MIT */
/* Who owns a path: the installed records, indexed by path, as the run's packages take paths from them. */
#ifndef DEBUNPACK_RECOWNERS_H
#define DEBUNPACK_RECOWNERS_H

#include <stdbool.h>
#include <stddef.h>

#include "db/record.h"
#include "db/recstage.h"
#include "util/error.h"

/*
 * Read every installed record of RS's admin directory (those the stale
 * callback rejects read as none, and with FORGET are noted for the run to
 * drop: recstage_set_stale) and index their paths.  No admin directory
 * attached (a dry run on a new root): none installed.  0 or -errno with
 * ERR.
 */
int recowners_load(struct recstage *rs, struct dbp_error *err);

/*
 * Whether package NAME has an installed record, without typing an
 * adopted one (recowners_installed).
 */
bool recowners_has(const struct recstage *rs, const char *name);

/*
 * The installed record of package NAME (RS's), or NULL.  A record of
 * dpkg's adopted untyped (recstage_set_adopt) is typed first: this and
 * every function here that hands out a record or an entry gives it as
 * dpkgadopt_one types it.
 */
struct record *recowners_installed(struct recstage *rs,
    const char *name);
/* The entry for ABSPATH in the installed record of NAME, or NULL. */
const struct record_entry *recowners_installed_entry(
    struct recstage *rs, const char *name, const char *abspath);

/*
 * The entry of an installed package other than SELF that ships ABSPATH
 * as its own name but has it elsewhere, where a diversion sent it
 * (record_entry's divert_from), or NULL; its package in *OWNER.
 */
const struct record_entry *recowners_diverted_entry(struct recstage *rs,
    const char *abspath, const char *self, const char **owner);

/*
 * The installed package, other than NAME and not removed by the run,
 * whose record holds non-directory ABSPATH ("/usr/bin/x"), or NULL.
 */
const char *recowners_owner(struct recstage *rs, const char *abspath,
    const char *name);
/*
 * A package other than NAME, installed or staged by this run, whose record
 * has ABSPATH of any type, or NULL.
 */
const char *recowners_other_owner(struct recstage *rs,
    const char *abspath, const char *name);

/*
 * Installed package OWNER gives ABSPATH up (--force-overwrite): out of
 * its record and the index; recstage_prepare writes its record anew.
 */
int recowners_disown(struct recstage *rs, const char *owner,
    const char *abspath);
/* Installed package NAME lost a path to the run (its new version lacks it). */
void recowners_lost(struct recstage *rs, const char *name);

/*
 * The next installed package from *I on (start at 0) that gave paths up
 * to the run's packages and is not in the run itself, its record as it
 * now stands; NULL after the last.
 */
struct record *recowners_disowned_nth(struct recstage *rs, size_t *i);

/*
 * The next package from *I on (start at 0) that lost paths to the run's
 * packages (installed, or earlier in the run) and has nothing left but
 * directories, in its new version staged by the run (*STAGED) or as
 * installed (*INST; NULL for a package new in the run): it
 * disappears, as dpkg makes such a package disappear (its record to be
 * dropped, *STAGED marked gone).  Essential and protected packages never
 * do.  NULL after the last.
 */
const char *recowners_disappearing(struct recstage *rs, size_t *i,
    struct record **staged, struct record **inst);

#endif
