/* SPDX-License-Identifier: MIT */
/* A FUSE file system of one disk image that logs every write and flush, for crash tests. */
#define FUSE_USE_VERSION 31
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crashlog.h"

/*
 * usage: recorder IMAGE LOG MOUNTPOINT
 *
 * MOUNTPOINT/disk reads and writes IMAGE; each write is applied to it
 * and appended to LOG (CRASHLOG_WRITE), each fsync or fdatasync becomes a
 * CRASHLOG_FLUSH, each write to MOUNTPOINT/mark a CRASHLOG_MARK holding
 * the text written.  A loop device on MOUNTPOINT/disk turns the cache
 * flushes of the file system on it into fsyncs of the file, in order, so
 * the log is the device's history: replaying a prefix up to a flush gives
 * what a disk may hold after a power cut there (crashreplay.c).
 *
 * Writing a string (up to 64 bytes) to MOUNTPOINT/fail makes every later
 * write to the disk whose data holds it fail with EIO, not applied nor
 * logged; emptying it (": > fail") stops that.  A file whose blocks are full
 * of such a string thus gets real writeback errors from the kernel, and
 * the file system's metadata, which never holds it, none.
 *
 * The kernel's writeback cache is off and files are direct_io, so a
 * write is logged before the kernel sees it complete; one lock keeps the
 * log in completion order.
 */

static struct {
	int img;
	FILE *log;
	off_t size;
	pthread_mutex_t lock;
	int err;
	char fail[64];
	size_t faillen;
} rec = { -1, NULL, 0, PTHREAD_MUTEX_INITIALIZER, 0, "", 0 };

static void
rec_log(uint32_t type, uint64_t off, const void *data, uint32_t len)
{
	struct crashlog_hdr h;

	h.type = type;
	h.len = len;
	h.off = off;
	if (fwrite(&h, sizeof(h), 1, rec.log) != 1 ||
	    (len > 0 && fwrite(data, len, 1, rec.log) != 1))
		rec.err = EIO;
}

static void *
rec_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	return NULL;
}

static int
rec_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (strcmp(path, "/disk") == 0) {
		st->st_mode = S_IFREG | 0600;
		st->st_nlink = 1;
		st->st_size = rec.size;
	} else if (strcmp(path, "/mark") == 0 || strcmp(path, "/fail") == 0) {
		st->st_mode = S_IFREG | 0200;
		st->st_nlink = 1;
	} else
		return -ENOENT;
	return 0;
}

static int
rec_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
    struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/") != 0)
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "disk", NULL, 0, 0);
	fill(buf, "mark", NULL, 0, 0);
	fill(buf, "fail", NULL, 0, 0);
	return 0;
}

static int
rec_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/disk") != 0 && strcmp(path, "/mark") != 0 &&
	    strcmp(path, "/fail") != 0)
		return -ENOENT;
	/* Opened with O_TRUNC (": > fail"): the kernel may not truncate. */
	if (strcmp(path, "/fail") == 0 && (fi->flags & O_TRUNC))
		rec.faillen = 0;
	fi->direct_io = 1;
	return 0;
}

static int
rec_read(const char *path, char *buf, size_t n, off_t off,
    struct fuse_file_info *fi)
{
	ssize_t r;

	(void)fi;
	if (strcmp(path, "/disk") != 0)
		return -EINVAL;
	r = pread(rec.img, buf, n, off);
	return r < 0 ? -errno : (int)r;
}

static int
rec_write(const char *path, const char *buf, size_t n, off_t off,
    struct fuse_file_info *fi)
{
	ssize_t r;

	(void)fi;
	pthread_mutex_lock(&rec.lock);
	if (strcmp(path, "/mark") == 0) {
		rec_log(CRASHLOG_MARK, 0, buf, (uint32_t)n);
		r = (ssize_t)n;
	} else if (strcmp(path, "/fail") == 0) {
		/* A trailing newline (echo) is not part of the string. */
		rec.faillen = n > 0 && buf[n - 1] == '\n' ? n - 1 : n;
		if (rec.faillen > sizeof(rec.fail))
			rec.faillen = sizeof(rec.fail);
		memcpy(rec.fail, buf, rec.faillen);
		r = (ssize_t)n;
	} else if (off < 0 || (off_t)(off + n) > rec.size)
		r = -ENOSPC;
	else if (rec.faillen > 0 && memmem(buf, n, rec.fail, rec.faillen))
		r = -EIO;
	else if ((r = pwrite(rec.img, buf, n, off)) < 0)
		r = -errno;
	else
		rec_log(CRASHLOG_WRITE, (uint64_t)off, buf, (uint32_t)r);
	pthread_mutex_unlock(&rec.lock);
	return rec.err != 0 ? -rec.err : (int)r;
}

static int
rec_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)datasync;
	(void)fi;
	if (strcmp(path, "/disk") != 0)
		return 0;
	pthread_mutex_lock(&rec.lock);
	rec_log(CRASHLOG_FLUSH, 0, NULL, 0);
	pthread_mutex_unlock(&rec.lock);
	return -rec.err;
}

static int
rec_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	(void)fi;
	if (strcmp(path, "/mark") == 0)
		return 0;
	if (strcmp(path, "/fail") == 0) {
		rec.faillen = 0;
		return 0;
	}
	return size == rec.size ? 0 : -EPERM;
}

static void
rec_destroy(void *data)
{
	(void)data;
	if (fclose(rec.log) != 0)
		rec.err = errno;
	rec.log = NULL;
}

static const struct fuse_operations rec_ops = {
	.init = rec_init,
	.getattr = rec_getattr,
	.readdir = rec_readdir,
	.open = rec_open,
	.read = rec_read,
	.write = rec_write,
	.fsync = rec_fsync,
	.truncate = rec_truncate,
	.destroy = rec_destroy,
};

int
main(int argc, char **argv)
{
	struct stat st;
	char *fargv[] = { argv[0], "-f", "-s", "-o", "allow_other", NULL, NULL };

	if (argc != 4) {
		fprintf(stderr, "usage: recorder IMAGE LOG MOUNTPOINT\n");
		return 2;
	}
	if ((rec.img = open(argv[1], O_RDWR | O_CLOEXEC)) < 0 ||
	    fstat(rec.img, &st) != 0) {
		perror(argv[1]);
		return 1;
	}
	rec.size = st.st_size;
	if ((rec.log = fopen(argv[2], "we")) == NULL) {
		perror(argv[2]);
		return 1;
	}
	setvbuf(rec.log, NULL, _IOFBF, 1 << 20);
	fargv[5] = argv[3];
	/* Single-threaded (-s), in the foreground (-f): the test stops it. */
	return fuse_main(6, fargv, &rec_ops, NULL) != 0 || rec.err != 0;
}
