/* SPDX-License-Identifier: MIT */
/* dpkg's rules for conffiles while unpacking: the user's changes kept, and remove-on-upgrade. */
#ifndef DEBUNPACK_EXTRACT_UNPACKCONF_H
#define DEBUNPACK_EXTRACT_UNPACKCONF_H

#include "db/record.h"
#include "extract/obsolete.h"
#include "util/error.h"

struct unpack;

/*
 * The conffiles the installed version of REC's package had and REC no
 * longer ships (nor flags remove-on-upgrade) stay, in REC, flagged
 * obsolete, as dpkg keeps them.  0 or -errno with ERR.
 */
int unpack_keep_obsolete(struct unpack *u, struct record *rec,
    struct dbp_error *err);

/*
 * After the package of record REC is unpacked: the conffiles its
 * conffiles flag remove-on-upgrade, as dpkg treats them.  One that another
 * package has, or that is not a regular file, stays; one unchanged since
 * the old version installed it goes with the old version's other paths;
 * one changed since, or there without a record, is kept as NAME.dpkg-old
 * (a link, named at the commit like the package's files, not the
 * package's), with a warning, and NAME goes after the commit point (OB).
 */
int unpack_remove_on_upgrade(struct unpack *u, const struct record *rec,
    struct obsolete *ob, struct dbp_error *err);

#endif
