/* SPDX-License-Identifier: MIT */
/* The names a run gives its own files in the root, and the paths it accepts from a package. */
#ifndef DEBUNPACK_NAMES_H
#define DEBUNPACK_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

/*
 * A temporary, renamed over NAME at the commit: NAME.debunpack-new, or
 * .debunpack-new.N when NAME is too long to take the suffix.
 */
#define NAMES_TMP_SUFFIX	".debunpack-new"
#define NAMES_TMP_PREFIX	".debunpack-new."
/*
 * The old version of a replaced name, kept until the run stands: the
 * temporary's name with "-new" turned into "-old".  A file moved aside
 * for a directory is NAME.debunpack-old too.
 */
#define NAMES_OLD_SUFFIX	".debunpack-old"
#define NAMES_OLD_PREFIX	".debunpack-old."
/*
 * A kept conffile's new version: NAME.debunpack-dist, or with --dpkg-dist
 * dpkg's NAME.dpkg-dist (a package's name either way).
 */
#define NAMES_DIST_SUFFIX	".debunpack-dist"
#define NAMES_DPKG_DIST_SUFFIX	".dpkg-dist"
/*
 * A conffile's new version as dpkg --unpack leaves it for --configure
 * (--maintscripts): a final name, committed like the package's files,
 * never a temporary of the run.
 */
#define NAMES_DPKG_NEW_SUFFIX	".dpkg-new"

/*
 * Whether NAME is reserved for the run's temporaries and backups
 * (NAME.debunpack-new, .debunpack-new.N, and the same with -old):
 * packages may not ship them, and what has them in the root belongs to
 * a run.
 */
bool names_reserved(const char *name);

/*
 * The temporary for NAME in BUF (N bytes): NAME + NAMES_TMP_SUFFIX, or,
 * when that is longer than NAME_MAX, NAMES_TMP_PREFIX and *SEQ, which is
 * then incremented (SEQ NULL: -ENAMETOOLONG instead, for callers that
 * remove a leftover of that name, which another of the run's could
 * have).  -ENAMETOOLONG if BUF is too small.
 */
int names_tmp(const char *name, unsigned long *seq, char *buf, size_t n);

/* The backup name of temporary TMP's target, in BUF (N bytes). */
void names_old(const char *tmp, char *buf, size_t n);

/*
 * Put NAME in directory DFD back as it was before the run, from whatever
 * part of the commit reached it: TMP is its temporary, HADOLD whether an
 * old version was there (kept as the backup names_old(TMP) until the run
 * stands).  The batch's rollback and the repair after a crash both undo
 * through it, so that one rule decides.  1 if a name was put back or
 * removed, 0 if there was nothing to undo, or -errno.
 */
int names_undo(int dfd, const char *name, const char *tmp, bool hadold);

/*
 * The name NAME is moved aside to for a directory, in BUF (N bytes);
 * -ENAMETOOLONG if it does not fit.
 */
int names_aside(const char *name, char *buf, size_t n);

/* Whether ENTRY is the name that NAME is moved aside to. */
bool names_is_aside(const char *entry, const char *name);

/*
 * Normalise archive path RAW into OUT (size N): leading "./" and "/"
 * and trailing "/" removed.  Empty, ".", ".." and over-long components,
 * newlines and reserved names are errors.  OUT is "" for the root itself.
 */
int names_path(const char *raw, char *out, size_t n, struct dbp_error *err);

#endif
