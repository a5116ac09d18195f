/* SPDX-License-Identifier: MIT */
/* Decoding ahead of apt's dpkg calls: a process that decodes the packages apt will unpack next. */
#ifndef DEBUNPACK_AHEAD_H
#define DEBUNPACK_AHEAD_H

#include <stddef.h>
#include <sys/stat.h>

#include "util/error.h"

/*
 * apt runs dpkg once for every few packages, one call after the other,
 * and between them it plans, and dpkg configures (maintainer scripts,
 * most of them one process at a time): a core stays idle most of an
 * apt run, while each unpack call decodes its packages on the critical
 * path.  apt names every package file of the run before its first dpkg
 * call (DPkg::Pre-Install-Pkgs); ahead_start hands them to a process of
 * the machine that decodes their data members in that order, into
 * sealed memory files, a bounded amount ahead (AHEAD_BUDGET_MAX).  An
 * unpack call asks it for each of its packages (ahead_take, from the
 * decoding threads, feed.c) and reads the decoded tar instead of
 * decoding it; a package it has not reached is decoded by the call, as
 * without it.  The root never sees the difference: the bytes are the
 * data member's, its checks passed, and the call still reads the
 * container, its control and the order of its members itself.
 */

/* At most this many decoded bytes wait for their calls (and a quarter of the free memory). */
#define AHEAD_BUDGET_MAX	((size_t)1 << 30)

struct ahead_proc;

/*
 * Hand the package files FILES[0..N-1] (absolute paths, apt's order) to the decoding
 * process of this user, or start one with them when none runs: then
 * this process forks, and in the child (detached from the caller's
 * session, terminal and descriptors) *SERVE is set, which the child's
 * main passes to ahead_serve and ahead_proc_free before it exits.  0,
 * or -errno with ERR: the run goes on without it.
 */
int ahead_start(char *const *files, size_t n, struct ahead_proc **serve,
    struct dbp_error *err);

/*
 * The decoding process's life: returns when it ends (aheadd.c says
 * when), 0, or 1 when its decoding thread still runs: then D must not
 * be freed, and the process exits at once.
 */
int ahead_serve(struct ahead_proc *d);
void ahead_proc_free(struct ahead_proc *d);

/*
 * A call's package files FILES[0..N-1], before it asks for any: the
 * process starts none of them (the call decodes with every thread it
 * has what is not decoded yet) and goes on past them.  Nothing when no
 * process runs.
 */
void ahead_claim(char *const *files, size_t n);

/*
 * The decoded data member of package file FILE, which the caller has
 * open as ST (dev, inode, size and times must match what the process
 * decoded): a descriptor of a sealed memory file read from its start,
 * its size in *LEN.  -1 when there is none (no process, the package not
 * reached yet or not decodable): the caller decodes it.  Where the
 * process is decoding that package now, waits for it.
 */
int ahead_take(const char *file, const struct stat *st, size_t *len);

#endif
