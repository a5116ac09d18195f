/* SPDX-License-Identifier: MIT */
/* The filesystems a run or a repair changes, each judged once: one syncfs where it is trusted. */
#ifndef DEBUNPACK_FSSET_H
#define DEBUNPACK_FSSET_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"
#include "durable/fskind.h"

struct fsset;

int fsset_new(struct fsset **out);

/*
 * Add the filesystem of FD (PATH names it in messages) if it is not in
 * the set yet, keeping a descriptor of it for syncfs: syncfs reports a
 * writeback error only to descriptors opened before it, so add before
 * writing there.  *KIND (if not NULL) tells how that filesystem is made
 * durable (fskind.h): where syncfs is not trusted, the caller syncs what
 * it changed there itself; where it is but not for data errors, the
 * caller checks each file after the syncfs.  -ENOMEM or -errno.
 */
int fsset_add(struct fsset *fs, int fd, const char *path,
    enum fskind_sync *kind);

/* Whether FD's filesystem is in the set; *KIND as fsset_add says. */
bool fsset_has(const struct fsset *fs, int fd, enum fskind_sync *kind);

/*
 * Whether the set is one filesystem whose journal commits every change
 * in the order it was made, a commit flushing the device's cache first
 * (fskind_fsync_commits_all): there a file written back and waited for
 * before a rename is durable with whichever commit makes the rename
 * durable, and needs no commit of its own.
 */
bool fsset_ordered(const struct fsset *fs);

/*
 * Whether the set is one filesystem that commits whole transactions in
 * turn but records a write's extents only after it completes, in a
 * worker, and where a file can be settled (btrfs: fskind_settles): there
 * a file settled before a rename is durable with whichever transaction
 * commit makes the rename durable.  Unlike fsset_ordered, an fsync of
 * another file can make a later change durable alone (btrfs's log tree).
 */
bool fsset_settles(const struct fsset *fs);

/*
 * Whether FD's filesystem, in the set, keeps its changes in order as
 * fsset_ordered or fsset_settles say, whatever else is in the set: a
 * change made there before another reaches the disk with it.
 */
bool fsset_in_order(const struct fsset *fs, int fd);

/* How many filesystems the set holds; the Ith one's first path and kind. */
size_t fsset_count(const struct fsset *fs);
const char *fsset_get(const struct fsset *fs, size_t i,
    enum fskind_sync *kind, char *type, size_t n);

/*
 * syncfs every filesystem of the set where it is trusted; *COUNT is
 * incremented per call.  The first failure is returned, naming the
 * path its filesystem was added with.
 */
int fsset_syncfs(struct fsset *fs, unsigned long *count,
    struct dbp_error *err);

/* Close the kept descriptors: nothing can be synced after. */
void fsset_close(struct fsset *fs);

void fsset_free(struct fsset *fs);

#endif
