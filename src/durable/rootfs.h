/* SPDX-License-Identifier: MIT */
/* Opening paths inside the target root so that nothing resolves outside it. */
#ifndef DEBUNPACK_ROOTFS_H
#define DEBUNPACK_ROOTFS_H

#include <stdbool.h>

#include "util/error.h"

struct rootfs {
	int fd;			/* the root directory, O_RDONLY|O_DIRECTORY */
	bool openat2;		/* kernel has openat2(RESOLVE_IN_ROOT) */
};

/* Open DIR as the root; it must exist and be a directory. */
int rootfs_open(struct rootfs *rf, const char *dir, struct dbp_error *err);

void rootfs_close(struct rootfs *rf);

/*
 * Open REL (relative to the root, "" for the root itself) with open(2)
 * FLAGS, resolving every component, symlinks and ".." included, as if the
 * root were "/": an absolute symlink or a ".." never leaves it.  Uses
 * openat2(RESOLVE_IN_ROOT) and otherwise walks the path one component at a
 * time with O_NOFOLLOW.  Returns a file descriptor or -errno.
 */
int rootfs_resolve(const struct rootfs *rf, const char *rel, int flags);

/* For tests: force the user-space walk even where openat2 exists. */
void rootfs_force_walk(struct rootfs *rf);

#endif
