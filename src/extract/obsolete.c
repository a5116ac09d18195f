/* SPDX-License-Identifier: MIT */
/* The paths the old versions of a run's packages had and the new ones lack: planned, judged, removed. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durable/journal.h"
#include "durable/fileat.h"
#include "extract/obsolete.h"
#include "manifest.h"

/* A path of an old version to remove after the commit point. */
struct obsolete_path {
	size_t pidx;			/* its directory in the run's table */
	const char *base;		/* its name there */
	const struct record_entry *e;	/* in the installed record */
};

/* An old version's path that another package still has: it stays. */
struct obsolete_kept {
	const struct record_entry *e;
	const char *owner;
};

struct obsolete {
	struct obsolete_path *v;	/* in plan order */
	size_t n;
	struct obsolete_kept *kept;	/* for a dry run's verdicts */
	size_t nkept;
	struct record_entry *extra;	/* obsolete_add's, paths our own */
	size_t nextra;
};

int
obsolete_new(struct obsolete **out)
{
	return (*out = calloc(1, sizeof(**out))) != NULL ? 0 : -ENOMEM;
}

void
obsolete_free(struct obsolete *ob)
{
	if (ob == NULL)
		return;
	free(ob->v);
	free(ob->kept);
	while (ob->nextra > 0)
		free(ob->extra[--ob->nextra].path);
	free(ob->extra);
	free(ob);
}

/*
 * Plan to remove path E of an old version, unless the run installed
 * something at that place (through another name of its directory: merged
 * /usr) or its directory is gone.
 */
static int
obsolete_one(struct obsolete *ob, struct manifest *m, struct dirs *d,
    const struct record_entry *e, struct journal *j)
{
	char parent[PATH_MAX];
	const char *base, *slash;
	struct obsolete_path *g;
	size_t pidx;
	int r;

	slash = strrchr(e->path, '/');
	if (slash == NULL || slash[1] == '\0')
		return 0;
	if (slash == e->path)
		parent[0] = '\0';
	else
		snprintf(parent, sizeof(parent), "%.*s",
		    (int)(slash - e->path - 1), e->path + 1);
	base = slash + 1;
	if (dirs_get(d, parent, false, 0, &pidx, NULL) != 0 ||
	    manifest_find(m, pidx, base) != NULL)
		return 0;
	if ((g = realloc(ob->v, (ob->n + 1) * sizeof(*g))) == NULL)
		return -ENOMEM;
	ob->v = g;
	g += ob->n++;
	g->pidx = pidx;
	g->base = base;
	g->e = e;
	if (j != NULL && (r = journal_gone(j, e->type, e->path + 1)) != 0)
		return r;
	return 0;
}

/* Path E stays: OWNER, another package, has it too. */
static int
obsolete_keep(struct obsolete *ob, const struct record_entry *e,
    const char *owner)
{
	struct obsolete_kept *k;

	if ((k = realloc(ob->kept, (ob->nkept + 1) * sizeof(*k))) == NULL)
		return -ENOMEM;
	ob->kept = k;
	k[ob->nkept].e = e;
	k[ob->nkept++].owner = owner;
	return 0;
}

int
obsolete_add(struct obsolete *ob, const char *abspath)
{
	struct record_entry *e;

	if ((e = realloc(ob->extra, (ob->nextra + 1) * sizeof(*e))) == NULL)
		return -ENOMEM;
	ob->extra = e;
	e += ob->nextra;
	memset(e, 0, sizeof(*e));
	e->type = 'f';
	if ((e->path = strdup(abspath)) == NULL)
		return -ENOMEM;
	ob->nextra++;
	return 0;
}

/*
 * The paths of package NAME's installed record that REC (its new record;
 * NULL: it is removed whole) lacks.
 */
static int
obsolete_plan_old(struct obsolete *ob, struct manifest *m, struct dirs *d,
    const char *name, struct record *rec, struct journal *j,
    struct dbp_error *err)
{
	const char *owner;
	struct record *old;
	size_t k;
	int r;

	if ((old = manifest_installed_record(m, name)) == NULL)
		return 0;
	/* Backwards: the contents of a directory before the directory. */
	for (k = old->n; k-- > 0;) {
		const struct record_entry *e = &old->v[k];

		if (rec != NULL && record_find(rec, e->path) != NULL)
			continue;
		/*
		 * A file a diversion sent onto another package's path goes
		 * all the same: dpkg spares only directories that others
		 * have (and files of the same package's other instances).
		 */
		if ((owner = manifest_other_owner(m, e->path, name)) != NULL &&
		    (e->divert_from == NULL || e->type == 'd'))
			r = obsolete_keep(ob, e, owner);
		else
			r = obsolete_one(ob, m, d, e, j);
		if (r != 0)
			return dbp_err(err, -r, e->path + 1,
			    "cannot plan removal");
	}
	return 0;
}

int
obsolete_plan(struct obsolete *ob, struct manifest *m, struct dirs *d,
    struct journal *j, struct dbp_error *err)
{
	size_t i, k;
	int r;

	/*
	 * Files first (a purge's conffile leftovers): a directory of the
	 * packages' paths that holds one goes only once it has gone.
	 */
	for (k = 0; k < ob->nextra; k++)
		if ((r = obsolete_one(ob, m, d, &ob->extra[k], j)) != 0)
			return dbp_err(err, -r, ob->extra[k].path + 1,
			    "cannot plan removal");
	for (i = 0; i < manifest_nstaged(m); i++) {
		struct record *rec = manifest_staged(m, i);

		if (rec->gone)
			continue;	/* disappears: planned as dropped */
		if ((r = obsolete_plan_old(ob, m, d, record_key(rec), rec, j,
		    err)) != 0)
			return r;
	}
	for (i = 0; i < manifest_ndropped(m); i++)
		if ((r = obsolete_plan_old(ob, m, d, record_key(
		    manifest_dropped(m, i)), NULL, j, err)) != 0)
			return r;
	return 0;
}

/* Entries in directory FD, but "." and "..": SIZE_MAX when unreadable. */
static size_t
obsolete_dir_entries(int fd)
{
	struct dirent *de;
	size_t n = 0;
	DIR *dir;
	int dup_fd;

	if ((dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return SIZE_MAX;
	if ((dir = fdopendir(dup_fd)) == NULL) {
		close(dup_fd);
		return SIZE_MAX;
	}
	while ((de = readdir(dir)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(dir);
	return n;
}

void
obsolete_verdicts(const struct obsolete *ob, struct dirs *d, plan_fn *fn,
    void *ctx)
{
	struct stat st;
	bool *gone;
	size_t i, k, idx, n;
	int fd;

	for (i = 0; i < ob->nkept; i++)
		fn(ctx, PLAN_KEEP_OWNED, ob->kept[i].e->path + 1,
		    ob->kept[i].owner);
	/*
	 * As obsolete_remove will find them: a path still there
	 * goes, a directory only if nothing stays in it.  The list has the
	 * contents of a directory before the directory.
	 */
	if ((gone = calloc(ob->n + 1, sizeof(*gone))) == NULL)
		return;
	for (i = 0; i < ob->n; i++) {
		const struct obsolete_path *g = &ob->v[i];

		if ((fd = dirs_fd(d, g->pidx)) < 0 ||
		    fstatat(fd, g->base, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    (g->e->type == 'd') != (S_ISDIR(st.st_mode) != 0))
			continue;
		if (g->e->type == 'd') {
			n = 0;
			fd = -1;
			if (dirs_get(d, g->e->path + 1, false, 0, &idx,
			    NULL) == 0 && (fd = dirs_fd(d, idx)) >= 0)
				for (k = 0; k < i; k++)
					n += gone[k] && ob->v[k].pidx == idx;
			/* A dry run's: what the run plans to put in it stays. */
			if (fd < 0 || obsolete_dir_entries(fd) != n ||
			    (dirs_plans(d) && (dirs_flags(d, idx) &
			    DIR_NAMES))) {
				fn(ctx, PLAN_KEEP_NOT_EMPTY, g->e->path + 1,
				    NULL);
				continue;
			}
		}
		gone[i] = true;
		fn(ctx, PLAN_REMOVE, g->e->path + 1, NULL);
	}
	free(gone);
}

void
obsolete_remove(const struct obsolete *ob, struct dirs *d,
    void (*warn)(void *, const char *, const char *), void *ctx)
{
	size_t i;
	int fd, r;

	for (i = 0; i < ob->n; i++) {
		const struct obsolete_path *g = &ob->v[i];

		if ((fd = dirs_fd(d, g->pidx)) < 0 ||
		    (r = fileat_remove_old(fd, g->base, g->e->type)) == 0)
			continue;
		if (r < 0) {
			if (warn != NULL)
				warn(ctx, g->e->path + 1, "cannot remove file"
				    " of the old version");
			continue;
		}
		dirs_mark(d, g->pidx, DIR_NAMES);
		if (g->e->type == 'd')
			dirs_removed(d, g->e->path + 1);
	}
}
