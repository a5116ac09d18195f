/* SPDX-License-Identifier: MIT */
/* --verify: the root against the package records, in the text's words or as dpkg --verify prints it. */
#ifndef DEBUNPACK_VERIFY_H
#define DEBUNPACK_VERIFY_H

#include <stdbool.h>
#include <stdio.h>

#include "util/error.h"
#include "db/recstore.h"
#include "run/query.h"
#include "durable/rootfs.h"

/*
 * Compare the root RF with the records of the packages SPECS name (NAME
 * or NAME:ARCH; NULL-terminated; NULL or empty: every package) and write
 * what differs on FP in format FMT: a line per problem, "PKG: PATH: what"
 * (missing, type, size, content, mode, owner, target), conffiles marked;
 * exactly dpkg --verify's lines, which say only what dpkg checks (a path
 * missing, a file no longer one or with another content: "??5?????? c
 * /etc/x"); or a JSON array of objects.  INSTALLED[I] tells whether
 * SPECS[I] named an installed package (the others are verified all the
 * same).  CHECK_OWNER compares owners too (meaningful as root).  Returns
 * the number of problems told, or -errno with ERR filled.
 */
int verify_packages(struct recstore *s, const struct rootfs *rf,
    char *const *specs, bool *installed, bool check_owner,
    enum query_format fmt, FILE *fp, struct dbp_error *err);

#endif
