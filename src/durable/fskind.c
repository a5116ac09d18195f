/* SPDX-License-Identifier: MIT */
/* What a filesystem promises about durability, known by its statfs type. */
#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "durable/fskind.h"

#define FS_EXT		0xef53UL	/* ext2, ext3 and ext4 share it */
#define FS_XFS		0x58465342UL
#define FS_BTRFS	0x9123683eUL
#define FS_F2FS		0xf2f52010UL
#define FS_TMPFS	0x01021994UL

static unsigned long
fskind_type(int fd)
{
	struct statfs sfs;

	return fstatfs(fd, &sfs) == 0 ? (unsigned long)sfs.f_type : 0;
}

/*
 * Overlayfs (Docker, Podman, CI runners), measured on Linux 6.18 with
 * ext4, xfs and btrfs as the upper layer, for descriptors opened through
 * the overlay, with a loop device over a FUSE file that fails chosen
 * writes with EIO under the upper filesystem:
 *  - syncfs writes back and commits the whole upper filesystem (its
 *    sync_fs runs sync_filesystem on the upper superblock, since Linux
 *    4.19): after it, 1,000 new files survived a copy of the disk taken
 *    at once, for 2-4 device flushes; a journal or log failure comes back
 *    from the upper filesystem's sync_fs.  But it returns 0 when the
 *    writeback of a file's data fails with EIO: that error is recorded in
 *    the upper inode's mapping and the upper superblock, and syncfs checks
 *    the overlay's, which only a "volatile" mount ever sets.
 *  - sync_file_range does nothing at all (it works on the overlay
 *    inode's own mapping, which holds no pages), so it neither starts
 *    writeback nor reports errors; posix_fadvise DONTNEED is passed to
 *    the upper file and starts its writeback, reporting nothing.
 *  - fsync and fdatasync reach the upper file and report its writeback
 *    errors, at one device flush each on ext4 and xfs even for a file
 *    already clean (none on btrfs): 10,000 flushes for a minbase root.
 *  - The FS_IOC_FIEMAP ioctl with FIEMAP_FLAG_SYNC is passed to the upper
 *    inode, and writes back and waits for its data (filemap_write_and_
 *    wait), returning the error its mapping holds: after a syncfs that
 *    returned 0 over a failed writeback, it returned EIO for that file,
 *    on a kept descriptor and on one opened after the syncfs, on ext4
 *    and xfs alike; on a clean file it costs no device flush (2,000
 *    files: 0 flushes, 11 ms).  The sync paths (syncfs, the flusher
 *    threads) keep a mapping's error for it.
 * So on an overlay one syncfs per barrier makes everything durable, and
 * each file is then checked with that ioctl (where the upper filesystem
 * has no FIEMAP, tmpfs say, with fdatasync, which costs nothing there).
 * A file stays open until its check, as batched keeps its files, up to
 * the same budget: past it a file is reopened by name for the check,
 * which finds the error as long as the upper inode stays cached (the
 * overlay's dentry holds it; only memory pressure in between could evict
 * it, and the error with it, as for batched's reopened files).
 */
#define FS_OVERLAY	0x794c7630UL

enum fskind_sync
fskind_sync(int fd)
{
	switch (fskind_type(fd)) {
	case FS_EXT: case FS_XFS: case FS_BTRFS: case FS_F2FS: case FS_TMPFS:
		return FSKIND_SYNCFS;
	case FS_OVERLAY:
		return FSKIND_SYNCFS_CHECK;
	default:
		return FSKIND_PERFILE;
	}
}

bool
fskind_syncfs_ok(int fd)
{
	return fskind_sync(fd) != FSKIND_PERFILE;
}

const char *
fskind_name(int fd, char *buf, size_t n)
{
	static const struct {
		unsigned long type;
		const char *name;
	} names[] = {
		{ FS_EXT, "ext4" }, { FS_XFS, "xfs" }, { FS_BTRFS, "btrfs" },
		{ FS_F2FS, "f2fs" }, { FS_TMPFS, "tmpfs" },
		{ FS_OVERLAY, "overlay" }, { 0x65735546UL, "fuse" },
		{ 0x6969UL, "nfs" }, { 0x01021997UL, "9p" },
		{ 0x4d44UL, "vfat" }, { 0x2fc12fc1UL, "zfs" },
		{ 0xca451a4eUL, "bcachefs" },
	};
	unsigned long type = fskind_type(fd);
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].type == type) {
			snprintf(buf, n, "%s", names[i].name);
			return buf;
		}
	snprintf(buf, n, "0x%lx", type);
	return buf;
}

const char *
fskind_how(enum fskind_sync kind)
{
	switch (kind) {
	case FSKIND_SYNCFS:
		return "syncfs";
	case FSKIND_SYNCFS_CHECK:
		return "syncfs+check";
	default:
		return "fdatasync";
	}
}

const char *
fskind_why(enum fskind_sync kind)
{
	switch (kind) {
	case FSKIND_SYNCFS:
		return "syncfs reports writeback errors";
	case FSKIND_SYNCFS_CHECK:
		return "syncfs, each file's writeback error checked";
	default:
		return "syncfs not trusted, fdatasync per file";
	}
}

/*
 * Whether FD's ext2/3/4 filesystem has a journal: jbd2 lists each one it
 * runs in /proc/fs/jbd2 as DEVICE-INODE, DEVICE the block device's name
 * (as /sys/dev/block/MAJOR:MINOR names it).  False when either cannot be
 * read (a container without them): as if it had none.
 */
static bool
fskind_ext_journaled(int fd)
{
	char path[64], link[PATH_MAX];
	const char *dev;
	struct dirent *de;
	struct stat st;
	bool found = false;
	size_t len;
	ssize_t n;
	DIR *d;

	if (fstat(fd, &st) != 0)
		return false;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u",
	    major(st.st_dev), minor(st.st_dev));
	if ((n = readlink(path, link, sizeof(link) - 1)) <= 0)
		return false;
	link[n] = '\0';
	dev = strrchr(link, '/') != NULL ? strrchr(link, '/') + 1 : link;
	len = strlen(dev);
	if ((d = opendir("/proc/fs/jbd2")) == NULL)
		return false;
	while (!found && (de = readdir(d)) != NULL)
		found = strncmp(de->d_name, dev, len) == 0 &&
		    de->d_name[len] == '-';
	closedir(d);
	return found;
}

bool
fskind_fsync_names_new(int fd)
{
	switch (fskind_type(fd)) {
	case FS_XFS: case FS_BTRFS:
		return true;
	case FS_EXT:
		/*
		 * With a journal: the fsync commits the transaction that
		 * holds the file's inode, and jbd2 commits in order, so the
		 * one that made its name is durable too.  Without (ext2, or
		 * ext4 made without one), POSIX's fsync of the directory.
		 */
		return fskind_ext_journaled(fd);
	default:
		return false;
	}
}

/*
 * Whether the filesystem of FD is mounted with super option OPT (one of
 * the comma-separated words after " - TYPE SOURCE " in mountinfo): -1
 * when no mount of its device is found.
 */
static int
fskind_super_opt(int fd, const char *opt)
{
	char line[4096], dev[32], *p, *w, *save;
	struct stat st;
	int found = -1;
	FILE *fp;

	if (fstat(fd, &st) != 0 ||
	    (fp = fopen("/proc/self/mountinfo", "re")) == NULL)
		return -1;
	snprintf(dev, sizeof(dev), " %u:%u ", major(st.st_dev),
	    minor(st.st_dev));
	while (found != 1 && fgets(line, sizeof(line), fp) != NULL) {
		if (strstr(line, dev) == NULL ||
		    (p = strstr(line, " - ")) == NULL)
			continue;
		/* Past the type and the source: the super options. */
		if ((p = strchr(p + 3, ' ')) == NULL ||
		    (p = strchr(p + 1, ' ')) == NULL)
			continue;
		p[strcspn(p, "\n")] = '\0';
		found = 0;
		for (w = strtok_r(p + 1, ",", &save); w != NULL;
		    w = strtok_r(NULL, ",", &save))
			if (strcmp(w, opt) == 0)
				found = 1;
	}
	fclose(fp);
	return found;
}

bool
fskind_orders_replacements(int fd)
{
	return fskind_type(fd) == FS_EXT && fskind_ext_journaled(fd) &&
	    fskind_super_opt(fd, "noauto_da_alloc") == 0 &&
	    fskind_super_opt(fd, "data=writeback") == 0;
}

bool
fskind_writeback_orders(int fd)
{
	switch (fskind_type(fd)) {
	case FS_XFS:
		return true;
	case FS_EXT:
		return fskind_ext_journaled(fd);
	default:
		return false;
	}
}

bool
fskind_links_new(int fd)
{
	switch (fskind_type(fd)) {
	case FS_XFS: case FS_OVERLAY:
		return true;
	default:
		return false;
	}
}

bool
fskind_dir_ino_stable(int fd)
{
	return fskind_type(fd) != FS_OVERLAY;
}
