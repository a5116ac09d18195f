/* SPDX-License-Identifier: MIT */
/* dpkg's rules for a directory and a file replacing each other. */
#ifndef DEBUNPACK_DIRFILE_H
#define DEBUNPACK_DIRFILE_H

#include <stdbool.h>

#include "util/error.h"
#include "manifest.h"

/*
 * Package SELF (NULL: no records) has a file at PATH (root-relative),
 * where a directory is (EMPTY: with nothing in it).  0 when the file may
 * replace it: the directory is empty, this run has no directory there
 * (RUN_DIR false) and no other package lists it.  Otherwise -errno with
 * ERR naming the cause.  The commit moves the directory aside
 * (syncbatch), an undo puts it back.
 */
int dirfile_file_over_dir(struct manifest *m, const char *self,
    const char *path, bool empty, bool run_dir, struct dbp_error *err);

/*
 * Package SELF is to make directory REL where a non-directory is.  0 when
 * it may move aside (its own record lists it as a non-directory), 1 when
 * it is nobody's (the user's: never removed), -errno with ERR when it is
 * another package's.
 */
int dirfile_dir_over_file(struct manifest *m, const char *self,
    const char *rel, struct dbp_error *err);

#endif
