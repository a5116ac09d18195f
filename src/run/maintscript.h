/* SPDX-License-Identifier: MIT */
/* Maintainer scripts of the run's packages, run in the root as dpkg runs them. */
#ifndef DEBUNPACK_MAINTSCRIPT_H
#define DEBUNPACK_MAINTSCRIPT_H

#include <stdbool.h>
#include <stddef.h>

#include "db/dpkgdb.h"
#include "run/emulate.h"
#include "util/error.h"

/*
 * Run the preinst of each package of DB that has one, in the order they
 * were given, inside ROOT (chroot, so root only; ADMINDIR: dpkg's database
 * when not ROOT/var/lib/dpkg): "preinst install", or
 * "preinst upgrade OLD NEW" over an installed version, with the
 * environment dpkg gives (DPKG_MAINTSCRIPT_PACKAGE, _NAME, _ARCH, ...).
 * BEFORE, if not NULL, is told of each package first.  Stops at the
 * first failure: -errno with ERR naming the package and the exit status.
 * EMU (emulate_judge's, or NULL) is how the root's binaries run.
 */
int maintscript_preinsts(const char *root, const char *admindir,
    const struct emulate *emu, const struct dpkgdb *db,
    void (*before)(void *ctx, const char *name), void *ctx,
    struct dbp_error *err);

/* Who a maintainer script is and where it runs: dpkg's environment. */
struct maintscript_env {
	const char *root;	/* absolute */
	bool chrootless;	/* dpkg's --force-script-chrootless: not chrooted,
				   DPKG_ROOT is ROOT */
	const char *pkg, *arch;	/* DPKG_MAINTSCRIPT_PACKAGE, _ARCH */
	const char *script;	/* "preinst": DPKG_MAINTSCRIPT_NAME */
	const char *running_version;	/* DPKG_RUNNING_VERSION, or NULL */
	const char *force;	/* DPKG_FORCE, or NULL */
	bool debconf;		/* set DEBCONF_PACKAGE (a script run from
				   info/ whose package debconf must know) */
	const char *admindir;	/* dpkg's database (--dpkg-admindir) as a
				   host path; NULL: ROOT/var/lib/dpkg */
	const struct emulate *emu;	/* chrooted: how the root's binaries
					   run (emulate.h), or NULL: natively */
	unsigned refcount;	/* DPKG_MAINTSCRIPT_PACKAGE_REFCOUNT: the
				   name's installed instances (0: 1) */
};

/*
 * Run the script PATH (as the root sees it: "/var/lib/dpkg/info/x.prerm";
 * with E->admindir, /var/lib/dpkg/ stands for it) with ARGV (ARGV[0] its
 * path) as E says, and wait for it: 0 with
 * *STATUS its wait status, or -errno with ERR when it could not be run
 * at all (not there, the root not entered, no fork).
 */
int maintscript_run(const struct maintscript_env *e, const char *path,
    char *const argv[], int *status, struct dbp_error *err);

/* A failed wait STATUS in dpkg's words: "returned error exit status 3". */
void maintscript_status_text(int status, char *buf, size_t n);

/*
 * Give the root ROOTFD what /dev needs for scripts in a chroot (null,
 * zero, full, random, urandom, tty, console, ptmx, the fd links, pts/
 * and shm/), as debootstrap and mmdebstrap make it; names already there
 * are kept.  Root only (mknod).  0 or -errno with ERR filled.
 */
int maintscript_dev_setup(int rootfd, struct dbp_error *err);

#endif
