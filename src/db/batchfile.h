/* SPDX-License-Identifier: MIT */
/* batchfile: a small file of the run's own, written whole under a temporary name and handed to the batch. */
#ifndef DEBUNPACK_BATCHFILE_H
#define DEBUNPACK_BATCHFILE_H

#include <sys/types.h>

#include "durable/dirs.h"
#include "util/error.h"
#include "syncbatch.h"

/*
 * The records and dpkg's database are written as the packages' files
 * are: a temporary beside the final name, made durable and renamed over
 * it by the batch, undone with it.
 */
struct batchfile {
	struct syncbatch *sb;
	const char *path;	/* root-relative final path, for errors */
	int fd;
	size_t item;		/* in the batch */
};

/*
 * Create the temporary of NAME in directory IDX of D with MODE and
 * register it with SB for PATH (NAME's root-relative path); a leftover of
 * a killed run by that name is replaced.  0 or -errno with ERR filled.
 */
int batchfile_open(struct batchfile *bf, struct syncbatch *sb,
    struct dirs *d, size_t idx, const char *path, const char *name,
    mode_t mode, struct dbp_error *err);

/* Write LEN bytes of DATA.  0 or -errno with ERR filled. */
int batchfile_write(struct batchfile *bf, const void *data, size_t len,
    struct dbp_error *err);

/*
 * The file is complete when R is 0: the batch takes its descriptor.
 * Otherwise the descriptor is closed (the batch's abort removes the
 * temporary).  Returns R, or the batch's error.
 */
int batchfile_end(struct batchfile *bf, int r, struct dbp_error *err);

#endif
