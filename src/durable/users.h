/* SPDX-License-Identifier: MIT */
/* Owner names of archive entries mapped to ids through the root's own passwd and group. */
#ifndef DEBUNPACK_USERS_H
#define DEBUNPACK_USERS_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/error.h"
#include "durable/rootfs.h"

struct users;

/*
 * Read ROOT/etc/passwd and ROOT/etc/group (resolved inside the root) if
 * they exist: a package's "root:root" means the root's ids, not the host's.
 * A missing file is not an error.
 */
int users_load(struct users **out, const struct rootfs *rf);
void users_free(struct users *u);

/*
 * Id of user NAME in the root, or FALLBACK (the archive's number); U may
 * be NULL (nothing loaded: always FALLBACK).
 */
uid_t users_uid(const struct users *u, const char *name, uid_t fallback);
gid_t users_gid(const struct users *u, const char *name, gid_t fallback);

/*
 * Whether this process is in the initial user namespace: only there may
 * root make device nodes (in a container's namespace mknod is refused).
 */
bool users_initial_ns(void);

/*
 * The error of a chown of PATH to UID:GID that failed with errno E: in a
 * user namespace an id without a mapping fails with EINVAL, which says
 * "uid N is not mapped in this user namespace" here.  Returns -errno.
 */
int users_chown_err(struct dbp_error *err, int e, const char *path,
    uid_t uid, gid_t gid);

#endif
