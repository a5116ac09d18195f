/* SPDX-License-Identifier: MIT */
/* What a filesystem promises about durability, known by its statfs type. */
#ifndef DEBUNPACK_FSKIND_H
#define DEBUNPACK_FSKIND_H

#include <stdbool.h>
#include <stddef.h>

/* How the files of a filesystem are made durable, and their errors seen. */
enum fskind_sync {
	/* fdatasync each file: syncfs may not reach the storage (unknown) */
	FSKIND_PERFILE,
	/*
	 * syncfs writes back every dirty page and inode, commits the
	 * journal, flushes the device cache and reports writeback errors:
	 * ext2/3/4, xfs, btrfs, f2fs, and tmpfs (nothing to make durable)
	 */
	FSKIND_SYNCFS,
	/*
	 * syncfs makes everything durable and reports metadata errors, but
	 * a file's data writeback error only shows on that file: overlayfs
	 * (see fskind.c); each file is checked after the syncfs
	 */
	FSKIND_SYNCFS_CHECK,
};

enum fskind_sync fskind_sync(int fd);

/* Whether syncfs(2) makes FD's filesystem durable (FSKIND_SYNCFS or _CHECK). */
bool fskind_syncfs_ok(int fd);

/* The name of FD's filesystem type ("ext4" for the ext family), in BUF. */
const char *fskind_name(int fd, char *buf, size_t n);

/* KIND in a word, and why it was chosen in a few, for --stats. */
const char *fskind_how(enum fskind_sync kind);
const char *fskind_why(enum fskind_sync kind);

/*
 * Whether fsync(2) of a file created in FD's filesystem also makes its
 * directory entry durable, so that no fsync of the directory is needed:
 * xfs forces its log up to the file's creation, which holds the entry;
 * btrfs logs a new inode's names with it; ext3 and ext4 commit the jbd2
 * transactions in order, the one that made the name first.  False when
 * unknown, and for the ext family without a journal (ext2, which statfs
 * does not tell apart from ext4; POSIX asks for the directory's fsync).
 */
bool fskind_fsync_names_new(int fd);

/*
 * Whether a new name in FD's directory is better linked to its temporary,
 * the temporary removed after all links, than renamed (syncbatch.c,
 * sb_rename_one): on xfs, where renames of new names keep converting a
 * directory between its block forms and force the log each time, and on
 * an overlay, whose upper layer may be xfs.  Elsewhere a rename is one
 * directory operation where the link and the unlink are two (renames
 * take 6 % less time than links on ext4, 12 % on btrfs, for 10,000 new
 * files: bench/results/links-rename), and on FUSE or NFS an unlink may
 * leave the file under a hidden name (.fuse_hidden*, .nfs*), which a
 * power cut keeps.
 */
bool fskind_links_new(int fd);

/*
 * Whether a directory of FD's filesystem keeps its inode number while
 * it exists.  Not on overlayfs: when its layers are on different
 * filesystems and xino is off, a directory's st_ino is the overlay
 * inode's own, given anew each time the inode is read back into memory
 * (dropped caches, memory pressure).
 */
bool fskind_dir_ino_stable(int fd);

#endif
