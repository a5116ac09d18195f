/* The conffiles list of a package (control.tar's "conffiles"). */
#ifndef DEBUNPACK_CONFFILES_H
#define DEBUNPACK_CONFFILES_H

#include <stdbool.h>

#include "error.h"

struct conffiles;

/*
 * Parse TEXT (absolute paths, one per line; NULL for none) into *OUT,
 * paths normalised as names_path does.  *OUT is the caller's
 * (conffiles_free).  Errors name "conffiles".
 */
int conffiles_parse(const char *text, struct conffiles **out,
    struct dbp_error *err);

/* Whether root-relative PATH is a conffile; C may be NULL. */
bool conffiles_has(const struct conffiles *c, const char *path);

void conffiles_free(struct conffiles *c);

#endif
