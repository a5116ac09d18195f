/* The filesystems a run or a repair changes, each judged once: one syncfs where it is trusted. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fskind.h"
#include "fsset.h"

struct fsset_fs {
	dev_t dev;
	int fd;
	bool ok;		/* syncfs is trusted there (fskind.h) */
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

int
fsset_add(struct fsset *fs, int fd, const char *path, bool *ok)
{
	struct fsset_fs *v;
	struct stat st;
	size_t i;

	if (fstat(fd, &st) != 0)
		return -errno;
	for (i = 0; i < fs->n; i++)
		if (fs->v[i].dev == st.st_dev) {
			if (ok != NULL)
				*ok = fs->v[i].ok;
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
	v->dev = st.st_dev;
	/*
	 * A root may hold other mounts (a vfat /boot/efi, a FUSE or NFS
	 * admin directory): each filesystem is judged on its own.
	 */
	v->ok = fskind_syncfs_ok(fd);
	if (ok != NULL)
		*ok = v->ok;
	fs->n++;
	return 0;
}

int
fsset_syncfs(struct fsset *fs, unsigned long *count, struct dbp_error *err)
{
	size_t i;

	for (i = 0; i < fs->n; i++) {
		if (!fs->v[i].ok)
			continue;
		(*count)++;
		if (syncfs(fs->v[i].fd) != 0)
			return dbp_err(err, errno, fs->v[i].path,
			    "cannot sync its filesystem");
	}
	return 0;
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
