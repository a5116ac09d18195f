/* SPDX-License-Identifier: MIT */
/* Names at a directory descriptor: a whole small file read, what a name is, an unlink that tolerates absence; a file's data written back, or read exactly at an offset. */
#ifndef DEBUNPACK_FILEAT_H
#define DEBUNPACK_FILEAT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Read all of regular file NAME in directory DFD (not following a final
 * symlink) into *OUT, NUL-terminated, *LEN bytes; *OUT is the caller's.
 * Whole or not at all: 0, -ENOENT, -EINVAL (not a regular file), or
 * another -errno.
 */
int fileat_read(int dfd, const char *name, char **out, size_t *len);

/* NAME in DFD exists / is a directory (a final symlink not followed). */
bool fileat_exists(int dfd, const char *name);
bool fileat_is_dir(int dfd, const char *name);

/* A and B in DFD are one inode (two links, not followed). */
bool fileat_same(int dfd, const char *a, const char *b);

/* Unlink non-directory NAME in DFD: 0 if it is gone (or was), or -errno. */
int fileat_unlink(int dfd, const char *name);

/*
 * Remove BASE in DFD, an old version's path of record type TYPE, as the
 * run and the repair after a crash both do: a directory only when empty,
 * nothing whose type changed since.  1 if removed, 0 if left, or -errno
 * when a file could not be removed.
 */
int fileat_remove_old(int dfd, const char *base, char type);

/*
 * Write FD's dirty data back and wait for it, without a commit of the
 * filesystem's own (sync_file_range): 0; 1 when this system cannot
 * (the caller syncs the file instead); -1 with errno set.
 */
int fileat_writeback(int fd);

/* Read LEN bytes of FD at OFF exactly: 0, 1 when the file ends first, -errno. */
int fileat_pread(int fd, void *buf, size_t len, off_t off);

/*
 * Write FD's dirty data back where sync_file_range does nothing: the
 * FS_IOC_FIEMAP ioctl with FIEMAP_FLAG_SYNC, which an overlay passes to
 * its upper file (fskind.c).  0; 1 when the filesystem has no such
 * ioctl (the caller syncs the file instead); -1 with errno set.
 */
int fileat_writeback_mapped(int fd);

#endif
