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
#include <sys/utsname.h>
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
fskind_volatile(int fd)
{
	return fskind_type(fd) == FS_TMPFS;
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
 * The name of the block device of FD's filesystem (as /sys/dev/block and
 * /proc/partitions name it: "vda", "loop0") into BUF (N bytes): false
 * when neither can be read (a container or chroot without them).
 */
static bool
fskind_devname(int fd, char *buf, size_t n)
{
	char path[64], link[PATH_MAX], line[256], name[128];
	unsigned maj, min;
	struct stat st;
	bool found = false;
	ssize_t len;
	FILE *fp;

	if (fstat(fd, &st) != 0)
		return false;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u",
	    major(st.st_dev), minor(st.st_dev));
	if ((len = readlink(path, link, sizeof(link) - 1)) > 0) {
		const char *base;

		link[len] = '\0';
		base = strrchr(link, '/') != NULL ? strrchr(link, '/') + 1 :
		    link;
		if (strlen(base) >= n)
			return false;
		memcpy(buf, base, strlen(base) + 1);
		return true;
	}
	/* No /sys: the kernel's list of partitions, in /proc. */
	if ((fp = fopen("/proc/partitions", "re")) == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "%u %u %*u %127s", &maj, &min, name) == 3 &&
		    maj == major(st.st_dev) && min == minor(st.st_dev) &&
		    strlen(name) < n) {
			memcpy(buf, name, strlen(name) + 1);
			found = true;
		}
	fclose(fp);
	return found;
}

/*
 * Whether FD's ext2/3/4 filesystem has a journal: jbd2 lists each one it
 * runs in /proc/fs/jbd2 as DEVICE-INODE.  False when either cannot be
 * read (a container without them): as if it had none.
 */
static bool
fskind_dev_journaled(const char *dev)
{
	struct dirent *de;
	bool found = false;
	size_t len = strlen(dev);
	DIR *d;

	if ((d = opendir("/proc/fs/jbd2")) == NULL)
		return false;
	while (!found && (de = readdir(d)) != NULL)
		found = strncmp(de->d_name, dev, len) == 0 &&
		    de->d_name[len] == '-';
	closedir(d);
	return found;
}

static bool
fskind_ext_journaled(int fd)
{
	char dev[128];

	return fskind_devname(fd, dev, sizeof(dev)) &&
	    fskind_dev_journaled(dev);
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

/* What a journaled ext4's options in effect say, for the two below. */
struct fskind_ext_opts {
	bool ordered;		/* data=ordered or data=journal */
	bool auto_da;		/* auto_da_alloc */
	bool fast_commit;
};

static bool
fskind_ext_opts(int fd, struct fskind_ext_opts *o)
{
	char dev[128], path[192], line[128];
	FILE *fp;

	memset(o, 0, sizeof(*o));
	if (fskind_type(fd) != FS_EXT || !fskind_devname(fd, dev, sizeof(dev)) ||
	    !fskind_dev_journaled(dev))
		return false;
	/* ext4 lists every option in effect there, defaults included. */
	snprintf(path, sizeof(path), "/proc/fs/ext4/%s/options", dev);
	if ((fp = fopen(path, "re")) == NULL)
		return false;
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line, "data=ordered") == 0 ||
		    strcmp(line, "data=journal") == 0)
			o->ordered = true;
		else if (strcmp(line, "auto_da_alloc") == 0)
			o->auto_da = true;
		/*
		 * Fast commits on (the mount option or mkfs's feature):
		 * ext4 shows their flag under this name, the first of its
		 * options that set it.
		 */
		else if (strcmp(line, "fc_debug_force") == 0 ||
		    strcmp(line, "fast_commit") == 0)
			o->fast_commit = true;
	}
	fclose(fp);
	return true;
}

bool
fskind_orders_replacements(int fd)
{
	struct fskind_ext_opts o;

	return fskind_ext_opts(fd, &o) && o.ordered && o.auto_da;
}

bool
fskind_fsync_commits_all(int fd)
{
	struct fskind_ext_opts o;

	switch (fskind_type(fd)) {
	case FS_XFS:
		return true;
	case FS_EXT:
		return fskind_ext_opts(fd, &o) && !o.fast_commit;
	default:
		return false;
	}
}

bool
fskind_fsync_logs(int fd)
{
	struct fskind_ext_opts o;

	switch (fskind_type(fd)) {
	case FS_BTRFS:
		return true;
	case FS_EXT:
		return fskind_ext_opts(fd, &o) && o.fast_commit;
	default:
		return false;
	}
}

bool
fskind_orders_metadata(int fd)
{
	/*
	 * Not the ext family without auto_da_alloc: its journal can hold a
	 * new file's size before the blocks it names are written, and the
	 * file then reads as zeros (the power-loss matrix finds dpkg's
	 * update files so, which dpkg refuses to parse).
	 */
	switch (fskind_type(fd)) {
	case FS_XFS: case FS_BTRFS:
		return true;
	default:
		return false;
	}
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
fskind_extents_late(int fd)
{
	return fskind_type(fd) == FS_BTRFS;
}

/* Whether the running kernel is Linux MAJOR.MINOR or later. */
static bool
fskind_linux_since(int major, int minor)
{
	struct utsname u;
	int ma, mi;

	if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

bool
fskind_settles(int fd)
{
	static int since = -1;

	if (!fskind_extents_late(fd))
		return false;
	if (since < 0)
		since = fskind_linux_since(6, 2);
	return since;
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
