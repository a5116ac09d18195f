/* What a filesystem promises about durability, known by its statfs type. */
#include "config.h"

#include <stddef.h>
#include <sys/vfs.h>

#include "fskind.h"

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

bool
fskind_syncfs_ok(int fd)
{
	switch (fskind_type(fd)) {
	case FS_EXT: case FS_XFS: case FS_BTRFS: case FS_F2FS: case FS_TMPFS:
		return true;
	default:
		return false;
	}
}

bool
fskind_fsync_names_new(int fd)
{
	/*
	 * Not the ext family: ext2 has its magic and no journal, and statfs
	 * cannot tell it from ext4.
	 */
	switch (fskind_type(fd)) {
	case FS_XFS: case FS_BTRFS:
		return true;
	default:
		return false;
	}
}
