/* SPDX-License-Identifier: MIT */
/* A small file of the run's own, written whole under a temporary name and handed to the batch. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include "db/batchfile.h"
#include "durable/names.h"

int
batchfile_open(struct batchfile *bf, struct syncbatch *sb, struct dirs *d,
    size_t idx, const char *path, const char *name, mode_t mode,
    struct dbp_error *err)
{
	char tmp[NAME_MAX + 1];
	int dfd, e;

	bf->sb = sb;
	bf->path = path;
	bf->fd = -1;
	if (names_tmp(name, NULL, tmp, sizeof(tmp)) != 0)
		return dbp_err(err, ENAMETOOLONG, path, "cannot create");
	if ((dfd = dirs_fd(d, idx)) < 0)
		return dbp_err(err, -dfd, path, "cannot open directory");
	/* A leftover of a killed run has this name: it is ours to replace. */
	unlinkat(dfd, tmp, 0);
	bf->fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, mode);
	if (bf->fd < 0)
		return dbp_err(err, errno, path, "cannot create");
	if ((e = syncbatch_add(sb, idx, path, tmp, &bf->item)) != 0) {
		close(bf->fd);
		bf->fd = -1;
		unlinkat(dfd, tmp, 0);
		return dbp_err(err, -e, path, "cannot create");
	}
	return 0;
}

int
batchfile_write(struct batchfile *bf, const void *data, size_t len,
    struct dbp_error *err)
{
	const char *p = data;
	ssize_t w;

	while (len > 0) {
		if ((w = write(bf->fd, p, len)) < 0) {
			if (errno == EINTR)
				continue;
			return dbp_err(err, errno, bf->path, "cannot write");
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int
batchfile_end(struct batchfile *bf, int r, struct dbp_error *err)
{
	int fd = bf->fd;

	bf->fd = -1;
	if (r != 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	return syncbatch_written(bf->sb, bf->item, fd, err);
}
