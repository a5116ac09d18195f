/* SPDX-License-Identifier: MIT */
/* The admin directory of a root: where it is, opening it, repairing an interrupted run there. */
#ifndef DEBUNPACK_ADMIN_H
#define DEBUNPACK_ADMIN_H

#include <stdbool.h>

#include "error.h"
#include "recover.h"
#include "rootfs.h"

/* Where records go unless the options say otherwise, inside the root. */
#define ADMIN_DIR_DEFAULT	"var/lib/debunpack"

/* What errors call the admin directory DIR (NULL: the default). */
const char *admin_name(const char *dir);

/*
 * Open admin directory DIR (NULL: ROOT/ADMIN_DIR_DEFAULT, resolved in RF)
 * read-only: a descriptor, or -errno (-ENOENT when nothing was ever
 * installed).
 */
int admin_open(const char *dir, const struct rootfs *rf);

/*
 * If admin directory DIR holds the journal of an interrupted run, repair
 * the root RF as it says, holding the directory's lock; RES tells what
 * was done (RES->found is false when there was nothing to repair).
 * LOCK: the directory must not be in use (an install); otherwise a run
 * in progress is left alone.  0 or -errno with ERR filled.
 */
int admin_recover(const char *dir, const struct rootfs *rf, bool lock,
    struct recover_result *res, struct dbp_error *err);

#endif
