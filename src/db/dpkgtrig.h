/* SPDX-License-Identifier: MIT */
/* dpkg's triggers database (var/lib/dpkg/triggers): interests and activations. */
#ifndef DEBUNPACK_DPKGTRIG_H
#define DEBUNPACK_DPKGTRIG_H

#include <stdbool.h>
#include <stddef.h>

#include "db/record.h"

/*
 * When dpkg unpacks a package it registers the interests of its
 * "triggers" control file (file triggers in triggers/File, the others in
 * triggers/NAME) and activates the triggers its paths and its "activate"
 * directives fire.  This does the same for the run's packages, as text:
 * the database's files are read in, changed and handed back for the
 * caller to write.  Activations are queued in triggers/Unincorp, the
 * queue dpkg-trigger(1) writes, which dpkg folds into the status (the
 * interested packages' Triggers-Pending) on its next run.
 */
struct dpkgtrig;

/*
 * Start from the triggers directory open as DFD (not taken): reads File
 * and Unincorp.  0 or -errno.
 */
int dpkgtrig_new(struct dpkgtrig **out, int dfd);
void dpkgtrig_free(struct dpkgtrig *t);

/*
 * Package NAME (dpkg's name: NAME:ARCH for Multi-Arch: same) replaces the
 * version OLDNAME (the same, but for a change of Multi-Arch) whose
 * triggers control file was OLD (NULL: none) with one whose file is NEW
 * (NULL: none) and whose paths are REC's.  0 or -errno.
 */
int dpkgtrig_package(struct dpkgtrig *t, const char *name,
    const char *oldname, const char *old, const char *new,
    const struct record *rec);

/*
 * The files to write, one at a time: 1 with *NAME (in the triggers
 * directory) and *TEXT (*LEN bytes; empty: the file goes), owned by T;
 * 0 when there are no more.  *IDX starts at 0.
 */
int dpkgtrig_file(struct dpkgtrig *t, size_t *idx, const char **name,
    const char **text, size_t *len);

#endif
