/* SPDX-License-Identifier: MIT */
/* The admin directory of a root: where it is, opening it, repairing an interrupted run there. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "admin.h"

const char *
admin_name(const char *dir)
{
	return dir != NULL ? dir : ADMIN_DIR_DEFAULT;
}

int
admin_open(const char *dir, const struct rootfs *rf)
{
	int fd;

	if (dir == NULL)
		return rootfs_resolve(rf, ADMIN_DIR_DEFAULT,
		    O_RDONLY | O_DIRECTORY);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

int
admin_recover(const char *dir, const struct rootfs *rf, bool lock,
    struct recover_result *res, struct dbp_error *err)
{
	const char *name = admin_name(dir);
	int fd, r;

	memset(res, 0, sizeof(*res));
	if ((fd = admin_open(dir, rf)) < 0) {
		if (fd == -ENOENT)
			return 0;	/* nothing installed, nothing to repair */
		return dbp_err(err, -fd, name, "cannot open admin directory");
	}
	/* A run holds the lock for its whole length (manifest_lock). */
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		r = errno;
		close(fd);
		if (!lock && r == EWOULDBLOCK)
			return 0;
		return dbp_err(err, r, name, r == EWOULDBLOCK ?
		    "in use by another run" : "cannot lock admin directory");
	}
	r = recover_run(rf, fd, res, err);
	close(fd);
	return r;
}
