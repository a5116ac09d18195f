/* Owner names of archive entries mapped to ids through the root's own passwd and group. */
#ifndef DEBUNPACK_USERS_H
#define DEBUNPACK_USERS_H

#include <sys/types.h>

#include "rootfs.h"

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

#endif
