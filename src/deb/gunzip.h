/* SPDX-License-Identifier: MIT */
/* gzip decompression through zlib, trailer checks included. */
#ifndef DEBUNPACK_GUNZIP_H
#define DEBUNPACK_GUNZIP_H

#include <sys/types.h>

struct gunzip;

/*
 * Source of compressed bytes: returns a chunk in *BUF (valid until the
 * next call), 0 at the end, -1 on error.
 */
typedef ssize_t (*gunzip_source)(void *cookie, const void **buf);

int gunzip_new(struct gunzip **out, gunzip_source src, void *cookie);

/*
 * Next chunk of decompressed data in *BUF (valid until the next call):
 * its length, 0 at the end of the last gzip member, -1 on error
 * (gunzip_error says which; a source error reads "source").
 */
ssize_t gunzip_read(struct gunzip *g, const void **buf);

const char *gunzip_error(const struct gunzip *g);

void gunzip_free(struct gunzip *g);

/* The version of zlib, for --version. */
const char *gunzip_library(void);

#endif
