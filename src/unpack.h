/* SPDX-License-Identifier: MIT */
/* Turning data.tar entries into temporary objects under the root, ready to commit. */
#ifndef DEBUNPACK_UNPACK_H
#define DEBUNPACK_UNPACK_H

#include <stdbool.h>

#include "durable/dirs.h"
#include "util/error.h"
#include "manifest.h"
#include "extract/unpackopts.h"
#include "db/record.h"
#include "util/stats.h"
#include "syncbatch.h"
#include "durable/users.h"
#include "store/store.h"

struct archive;
struct dpkgdivert;
struct dpkgstatov;
struct pathfilter;


struct unpack;

/* The pieces are borrowed and must outlive the unpacker. */
int unpack_new(struct unpack **out, const struct unpack_opts *opts,
    struct dirs *dirs, struct syncbatch *sb, struct manifest *man,
    const struct users *users, struct stats *st);
void unpack_free(struct unpack *u);

/*
 * Extract every entry of TAR (a data.tar reader) as package number PKG.
 * Non-directories land under temporary names registered with the batch;
 * directories are created at once.  Every path is added to REC (unless
 * NULL) in archive order, regular files with the SHA-256 of their data.
 * On error ERR names the entry; what was made stays registered so that
 * syncbatch_abort removes it.
 */
int unpack_archive(struct unpack *u, struct archive *tar, unsigned pkg,
    struct record *rec, struct dbp_error *err);

/*
 * Honour dpkg-divert's diversions D (borrowed; NULL: none) from the next
 * package on: a path another package, or the administrator, diverted is
 * written at its new name and recorded there, with the package's own
 * name beside it (record_entry's divert_from); the diverting package
 * writes the original name.  A package that ships a diversion's new
 * name is refused, as dpkg refuses it.
 */
void unpack_set_diversions(struct unpack *u, const struct dpkgdivert *d);

/*
 * Apply dpkg-statoverride's overrides S (borrowed; NULL: none) from the
 * next package on, as dpkg applies them: an entry whose path (the
 * package's own name for it) has one is installed, and recorded, with
 * its owner and, but for a symlink, its mode.
 */
void unpack_set_statoverrides(struct unpack *u, const struct dpkgstatov *s);

/*
 * Leave out, from the next package on, the paths that filters F
 * (borrowed; NULL: none) exclude, as dpkg's --path-exclude does: nothing
 * is made for them and the record does not have them, but dpkg's file
 * list names them (record_filtered).
 */
void unpack_set_filters(struct unpack *u, const struct pathfilter *f);

/*
 * Compute the MD5 of every regular file of the next package, not only of
 * its conffiles: dpkg makes the md5sums of a package that has none.
 */
void unpack_set_md5_all(struct unpack *u, bool all);

/*
 * The conffiles of the next package (control.tar's "conffiles": absolute
 * paths, one per line; NULL for none).  A conffile the user changed since
 * it was installed (its SHA-256 differs from the record's), or one that
 * exists without a record, is kept, and the package's version goes next to
 * it as NAME.debunpack-dist, with a warning.
 */
int unpack_set_conffiles(struct unpack *u, const char *text,
    struct dbp_error *err);

/*
 * Note the next package's entries and contents in store entry F
 * (borrowed; NULL: none) as they are extracted (store_fill_*).
 */
void unpack_set_fill(struct unpack *u, struct store_fill *f);

/*
 * unpack_archive for package P of the store S (both borrowed): the same
 * entries, in the same order, through the same rules, each regular
 * file's content cloned or copied from S instead of decoded; *HOW says
 * which (STORE_COPIED when any was copied).
 */
int unpack_stored(struct unpack *u, struct store *s, struct store_pkg *p,
    unsigned pkg, struct record *rec, enum store_how *how,
    struct dbp_error *err);

#endif
