/* SPDX-License-Identifier: MIT */
/* Questions about packages that change nothing: --list, --owner, --files, --contents (--verify: verify.h). */
#ifndef DEBUNPACK_QUERY_H
#define DEBUNPACK_QUERY_H

#include <stdbool.h>
#include <stdio.h>

#include "db/dpkgdivert.h"
#include "util/error.h"
#include "db/recstore.h"
#include "durable/rootfs.h"

/* How a query writes what it finds. */
enum query_format {
	QUERY_TEXT,	/* lines for people and grep */
	QUERY_RPM,	/* --verify: dpkg --verify's lines (rpm -V's format) */
	QUERY_JSON	/* a JSON array of objects */
};

/*
 * The recorded packages: one line each, name as dpkg-query -l shows it
 * (NAME:ARCH for Multi-Arch: same), version, architecture (tab-separated)
 * and "config-files" for a removed one; or as JSON.  With N PATTERNS,
 * only the packages one of them names, as dpkg-query -l reads them
 * (NAME or NAME:ARCH, each a shell pattern or not); FOUND[I] tells whether
 * pattern I named one, and 1 is returned when one named none.
 */
int query_list(struct recstore *s, char *const *patterns, size_t n,
    bool *found, enum query_format fmt, FILE *fp, struct dbp_error *err);

/*
 * The installed paths each of the N PATTERNS matches, as dpkg -S finds
 * them, one line per path: "PKG[, PKG...]: /PATH", each package named as
 * dpkg does (NAME:ARCH for Multi-Arch: same).  A pattern that does not
 * start with one of "*[?/" is a part of a path (*PATTERN*); then one with
 * *, ?, [ or \ is a shell pattern over whole paths, its * and ? matching
 * "/" too; the rest are paths, taken as the records write them ("//",
 * "/./" and ".." taken out, no symlink followed).  FOUND[I] tells
 * whether pattern I matched.  The paths of DIVERT's diversions (may be
 * NULL) are found too, and a diverted path's lines follow its
 * diversion's two, as dpkg -S tells them.  In FMT QUERY_JSON, an array
 * of {"path", "packages"[, "diversion": {"from", "to", "by"}]}.  A
 * path's packages come in dpkg -S's order, the last list dpkg reads
 * first (ownerorder.h: root RF's file lists).  Returns 1 when one of
 * them matched nothing.
 */
int query_owner(struct recstore *s, const struct rootfs *rf,
    const struct dpkgdivert *divert,
    char *const *patterns, size_t n, bool *found, enum query_format fmt,
    FILE *fp, struct dbp_error *err);

/*
 * ERR says, in dpkg -S's words, that PATTERN (as query_owner searched for
 * it) matched nothing.  Returns -EINVAL, as dbp_err does.
 */
int query_owner_missed(const char *pattern, struct dbp_error *err);

/*
 * Whether package file FILE is sound, read through as an install reads it
 * without writing anything: its container, control, data (through its
 * compression's checks) and every entry's name by the archive path
 * rules.  0, or -errno with ERR naming the fault.
 */
int query_sound(const char *file, struct dbp_error *err);

/*
 * The record of the installed package SPEC names (NAME or NAME:ARCH, as
 * dpkg -L and dpkg --verify take them): 0 with *OUT (record_free),
 * -ENOENT when it names none, or another -errno with ERR.
 */
int query_load(struct recstore *s, const char *spec, struct record **out,
    struct dbp_error *err);

/*
 * dpkg-divert's diversions in root RF's dpkg database, in *OUT (the
 * caller's, dpkgdivert_free; NULL without a database).  0 or -errno with
 * ERR.
 */
int query_diversions(const struct rootfs *rf, struct dpkgdivert **out,
    struct dbp_error *err);

/*
 * The paths of the installed package SPEC names (NAME or NAME:ARCH), one
 * per line, as dpkg -L lists them: "/." first, symlinks last, and after
 * a path that DIVERT (may be NULL) diverts, where it goes.  1 when SPEC
 * names no installed package.
 */
int query_files(struct recstore *s, const char *spec,
    const struct dpkgdivert *divert, FILE *fp, struct dbp_error *err);

/*
 * The entries of package file FILE's data member, one line each, as
 * dpkg-deb -c lists them (mode, owner/group, size, mtime, path, link).
 */
int query_contents(const char *file, FILE *fp, struct dbp_error *err);

#endif
