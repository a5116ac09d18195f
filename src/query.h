/* Questions about packages and the root that change nothing: --list, --owner, --contents, --verify. */
#ifndef DEBUNPACK_QUERY_H
#define DEBUNPACK_QUERY_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"
#include "manifest.h"
#include "rootfs.h"

/* One line per recorded package: name, version, architecture (tab-separated). */
int query_list(struct manifest *m, FILE *fp, struct dbp_error *err);

/*
 * "PKG[, PKG...]: /PATH" for the packages whose records hold PATH
 * ("/usr/bin/x" or "usr/bin/x").  Returns 1 when no package owns it.
 */
int query_owner(struct manifest *m, const char *path, FILE *fp,
    struct dbp_error *err);

/*
 * The entries of package file FILE's data member, one line each, as
 * dpkg-deb -c lists them (mode, owner/group, size, mtime, path, link).
 */
int query_contents(const char *file, FILE *fp, struct dbp_error *err);

/*
 * Compare the root RF with the records of packages NAMES (NULL-terminated;
 * NULL or empty: every package): one line per problem on FP, "PKG: PATH:
 * what" (missing, type, size, content, mode, owner, target), conffiles
 * marked.  CHECK_OWNER compares owners too (meaningful as root).  Returns
 * the number of problems, or -errno with ERR filled.
 */
int query_verify(struct manifest *m, const struct rootfs *rf,
    char *const *names, bool check_owner, FILE *fp, struct dbp_error *err);

#endif
