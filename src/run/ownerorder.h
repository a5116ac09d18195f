/* SPDX-License-Identifier: MIT */
/* dpkg-query -S's order of the packages that share a path. */
#ifndef DEBUNPACK_OWNERORDER_H
#define DEBUNPACK_OWNERORDER_H

#include <stddef.h>

#include "db/record.h"
#include "durable/rootfs.h"

/*
 * The order dpkg reads the file lists of the packages RECS (N) in, into
 * RANK (N: RANK[i] is RECS[i]'s place, from 0): by where the first block
 * of each list (ROOT RF's var/lib/dpkg/info/NAME.list) lies on the disk,
 * as FIEMAP tells (first where it cannot tell or there is no list), and
 * in the order of dpkg's package table (its FNV hash of the name) when
 * equal.  Each list dpkg reads puts its package before those of the path
 * read earlier: dpkg -S names a path's packages by descending RANK.
 * Without dpkg's database (no info directory) the packages are ranked
 * by name, descending, so that they are named in name order.
 * 0 or -ENOMEM.
 */
int ownerorder_ranks(const struct rootfs *rf, struct record *const *recs,
    size_t n, size_t *rank);

#endif
