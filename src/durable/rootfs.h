/* SPDX-License-Identifier: MIT */
/* Opening paths inside the target root so that nothing resolves outside it. */
#ifndef DEBUNPACK_ROOTFS_H
#define DEBUNPACK_ROOTFS_H

#include <stdbool.h>

#include "util/error.h"

struct rootfs {
	int fd;			/* the root directory, O_RDONLY|O_DIRECTORY */
	bool openat2;		/* kernel has openat2(RESOLVE_IN_ROOT) */
	bool dpkg;		/* dpkg's database is dpkgfd, not the root's */
	int dpkgfd;		/* rootfs_open_dpkg's directory */
	const char *dpkgdir;	/* its path, as given (kept by reference) */
};

/* Where dpkg's database is inside a root, and the prefix of its paths. */
#define ROOTFS_DPKG	"var/lib/dpkg"

/* Open DIR as the root; it must exist and be a directory. */
int rootfs_open(struct rootfs *rf, const char *dir, struct dbp_error *err);

void rootfs_close(struct rootfs *rf);

/*
 * dpkg's database is directory DIR (a host path, kept by reference:
 * dpkg's --admindir), not ROOT/var/lib/dpkg: from now on every path
 * ROOTFS_DPKG or under it resolves inside DIR, opened here once, as if
 * DIR were mounted there (a package's own var/lib/dpkg/ entries too, as
 * with DPKG_SUITE_DB_IN_INSTDIR's bind mount).  DIR must exist, as dpkg
 * wants it to.  0 or -errno with ERR filled.
 */
int rootfs_open_dpkg(struct rootfs *rf, const char *dir,
    struct dbp_error *err);

/*
 * Open REL (relative to the root, "" for the root itself) with open(2)
 * FLAGS, resolving every component, symlinks and ".." included, as if the
 * root were "/": an absolute symlink or a ".." never leaves it.  Uses
 * openat2(RESOLVE_IN_ROOT) and otherwise walks the path one component at a
 * time with O_NOFOLLOW.  Paths under ROOTFS_DPKG resolve inside dpkg's
 * directory when rootfs_open_dpkg named one.  Returns a file descriptor
 * or -errno.
 */
int rootfs_resolve(const struct rootfs *rf, const char *rel, int flags);

/* For tests: force the user-space walk even where openat2 exists. */
void rootfs_force_walk(struct rootfs *rf);

#endif
