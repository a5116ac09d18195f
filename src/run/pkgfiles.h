/* SPDX-License-Identifier: MIT */
/* A run's package files read ahead: the last of several versions stands, what they take, how many threads. */
#ifndef DEBUNPACK_RUN_PKGFILES_H
#define DEBUNPACK_RUN_PKGFILES_H

#include <stddef.h>

#include "deb/control.h"
#include "run/install.h"
#include "util/error.h"

/*
 * How many of JOBS threads the packages FILES (N) can use: one when a
 * package is not a regular file (a pipe cannot be read twice).
 */
unsigned pkgfiles_jobs(unsigned jobs, char *const *files, size_t n);

/* CTL's package as dpkg names it, NAME or NAME:ARCH, into BUF (N bytes). */
const char *pkgfiles_name(const struct control *ctl, char *buf, size_t n);

/*
 * Of several versions of one package in FILES (N), the last one given
 * stands, as dpkg's in-order unpack leaves it; each earlier one is read
 * through all the same (dpkg would fail on a broken one) and told to O's
 * note callback, left out of *KEPT (*NKEPT files, the caller's to free).
 * What the kept packages take (Installed-Size) is told when each says it.
 * 0 or -errno with ERR filled.
 */
int pkgfiles_last(const struct install_opts *o, char *const *files, size_t n,
    char ***kept, size_t *nkept, struct dbp_error *err);

#endif
