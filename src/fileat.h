/* Reading a whole small file at a directory descriptor. */
#ifndef DEBUNPACK_FILEAT_H
#define DEBUNPACK_FILEAT_H

#include <stddef.h>

/*
 * Read all of regular file NAME in directory DFD (not following a final
 * symlink) into *OUT, NUL-terminated, *LEN bytes; *OUT is the caller's.
 * Whole or not at all: 0, -ENOENT, -EINVAL (not a regular file), or
 * another -errno.
 */
int fileat_read(int dfd, const char *name, char **out, size_t *len);

#endif
