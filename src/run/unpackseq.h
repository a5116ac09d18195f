/* SPDX-License-Identifier: MIT */
/* unpackseq: dpkg --unpack's maintainer scripts and states around debunpack's batch. */
#ifndef DEBUNPACK_UNPACKSEQ_H
#define DEBUNPACK_UNPACKSEQ_H

#include <stddef.h>

#include "run/install.h"
#include "util/error.h"
#include "util/stats.h"

/*
 * Install the N package files FILES as `dpkg --unpack` does, maintainer
 * scripts and all (--maintscripts): for each package the old prerm, the
 * status half-installed, the new preinst, the files (one batch of
 * install_run for the packages of a group, see unpackseq.c), the old
 * postrm, the status unpacked, with dpkg's unwinding when a script
 * fails.  A package that fails is left where dpkg leaves it and told
 * (INSTALL_SEQ, UNPACKSEQ_FAILED); the others go on.  O is the run's
 * options (O->dpkg_db is implied).  0 with *FAILED the number of
 * packages that failed, or -errno with ERR for an error that stops the
 * whole call (dpkg's database unreadable or unwritable, say).
 */
int unpackseq_run(const struct install_opts *o, char *const *files,
    size_t n, struct stats *st, unsigned *failed, struct dbp_error *err);

#endif
