/* SPDX-License-Identifier: MIT */
/* The end of a run for its directories: final metadata, syncs, and the undo of those it made. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durable/dirs.h"
#include "durable/dirs_int.h"
#include "durable/users.h"

int
dirs_set_meta(struct dirs *d, size_t idx, const struct dir_meta *m,
    struct dbp_error *err)
{
	struct dir *v = &d->v[idx];
	mode_t mode;
	bool own;
	int fd = -1;

	if (!(v->flags & DIR_CREATED))
		return 0;
	v->meta = *m;
	v->meta_set = false;
	v->has_mtime = true;
	dirs_mark(d, idx, DIR_META);
	if (v->flags & DIR_PLANNED)
		return 0;
	/*
	 * Owner and mode now, so that a run killed before dirs_fixup leaves
	 * them right (a rerun keeps existing directories as they are); only
	 * the mtime must wait for the renames.  Without root the owner keeps
	 * access until the fixup.  What the directory was made with (the
	 * run's owner, the mode less the umask) is left alone where it is
	 * what the entry says: each change is an inode update, which btrfs
	 * pays in its tree.
	 */
	own = m->chown && (v->uid != m->uid || v->gid != m->gid);
	mode = (m->mode & 07777) | (m->chown ? 0 : S_IRWXU);
	if ((own || (v->mode & 07777) != mode) &&
	    (fd = dirs_fd_look(d, idx)) < 0)
		return dbp_err(err, -fd, dirs_show(d, v->path),
		    "cannot open directory");
	if (own && fchown(fd, m->uid, m->gid) != 0)
		return users_chown_err(err, errno, dirs_show(d, v->path),
		    m->uid, m->gid);
	if (own) {
		v->uid = m->uid;
		v->gid = m->gid;
	}
	/* After a chown always: it may clear setgid. */
	if ((own || (v->mode & 07777) != mode) && fchmod(fd, mode) != 0)
		return dbp_err(err, errno, dirs_show(d, v->path),
		    "cannot change mode");
	v->mode = (v->mode & ~(mode_t)07777) | mode;
	/* Exact as root: the fixup has only the mtime left to set. */
	v->meta_set = m->chown;
	return 0;
}

int
dirs_fixup(struct dirs *d, struct dbp_error *err)
{
	struct timespec ts[2];
	size_t i;
	int fd;

	for (i = d->ncreated; i-- > 0;) {
		struct dir *v = &d->v[d->created[i]];

		if (!(v->flags & DIR_META) || (v->flags & DIR_GONE))
			continue;
		if ((fd = dirs_fd_look(d, d->created[i])) < 0)
			return dbp_err(err, -fd, dirs_show(d, v->path),
			    "cannot open directory");
		/* chown first: it clears setgid, which the mode then restores. */
		if (!v->meta_set && v->meta.chown &&
		    fchown(fd, v->meta.uid, v->meta.gid) != 0)
			return dbp_err(err, errno, dirs_show(d, v->path),
			    "cannot change owner");
		if (!v->meta_set && fchmod(fd, v->meta.mode & 07777) != 0)
			return dbp_err(err, errno, dirs_show(d, v->path),
			    "cannot change mode");
		if (v->has_mtime) {
			ts[0] = v->meta.mtime;
			ts[1] = v->meta.mtime;
			if (futimens(fd, ts) != 0)
				return dbp_err(err, errno,
				    dirs_show(d, v->path), "cannot set times");
		}
		/* perfile synced it after its renames: this change needs one more. */
		dirs_mark(d, d->created[i], DIR_META);
	}
	return 0;
}

bool
dirs_unsynced(const struct dirs *d, size_t idx)
{
	unsigned f = d->v[idx].flags;

	return (f & (DIR_NAMES | DIR_META)) && !(f & (DIR_SYNCED | DIR_GONE));
}

int
dirs_sync_one(struct dirs *d, size_t idx, unsigned long *count,
    struct dbp_error *err)
{
	struct dir *v = &d->v[idx];
	int fd;

	if (!dirs_unsynced(d, idx))
		return 0;
	if ((fd = dirs_fd_look(d, idx)) < 0)
		return dbp_err(err, -fd, dirs_show(d, v->path),
		    "cannot open directory");
	(*count)++;
	if (fsync(fd) != 0)
		return dbp_err(err, errno, dirs_show(d, v->path),
		    "cannot sync directory");
	v->flags |= DIR_SYNCED;
	return 0;
}

/*
 * The tree's directories first, the databases' last: where one fsync
 * makes only its own directory's changes durable (btrfs's log tree, and
 * not every filesystem commits the whole journal), a power cut between
 * two of them must not keep dpkg's status or a record saying "unpacked"
 * over names of the tree still old.  The other way round, names new
 * under a status still half-installed (or old, with the journal that
 * undoes them), is a state durable dpkg passes through.
 */
int
dirs_sync(struct dirs *d, unsigned long *count, struct dbp_error *err)
{
	size_t i;
	int admin, r;

	for (admin = 0; admin < 2; admin++)
		for (i = 0; i < d->n; i++)
			if (!(d->v[i].flags & DIR_ADMIN) == !admin &&
			    (r = dirs_sync_one(d, i, count, err)) != 0)
				return r;
	return 0;
}

int
dirs_remove_created(struct dirs *d)
{
	size_t i;
	int fd, r = 0, r2;

	for (i = d->ncreated; i-- > 0;) {
		struct dir *v = &d->v[d->created[i]];

		if (v->flags & DIR_GONE)
			continue;
		if ((fd = dirs_fd_look(d, v->parent)) < 0) {
			r = r == 0 ? fd : r;
			continue;
		}
		if (unlinkat(fd, v->base, AT_REMOVEDIR) != 0) {
			/* Not empty: it holds files already renamed; keep it. */
			if (errno != ENOTEMPTY && errno != EEXIST && r == 0)
				r = -errno;
			continue;
		}
		if (v->fd >= 0) {
			close(v->fd);
			v->fd = -1;
			d->nopen--;
		}
		v->flags |= DIR_GONE;
		dirs_mark(d, v->parent, DIR_NAMES);
		if ((v->flags & DIR_ASIDE) && (r2 = dirs_aside_end(d, v,
		    true)) != 0 && r == 0)
			r = r2;
	}
	return r;
}

void
dirs_restore_times(struct dirs *d)
{
	size_t i;
	int fd;

	for (i = 0; i < d->n; i++) {
		struct dir *v = &d->v[i];

		if ((v->flags & (DIR_CREATED | DIR_RENAMED)) ||
		    !(v->flags & DIR_NAMES))
			continue;
		if ((fd = dirs_fd_look(d, i)) >= 0 && futimens(fd, v->times) == 0)
			dirs_mark(d, i, DIR_META);
	}
}
