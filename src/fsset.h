/* The filesystems a run or a repair changes, each judged once: one syncfs where it is trusted. */
#ifndef DEBUNPACK_FSSET_H
#define DEBUNPACK_FSSET_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

struct fsset;

int fsset_new(struct fsset **out);

/*
 * Add the filesystem of FD (PATH names it in messages) if it is not in
 * the set yet, keeping a descriptor of it for syncfs: syncfs reports a
 * writeback error only to descriptors opened before it, so add before
 * writing there.  *OK (if not NULL) tells whether syncfs is trusted on
 * that filesystem (fskind.h); where it is not, the caller syncs what it
 * changed there itself.  -ENOMEM or -errno.
 */
int fsset_add(struct fsset *fs, int fd, const char *path, bool *ok);

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
