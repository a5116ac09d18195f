/* SPDX-License-Identifier: MIT */
/* A run's pieces, which install.c, installdb.c and installpkg.c share.  Not for other modules. */
#ifndef DEBUNPACK_INSTALL_INT_H
#define DEBUNPACK_INSTALL_INT_H

#include <stdbool.h>

#include "db/admin.h"
#include "durable/rootfs.h"
#include "run/emulate.h"
#include "run/install.h"
#include "run/usrmerge.h"
#include "util/error.h"
#include "util/stats.h"

struct dirs;
struct dpkgdb;
struct dpkgdivert;
struct dpkgstatov;
struct journal;
struct manifest;
struct obsolete;
struct syncbatch;
struct unpack;
struct users;

/* What install_run hands to the callbacks of the modules it drives. */
struct install_ctx {
	const struct install_opts *opts;
	const char *pkg;	/* the package being extracted, or NULL */
};

/* The caller's note callback, where there is one: the run prints nothing. */
static inline void
install_say(const struct install_opts *o, struct install_note *n)
{
	if (o->note != NULL)
		o->note(o->ctx, n);
}

/* One run's pieces, from install_open to install_close. */
struct install {
	const struct install_opts *o;
	struct install_ctx ic;
	struct stats *st;
	struct rootfs rf;
	struct users *users;
	struct dirs *dirs;
	struct syncbatch *sb;
	struct manifest *man;
	struct obsolete *ob;	/* what the old versions lose */
	struct dpkgdb *db;	/* --dpkg-db only */
	struct admin_view view;	/* dpkg's verdict on the records, and a dry
				   run's look at a journal left to repair */
	struct journal *j;
	struct unpack *u;
	struct usrmerge um;
	struct dpkgdivert *divert;	/* dpkg-divert's, --dpkg-db only */
	struct dpkgstatov *statov;	/* dpkg-statoverride's, likewise */
	bool undoable;		/* the pieces exist: install_abort can run */
	struct store *store;	/* what the run filled, committed after the
				   data barrier (install_prepare) */
	bool covered;		/* O->cover_admin done (install_prepare) */
	struct emulate emu;	/* --run-preinst: how the scripts run */
	struct feed *own_feed;	/* decoding since the run began, when the
				   caller's (O->feed) is none */
};

/*
 * installpkg.c: extract FILES[0..NFILES-1] into IN's batch, in order,
 * with JOBS decoding threads: the caller's or the run's own decoding
 * (started with the run, install_feed), or threads started here for the
 * packages the store does not have.  0, or -errno with ERR naming the
 * package that failed.
 */
int install_extract(struct install *in, char *const *files, size_t nfiles,
    unsigned jobs, struct dbp_error *err);

/*
 * installdb.c: the admin directory and dpkg's database set up for the
 * run (install_open), and the stale records told after it
 * (install_finish); install_recover, which main.c calls too, is in
 * install.h.  Each is described where it is defined.
 */
int install_admindir(const struct install_opts *o, const struct rootfs *rf,
    struct dirs *dirs, struct syncbatch *sb, struct manifest *man,
    struct stats *st, struct dbp_error *err);
int install_stale(struct install *in, struct dbp_error *err);
int install_no_pending(struct install *in, struct dbp_error *err);
int install_diversions(struct install *in, struct dbp_error *err);
int install_statoverrides(struct install *in, struct dbp_error *err);
void install_tell_stale(struct install *in);

#endif
