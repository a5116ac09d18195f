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

/* Whether FD's filesystem keeps nothing through a power cut (tmpfs). */
bool fskind_volatile(int fd);

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
 * Whether, once a file's data was written back and waited for
 * (sync_file_range), every later metadata change of FD's filesystem
 * reaches the disk only with what makes that data visible (its size, its
 * blocks): ext3 and ext4 with a journal put them in the running jbd2
 * transaction when the writeback maps the blocks, and commit in order;
 * xfs logs the size at the I/O's completion, before the writeback ends,
 * and writes its log in order.  Then a rename of the file over another
 * and one commit (an fsync of the directory) replace it whole, where
 * fdatasync first would be one commit more.  Not btrfs, which records a
 * file's extents after its writeback has ended; false when unknown.
 */
bool fskind_writeback_orders(int fd);

/*
 * Whether FD's filesystem records a written file's extents only after
 * the writeback has ended, in a worker (btrfs: its ordered extents), so
 * that waiting for the writeback does not put them in the running
 * transaction yet.  fallocate(2) waits for them there.
 */
bool fskind_extents_late(int fd);

/*
 * Whether a file on FD's filesystem can be settled without a commit and
 * without a change to it: its data written back and its extents and size
 * recorded in the running transaction, by the FS_IOC_FIEMAP ioctl with
 * FIEMAP_FLAG_SYNC (fileat_writeback_mapped).  btrfs on Linux 6.2 and
 * later, whose fiemap waits for the ordered extents of the whole file
 * there; before, it waits for the writeback only.  fallocate(2) waits
 * for them too, but updates the file's times and drops its setuid bits.
 */
bool fskind_settles(int fd);

/*
 * Whether FD's filesystem keeps every change in the order it was made
 * even when nothing is synced, and a file replaced by a rename over it
 * reaches the disk with its data: ext3 and ext4 with a journal commit
 * their transactions in order, in data=ordered (or journal) mode write a
 * file's newly allocated blocks before the commit that holds them, and
 * with auto_da_alloc (both the defaults) give a file renamed over
 * another its blocks before the rename is committed.  A power cut then
 * leaves some prefix of the changes, but for new names whose file's data
 * had not been written back (an empty file).  False when unknown, or
 * mounted data=writeback or noauto_da_alloc (ext4's options in effect
 * are read from /proc/fs/ext4/DEVICE/options); false for an overlay
 * (a container's root) whatever its upper layer: a rename over a file
 * of a lower layer is a rename onto a new name in the upper one, which
 * auto_da_alloc does not see as a replacement, so dpkg's status file,
 * replaced there for the first time, could come back empty.
 */
bool fskind_orders_replacements(int fd);

/*
 * Whether one fsync (of any file or directory) of FD's filesystem makes
 * every earlier change of its metadata durable too: a journaled ext3 or
 * ext4 without fast commits, whose fsync commits the running jbd2
 * transaction whole after every earlier one, and xfs, whose fsync forces
 * its log up to that inode's last change, every earlier item with it.
 * Not btrfs (an fsync writes its log tree: that inode's changes only) nor
 * ext4 with fast commits (one inode's changes, over the last full
 * commit); false when unknown, and for an overlay.
 */
bool fskind_fsync_commits_all(int fd);

/*
 * Whether an fsync of FD's filesystem writes one inode's changes ahead of
 * a full commit, in a log of its own: btrfs's log tree, ext4's fast
 * commits.  On btrfs a rename of an inode logged in the running
 * transaction goes into the log at once, and the next log write, of any
 * file, makes it durable: renames then reach the disk in another order
 * than they were made.  False when unknown.
 */
bool fskind_fsync_logs(int fd);

/*
 * Whether FD's filesystem makes its metadata durable in the order it
 * was changed, whole transactions at a time, and a file's size only
 * with the blocks it covers, when nothing is synced: xfs (its log, a
 * size logged once the writeback has ended) and btrfs (its
 * transactions, copy on write).  A power cut then leaves the names and
 * modes of some moment, files written since the last sync empty or
 * short, never zeros or another file's old blocks.  Unlike
 * fskind_orders_replacements, a file renamed over another may be
 * empty.  False when unknown, for the ext family (see fskind.c) and for
 * an overlay.
 */
bool fskind_orders_metadata(int fd);

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
