/* SPDX-License-Identifier: MIT */
/* What dpkg owns already in a root: diverted paths, the files of the packages it installed. */
#ifndef DEBUNPACK_DPKGOWN_H
#define DEBUNPACK_DPKGOWN_H

#include <stdbool.h>

#include "db/dpkgstatus.h"
#include "util/error.h"
#include "db/record.h"

struct dpkgown;
struct recstage;

/*
 * Read, in dpkg's database open as DFD, the diversions of dpkg-divert
 * and the file lists of the packages STATUS has installed that RS (the
 * run's records, which must outlive *OUT) has no installed record of
 * (recowners_installed), not even one read from dpkg's database.  0 or -errno with
 * ERR filled.
 */
int dpkgown_load(struct dpkgown **out, int dfd, const struct dpkgstatus *status,
    const struct recstage *rs, struct dbp_error *err);
void dpkgown_free(struct dpkgown *o);

/*
 * Whether the run may install package REC (replacing stanza OLD, or
 * NULL) without going behind dpkg's back: unless FORCE_OVERWRITE, none
 * of its paths (by the names it ships them under) in the list of a
 * package dpkg installed that the run has no record of
 * (recowners_installed: dpkgadopt.h reads the others), unless one of the
 * two diverts it (dpkg-divert), as dpkg allows.  O may be NULL (a new database).  0 or -EINVAL with
 * ERR naming the path or package.
 */
int dpkgown_check(const struct dpkgown *o, const struct record *rec,
    const struct dpkgstatus_stanza *old, bool force_overwrite,
    struct dbp_error *err);

#endif
