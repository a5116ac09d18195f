/* SPDX-License-Identifier: MIT */
/* The disk under a root: its flush and write counters, for --stats. */
#ifndef DEBUNPACK_DEVSTAT_H
#define DEBUNPACK_DEVSTAT_H

#include <stdint.h>

/* Counters of a whole disk, from its sysfs stat file (Linux). */
struct devstat {
	char name[64];		/* "loop0", "sda" (a partition's disk) */
	char path[128];		/* its stat file */
	uint64_t flushes;	/* cache flush requests completed */
	uint64_t flush_ms;	/* time spent on them */
	uint64_t written;	/* bytes written */
};

/*
 * Find the disk that holds the filesystem of directory ROOT (for a
 * partition, the disk itself, since flushes are counted there) and read
 * its counters into *DS: 0, or -ENODEV when ROOT is not on a block device
 * (tmpfs, NFS, FUSE, overlayfs), -errno otherwise.
 */
int devstat_open(struct devstat *ds, const char *root);

/* Read the counters again: 0 or -errno. */
int devstat_read(struct devstat *ds);

#endif
