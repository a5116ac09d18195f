/* SPDX-License-Identifier: MIT */
/* The admin directory of a root: where it is, opening it, repairing an interrupted run there. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <stdio.h>

#include "db/admin.h"
#include "deb/control.h"
#include "db/dpkgadopt.h"
#include "db/dpkgstale.h"
#include "db/recowners.h"
#include "db/record.h"
#include "db/recstore.h"

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
	/* A run holds the lock for its whole length (recstage_lock). */
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

int
admin_view_open(struct admin_view *v, const char *dir,
    const struct rootfs *rf, struct dbp_error *err)
{
	const char *name = admin_name(dir);
	int fd, r;

	memset(v, 0, sizeof(*v));
	v->rf = rf;
	if ((fd = admin_open(dir, rf)) >= 0) {
		r = recover_pending(fd, &v->pending, err);
		close(fd);
		if (r != 0)
			return r;
	} else if (fd != -ENOENT)
		return dbp_err(err, -fd, name, "cannot open admin directory");
	if (v->pending.records_moving)
		return dbp_err(err, 0, name, "an interrupted run was renaming"
		    " its records: 'debunpack --recover' repairs it first");
	if ((r = dpkgstale_open(&v->stale, rf)) != 0)
		return dbp_err(err, -r, "var/lib/dpkg/status", "cannot read");
	return 0;
}

void
admin_view_close(struct admin_view *v)
{
	recover_pending_free(&v->pending);
	dpkgstale_free(v->stale);
	v->stale = NULL;
}

bool
admin_view_stale(void *ctx, const struct record *r, const char **what)
{
	struct admin_view *v = ctx;
	char file[256];

	snprintf(file, sizeof(file), "%s" RECSTORE_SUFFIX, record_key(r));
	if (recover_pending_drops(&v->pending, file)) {
		*what = "removed by the interrupted run";
		return true;
	}
	return dpkgstale_is(v->stale, r, what);
}

/* dpkgadopt_known_fn on the run's records (CTX). */
static bool
admin_view_known(void *ctx, const char *name)
{
	return recowners_has(ctx, name);
}

int
admin_view_adopt(void *ctx, const struct recstage *rs, struct record ***out,
    size_t *nout, struct dbp_error *err)
{
	struct admin_view *v = ctx;

	/*
	 * Listed and typed when the run asks (recowners_installed), not
	 * all each run.
	 */
	return dpkgadopt_all(v->rf, dpkgstale_status(v->stale),
	    DPKGADOPT_LAZY | DPKGADOPT_DEFER, admin_view_known, (void *)rs,
	    out, nout, err);
}
