/* SHA-256 of data already on disk, for conffile checks and --verify. */
#ifndef DEBUNPACK_DIGEST_H
#define DEBUNPACK_DIGEST_H

#include <stdint.h>

#define DIGEST_LEN	32

/*
 * SHA-256 of NAME in directory DFD, opened without following a final
 * symlink; 0, or -errno.  Memory use does not depend on the file's size.
 */
int digest_file_at(int dfd, const char *name, uint8_t out[DIGEST_LEN]);

#endif
