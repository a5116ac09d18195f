/* SPDX-License-Identifier: MIT */
/* Turning data.tar entries into temporary objects under the root, ready to commit. */
#ifndef DEBUNPACK_UNPACK_H
#define DEBUNPACK_UNPACK_H

#include <signal.h>
#include <stdbool.h>

#include "durable/dirs.h"
#include "util/error.h"
#include "manifest.h"
#include "extract/obsolete.h"
#include "util/plan.h"
#include "db/record.h"
#include "util/stats.h"
#include "syncbatch.h"
#include "durable/users.h"

struct archive;

struct unpack_opts {
	bool chown;		/* apply owners (the caller runs as root) */
	bool devices;		/* may create character and block devices */
	bool skip_devices;	/* when !devices, skip them with a warning */
	bool force_overwrite;	/* a path of another package: take it, warn */
	/* set from a signal handler: stop at the next entry or block */
	const volatile sig_atomic_t *stop;
	/* a warning for the user (PATH may be NULL); may be NULL */
	void (*warn)(void *ctx, const char *path, const char *msg);
	void *warn_ctx;
	/* each entry's verdict, as decided, told to WARN_CTX; may be NULL */
	plan_fn *plan;
	/*
	 * A dry run: nothing is made nor changed under the root (the
	 * directory table plans, dirs_set_plan); every entry's data is read
	 * and checked all the same, and its verdict told to PLAN.
	 */
	bool nowrite;
	bool dpkg_dist;		/* a kept conffile's new one: NAME.dpkg-dist */
};

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
 * After the package of record REC is unpacked: the conffiles its
 * conffiles flag remove-on-upgrade, as dpkg treats them.  One that another
 * package has, or that is not a regular file, stays; one unchanged since
 * the old version installed it goes with the old version's other paths;
 * one changed since, or there without a record, is kept as NAME.dpkg-old
 * (a link, named at the commit like the package's files, not the
 * package's), with a warning, and NAME goes after the commit point (OB).
 */
/*
 * The conffiles the installed version of REC's package had and REC no
 * longer ships (nor flags remove-on-upgrade) stay, in REC, flagged
 * obsolete, as dpkg keeps them.  0 or -errno with ERR.
 */
int unpack_keep_obsolete(struct unpack *u, struct record *rec,
    struct dbp_error *err);

int unpack_remove_on_upgrade(struct unpack *u, const struct record *rec,
    struct obsolete *ob, struct dbp_error *err);

#endif
