/* SPDX-License-Identifier: MIT */
/* replaces: whether a package's Replaces field lets it take another's files. */
#ifndef DEBUNPACK_REPLACES_H
#define DEBUNPACK_REPLACES_H

#include <stdbool.h>

#include "deb/control.h"

/*
 * Whether the package of control CTL replaces package NAME at VERSION:
 * its Replaces field names NAME (any architecture qualifier) with no
 * version relation, or one VERSION satisfies, as dpkg reads it.  Such a
 * package takes NAME's files without --force-overwrite, and NAME
 * installed later leaves them to it.
 */
bool replaces_pkg(const struct control *ctl, const char *name,
    const char *version);

#endif
