/* SPDX-License-Identifier: MIT */
/* Merged /usr for a new root: bin, sbin, lib... as links into usr/. */
#ifndef DEBUNPACK_USRMERGE_H
#define DEBUNPACK_USRMERGE_H

#include <stdbool.h>
#include <stddef.h>

#include "durable/dirs.h"
#include "util/error.h"

enum usrmerge_mode { USRMERGE_AUTO, USRMERGE_YES, USRMERGE_NO };

struct journal;

/* The links of a run, for the undo: at most this many. */
#define USRMERGE_MAX	8

struct usrmerge {
	char made[USRMERGE_MAX][8];	/* the links this run made */
	size_t nmade;
};

/*
 * Whether the root ROOTFD gets the links, and for which architecture
 * (*ARCH, static or NULL): never with USRMERGE_NO; with USRMERGE_YES
 * whenever one of the names is missing; with USRMERGE_AUTO when the root
 * is new (none of bin, sbin, lib, usr there) and the packages FILES are
 * those of a merged-/usr release (base-files 12 or later, Debian
 * bookworm's, or usr-is-merged among them; packages that are not regular
 * files, pipes, are not read ahead).  0 or -errno (a package
 * cannot be read) with ERR filled; *WANT says.
 */
int usrmerge_wanted(enum usrmerge_mode mode, int rootfd, char *const *files,
    size_t n, bool *want, const char **arch, struct dbp_error *err);

/*
 * Make usr/NAME and the link NAME -> usr/NAME for bin, sbin, lib and the
 * extra library directories of ARCH (as mmdebstrap and usrmerge do),
 * where NAME is missing: the directories through D (journaled, undone
 * with the run's), each link announced to journal J before it is made,
 * so that a repair removes it as a directory the run made.  U records
 * what usrmerge_undo removes.  In a dry run (dirs_plans), J is not used:
 * the directories and links are only planned in D.
 */
int usrmerge_make(struct usrmerge *u, struct dirs *d, struct journal *j,
    const char *arch, struct dbp_error *err);

/* The run failed: remove the links it made.  0 or the first -errno. */
int usrmerge_undo(struct usrmerge *u, struct dirs *d);

#endif
