/* SPDX-License-Identifier: MIT */
/* A dry run's directories: planned, never made, and the links it would make. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "durable/dirs.h"
#include "durable/dirs_int.h"

/*
 * A dry run's directory REL (BASE in directory PIDX), which does not
 * exist: in the table with no descriptor.  Its identity is its parent's
 * first path and BASE, so that "bin/x" through a link to usr/bin and
 * "usr/bin/x" stay one directory, as their inode makes them in a run.
 */
int
dirs_plan_make(struct dirs *d, size_t pidx, const char *rel, const char *base,
    mode_t mode, size_t *idx, struct dbp_error *err)
{
	const char *ppath = d->v[pidx].path;
	struct stat st;
	struct dir *v;
	char *canon, *path;
	bool aside = false;
	int pfd, r;

	if (asprintf(&canon, "%s%s%s", ppath, ppath[0] != '\0' ? "/" : "",
	    base) < 0)
		return dbp_err(err, ENOMEM, rel, "cannot plan directory");
	r = strcmp(canon, rel) != 0 ? dirs_find(d, canon, idx) : -ENOENT;
	free(canon);
	if (r == 0) {
		if ((path = strdup(rel)) == NULL)
			return dbp_err(err, ENOMEM, rel, "cannot plan directory");
		return dirs_alias(d, path, *idx) != 0 ? dbp_err(err, ENOMEM,
		    rel, "cannot plan directory") : 0;
	}
	/* Something that is not a directory is there: the run's rule for it. */
	if (!(d->v[pidx].flags & DIR_PLANNED)) {
		if ((pfd = dirs_fd_look(d, pidx)) < 0)
			return dbp_err(err, -pfd, dirs_show(d, ppath),
			    "cannot open directory");
		if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (d->displace == NULL || (r = d->displace(
			    d->displace_ctx, rel, err)) > 0) {
				dbp_err(err, 0, rel, "exists and is not a"
				    " directory");
				return -ENOTDIR;
			}
			if (r < 0)
				return r;
			aside = true;
		}
	}
	if ((path = strdup(rel)) == NULL ||
	    (v = realloc(d->v, (d->n + 1) * sizeof(*v))) == NULL) {
		free(path);
		return dbp_err(err, ENOMEM, rel, "cannot plan directory");
	}
	d->v = v;
	v = &d->v[d->n];
	memset(v, 0, sizeof(*v));
	v->path = path;
	v->base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	/* No inode: a number no file system gives, one per directory. */
	v->dev = (dev_t)-1;
	v->ino = (ino_t)d->n;
	v->parent = pidx;
	v->flags = DIR_CREATED | DIR_META | DIR_PLANNED |
	    (aside ? DIR_ASIDE : 0);
	v->fd = -1;
	v->meta.mode = mode;
	*idx = d->n++;
	if ((r = dirs_key_add(d, &d->bypath, *idx, path, dirs_cmp_path)) != 0 ||
	    (r = dirs_key_add(d, &d->byino, *idx, path, dirs_cmp_ino)) != 0 ||
	    (r = dirs_note_created(d, *idx)) != 0)
		return dbp_err(err, -r, rel, "cannot plan directory");
	dirs_mark(d, pidx, DIR_NAMES);
	return 0;
}

void
dirs_set_plan(struct dirs *d)
{
	d->plan = true;
}

bool
dirs_plans(const struct dirs *d)
{
	return d->plan;
}

int
dirs_plan_link(struct dirs *d, const char *rel, size_t idx)
{
	char *path = strdup(rel), **v;
	int r;

	if (path == NULL || (v = realloc(d->plinks, (d->nplinks + 1) *
	    sizeof(*v))) == NULL) {
		free(path);
		return -ENOMEM;
	}
	d->plinks = v;
	/* The alias keeps the string; this list only points at it. */
	if ((r = dirs_alias(d, path, idx)) != 0)
		return r;
	d->plinks[d->nplinks++] = path;
	return 0;
}

bool
dirs_planned_link(const struct dirs *d, const char *rel)
{
	size_t i;

	for (i = 0; i < d->nplinks; i++)
		if (strcmp(d->plinks[i], rel) == 0)
			return true;
	return false;
}
