/* SPDX-License-Identifier: MIT */
/* dpkgstale: whether dpkg changed a package since debunpack recorded it. */
#ifndef DEBUNPACK_DPKGSTALE_H
#define DEBUNPACK_DPKGSTALE_H

#include <stdbool.h>

#include "db/dpkgstatus.h"
#include "db/record.h"
#include "durable/rootfs.h"

struct dpkgstale;

/*
 * Read dpkg's status in root RF, if it has one.  *OUT is NULL when there
 * is none (nothing is then judged stale).  0, or -errno when the status
 * cannot be read.
 */
int dpkgstale_open(struct dpkgstale **out, const struct rootfs *rf);
void dpkgstale_free(struct dpkgstale *s);

/* The status S read (S may be NULL: then NULL). */
const struct dpkgstatus *dpkgstale_status(const struct dpkgstale *s);

/*
 * Whether record R, of a package that went into dpkg's database too
 * (R->dpkg_db), no longer stands: dpkg removed or purged the package
 * since, or installed another version, so its files are dpkg's.  *WHAT
 * says how ("not installed", "version 1.2-3"...), for the note.  A
 * record without R->dpkg_db is never stale.  CTX is the struct dpkgstale
 * (recstore_set_stale's callback).
 */
bool dpkgstale_is(void *ctx, const struct record *r, const char **what);

#endif
