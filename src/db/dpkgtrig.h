/* SPDX-License-Identifier: MIT */
/* dpkg's triggers database (var/lib/dpkg/triggers): interests and activations. */
#ifndef DEBUNPACK_DPKGTRIG_H
#define DEBUNPACK_DPKGTRIG_H

#include <stdbool.h>
#include <stddef.h>

#include "db/record.h"

struct recstage;

/*
 * When dpkg unpacks a package it registers the interests of its
 * "triggers" control file (file triggers in triggers/File, the others in
 * triggers/NAME) and activates the triggers its paths and its "activate"
 * directives fire.  This does the same for the run's packages, as text:
 * the database's files are read in, changed and handed back for the
 * caller to write.  An activation is resolved, as dpkg resolves it, with
 * the interests registered at that moment into notes: package PEND has
 * TRIG pending, awaited by AW.  The caller folds them into the status
 * (dpkgdb_trig.c), as dpkg does whether or not --no-triggers holds its
 * processing back.
 */
struct dpkgtrig;

struct dpkgtrig_note {
	char *pend;	/* the interested package: NAME or NAME:ARCH */
	char *trig;	/* the trigger: a name, or an interest's path */
	char *aw;	/* the package that awaits it, or NULL */
};

/*
 * Start from the triggers directory open as DFD (not taken): reads File,
 * and incorporates dpkg-trigger's queue (Unincorp) as dpkg does when it
 * opens its database: its activations noted, the queue emptied.  0 or
 * -errno.
 */
int dpkgtrig_new(struct dpkgtrig **out, int dfd);
void dpkgtrig_free(struct dpkgtrig *t);

/*
 * Package NAME (dpkg's name: NAME:ARCH for Multi-Arch: same) replaces the
 * version OLDNAME (the same, but for a change of Multi-Arch) whose
 * triggers control file was OLD (NULL: none) with one whose file is NEW
 * (NULL: none) and whose paths are REC's; OLDLIST is the old version's
 * file list (dpkg's .list, NULL: none): the paths REC lacks go, and
 * activate what is interested in them as they do in dpkg, but for those
 * another package has (in RS, the run's records; NULL: none).  WAS_THERE: the package was
 * above config-files before (half-installed at least); else dpkg forgets
 * that it awaits what its "activate" directives fire.  0 or -errno.
 */
int dpkgtrig_package(struct dpkgtrig *t, const char *name,
    const char *oldname, const char *old, const char *new,
    const struct record *rec, const char *oldlist, bool was_there,
    struct recstage *rs);

/* The notes so far, in the order of their activations: *N of them. */
const struct dpkgtrig_note *dpkgtrig_notes(const struct dpkgtrig *t,
    size_t *n);

/*
 * The files to write, one at a time: 1 with *NAME (in the triggers
 * directory) and *TEXT (*LEN bytes; empty: the file goes), owned by T;
 * 0 when there are no more.  *IDX starts at 0.
 */
int dpkgtrig_file(struct dpkgtrig *t, size_t *idx, const char **name,
    const char **text, size_t *len);

#endif
