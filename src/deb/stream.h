/* SPDX-License-Identifier: MIT */
/* An archive entry's data streamed into a file, digested on the way. */
#ifndef DEBUNPACK_STREAM_H
#define DEBUNPACK_STREAM_H

#include <signal.h>
#include <stdint.h>

#include "util/digest.h"
#include "util/error.h"

struct archive;

/*
 * A second file the data is written to (the store's copy): a failure
 * there is noted in ERRNUM and ends the copy, never the stream.
 */
struct stream_tee {
	int fd;
	int errnum;
};

/* Where an entry's data goes, and what sees it on the way. */
struct stream_to {
	struct archive *a;	/* positioned at the entry */
	int fd;			/* the file, written at the entry's offsets;
			   -1: none, the data is only read and digested */
	const char *path;	/* what errors call it */
	struct digest *sha;	/* SHA-256 of the data */
	struct digest *md5;	/* MD5 too, or NULL */
	const volatile sig_atomic_t *stop;	/* set: stop with EINTR; may be NULL */
	uint64_t *bytes;	/* incremented by the bytes written */
	struct stream_tee *tee;	/* or NULL */
};

/*
 * Write the current entry of S->a, SIZE bytes (holes of a sparse entry
 * stay holes, and are digested as zeros), and put its SHA-256 in SHA and,
 * with S->md5, its MD5 in MD5 (DIGEST_MD5_LEN bytes).  Memory use does
 * not depend on the entry's size: the record needs the digest, and
 * reading the file again would cost a second pass.  0 or -errno with ERR
 * filled.
 */
int stream_entry(const struct stream_to *s, int64_t size,
    uint8_t sha[DIGEST_LEN], uint8_t *md5, struct dbp_error *err);

#endif
