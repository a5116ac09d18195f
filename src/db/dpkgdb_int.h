/* SPDX-License-Identifier: MIT */
/*
 * Internal to the dpkgdb module: what its files share.  dpkgdb.c opens
 * the database and answers about it; dpkgdb_stage.c stages the run's
 * packages and makes their stanzas; dpkgdb_files.c writes the files and
 * notes those that go; dpkgdb_gone.c finds what leaves the database and
 * removes it after the commit; dpkgdb_prepare.c runs the steps of
 * dpkgdb_prepare in their order.  Not for other modules.
 */
#ifndef DEBUNPACK_DPKGDB_INT_H
#define DEBUNPACK_DPKGDB_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "deb/deb.h"
#include "db/dpkgstatus.h"
#include "db/record.h"
#include "util/error.h"

struct dirs;
struct dpkgown;
struct recstage;
struct syncbatch;

/* A package of the run. */
struct dpkgdb_new {
	struct record *rec;	/* owned by the run's records (rs) */
	struct deb_info *info;
	size_t ninfo;
	char *infoname;
	const char *conffiles;	/* text of the conffiles info file, or NULL */
	struct dpkgstatus_stanza *old;	/* the stanza it replaces, or NULL */
	char *oldinfo;		/* the infoname of OLD */
	char *stanza;		/* as written */
	size_t stanza_len;
	struct dpkgdb_pending *pend;	/* held back, or NULL */
	bool removal;		/* removed: REC keeps its conffiles, or */
	bool whole;		/* nothing of it stays, not even a stanza */
	struct dpkgdb_carried *carried;	/* dpkgdb_carry's */
	size_t ncarried;
};

/*
 * A conffile of a package of the run and the MD5 dpkg carries for it
 * from before the run until the package is configured (dpkg reads it
 * when it unpacks the package): what its status keeps for a conffile
 * the package does not install.
 */
struct dpkgdb_carried {
	char *path;
	unsigned char md5[16];
};

/* A database file that goes: an old version's info file, an empty trigger. */
struct dpkgdb_gone {
	size_t dir;		/* in the run's directory table */
	char *name;
	char *path;		/* root-relative, for the journal and warnings */
};

struct dpkgdb {
	struct dirs *dirs;
	struct syncbatch *sb;
	struct recstage *rs;	/* the run's records */
	/* the run's paths: dpkgdb_open's SHIPPED (a dpkgdb_shipped_fn), CTX */
	bool (*shipped)(void *, size_t, const char *);
	void *shipped_ctx;
	bool exists;		/* var/lib/dpkg was there */
	bool plan;		/* a dry run (dirs_plans): no lock, no write */
	int lockfd[2];		/* lock-frontend, lock */
	struct dpkgstatus status;	/* the status file before the run */
	bool force_overwrite;
	struct dpkgown *own;	/* what dpkg owns already, or NULL */
	struct dpkgdb_new *run;
	size_t nrun;
	size_t infoidx;		/* var/lib/dpkg/info in the run's table */
	struct dpkgdb_gone *gone;	/* files to remove after the commit */
	size_t ngone;
	size_t didx;		/* var/lib/dpkg in the run's table */
	/* stanzas of packages outside the run that gave paths up */
	struct dpkgstatus_add *restanza;
	size_t nrestanza;
	size_t tidx;		/* var/lib/dpkg/triggers, when there */
	struct dpkgdb_pending *pending;	/* dpkgdb_set_pending's */
	size_t npending;
};

/*
 * The steps of dpkgdb_prepare, in its order; each 0 or -errno with ERR
 * filled.
 */

/* dpkgdb_stage.c: P's new stanza (or its removed one) into P->stanza. */
int dpkgdb_make_stanza(struct dpkgdb_new *p, struct dbp_error *err);

/* dpkgdb_files.c: P's info files, as dpkg extracts them from control.tar. */
int dpkgdb_put_info(struct dpkgdb *db, const struct dpkgdb_new *p,
    struct dbp_error *err);
/* dpkgdb_files.c: P's file list (PKG.list). */
/*
 * Whether dpkg's file list FILE (in info/) begins with "/.", as every
 * list of a package built by dpkg-deb does: true too when there is none.
 */
bool dpkgdb_list_rooted(struct dpkgdb *db, const char *file);
int dpkgdb_put_list(struct dpkgdb *db, const struct dpkgdb_new *p,
    struct dbp_error *err);
/* dpkgdb_gone.c: the packages the run took paths or conffiles from. */
int dpkgdb_disowned(struct dpkgdb *db, struct dbp_error *err);
/* dpkgdb_gone.c: the old versions' info files the run does not write. */
int dpkgdb_find_gone(struct dpkgdb *db, struct dbp_error *err);
/* dpkgdb_files.c: the triggers database's files. */
int dpkgdb_triggers(struct dpkgdb *db, struct dbp_error *err);
/*
 * dpkgdb_trig.c: the notes of T's activations (dpkgtrig.h) in the
 * stanzas: the run's and those of the packages they change.
 */
struct dpkgtrig;
int dpkgdb_trig_status(struct dpkgdb *db, const struct dpkgtrig *t,
    struct dbp_error *err);
/* dpkgdb_files.c: the status file, the run's stanzas merged in. */
int dpkgdb_put_status(struct dpkgdb *db, struct dbp_error *err);
/* dpkgdb_files.c: info/format and the lock files of a new database. */
int dpkgdb_put_format(struct dpkgdb *db, struct dbp_error *err);
int dpkgdb_put_locks(struct dpkgdb *db, struct dbp_error *err);

/* dpkgdb.c: info file NAME of package P (its new version's), or NULL. */
const char *dpkgdb_info(const struct dpkgdb_new *p, const char *name);

/* What the steps share (dpkgdb_files.c). */

/*
 * Write DATA (LEN bytes) as a temporary of NAME in directory IDX of the
 * run's table (root-relative DIR) with mode MODE and modification time
 * MTIME (-1: now), registered with the batch: renamed over NAME at the
 * commit.  A dry run only judges it.
 */
int dpkgdb_put_at(struct dpkgdb *db, size_t idx, const char *dir,
    const char *name, mode_t mode, time_t mtime, const char *data,
    size_t len, struct dbp_error *err);
/* The same, made now. */
int dpkgdb_put(struct dpkgdb *db, size_t idx, const char *dir,
    const char *name, mode_t mode, const char *data, size_t len,
    struct dbp_error *err);

/* File NAME of directory DIR (root-relative DIRPATH) goes after the commit. */
int dpkgdb_add_gone(struct dpkgdb *db, size_t dir, const char *dirpath,
    const char *name);

#endif
