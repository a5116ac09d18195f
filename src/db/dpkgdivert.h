/* SPDX-License-Identifier: MIT */
/* dpkg-divert's diversions in dpkg's database: which path goes where, and for whom. */
#ifndef DEBUNPACK_DPKGDIVERT_H
#define DEBUNPACK_DPKGDIVERT_H

#include <stddef.h>

#include "db/record.h"

/* One diversion: FROM is installed as TO by every package but PKG. */
struct dpkgdivert_entry {
	const char *from;
	const char *to;
	const char *pkg;	/* NULL: the administrator's (--local) */
};

struct dpkgdivert;

/*
 * Read the diversions file of dpkg's database open as DFD (none there:
 * no diversion).  *OUT is the caller's (dpkgdivert_free).  0 or -errno.
 */
int dpkgdivert_read(struct dpkgdivert **out, int dfd);
void dpkgdivert_free(struct dpkgdivert *d);

/* How many diversions D holds (D may be NULL), and number I of them. */
size_t dpkgdivert_count(const struct dpkgdivert *d);
const struct dpkgdivert_entry *dpkgdivert_nth(const struct dpkgdivert *d,
    size_t i);

/* The diversion of path FROM, or NULL.  D may be NULL (none). */
const struct dpkgdivert_entry *dpkgdivert_from(const struct dpkgdivert *d,
    const char *from);

/* The diversion whose new name is TO, or NULL.  D may be NULL. */
const struct dpkgdivert_entry *dpkgdivert_to(const struct dpkgdivert *d,
    const char *to);

/*
 * Where package PKG's PATH ("/usr/bin/x") goes, as dpkg's unpack puts it:
 * the diversion's new name when PATH is diverted by another package or
 * by the administrator, else PATH itself.  D may be NULL (none).
 */
const char *dpkgdivert_use(const struct dpkgdivert *d, const char *path,
    const char *pkg);

/*
 * Put REC's entries where D's diversions send them now, as dpkg looks a
 * package's files up through the diversions of the day: one diverted
 * since it was installed is at its new name (dpkg-divert --rename moved
 * it), one whose diversion went is back at its own.  0, -ENOMEM or
 * -EINVAL (a diversion that names no canonical path).
 */
int dpkgdivert_follow(const struct dpkgdivert *d, struct record *rec);

#endif
