/* SPDX-License-Identifier: MIT */
/* Questions about packages and the root that change nothing: --list, --owner, --contents, --verify. */
#ifndef DEBUNPACK_QUERY_H
#define DEBUNPACK_QUERY_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"
#include "manifest.h"
#include "rootfs.h"

/* How a query writes what it finds. */
enum query_format {
	QUERY_TEXT,	/* lines for people and grep */
	QUERY_RPM,	/* --verify: rpm -V's lines, as dpkg --verify prints them */
	QUERY_JSON	/* a JSON array of objects */
};

/*
 * The recorded packages: one line each, name, version, architecture
 * (tab-separated) and "config-files" for a removed one; or as JSON.
 */
int query_list(struct manifest *m, enum query_format fmt, FILE *fp,
    struct dbp_error *err);

/*
 * The installed paths each of the N PATTERNS matches, as dpkg -S finds
 * them, one line per path: "PKG[, PKG...]: /PATH".  A pattern with *, ?,
 * [ or \ is a shell pattern over whole paths, its * and ? matching "/"
 * too; one that starts with "/" is a path, taken as the records write it
 * ("//", "/./" and ".." taken out, no symlink followed); anything else
 * is a part of a path (*PATTERN*).  FOUND[I] tells whether pattern I
 * matched.  In FMT QUERY_JSON, an array of {"path", "packages"}.  Returns
 * 1 when one of them matched nothing.
 */
int query_owner(struct manifest *m, char *const *patterns, size_t n,
    bool *found, enum query_format fmt, FILE *fp, struct dbp_error *err);

/* Whether query_owner takes PATTERN as a path rather than a pattern. */
bool query_pattern_is_path(const char *pattern);

/*
 * Whether package file FILE is sound, read through as an install reads it
 * without writing anything: its container, control, data (through its
 * compression's checks) and every entry's name by the archive path
 * rules.  0, or -errno with ERR naming the fault.
 */
int query_sound(const char *file, struct dbp_error *err);

/*
 * The paths installed package NAME's record holds, one per line, in the
 * package's order (as dpkg -L lists them).  1 when NAME is not installed.
 */
int query_files(struct manifest *m, const char *name, FILE *fp,
    struct dbp_error *err);

/*
 * The entries of package file FILE's data member, one line each, as
 * dpkg-deb -c lists them (mode, owner/group, size, mtime, path, link).
 */
int query_contents(const char *file, FILE *fp, struct dbp_error *err);

/*
 * Compare the root RF with the records of packages NAMES (NULL-terminated;
 * NULL or empty: every package) and write what differs on FP in format
 * FMT: a line per problem, "PKG: PATH: what" (missing, type, size,
 * content, mode, owner, target), conffiles marked; rpm -V's line per path
 * ("S.5......  c /etc/x"; "missing"); or a JSON array of objects.
 * CHECK_OWNER compares owners too (meaningful as root).  Returns the
 * number of problems, or -errno with ERR filled.
 */
int query_verify(struct manifest *m, const struct rootfs *rf,
    char *const *names, bool check_owner, enum query_format fmt, FILE *fp,
    struct dbp_error *err);

#endif
