/* SPDX-License-Identifier: MIT */
/* dpkg's database in the root (var/lib/dpkg), written in the run's batch. */
#ifndef DEBUNPACK_DPKGDB_H
#define DEBUNPACK_DPKGDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "deb/control.h"
#include "deb/deb.h"
#include "durable/dirs.h"
#include "util/error.h"
#include "db/record.h"

/* Where dpkg keeps its database, root-relative. */
#define DPKGDB_DIR	"var/lib/dpkg"

struct dpkgdb;
struct dpkgstatus;
struct journal;
struct recstage;
struct syncbatch;

/*
 * Whether a package of the run installs NAME in directory DIR (an index
 * of the run's directory table); CTX is what dpkgdb_open was given.
 */
typedef bool dpkgdb_shipped_fn(void *ctx, size_t dir, const char *name);

int dpkgdb_new(struct dpkgdb **out);
/*
 * A package of the run whose new stanza is held back: scripts of its
 * unpack still run after the commit (its old postrm), and until they
 * have, dpkg's status keeps the stanza it had during them (NOW, its old
 * version half-installed), as dpkg's does.  dpkgdb_prepare puts the new
 * stanza, as it would have committed it, in HELD (malloc'd: the caller
 * frees it), and commits NOW in its place.
 */
struct dpkgdb_pending {
	const char *name;
	char *now;		/* the caller's */
	char *held;
};

/* A descriptor of dpkg's admin directory (the run's), or -errno. */
int dpkgdb_admin_fd(struct dpkgdb *db);

/* The packages held back (V, N of them, the caller's until DB goes). */
void dpkgdb_set_pending(struct dpkgdb *db, struct dpkgdb_pending *v,
    size_t n);
/* Frees DB and releases dpkg's locks.  DB may be NULL. */
void dpkgdb_free(struct dpkgdb *db);

/*
 * Attach to the run: D is its directory table, SB the batch of its files
 * (the database's files join it, so that one commit carries both), RS
 * its records, which must outlive DB (asked through db/recowners.h which
 * packages debunpack installed and what they gave up), SHIPPED with CTX
 * the paths its packages install, asked at dpkgdb_prepare (a package
 * must not ship a database file).  When the database exists, take
 * dpkg's locks (lock-frontend, then lock, as apt and dpkg take them;
 * lock alone when DPKG_FRONTEND_LOCKED is set, as dpkg under apt),
 * refuse pending updates of an interrupted dpkg, and read the status
 * file and the file lists of the packages dpkg installed itself: a
 * package of the run may not take their paths unless FORCE_OVERWRITE,
 * nor upgrade one of them.  0 or -errno with ERR filled.
 */
int dpkgdb_open(struct dpkgdb *db, struct dirs *d, struct syncbatch *sb,
    struct recstage *rs, dpkgdb_shipped_fn *shipped, void *ctx,
    bool force_overwrite, struct dbp_error *err);

/*
 * Package REC (owned by the run's records, RS of dpkgdb_open; its entries
 * in archive order) comes with control files INFO (N of them, taken, also
 * on error).
 */
int dpkgdb_stage(struct dpkgdb *db, const struct record *rec,
    struct deb_info *info, size_t n, struct dbp_error *err);

/*
 * Write every database file the run changes as a temporary of the batch:
 * info/PKG.* and PKG.list of each package, the merged status, and what a
 * new database needs (info/format, updates/, dpkg's lock files).  Call before
 * syncbatch_prepare: they are renamed after the packages' files.
 */
int dpkgdb_prepare(struct dpkgdb *db, struct dbp_error *err);

/*
 * Before the commit point: tell journal J which info files of the old
 * versions the new ones lack; dpkgdb_remove_obsolete removes them after
 * it (a repair after a crash removes the same).
 */
int dpkgdb_plan_obsolete(struct dpkgdb *db, struct journal *j,
    struct dbp_error *err);
void dpkgdb_remove_obsolete(struct dpkgdb *db,
    void (*warn)(void *, const char *, const char *), void *ctx);

/*
 * Package REC (its record: owned by the run's records, RS of dpkgdb_open)
 * is removed: WHOLE, its stanza and info files go, as after dpkg --purge
 * (or --remove of a package without conffiles); else REC lists the
 * conffiles that stay, and the stanza becomes "deinstall ok
 * config-files" with PKG.list listing them and PKG.postrm kept, as after
 * dpkg --remove.  Nothing to do for a package dpkg's status does not have
 * installed.  0 or -errno with ERR.
 */
int dpkgdb_stage_removal(struct dpkgdb *db, const struct record *rec,
    bool whole, struct dbp_error *err);

/*
 * A package disappears (every file of it another's now): its new version
 * STAGED in the run (NULL: none) is not written, and its stanza and info
 * files go, as GONE's (its record, which the run's records drop:
 * recstage_drop).
 */
int dpkgdb_disappear(struct dpkgdb *db, const struct record *staged,
    const struct record *gone, struct dbp_error *err);

/* Whether dpkg's info directory has maintainer script SCRIPT of REC's package. */
bool dpkgdb_has_script(struct dpkgdb *db, const struct record *rec,
    const char *script);

/* dpkg's status as the run found it (stanzas the run replaces marked). */
const struct dpkgstatus *dpkgdb_status(const struct dpkgdb *db);

/*
 * Refuse dpkg's database in directory DFD when it has status changes
 * pending in updates/ (dpkg was interrupted): a status written now would
 * be overridden.  0 or -errno with ERR.
 */
int dpkgdb_check_updates(int dfd, struct dbp_error *err);

/* Release dpkg's locks: the run is committed, scripts may take them. */
void dpkgdb_unlock(struct dpkgdb *db);

/* The run's packages, in the order they were staged. */
size_t dpkgdb_count(const struct dpkgdb *db);

/* What a maintainer script of the run's package I needs to know. */
struct dpkgdb_pkg {
	const char *name;	/* "libc6" */
	const char *arch;	/* "amd64" */
	const char *infoname;	/* "libc6:amd64" for Multi-Arch: same */
	const char *version;	/* as dpkg prints it: no "0:" epoch */
	const char *action;	/* the preinst's: "install" or "upgrade" */
	const char *old_version;	/* its second argument, or NULL */
	bool has_preinst;
};
void dpkgdb_pkg(const struct dpkgdb *db, size_t i, struct dpkgdb_pkg *out);

#endif
