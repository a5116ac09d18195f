/* SPDX-License-Identifier: MIT */
/* Names at a directory descriptor: a whole small file read, what a name is, an unlink that tolerates absence; a file's data written back, or read exactly at an offset. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fiemap.h>
#include <linux/fs.h>

#include "durable/fileat.h"

int
fileat_read(int dfd, const char *name, char **out, size_t *len)
{
	struct stat st;
	ssize_t n;
	size_t got = 0;
	char *buf;
	int fd, e;

	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -errno;
	e = fstat(fd, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : 0;
	if (e != 0) {
		close(fd);
		return -e;
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	e = got == (size_t)st.st_size ? 0 : errno != 0 ? errno : EIO;
	close(fd);
	if (e != 0) {
		free(buf);
		return -e;
	}
	buf[got] = '\0';
	*out = buf;
	*len = got;
	return 0;
}

bool
fileat_exists(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

bool
fileat_is_dir(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode);
}

bool
fileat_same(int dfd, const char *a, const char *b)
{
	struct stat sa, sb;

	return fstatat(dfd, a, &sa, AT_SYMLINK_NOFOLLOW) == 0 &&
	    fstatat(dfd, b, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	    sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int
fileat_unlink(int dfd, const char *name)
{
	return unlinkat(dfd, name, 0) == 0 || errno == ENOENT ? 0 : -errno;
}

int
fileat_remove_old(int dfd, const char *base, char type)
{
	struct stat st;

	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    (type == 'd') != (S_ISDIR(st.st_mode) != 0))
		return 0;
	if (type == 'd')	/* not empty: it holds someone's files */
		return unlinkat(dfd, base, AT_REMOVEDIR) == 0;
	return unlinkat(dfd, base, 0) == 0 ? 1 : -errno;
}

int
fileat_writeback(int fd)
{
#ifdef HAVE_SYNC_FILE_RANGE
	if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE |
	    SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) == 0)
		return 0;
	if (errno != ENOSYS && errno != EINVAL)
		return -1;
#else
	(void)fd;
#endif
	return 1;
}

int
fileat_pread(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n;

	while (len > 0) {
		n = pread(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 1;
		buf = (char *)buf + n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

int
fileat_writeback_mapped(int fd)
{
	struct fiemap fm;

	/* No extent is asked for: the writeback before the mapping is all. */
	memset(&fm, 0, sizeof(fm));
	fm.fm_length = FIEMAP_MAX_OFFSET;
	fm.fm_flags = FIEMAP_FLAG_SYNC;
	if (ioctl(fd, FS_IOC_FIEMAP, &fm) == 0)
		return 0;
	if (errno == EOPNOTSUPP || errno == ENOTTY || errno == ENOSYS ||
	    errno == EBADR)
		return 1;
	return -1;
}
