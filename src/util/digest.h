/* SPDX-License-Identifier: MIT */
/* SHA-256 (and MD5 for dpkg): of archive data as it streams by, and of files on disk. */
#ifndef DEBUNPACK_DIGEST_H
#define DEBUNPACK_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define DIGEST_LEN	32
/* MD5, which dpkg's database keeps for conffiles. */
#define DIGEST_MD5_LEN	16

/* A running SHA-256, reusable from one file to the next. */
struct digest;

int digest_new(struct digest **out);
/* The same for MD5: digest_end fills DIGEST_MD5_LEN bytes. */
int digest_new_md5(struct digest **out);
void digest_free(struct digest *d);

/* Start over; 0 (Nettle cannot fail once D is made). */
int digest_start(struct digest *d);
void digest_add(struct digest *d, const void *buf, size_t len);
/* The digest since digest_start, which starts D over; 0. */
int digest_end(struct digest *d, uint8_t out[DIGEST_LEN]);

/*
 * SHA-256 of NAME in directory DFD, opened without following a final
 * symlink, computed with D; 0, or -errno.  Memory use does not depend on
 * the file's size.
 */
int digest_file_at(struct digest *d, int dfd, const char *name,
    uint8_t out[DIGEST_LEN]);

/* SHA-256 of what is left to read from FD (the caller's), computed with D. */
int digest_fd(struct digest *d, int fd, uint8_t out[DIGEST_LEN]);

/* The hashing library and its version, for --version. */
const char *digest_library(void);

#endif
