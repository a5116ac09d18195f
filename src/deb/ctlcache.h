/* SPDX-License-Identifier: MIT */
/* Control members decoded once per process: the same bytes give what they gave before. */
#ifndef DEBUNPACK_CTLCACHE_H
#define DEBUNPACK_CTLCACHE_H

#include <stddef.h>

/*
 * A run reads each package's control member several times (the versions
 * that stand, the unpack order, the install itself), and decoding it is
 * what those reads cost: xz starts a decoder for a few kilobytes.  What
 * the tar reader was given the first time is kept here with the member's
 * bytes as the package file holds them, and given again for the same
 * bytes, compared whole: nothing about the file (name, inode, times) is
 * trusted.  Only members read to their end without an error are kept,
 * at most CTLCACHE_MAX bytes of both in all; past that, members are
 * decoded each time.
 */
#define CTLCACHE_MAX		(32 * 1024 * 1024)
/* A member larger than this is read as a stream, and not kept. */
#define CTLCACHE_MEMBER_MAX	(4 * 1024 * 1024)

/*
 * What was kept for the member MEMBER (MLEN bytes), *LEN bytes, or NULL.
 * Valid until ctlcache_clear.  Thread-safe.
 */
const void *ctlcache_find(const void *member, size_t mlen, size_t *len);

/*
 * Keep BUF (LEN bytes, taken: freed here when it is not kept) for the
 * member MEMBER (MLEN bytes, copied).
 */
void ctlcache_add(const void *member, size_t mlen, void *buf, size_t len);

/* Whether LEN more bytes would still be kept: a reader stops copying. */
int ctlcache_room(size_t len);

/* Free what is kept (at exit, when no reader uses it). */
void ctlcache_clear(void);

#endif
