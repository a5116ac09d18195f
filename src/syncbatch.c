/* SPDX-License-Identifier: MIT */
/* When and how written files become durable: the batch, its strategy, and the commit. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durable/fskind.h"
#include "durable/journal.h"
#include "durable/names.h"
#include "syncbatch.h"
#include "durable/syncbatch_int.h"
#include "durable/syncstep.h"

static const struct syncbatch_ops *const syncbatch_strategies[] = {
	&syncbatch_syncfs, &syncbatch_batched, &syncbatch_perfile,
	&syncbatch_none,
};

const char *const syncbatch_modes[] = {
	"auto", "syncfs", "batched", "perfile", "none", NULL
};

const char *
syncbatch_auto(int fd)
{
	/*
	 * Elsewhere (NFS, FUSE, ...) syncfs may not reach the storage, or
	 * not report its errors: the per-file fdatasync is what every
	 * filesystem implements.  On an overlay, syncfs does, with a check
	 * of each file (fskind.c).
	 */
	return fskind_syncfs_ok(fd) ? "syncfs" : "batched";
}

/* The strategy MODE names, "auto" judged on FD's filesystem; NULL if none. */
static const struct syncbatch_ops *
sb_strategy(const char *mode, int fd)
{
	size_t i;

	if (strcmp(mode, "auto") == 0)
		mode = syncbatch_auto(fd);
	for (i = 0; i < sizeof(syncbatch_strategies) /
	    sizeof(syncbatch_strategies[0]); i++)
		if (strcmp(mode, syncbatch_strategies[i]->name) == 0)
			return syncbatch_strategies[i];
	return NULL;
}

static struct syncbatch *
sb_alloc(const struct syncbatch_ops *ops, struct dirs *dirs,
    struct stats *st, size_t maxfds)
{
	struct syncbatch *sb;

	if ((sb = calloc(1, sizeof(*sb))) == NULL)
		return NULL;
	sb->ops = ops;
	sb->links = -1;
	sb->carried_by = -1;
	sb->link_dir = SB_NONE;
	sb->dirs = dirs;
	sb->st = st;
	sb->maxfds = maxfds;
	return sb;
}

int
syncbatch_new(struct syncbatch **out, const char *mode, int fd,
    struct dirs *dirs, struct stats *st, size_t maxfds)
{
	const struct syncbatch_ops *ops = sb_strategy(mode, fd);
	struct syncbatch *sb;
	int r;

	if (ops == NULL)
		return -EINVAL;
	if ((sb = sb_alloc(ops, dirs, st, maxfds)) == NULL)
		return -ENOMEM;
	if (ops->init != NULL && (r = ops->init(sb)) != 0) {
		free(sb);
		return r;
	}
	st->mode = sb->ops->name;
	/*
	 * The mode's calls are made all the same; under debunpack-nosync,
	 * which says so in the environment, its filter makes them no-ops.
	 */
	st->nosync = getenv("DEBUNPACK_NOSYNC_ACTIVE") != NULL;
	*out = sb;
	return 0;
}

int
syncbatch_new_like(struct syncbatch **out, struct syncbatch *peer,
    struct dirs *dirs, size_t maxfds)
{
	struct syncbatch *sb;
	int r;

	if ((sb = sb_alloc(peer->ops, dirs, peer->st, maxfds)) == NULL)
		return -ENOMEM;
	/* Its cleanup is the peer's caller's to sync as well. */
	sb->defer_end = peer->defer_end;
	if (sb->ops->join != NULL && (r = sb->ops->join(sb, peer)) != 0) {
		free(sb);
		return r;
	}
	*out = sb;
	return 0;
}

bool
syncbatch_durable(const struct syncbatch *sb)
{
	return sb->ops->durable;
}

const char *
syncbatch_mode(const struct syncbatch *sb)
{
	return sb->ops->name;
}

void
syncbatch_set_journal(struct syncbatch *sb, struct journal *j)
{
	sb->journal = j;
}

int
syncbatch_add(struct syncbatch *sb, size_t dir, const char *path,
    const char *tmp, size_t *idx)
{
	struct sb_item *it;

	if (sb->n == sb->cap) {
		size_t cap = sb->cap ? sb->cap * 2 : 256;

		if ((it = realloc(sb->v, cap * sizeof(*it))) == NULL)
			return -ENOMEM;
		sb->v = it;
		sb->cap = cap;
	}
	it = &sb->v[sb->n];
	memset(it, 0, sizeof(*it));
	it->dir = dir;
	it->fd = -1;
	it->link_of = SB_NONE;
	it->path = strdup(path);
	it->tmp = tmp != NULL ? strdup(tmp) : NULL;
	if (it->path == NULL || (tmp != NULL && it->tmp == NULL)) {
		free(it->path);
		free(it->tmp);
		return -ENOMEM;
	}
	it->name = strrchr(it->path, '/') != NULL ?
	    strrchr(it->path, '/') + 1 : it->path;
	*idx = sb->n++;
	return 0;
}

int
syncbatch_written(struct syncbatch *sb, size_t idx, int fd,
    struct dbp_error *err)
{
	struct sb_item *it = &sb->v[idx];
	bool keep, need;
	int r, r2;

	it->fd = fd;
	it->data = true;
	sb->nopen++;
	r = sb->ops->written(sb, it, err);
	/* One kept only to be waited for is not needed: the syncfs does. */
	need = sb->ops->keep_fds || it->check;
	keep = need || it->wait;
	/* Past the limit the file is reopened by name at the commit. */
	if (r == 0 && need && sb->nopen > sb->maxfds && !sb_reopenable(fd)) {
		/* It could not be: make it durable now, at the cost of a flush. */
		sb->st->calls[SC_FDATASYNC]++;
		if (fdatasync(fd) != 0)
			r = dbp_err(err, errno, it->path, "cannot sync");
		it->data = it->check = false;
	}
	if (r != 0 || !keep || sb->nopen > sb->maxfds) {
		r2 = sb_close(sb, it, err);
		if (r == 0)
			r = r2;
	}
	return r;
}

int
syncbatch_written_cloned(struct syncbatch *sb, size_t idx, int fd,
    struct dbp_error *err)
{
	sb->v[idx].cloned = true;
	return syncbatch_written(sb, idx, fd, err);
}

int
syncbatch_link(struct syncbatch *sb, size_t idx, size_t target)
{
	if (target >= sb->n || sb->v[target].state != SB_PENDING)
		return -EINVAL;
	/* Links of links name the item that owns the data. */
	if (sb->v[target].link_of != SB_NONE)
		target = sb->v[target].link_of;
	sb->v[idx].link_of = target;
	sb->v[target].nlinks++;
	return 0;
}

/*
 * IDX is dropped but hardlinks of this run share its inode: the first of
 * them takes over the duty to make the data durable, the others follow it.
 */
static void
sb_hand_over(struct syncbatch *sb, size_t idx)
{
	size_t i, heir = SB_NONE;

	for (i = idx + 1; i < sb->n && sb->v[idx].nlinks > 0; i++) {
		struct sb_item *it = &sb->v[i];

		if (it->link_of != idx)
			continue;
		sb->v[idx].nlinks--;
		if (it->state != SB_PENDING)
			continue;
		if (heir == SB_NONE) {
			heir = i;
			it->data = sb->v[idx].data;
			it->check = sb->v[idx].check;
			it->link_of = SB_NONE;
		} else {
			it->link_of = heir;
			sb->v[heir].nlinks++;
		}
	}
}

static int
sb_unlink_tmp(struct syncbatch *sb, struct sb_item *it)
{
	int dfd;

	if (it->tmp == NULL)
		return 0;	/* a dry run's: never made */
	if ((dfd = dirs_fd(sb->dirs, it->dir)) < 0)
		return dfd;
	if (unlinkat(dfd, it->tmp, 0) != 0 && errno != ENOENT)
		return -errno;
	dirs_mark(sb->dirs, it->dir, DIR_NAMES);
	return 0;
}

int
syncbatch_drop(struct syncbatch *sb, size_t idx, struct dbp_error *err)
{
	struct sb_item *it = &sb->v[idx];
	int r;

	if (it->state != SB_PENDING)
		return 0;
	if (it->nlinks > 0)
		sb_hand_over(sb, idx);
	if ((r = sb_close(sb, it, err)) != 0)
		return r;
	if ((r = sb_unlink_tmp(sb, it)) != 0)
		return dbp_err(err, -r, it->path, "cannot remove temporary");
	it->state = SB_GONE;
	return 0;
}

const char *
syncbatch_path(const struct syncbatch *sb, size_t idx)
{
	return sb->v[idx].path;
}

const char *
syncbatch_tmpname(const struct syncbatch *sb, size_t idx)
{
	return sb->v[idx].tmp;
}

size_t
syncbatch_dir(const struct syncbatch *sb, size_t idx)
{
	return sb->v[idx].dir;
}

static int sb_unlink_backup(struct syncbatch *, struct sb_item *);

/*
 * Keep the old version of IT's name as a hardlink under its backup name
 * (no data is copied), so that a failure later in the run, or the repair
 * after a crash, can put it back.  A leftover under that name is ours
 * (a reserved name) and is replaced.
 */
static int
sb_backup(struct sb_item *it, int dfd, struct dbp_error *err)
{
	char old[NAME_MAX + 1];
	struct stat st;
	int r;

	names_old(it->tmp, old, sizeof(old));
	/*
	 * Without AT_SYMLINK_FOLLOW a symlink is linked, not its target.  A
	 * leftover backup is removed only when the link runs into one: one
	 * call per file on the way to the commit, not two.
	 */
	r = linkat(dfd, it->name, dfd, old, 0);
	if (r != 0 && errno == EEXIST) {
		if (unlinkat(dfd, old, 0) != 0)
			return dbp_err(err, errno, it->path,
			    "cannot remove old backup");
		r = linkat(dfd, it->name, dfd, old, 0);
	}
	if (r == 0)
		it->backup = true;
	else if (errno == EPERM && fstatat(dfd, it->name, &st,
	    AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
		/* An empty directory that a file replaces (unpack checked). */
		unlinkat(dfd, old, AT_REMOVEDIR);
		it->backup = it->backup_dir = true;
	} else if (errno != ENOENT)
		return dbp_err(err, errno, it->path, "cannot keep a backup");
	return 0;
}

int
syncbatch_prepare(struct syncbatch *sb, struct journal *j, char tree,
    struct dbp_error *err)
{
	size_t i;
	int dfd, r;

	for (i = 0; i < sb->n; i++) {
		struct sb_item *it = &sb->v[i];

		if (it->state != SB_PENDING)
			continue;
		if ((dfd = dirs_fd(sb->dirs, it->dir)) < 0)
			return dbp_err(err, -dfd, dirs_path(sb->dirs, it->dir),
			    "cannot open directory");
		if ((r = sb_backup(it, dfd, err)) != 0)
			return r;
		if (j != NULL && (r = journal_item(j, tree, it->backup,
		    dirs_path(sb->dirs, it->dir), it->tmp, it->name)) != 0)
			return dbp_err(err, -r, JOURNAL_NAME,
			    "cannot write journal");
	}
	sb->prepared = true;
	return 0;
}

/* Put IT's temporary in place of its name (a directory moved aside first). */
/*
 * Whether a new name in directory DIR (descriptor DFD) is linked to its
 * temporary rather than renamed (fskind_links_new says where).  Items
 * come directory by directory: one statfs per change of directory.
 */
static bool
sb_links_ok(struct syncbatch *sb, size_t dir, int dfd)
{
	if (sb->links >= 0)
		return sb->links != 0;
	if (sb->link_dir != dir) {
		sb->link_dir = dir;
		sb->link_ok = fskind_links_new(dfd);
	}
	return sb->link_ok;
}

static int
sb_rename_one(struct syncbatch *sb, struct sb_item *it, struct dbp_error *err)
{
	int dfd;

	if ((dfd = dirs_fd(sb->dirs, it->dir)) < 0)
		return dbp_err(err, -dfd, dirs_path(sb->dirs, it->dir),
		    "cannot open directory");
	if (it->backup_dir && !it->dir_moved) {
		char old[NAME_MAX + 1];

		/* Entries of this run may have gone into it since. */
		if (!dirs_empty(dfd, it->name))
			return dbp_err(err, 0, it->path, "is a directory"
			    " that is not empty, not replacing it by a file");
		names_old(it->tmp, old, sizeof(old));
		if (renameat(dfd, it->name, dfd, old) != 0)
			return dbp_err(err, errno, it->path,
			    "cannot move the directory aside");
		it->dir_moved = true;
	}
	/*
	 * A name that had no old version gets a link to its temporary, and
	 * the temporaries go only once every such link is made
	 * (sb_unlink_linked).  A rename of a new name adds one entry and
	 * removes another; in a directory of a few hundred entries xfs then
	 * keeps converting it between its block forms, and each freed block
	 * forces the log on the next rename: thousands of log forces and
	 * cache flushes for 10,000 files, which one pass of links and one of
	 * removals do not cause.  A crash in between leaves two names of one
	 * inode, which the repair tells apart (recover.c).  Where links
	 * cannot be made, or cost more than they save (fskind_links_new),
	 * the rename does the same.
	 */
	if (sb->ops->link_new && !it->backup &&
	    sb_links_ok(sb, it->dir, dfd)) {
		sb->st->calls[SC_LINK]++;
		if (linkat(dfd, it->tmp, dfd, it->name, 0) == 0) {
			it->linked = true;
			return 0;
		}
	}
	sb->st->calls[SC_RENAME]++;
	if (renameat(dfd, it->tmp, dfd, it->name) != 0)
		return dbp_err(err, errno, it->path, "cannot rename");
	return 0;
}

/* Remove the temporaries that sb_rename_one linked to their names. */
static int
sb_unlink_linked(struct syncbatch *sb, struct dbp_error *err)
{
	size_t i;
	int r;

	for (i = 0; i < sb->n; i++) {
		struct sb_item *it = &sb->v[i];

		if (it->state != SB_RENAMED || !it->linked)
			continue;
		if ((r = sb_unlink_tmp(sb, it)) != 0)
			return dbp_err(err, -r, it->path,
			    "cannot remove temporary");
		it->linked = false;
	}
	return 0;
}

int
syncbatch_rename(struct syncbatch *sb, struct dbp_error *err)
{
	double t0;
	size_t i;
	int r;

	if (!sb->prepared && (r = syncbatch_prepare(sb, NULL, 0, err)) != 0)
		return r;
	/* Data first: a name must never point at data that is not durable. */
	if ((!sb->ops->journal_in_barrier &&
	    (r = syncstep_journal_first(sb, err)) != 0) ||
	    (r = sb->ops->data_barrier(sb, err)) != 0)
		return r;
	for (i = 0; i < sb->n; i++)
		if (sb->v[i].state == SB_PENDING &&
		    (r = sb_close(sb, &sb->v[i], err)) != 0)
			return r;
	t0 = stats_now();
	for (i = 0; i < sb->n; i++) {
		struct sb_item *it = &sb->v[i];

		if (it->state != SB_PENDING)
			continue;
		if ((r = sb_rename_one(sb, it, err)) != 0)
			return r;
		it->state = SB_RENAMED;
		sb->renamed = true;
		dirs_mark(sb->dirs, it->dir, DIR_NAMES | DIR_RENAMED);
		if (sb->ops->renamed != NULL &&
		    (r = sb->ops->renamed(sb, it, err)) != 0)
			return r;
	}
	if ((r = sb_unlink_linked(sb, err)) != 0)
		return r;
	/* Modes and mtimes of new directories go last: the renames change them. */
	r = dirs_fixup(sb->dirs, err);
	sb->st->phase[PH_RENAME] += stats_now() - t0;
	return r;
}

int
syncbatch_commit(struct syncbatch *sb, struct dbp_error *err)
{
	int r;

	if ((r = syncbatch_rename(sb, err)) != 0)
		return r;
	return syncbatch_sync_dirs(sb, err);
}

int
syncbatch_sync_dirs(struct syncbatch *sb, struct dbp_error *err)
{
	double t0 = stats_now();
	int r;

	r = sb->ops->names_barrier(sb, err);
	sb->st->phase[PH_DIRSYNC] += stats_now() - t0;
	return r;
}

int
syncbatch_sync_cleanup(struct syncbatch *sb, struct dbp_error *err)
{
	double t0 = stats_now();
	int r;

	r = sb->ops->cleanup_barrier != NULL ?
	    sb->ops->cleanup_barrier(sb, err) : sb->ops->names_barrier(sb, err);
	sb->st->phase[PH_DIRSYNC] += stats_now() - t0;
	return r;
}

int
syncbatch_cover(struct syncbatch *sb, int fd)
{
	return sb->ops->cover != NULL ? sb->ops->cover(sb, fd) : 0;
}

int
syncbatch_cover_settled(struct syncbatch *sb, int fd)
{
	return sb->ops->cover_settled != NULL ?
	    sb->ops->cover_settled(sb, fd) : 0;
}

void
syncbatch_cleanup_carried(struct syncbatch *sb, int fd)
{
	sb->carried_by = fd;
}

void
syncbatch_defer_end(struct syncbatch *sb, bool on)
{
	sb->defer_end = on;
}

bool
syncbatch_owed(const struct syncbatch *sb)
{
	return sb->defer_end && sb->ops->owed != NULL && sb->ops->owed(sb);
}

int
syncbatch_carries_commit(struct syncbatch *sb, struct dbp_error *err)
{
	return sb->ops->carries_commit != NULL ?
	    sb->ops->carries_commit(sb, err) : 0;
}

/* Remove IT's backup: it is not needed any more. */
static int
sb_unlink_backup(struct syncbatch *sb, struct sb_item *it)
{
	char old[NAME_MAX + 1];
	int dfd;

	if (!it->backup)
		return 0;
	it->backup = false;
	if (it->backup_dir && !it->dir_moved)
		return 0;
	names_old(it->tmp, old, sizeof(old));
	if ((dfd = dirs_fd(sb->dirs, it->dir)) < 0)
		return dfd;
	if (unlinkat(dfd, old, it->backup_dir ? AT_REMOVEDIR : 0) != 0)
		return errno == ENOENT ? 0 : -errno;
	/*
	 * The names barrier that follows makes the removal durable before
	 * the journal goes: else a power cut could keep the backup of a
	 * run whose end is durable (a reinstall, a takeover: no obsolete
	 * path marks the directory otherwise).
	 */
	dirs_mark(sb->dirs, it->dir, DIR_NAMES);
	return 0;
}

/*
 * Undo the renames of a commit that failed, last first: a name that had
 * an old version gets it back from its backup, a new name goes away.
 */
static int
sb_rollback(struct syncbatch *sb)
{
	size_t i;
	int dfd, r = 0, r2;

	for (i = sb->n; i-- > 0;) {
		struct sb_item *it = &sb->v[i];

		if (it->state != SB_RENAMED)
			continue;
		if ((dfd = dirs_fd(sb->dirs, it->dir)) < 0) {
			r = r != 0 ? r : dfd;
			continue;
		}
		/* The repair after a crash undoes by the same rule. */
		if ((r2 = names_undo(dfd, it->name, it->tmp, it->backup ||
		    it->backup_dir)) < 0) {
			r = r != 0 ? r : r2;
			continue;
		}
		it->backup = it->dir_moved = it->linked = false;
		it->state = SB_GONE;
		dirs_mark(sb->dirs, it->dir, DIR_NAMES);
	}
	if (r == 0) {
		sb->renamed = false;
		for (i = 0; i < dirs_count(sb->dirs); i++)
			dirs_clear(sb->dirs, i, DIR_RENAMED);
	}
	return r;
}

int
syncbatch_finish(struct syncbatch *sb)
{
	size_t i;
	int r = 0, r2;

	for (i = 0; i < sb->n; i++)
		if ((r2 = sb_unlink_backup(sb, &sb->v[i])) != 0 && r == 0)
			r = r2;
	return r;
}

/* Put back the directory that IT's file was to replace. */
static int
sb_dir_back(struct syncbatch *sb, struct sb_item *it)
{
	char old[NAME_MAX + 1];
	int dfd;

	names_old(it->tmp, old, sizeof(old));
	if ((dfd = dirs_fd(sb->dirs, it->dir)) < 0)
		return dfd;
	if (renameat(dfd, old, dfd, it->name) != 0)
		return -errno;
	it->backup = it->dir_moved = false;
	return 0;
}

int
syncbatch_abort(struct syncbatch *sb)
{
	struct dbp_error ignored;
	size_t i;
	int r = 0, r2;

	if (sb->renamed && (r2 = sb_rollback(sb)) != 0)
		r = r2;
	for (i = 0; i < sb->n; i++) {
		struct sb_item *it = &sb->v[i];

		if (it->state != SB_PENDING)
			continue;
		sb_close(sb, it, &ignored);
		if ((r2 = sb_unlink_tmp(sb, it)) != 0 && r == 0)
			r = r2;
		/* Not renamed: the old version is in place, or moved aside. */
		if (it->dir_moved)
			r2 = sb_dir_back(sb, it);
		else
			r2 = sb_unlink_backup(sb, it);
		if (r2 != 0 && r == 0)
			r = r2;
		it->state = SB_GONE;
	}
	return r;
}

int
syncbatch_abort_dirs(struct syncbatch *sb)
{
	struct dbp_error ignored;
	int r = 0, r2;

	sb->aborting = true;
	/*
	 * Once a name is committed the new directories are part of the new
	 * state (a committed symlink may point into one): keep them.
	 */
	if (!sb->renamed && (r2 = dirs_remove_created(sb->dirs)) != 0)
		r = r2;
	/*
	 * Directories that survive hold files that were already renamed:
	 * give them their final metadata and make the state durable, since
	 * a rerun keeps existing directories as they are.
	 */
	if ((r2 = dirs_fixup(sb->dirs, &ignored)) != 0 && r == 0)
		r = r2;
	dirs_restore_times(sb->dirs);
	if ((r2 = sb->ops->names_barrier(sb, &ignored)) != 0 && r == 0)
		r = r2;
	return r;
}

void
syncbatch_close_fds(struct syncbatch *sb)
{
	if (sb != NULL && sb->ops->close != NULL)
		sb->ops->close(sb);
}

void
syncbatch_free(struct syncbatch *sb)
{
	size_t i;

	if (sb == NULL)
		return;
	for (i = 0; i < sb->n; i++) {
		if (sb->v[i].fd >= 0)
			close(sb->v[i].fd);
		free(sb->v[i].path);
		free(sb->v[i].tmp);
	}
	free(sb->v);
	if (sb->ops->put != NULL)
		sb->ops->put(sb);
	free(sb);
}
