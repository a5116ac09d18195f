/* SPDX-License-Identifier: MIT */
/* Maintainer scripts of the run's packages, run in the root as dpkg runs them. */
#ifndef DEBUNPACK_MAINTSCRIPT_H
#define DEBUNPACK_MAINTSCRIPT_H

#include "db/dpkgdb.h"
#include "util/error.h"

/*
 * Run the preinst of each package of DB that has one, in the order they
 * were given, inside ROOT (chroot, so root only): "preinst install", or
 * "preinst upgrade OLD NEW" over an installed version, with the
 * environment dpkg gives (DPKG_MAINTSCRIPT_PACKAGE, _NAME, _ARCH, ...).
 * BEFORE, if not NULL, is told of each package first.  Stops at the
 * first failure: -errno with ERR naming the package and the exit status.
 */
int maintscript_preinsts(const char *root, const struct dpkgdb *db,
    void (*before)(void *ctx, const char *name), void *ctx,
    struct dbp_error *err);

/*
 * Give the root ROOTFD what /dev needs for scripts in a chroot (null,
 * zero, full, random, urandom, tty, console, ptmx, the fd links, pts/
 * and shm/), as debootstrap and mmdebstrap make it; names already there
 * are kept.  Root only (mknod).  0 or -errno with ERR filled.
 */
int maintscript_dev_setup(int rootfd, struct dbp_error *err);

#endif
