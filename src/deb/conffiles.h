/* SPDX-License-Identifier: MIT */
/* The conffiles list of a package (control.tar's "conffiles"). */
#ifndef DEBUNPACK_CONFFILES_H
#define DEBUNPACK_CONFFILES_H

#include <stdbool.h>

#include "util/error.h"

struct conffiles;

/*
 * Parse TEXT (absolute paths, one per line, each perhaps after a flag;
 * NULL for none) into *OUT, paths normalised as names_path does; an
 * unknown flag is an error.  *OUT is the caller's
 * (conffiles_free).  Errors name "conffiles".
 */
int conffiles_parse(const char *text, struct conffiles **out,
    struct dbp_error *err);

/* Whether root-relative PATH is a conffile; C may be NULL. */
bool conffiles_has(const struct conffiles *c, const char *path);

/*
 * The conffiles flagged remove-on-upgrade (dpkg 1.20.6): gone from the
 * package, to be removed from the root by its upgrade; how many, the Ith
 * (root-relative, in the file's order), and whether PATH is one.  C may
 * be NULL (none).
 */
size_t conffiles_nremove(const struct conffiles *c);
const char *conffiles_remove_at(const struct conffiles *c, size_t i);
bool conffiles_removes(const struct conffiles *c, const char *path);

void conffiles_free(struct conffiles *c);

#endif
