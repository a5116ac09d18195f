/* SPDX-License-Identifier: MIT */
/* xz decompression through liblzma: as one stream, or block by block. */
#ifndef DEBUNPACK_XZ_H
#define DEBUNPACK_XZ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The most memory one decoder may take: xz's heaviest preset (-9, a
 * 64 MiB dictionary) needs 65 MiB.  A stream or block that asks for more
 * is refused with a message saying how much it wanted: a header alone
 * must not make the run allocate gigabytes.
 */
#define XZ_MEMLIMIT	((uint64_t)80 << 20)

/* Source of compressed bytes, as gunzip.h's: a chunk, 0 at the end, -1. */
typedef ssize_t (*xz_source)(void *cookie, const void **buf);

struct xz;

/*
 * A decoder of one or more concatenated xz streams (stream padding
 * allowed), each block checked against its check and the index.
 */
int xz_new(struct xz **out, xz_source src, void *cookie);

/*
 * Next chunk of decompressed data in *BUF (valid until the next call):
 * its length, 0 at the end, -1 on error (xz_error says which; a source
 * error reads "source").
 */
ssize_t xz_read(struct xz *x, const void **buf);
const char *xz_error(const struct xz *x);
void xz_free(struct xz *x);

/*
 * The blocks of an xz stream stored at OFF (SIZE bytes) in file FD, as its
 * index gives them: where each starts and how much it decompresses to.
 * Blocks can then be decoded independently, in any order, by any thread.
 */
struct xz_index;

/*
 * Read and check the stream's header, footer and index: 0 with *OUT, 1
 * when the stream cannot be split this way (concatenated streams, padding,
 * no index where the footer says: the caller decodes it as one stream,
 * which says what is wrong if anything is), -ENOMEM or -errno of pread.
 */
int xz_index_read(struct xz_index **out, int fd, off_t off, off_t size);
size_t xz_index_blocks(const struct xz_index *ix);

/* Uncompressed size of block I, for reserving memory. */
uint64_t xz_index_block_size(const struct xz_index *ix, size_t i);
void xz_index_free(struct xz_index *ix);

struct xz_block;

/*
 * Start decoding block I of IX (read from the index's file with pread,
 * so several threads can decode blocks of one file at once).  *MEM is
 * what the decoder needs: more than MEMLIMIT is an error.  On error, -1
 * with what is wrong in WHY (WHYLEN bytes); -ENOMEM when out of memory.
 */
#define XZ_WHY_MAX	128
int xz_block_open(struct xz_block **out, const struct xz_index *ix, size_t i,
    uint64_t memlimit, uint64_t *mem, char *why, size_t whylen);

/*
 * Decode the next bytes of the block into BUF: LEN bytes unless the block
 * ends first, 0 at its end (sizes and check verified), -1 with *WHY.
 */
ssize_t xz_block_read(struct xz_block *b, void *buf, size_t len,
    const char **why);
void xz_block_free(struct xz_block *b);

/*
 * A stream decoder (xz_read) that starts at block I of IX, as if the
 * blocks before it were decoded already: what one decoder reading the
 * whole stream gives from that block on, errors included (the index at
 * the end, which lists the blocks before I too, is always an error when
 * I > 0).  For when block I fails: the bytes and the error the reader
 * sees are then those of one thread reading the stream, whatever the
 * index or the block headers say.  -ENOMEM or -errno.
 */
int xz_resume(struct xz **out, const struct xz_index *ix, size_t i);

/* The version of liblzma, for --version. */
const char *xz_library(void);

#endif
