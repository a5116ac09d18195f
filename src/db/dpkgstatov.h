/* SPDX-License-Identifier: MIT */
/* dpkg-statoverride's overrides in dpkg's database: the owner and mode a path is installed with. */
#ifndef DEBUNPACK_DPKGSTATOV_H
#define DEBUNPACK_DPKGSTATOV_H

#include <stddef.h>
#include <sys/types.h>

#include "durable/rootfs.h"
#include "durable/users.h"
#include "util/error.h"

/* One override: PATH ("/usr/bin/x") is installed UID:GID, MODE. */
struct dpkgstatov_entry {
	const char *path;
	uid_t uid;
	gid_t gid;
	mode_t mode;		/* permission bits, <= 07777 */
};

struct dpkgstatov;

/*
 * Read ROOT/var/lib/dpkg/statoverride (none there: no override), its
 * lines "USER GROUP MODE PATH" as dpkg-statoverride writes them, USER and
 * GROUP names that USERS (the root's passwd and group; NULL: none known)
 * must know, or "#ID".  What dpkg refuses is refused with dpkg's words:
 * an unknown user or group, a bad id or mode, a line without its fields
 * or its newline, an empty line, two overrides of one path.  *OUT is the
 * caller's (dpkgstatov_free).  0 or -errno with ERR naming the file.
 */
int dpkgstatov_load(struct dpkgstatov **out, const struct rootfs *rf,
    const struct users *users, struct dbp_error *err);
void dpkgstatov_free(struct dpkgstatov *s);

/* How many overrides S holds (S may be NULL). */
size_t dpkgstatov_count(const struct dpkgstatov *s);

/* The override of PATH ("/usr/bin/x"), or NULL.  S may be NULL. */
const struct dpkgstatov_entry *dpkgstatov_find(const struct dpkgstatov *s,
    const char *path);

#endif
