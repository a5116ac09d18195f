/* SPDX-License-Identifier: MIT */
/* The dpkg for apt: which packages an unpack's trigger processing takes. */
#ifndef DEBUNPACK_SHIMTRIG_H
#define DEBUNPACK_SHIMTRIG_H

#include <stddef.h>

#include "db/dpkgstatus.h"

/*
 * dpkg --unpack without --no-triggers ends by processing the triggers of
 * the packages its unpack activated, and silently leaves those whose
 * dependencies are not satisfied (dpkg's opportunistic, "deferred"
 * processing).  The packages AFTER (the status after the unpack) has
 * pending that BEFORE had not, or had other triggers pending, whose
 * Depends and Pre-Depends AFTER satisfies with packages installed or
 * with triggers pending or awaited: *NAMES (*N of them, as dpkg names
 * them), the caller's to free (shimtrig_free).  0 or -ENOMEM.
 */
int shimtrig_pending(const struct dpkgstatus *before,
    const struct dpkgstatus *after, char ***names, size_t *n);
void shimtrig_free(char **names, size_t n);

/*
 * A package's Pre-Depends (PREDEPENDS, NULL: none) that BEFORE does not
 * satisfy but for a package in triggers-awaited: dpkg --unpack, even
 * under --no-triggers, first processes the triggers of the packages that
 * one awaits.  Those are added to *NAMES (*N; each once).  0 or -ENOMEM.
 */
int shimtrig_required(const struct dpkgstatus *before, const char *predepends,
    char ***names, size_t *n);

#endif
