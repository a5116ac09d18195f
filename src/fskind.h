/* What a filesystem promises about durability, known by its statfs type. */
#ifndef DEBUNPACK_FSKIND_H
#define DEBUNPACK_FSKIND_H

#include <stdbool.h>

/*
 * Whether syncfs(2) on FD's filesystem writes back every dirty page and
 * inode, commits the filesystem's journal, flushes the device cache and
 * reports writeback errors: ext2/3/4, xfs, btrfs, f2fs, and tmpfs (which
 * has nothing to make durable).  False when unknown.
 */
bool fskind_syncfs_ok(int fd);

/*
 * Whether fsync(2) of a file created in FD's filesystem also makes its
 * directory entry durable, so that no fsync of the directory is needed:
 * xfs forces its log up to the file's creation, which holds the entry;
 * btrfs logs a new inode's names with it.  False when unknown, and for
 * ext2/3/4, whose type statfs does not tell apart from ext2's, which has
 * no journal (POSIX asks for the directory's fsync).
 */
bool fskind_fsync_names_new(int fd);

#endif
