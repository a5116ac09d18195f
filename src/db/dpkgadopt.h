/* SPDX-License-Identifier: MIT */
/* dpkgadopt: the packages dpkg installed, read from its database as installed records. */
#ifndef DEBUNPACK_DPKGADOPT_H
#define DEBUNPACK_DPKGADOPT_H

#include <stdbool.h>
#include <stddef.h>

#include "db/dpkgstatus.h"
#include "db/record.h"
#include "durable/rootfs.h"
#include "util/error.h"

/*
 * Whether package NAME has a record of debunpack's that still stands
 * (dpkgstale.h judged it): dpkg's stanza then adds nothing to it.
 */
typedef bool dpkgadopt_known_fn(void *ctx, const char *name);

/*
 * The record of stanza O, a package dpkg has files of (unpacked or
 * further, or config-files), as dpkg's database in root RF describes it
 * (record->adopted, every entry sha256_unknown):
 * - its control fields from the stanza, without dpkg's state (Status,
 *   Conffiles, Config-Version, Triggers-*); a config-files package's
 *   Status is RECORD_CONFIG_FILES, as in debunpack's records;
 * - its paths from info/PKG.list (PKG:ARCH.list for Multi-Arch: same),
 *   "/." left out, each typed by lstat in the root (a directory, or a
 *   symlink to one, is 'd'; a path not there is 'f');
 * - its conffiles and their MD5 from the Conffiles field (obsolete ones
 *   flagged), added when the list lacks them;
 * - the MD5 of its regular files from info/PKG.md5sums, where it has one.
 * A missing .list reads as no paths.  With DPKGADOPT_UNTYPED in FLAGS
 * nothing in the root is looked at: every path reads as a file, for the
 * queries that want names and paths only (--list, --files, --owner:
 * a lstat of every path of a system costs seconds); with
 * DPKGADOPT_NO_PATHS not even the lists are read: the record has the
 * package's fields alone (--list).  0 with *OUT (the
 * caller's; NULL for a stanza no record can hold), or -errno with ERR
 * naming the file.
 */
#define DPKGADOPT_UNTYPED	0x1
#define DPKGADOPT_NO_PATHS	0x2
/*
 * DPKGADOPT_LAZY reads as DPKGADOPT_UNTYPED, for a run: the record is
 * untyped (record->untyped) and without the MD5s of its md5sums until
 * dpkgadopt_type.  A run asks of few installed packages more than
 * their paths, and a lstat of every path of the system in each of
 * apt's calls would cost more than the unpack.
 */
#define DPKGADOPT_LAZY		0x4
/*
 * With DPKGADOPT_LAZY, DPKGADOPT_DEFER keeps the file list's text in the
 * record (record->unlisted) instead of making an entry of each path:
 * dpkgadopt_paths gives the paths for an index, and dpkgadopt_list makes
 * the entries when the run asks for the record.  A run's call unpacks a
 * few packages and asks of few others more than who owns a path; an
 * entry of every path of the system, each checked and copied, cost a
 * fifth of a small package's call.  The diversions are followed on
 * both sides: the index puts each path where they send it, and the
 * entries, once made, follow them (recowners.c).
 */
#define DPKGADOPT_DEFER		0x8
int dpkgadopt_one(const struct rootfs *rf, int dfd,
    const struct dpkgstatus_stanza *o, unsigned flags, struct record **out,
    struct dbp_error *err);

/*
 * Every package of STATUS that dpkg has files of and KNOWN (with CTX)
 * does not, as dpkgadopt_one reads it with FLAGS, in *OUT (*NOUT records; the
 * array and the records are the caller's).  One per package name (the
 * first instance of a Multi-Arch: same package; the others stay
 * dpkg's).  No status, or no var/lib/dpkg in RF: none.  0 or -errno
 * with ERR.
 */
int dpkgadopt_all(const struct rootfs *rf, const struct dpkgstatus *status,
    unsigned flags, dpkgadopt_known_fn *known, void *ctx,
    struct record ***out, size_t *nout, struct dbp_error *err);

/*
 * The entries of REC read with DPKGADOPT_DEFER (nothing to do for
 * another), as dpkgadopt_one would have made them: 0, or -ENOMEM, REC
 * then still unlisted.
 */
int dpkgadopt_list(struct record *rec);

/*
 * FN(CTX, PATH, TYPE) for each entry dpkgadopt_list makes of REC, read
 * with DPKGADOPT_DEFER and not listed yet, in its order: PATH in REC's
 * text, TYPE as an owner index of untyped entries keeps it ('f' for a
 * conffile, '?' for any other path).  0, or -ENOMEM.
 */
typedef int dpkgadopt_path_fn(void *ctx, const char *path, char type);
int dpkgadopt_paths(const struct record *rec, dpkgadopt_path_fn *fn,
    void *ctx);

/*
 * An untyped record REC (DPKGADOPT_LAZY) typed in place, as
 * dpkgadopt_one would have read it with root RF, as the root is now;
 * then the MD5s of its md5sums.  0 (nothing to do for a typed record) or
 * -errno, REC then still untyped.
 */
int dpkgadopt_type(const struct rootfs *rf, struct record *rec);

/*
 * The type dpkgadopt_one gives ABSPATH in root RF: 'd' for a directory
 * or a symlink to one, 'f' where nothing is.  A failure to look sets
 * *ERR (-errno) if it is 0, and reads as 'f'.
 */
char dpkgadopt_path_type(const struct rootfs *rf, const char *abspath,
    int *err);

/* Whether stanza O's package has files dpkgadopt_one would read. */
bool dpkgadopt_has_files(const struct dpkgstatus_stanza *o);

#endif
