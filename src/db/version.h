/* SPDX-License-Identifier: MIT */
/* Debian package versions, ordered as dpkg orders them. */
#ifndef DEBUNPACK_VERSION_H
#define DEBUNPACK_VERSION_H

#include <stdbool.h>

/*
 * Compare versions A and B ([EPOCH:]UPSTREAM[-REVISION]) as dpkg does
 * (deb-version(5)): below 0 if A is older, 0 if they are the same version,
 * above 0 if A is newer.  A missing epoch is 0 and a missing revision
 * empty; "~" sorts before everything, even the end of the string.
 * NULL sorts before any version.
 */
int version_cmp(const char *a, const char *b);

/*
 * Whether version V stands in relation OP ("<<", "<=", "=", ">=", ">>";
 * the obsolete "<" and ">" as dpkg reads them, "<=" and ">=") to REF.
 * An unknown OP is false.
 */
bool version_satisfies(const char *v, const char *op, const char *ref);

#endif
