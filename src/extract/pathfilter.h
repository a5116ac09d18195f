/* SPDX-License-Identifier: MIT */
/* dpkg's --path-exclude and --path-include: which of a package's paths are left out. */
#ifndef DEBUNPACK_EXTRACT_PATHFILTER_H
#define DEBUNPACK_EXTRACT_PATHFILTER_H

#include <stdbool.h>
#include <stddef.h>

struct pathfilter;

/*
 * Append a rule to *F (a new table when *F is NULL): GLOB (copied), a
 * shell pattern on the absolute path (say "/usr/share/doc/x*"), excludes or,
 * with INCLUDE, includes what it matches.  0 or -ENOMEM (*F unchanged).
 */
int pathfilter_add(struct pathfilter **f, const char *glob, bool include);
void pathfilter_free(struct pathfilter *f);

/* How many rules F holds (F may be NULL). */
size_t pathfilter_count(const struct pathfilter *f);

/*
 * Whether the package's ABSPATH ("/usr/share/doc/x", as the package
 * ships it) is left out, as dpkg's filters decide: the last rule whose
 * pattern matches wins (fnmatch without FNM_PATHNAME: "*" matches "/"
 * too), none matching keeps it.  A directory or symlink (DIRLIKE) that is
 * left out is kept all the same when an include rule's pattern, up to its
 * first wildcard and without its trailing slashes, starts ABSPATH: what
 * the include brings back needs its directory.
 */
bool pathfilter_skip(const struct pathfilter *f, const char *abspath,
    bool dirlike);

#endif
