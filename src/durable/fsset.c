/* SPDX-License-Identifier: MIT */
/* The filesystems a run or a repair changes, each judged once: one syncfs where it is trusted. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durable/fskind.h"
#include "durable/fsset.h"

struct fsset_fs {
	uint64_t key;		/* fsset_key */
	int fd;
	enum fskind_sync kind;	/* how it is made durable (fskind.h) */
	bool ordered;		/* fskind_fsync_commits_all */
	bool settles;		/* fskind_settles: btrfs */
	char *path;		/* what FD was opened as, for messages */
};

struct fsset {
	struct fsset_fs *v;
	size_t n;
};

int
fsset_new(struct fsset **out)
{
	if ((*out = calloc(1, sizeof(**out))) == NULL)
		return -ENOMEM;
	return 0;
}

/*
 * What tells FD's filesystem from the others: its mount, where statx
 * says (Linux 5.8), else its device.  Not the device alone: an overlay
 * gives its files the device of the layer they come from when the layers
 * are on different filesystems, and one syncfs covers them all.
 */
static int
fsset_key(int fd, uint64_t *key)
{
	struct statx stx;
	struct stat st;

	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_MNT_ID,
	    &stx) == 0 && (stx.stx_mask & STATX_MNT_ID)) {
		*key = stx.stx_mnt_id | (UINT64_C(1) << 63);
		return 0;
	}
	if (fstat(fd, &st) != 0)
		return -errno;
	*key = (uint64_t)st.st_dev;
	return 0;
}

int
fsset_add(struct fsset *fs, int fd, const char *path, enum fskind_sync *kind)
{
	struct fsset_fs *v;
	uint64_t key;
	size_t i;
	int r;

	if ((r = fsset_key(fd, &key)) != 0)
		return r;
	for (i = 0; i < fs->n; i++)
		if (fs->v[i].key == key) {
			if (kind != NULL)
				*kind = fs->v[i].kind;
			return 0;
		}
	if ((v = realloc(fs->v, (fs->n + 1) * sizeof(*v))) == NULL)
		return -ENOMEM;
	fs->v = v;
	v = &fs->v[fs->n];
	if ((v->path = strdup(path)) == NULL)
		return -ENOMEM;
	if ((v->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		free(v->path);
		return -errno;
	}
	v->key = key;
	/*
	 * A root may hold other mounts (a vfat /boot/efi, a FUSE or NFS
	 * admin directory): each filesystem is judged on its own.
	 */
	v->kind = fskind_sync(fd);
	v->ordered = v->kind == FSKIND_SYNCFS && fskind_fsync_commits_all(fd);
	v->settles = v->kind == FSKIND_SYNCFS && fskind_settles(fd);
	if (kind != NULL)
		*kind = v->kind;
	fs->n++;
	return 0;
}

bool
fsset_has(const struct fsset *fs, int fd, enum fskind_sync *kind)
{
	uint64_t key;
	size_t i;

	if (fsset_key(fd, &key) != 0)
		return false;
	for (i = 0; i < fs->n; i++)
		if (fs->v[i].key == key) {
			*kind = fs->v[i].kind;
			return true;
		}
	return false;
}

int
fsset_syncfs(struct fsset *fs, unsigned long *count, struct dbp_error *err)
{
	size_t i;

	for (i = 0; i < fs->n; i++) {
		if (fs->v[i].kind == FSKIND_PERFILE)
			continue;
		(*count)++;
		if (syncfs(fs->v[i].fd) != 0)
			return dbp_err(err, errno, fs->v[i].path,
			    "cannot sync its filesystem");
	}
	return 0;
}

bool
fsset_ordered(const struct fsset *fs)
{
	return fs->n == 1 && fs->v[0].ordered;
}

bool
fsset_settles(const struct fsset *fs)
{
	return fs->n == 1 && fs->v[0].settles;
}

bool
fsset_in_order(const struct fsset *fs, int fd)
{
	uint64_t key;
	size_t i;

	if (fsset_key(fd, &key) != 0)
		return false;
	for (i = 0; i < fs->n; i++)
		if (fs->v[i].key == key)
			return fs->v[i].ordered || fs->v[i].settles;
	return false;
}

size_t
fsset_count(const struct fsset *fs)
{
	return fs->n;
}

const char *
fsset_get(const struct fsset *fs, size_t i, enum fskind_sync *kind,
    char *type, size_t n)
{
	*kind = fs->v[i].kind;
	if (fs->v[i].fd >= 0)
		fskind_name(fs->v[i].fd, type, n);
	else
		snprintf(type, n, "?");
	return fs->v[i].path;
}

void
fsset_close(struct fsset *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (fs->v[i].fd >= 0) {
			close(fs->v[i].fd);
			fs->v[i].fd = -1;
		}
}

void
fsset_free(struct fsset *fs)
{
	size_t i;

	if (fs == NULL)
		return;
	fsset_close(fs);
	for (i = 0; i < fs->n; i++)
		free(fs->v[i].path);
	free(fs->v);
	free(fs);
}
