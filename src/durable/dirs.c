/* SPDX-License-Identifier: MIT */
/* The directories a run touches: lookup, creation, a bounded fd cache. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durable/dirs.h"
#include "durable/dirs_int.h"
#include "durable/fskind.h"
#include "durable/names.h"

const char *
dirs_show(const struct dirs *d, const char *path)
{
	if (path[0] != '\0')
		return path;
	return d->top != NULL ? d->top : ".";
}

void
dirs_set_top_name(struct dirs *d, const char *name)
{
	d->top = name;
}

int
dirs_cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct dir_key *)a)->path,
	    ((const struct dir_key *)b)->path);
}

int
dirs_cmp_ino(const void *a, const void *b)
{
	const struct dir_key *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

int
dirs_new(struct dirs **out, const struct rootfs *rf, size_t maxfds)
{
	struct dirs *d;

	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return -ENOMEM;
	d->rf = rf;
	d->maxfds = maxfds < 4 ? 4 : maxfds;
	*out = d;
	return 0;
}

static void
dirs_nofree(void *p)
{
	(void)p;
}

void
dirs_free(struct dirs *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->n; i++) {
		if (d->v[i].fd >= 0)
			close(d->v[i].fd);
		free(d->v[i].path);
	}
	tdestroy(d->bypath, dirs_nofree);
	tdestroy(d->byino, dirs_nofree);
	for (i = 0; i < d->nkeys; i++)
		free(d->keys[i]);
	for (i = 0; i < d->naliases; i++)
		free(d->aliases[i]);
	free(d->aliases);
	free(d->plinks);
	free(d->admin[0]);
	free(d->admin[1]);
	free(d->keys);
	free(d->created);
	free(d->v);
	free(d);
}

/* Put FD in the cache for IDX, closing the least recently used one if full. */
static void
dirs_cache(struct dirs *d, size_t idx, int fd)
{
	size_t i, victim = DIR_NONE;

	if (d->nopen >= d->maxfds) {
		for (i = 0; i < d->n; i++)
			if (d->v[i].fd >= 0 && (victim == DIR_NONE ||
			    d->v[i].used < d->v[victim].used))
				victim = i;
		close(d->v[victim].fd);
		d->v[victim].fd = -1;
		d->nopen--;
	}
	d->v[idx].fd = fd;
	d->v[idx].used = ++d->clock;
	d->nopen++;
}

int
dirs_key_add(struct dirs *d, void **tree, size_t idx, const char *path,
    int (*cmp)(const void *, const void *))
{
	struct dir_key *k, **kv;

	kv = realloc(d->keys, (d->nkeys + 1) * sizeof(*kv));
	if (kv == NULL)
		return -ENOMEM;
	d->keys = kv;
	if ((k = calloc(1, sizeof(*k))) == NULL)
		return -ENOMEM;
	k->path = path;
	k->dev = d->v[idx].dev;
	k->ino = d->v[idx].ino;
	k->idx = idx;
	if (tsearch(k, tree, cmp) == NULL) {
		free(k);
		return -ENOMEM;
	}
	d->keys[d->nkeys++] = k;
	return 0;
}

/* Keep an alias path string alive until dirs_free; takes PATH. */
int
dirs_alias(struct dirs *d, char *path, size_t idx)
{
	char **a;
	int r;

	a = realloc(d->aliases, (d->naliases + 1) * sizeof(*a));
	if (a == NULL) {
		free(path);
		return -ENOMEM;
	}
	d->aliases = a;
	d->aliases[d->naliases++] = path;
	r = dirs_key_add(d, &d->bypath, idx, path, dirs_cmp_path);
	return r;
}

/* Whether REL is one of dirs_set_admin's prefixes or below one. */
static bool
dirs_is_admin(const struct dirs *d, const char *rel)
{
	size_t i, l;

	for (i = 0; i < sizeof(d->admin) / sizeof(d->admin[0]); i++) {
		if (d->admin[i] == NULL)
			continue;
		l = strlen(d->admin[i]);
		if (l == 0 || (strncmp(rel, d->admin[i], l) == 0 &&
		    (rel[l] == '\0' || rel[l] == '/')))
			return true;
	}
	return false;
}

/* Add a directory whose descriptor FD is open; takes FD. */
static int
dirs_add(struct dirs *d, const char *rel, int fd, size_t parent,
    unsigned flags, size_t *idx)
{
	struct dir_key key, **found;
	struct stat st;
	struct dir *v;
	char *path;
	int r;

	if (fstat(fd, &st) != 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if ((path = strdup(rel)) == NULL) {
		close(fd);
		return -ENOMEM;
	}
	memset(&key, 0, sizeof(key));
	key.dev = st.st_dev;
	key.ino = st.st_ino;
	found = tfind(&key, &d->byino, dirs_cmp_ino);
	if (found != NULL) {
		/* Another path to a known directory (merged-/usr "bin"). */
		close(fd);
		*idx = (*found)->idx;
		return dirs_alias(d, path, *idx);
	}
	/* A directory found, not made: the journal learns its times. */
	if (!(flags & DIR_CREATED) && d->log != NULL &&
	    (r = d->log(d->log_ctx, DIRS_LOG_FOUND, rel,
	    (struct timespec[2]){ st.st_atim,
	    st.st_mtim }, fd)) != 0) {
		d->log_failed = true;
		free(path);
		close(fd);
		return r;
	}
	v = realloc(d->v, (d->n + 1) * sizeof(*v));
	if (v == NULL) {
		free(path);
		close(fd);
		return -ENOMEM;
	}
	d->v = v;
	v = &d->v[d->n];
	memset(v, 0, sizeof(*v));
	v->path = path;
	v->base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	v->dev = st.st_dev;
	v->ino = st.st_ino;
	v->uid = st.st_uid;
	v->gid = st.st_gid;
	v->mode = st.st_mode;
	v->parent = parent;
	v->flags = flags | (dirs_is_admin(d, path) ? DIR_ADMIN : 0) |
	    (!(flags & DIR_CREATED) && d->log != NULL ? DIR_OWED : 0);
	v->fd = -1;
	v->times[0] = st.st_atim;
	v->times[1] = st.st_mtim;
	*idx = d->n++;
	if ((r = dirs_key_add(d, &d->bypath, *idx, path, dirs_cmp_path)) != 0 ||
	    (r = dirs_key_add(d, &d->byino, *idx, path, dirs_cmp_ino)) != 0) {
		close(fd);
		return r;
	}
	dirs_cache(d, *idx, fd);
	return 0;
}

int
dirs_note_created(struct dirs *d, size_t idx)
{
	size_t *c;

	c = realloc(d->created, (d->ncreated + 1) * sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	d->created = c;
	d->created[d->ncreated++] = idx;
	return 0;
}

/* Whether the table has REL: then *IDX. */
static bool
dirs_lookup(const struct dirs *d, const char *rel, size_t *idx)
{
	struct dir_key key, **found;

	memset(&key, 0, sizeof(key));
	key.path = rel;
	if ((found = tfind(&key, &d->bypath, dirs_cmp_path)) == NULL)
		return false;
	*idx = (*found)->idx;
	return true;
}

/*
 * REL from the table, or opened if it exists (resolved inside the root):
 * 0 with *IDX, or -errno (-ENOENT when it does not exist).
 */
int
dirs_find(struct dirs *d, const char *rel, size_t *idx)
{
	int fd;

	if (dirs_lookup(d, rel, idx))
		return 0;
	fd = rootfs_resolve(d->rf, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	return dirs_add(d, rel, fd, DIR_NONE, 0, idx);
}

int
dirs_ahead(struct dirs *d, const char *rel)
{
	size_t idx;
	int r;

	if (d->log == NULL || d->plan || rel[0] == '\0')
		return 0;
	/* Only where the lookup says nothing is there at all. */
	if ((r = dirs_find(d, rel, &idx)) != -ENOENT) {
		if (r == 0 || !d->log_failed)
			return 0;
		d->log_failed = false;
		return r;
	}
	return d->log(d->log_ctx, DIRS_LOG_AHEAD, rel, NULL, -1);
}

int
dirs_ahead_done(struct dirs *d)
{
	size_t idx;
	int fd;

	if (d->log == NULL || d->plan || dirs_find(d, "", &idx) != 0 ||
	    (fd = dirs_fd_look(d, idx)) < 0)
		return 0;
	return d->log(d->log_ctx, DIRS_LOG_USE, "", NULL, fd);
}

/*
 * The package's own non-directory BASE (path REL) is where it now has a
 * directory: keep it under its backup name until the run is over, the
 * journal told first, so that an undo or a repair puts it back.
 */
static int
dirs_move_aside(struct dirs *d, int pfd, const char *rel, const char *base,
    struct dbp_error *err)
{
	char old[NAME_MAX + 1];
	int r;

	if (names_aside(base, old, sizeof(old)) != 0)
		return dbp_err(err, ENAMETOOLONG, rel, "cannot move aside");
	if (d->log != NULL && (r = d->log(d->log_ctx, DIRS_LOG_ASIDE, rel,
	    NULL, pfd)) != 0)
		return dbp_err(err, -r, rel, "cannot write journal");
	unlinkat(pfd, old, 0);
	if (renameat(pfd, base, pfd, old) != 0)
		return dbp_err(err, errno, rel, "cannot move aside");
	return 0;
}

/* Undo a dirs_make that failed half way: the file moved aside comes back. */
static void
dirs_unmake(int pfd, const char *base, bool displaced)
{
	char old[NAME_MAX + 1];

	unlinkat(pfd, base, AT_REMOVEDIR);
	if (displaced && names_aside(base, old, sizeof(old)) == 0)
		renameat(pfd, old, pfd, base);
}

/* Make directory BASE inside directory PIDX; REL is its whole path. */
static int
dirs_make(struct dirs *d, size_t pidx, const char *rel, const char *base,
    mode_t mode, size_t *idx, struct dbp_error *err)
{
	bool displaced;
	int fd, pfd, r;

	if (d->v[pidx].flags & DIR_SEALED)
		return dbp_err(err, 0, rel, "is in the admin directory,"
		    " where no package may write");
	if (d->guard != NULL && d->guard(d->guard_ctx, pidx, base) != 0) {
		dbp_err(err, 0, rel, "is a file of this run and cannot also"
		    " be a directory");
		return -ENOTDIR;
	}
	if (d->plan)
		return dirs_plan_make(d, pidx, rel, base, mode, idx, err);
	/* Not used yet: the journal's line of what is made covers it. */
	if ((pfd = dirs_fd_look(d, pidx)) < 0)
		return dbp_err(err, -pfd, dirs_show(d,
		    d->v[pidx].path), "cannot open directory");
	/* Announced before it exists, so that a killed run's repair finds it. */
	if (d->log != NULL && (r = d->log(d->log_ctx, DIRS_LOG_MAKE, rel,
	    NULL, pfd)) != 0)
		return dbp_err(err, -r, rel, "cannot write journal");
	/*
	 * Near the final mode from the start, so that a run killed before
	 * dirs_fixup leaves usable directories; never without owner access.
	 */
	displaced = false;
	while (mkdirat(pfd, base, (mode | S_IRWXU) & 0777) != 0) {
		if (errno != EEXIST)
			return dbp_err(err, errno, rel, "cannot create directory");
		/* A non-directory is in the way (or a dangling symlink). */
		if (displaced || d->displace == NULL ||
		    (r = d->displace(d->displace_ctx, rel, err)) > 0) {
			dbp_err(err, 0, rel, "exists and is not a directory");
			return -ENOTDIR;
		}
		if (r < 0)
			return r;
		if ((r = dirs_move_aside(d, pfd, rel, base, err)) != 0)
			return r;
		displaced = true;
	}
	dirs_mark(d, pidx, DIR_NAMES);
	fd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = errno;
		dirs_unmake(pfd, base, displaced);
		return dbp_err(err, r, rel, "cannot open directory");
	}
	if ((r = dirs_add(d, rel, fd, pidx, DIR_CREATED | DIR_META |
	    (displaced ? DIR_ASIDE : 0), idx)) != 0 ||
	    (r = dirs_note_created(d, *idx)) != 0) {
		dirs_unmake(pfd, base, displaced);
		return dbp_err(err, -r, rel, "cannot create directory");
	}
	/* A directory without an archive entry gets what tar would give it. */
	d->v[*idx].meta.mode = mode;
	return 0;
}

static int
dirs_find_err(struct dirs *d, int r, const char *rel, struct dbp_error *err)
{
	if (d->log_failed) {
		d->log_failed = false;
		return dbp_err(err, -r, dirs_show(d, rel),
		    "cannot write journal");
	}
	if (r == -ENOTDIR) {
		dbp_err(err, 0, dirs_show(d, rel),
		    "exists and is not a directory");
		return r;
	}
	return dbp_err(err, -r, dirs_show(d, rel), "cannot open directory");
}

/*
 * Whether lookup result R means a directory is to be made: it does not
 * exist, or (when a file may be moved aside for it) something else is on
 * the way to it.
 */
static bool
dirs_missing(const struct dirs *d, int r)
{
	return r == -ENOENT || (r == -ENOTDIR && d->displace != NULL);
}

int
dirs_get(struct dirs *d, const char *rel, bool create, mode_t mode,
    size_t *idx, struct dbp_error *err)
{
	char *path, *slash;
	size_t pidx, start;
	int r;

	r = dirs_find(d, rel, idx);
	/* A lookup never makes nor moves anything. */
	if (r == 0 || !create)
		return r == 0 ? 0 : dirs_find_err(d, r, rel, err);
	if (!dirs_missing(d, r) || rel[0] == '\0')
		return dirs_find_err(d, r, rel, err);
	if ((path = strdup(rel)) == NULL)
		return dbp_err(err, ENOMEM, rel, "cannot create directory");
	/*
	 * Up to the deepest ancestor that exists, then down creating the
	 * rest: a loop, not recursion, so that an archive's depth cannot
	 * exhaust the stack.
	 */
	for (;;) {
		if ((slash = strrchr(path, '/')) == NULL) {
			r = dirs_find(d, "", &pidx);
			start = 0;
			break;
		}
		*slash = '\0';
		r = dirs_find(d, path, &pidx);
		if (!dirs_missing(d, r)) {
			if (r != 0)
				r = dirs_find_err(d, r, path, err);
			start = (size_t)(slash - path) + 1;
			*slash = '/';
			break;
		}
	}
	if (r != 0) {
		if (r == -ENOENT || start == 0)
			r = dirs_find_err(d, r, "", err);
		free(path);
		return r;
	}
	/* Restore the slashes cut on the way up. */
	strcpy(path, rel);
	for (;;) {
		bool last;

		slash = strchr(path + start, '/');
		last = slash == NULL;
		if (!last)
			*slash = '\0';
		r = dirs_make(d, pidx, path, path + start, last ? mode : 0755,
		    &pidx, err);
		if (r != 0 || last)
			break;
		*slash = '/';
		start = (size_t)(slash - path) + 1;
	}
	free(path);
	if (r == 0)
		*idx = pidx;
	return r;
}

int
dirs_set_admin(struct dirs *d, const char *prefix)
{
	size_t i, n = sizeof(d->admin) / sizeof(d->admin[0]);

	for (i = 0; i < n && d->admin[i] != NULL; i++)
		;
	if (i == n)
		return -ENOSPC;
	if ((d->admin[i] = strdup(prefix)) == NULL)
		return -ENOMEM;
	for (i = 0; i < d->n; i++)
		if (dirs_is_admin(d, d->v[i].path))
			d->v[i].flags |= DIR_ADMIN;
	return 0;
}

void
dirs_set_log(struct dirs *d, int (*log)(void *, enum dirs_log, const char *,
    const struct timespec *, int), void *ctx)
{
	d->log = log;
	d->log_ctx = ctx;
}

void
dirs_set_displace(struct dirs *d, int (*displace)(void *, const char *,
    struct dbp_error *), void *ctx)
{
	d->displace = displace;
	d->displace_ctx = ctx;
}

/* Put back (undo) or drop (done) what was moved aside for directory V. */
int
dirs_aside_end(struct dirs *d, struct dir *v, bool undo)
{
	char old[NAME_MAX + 1];
	int fd;

	if (names_aside(v->base, old, sizeof(old)) != 0)
		return -ENAMETOOLONG;
	if ((fd = dirs_fd_look(d, v->parent)) < 0)
		return fd;
	if (undo ? renameat(fd, old, fd, v->base) != 0 :
	    unlinkat(fd, old, 0) != 0 && errno != ENOENT)
		return -errno;
	v->flags &= ~DIR_ASIDE;
	return 0;
}

bool
dirs_empty(int dfd, const char *name)
{
	struct dirent *de;
	DIR *dir;
	int fd;
	bool empty = true;

	if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return false;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return false;
	}
	while (empty && (de = readdir(dir)) != NULL)
		empty = strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0;
	closedir(dir);
	return empty;
}

int
dirs_finish(struct dirs *d)
{
	size_t i;
	int r = 0, r2;

	for (i = 0; i < d->n; i++)
		if ((d->v[i].flags & DIR_ASIDE) &&
		    (r2 = dirs_aside_end(d, &d->v[i], false)) != 0 && r == 0)
			r = r2;
	return r;
}

void
dirs_set_guard(struct dirs *d, int (*guard)(void *, size_t, const char *),
    void *ctx)
{
	d->guard = guard;
	d->guard_ctx = ctx;
}

int
dirs_fd_look(struct dirs *d, size_t idx)
{
	struct dir *v = &d->v[idx];
	struct stat st;
	int fd;

	if (v->fd >= 0) {
		v->used = ++d->clock;
		return v->fd;
	}
	if (v->flags & DIR_PLANNED)
		return -ENOENT;
	if ((v->flags & DIR_CREATED) && v->parent != DIR_NONE) {
		int pfd = dirs_fd_look(d, v->parent);

		/*
		 * Through its parent, not by path: the commit may have
		 * replaced a symlink on the path it was first reached by.
		 */
		if (pfd < 0)
			return pfd;
		fd = openat(pfd, v->base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd < 0)
			return -errno;
	} else if ((fd = rootfs_resolve(d->rf, v->path,
	    O_RDONLY | O_DIRECTORY)) < 0)
		return fd;
	/*
	 * The path must still lead to the same directory: the same inode,
	 * or on an overlay, whose directories may get a new inode number
	 * when they are read again (fskind.h), the same filesystem.
	 */
	if (fstat(fd, &st) != 0 || st.st_dev != v->dev ||
	    (st.st_ino != v->ino && fskind_dir_ino_stable(fd))) {
		close(fd);
		return -ESTALE;
	}
	dirs_cache(d, idx, fd);
	return fd;
}

int
dirs_fd(struct dirs *d, size_t idx)
{
	int fd, r;

	if ((fd = dirs_fd_look(d, idx)) < 0 || !(d->v[idx].flags & DIR_OWED))
		return fd;
	if ((r = d->log(d->log_ctx, DIRS_LOG_USE, d->v[idx].path, NULL,
	    fd)) != 0) {
		d->log_failed = true;
		return r < 0 ? r : -EIO;
	}
	d->v[idx].flags &= ~DIR_OWED;
	return fd;
}

const char *
dirs_path(const struct dirs *d, size_t idx)
{
	return d->v[idx].path;
}

unsigned
dirs_flags(const struct dirs *d, size_t idx)
{
	return d->v[idx].flags;
}

void
dirs_mark(struct dirs *d, size_t idx, unsigned flags)
{
	d->v[idx].flags |= flags;
	if (flags & (DIR_NAMES | DIR_META))
		d->v[idx].flags &= ~DIR_SYNCED;
}

void
dirs_clear(struct dirs *d, size_t idx, unsigned flags)
{
	d->v[idx].flags &= ~flags;
}

void
dirs_removed(struct dirs *d, const char *rel)
{
	size_t idx;

	/*
	 * Only what the table has: an old version's directory the run never
	 * used is not in it, and opening it now would fail.  One whose
	 * descriptor was given back (the table keeps few open) would be
	 * opened again by path at the barrier, and fail there.
	 */
	if (dirs_lookup(d, rel, &idx))
		d->v[idx].flags |= DIR_GONE;
}

size_t
dirs_count(const struct dirs *d)
{
	return d->n;
}

size_t
dirs_created(const struct dirs *d)
{
	return d->ncreated;
}
