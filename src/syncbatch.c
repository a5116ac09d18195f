/* When and how written files become durable: the sync strategies and the commit. */
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

#include "fskind.h"
#include "journal.h"
#include "syncbatch.h"

enum sb_state { SB_PENDING, SB_RENAMED, SB_GONE };

struct sb_item {
	size_t dir;
	char *path;		/* root-relative, for messages */
	const char *name;	/* last component of path */
	char *tmp;
	int fd;			/* open until commit, or -1 */
	bool data;		/* regular file: its data must be made durable */
	enum sb_state state;
	bool backup;		/* the old NAME is kept as its backup name */
	bool backup_dir;	/* ... and is an empty directory, moved there
				   at the rename (a directory has no links) */
	bool dir_moved;		/* it was moved */
	size_t link_of;		/* hardlink: item of the file it links to */
	size_t nlinks;		/* hardlinks made to this item */
};

#define SB_NONE	((size_t)-1)

struct syncbatch;

/*
 * A strategy.  The extraction code never asks which one runs: it calls
 * syncbatch_written and syncbatch_commit, and these call the hooks.
 */
struct syncbatch_ops {
	const char *name;
	bool keep_fds;		/* keep written files open until the commit */
	/* a regular file is fully written; it->fd is open */
	int (*written)(struct syncbatch *, struct sb_item *,
	    struct dbp_error *);
	/* before any rename: every file's data is durable after it */
	int (*data_barrier)(struct syncbatch *, struct dbp_error *);
	/* right after one rename */
	int (*renamed)(struct syncbatch *, struct sb_item *,
	    struct dbp_error *);
	/* after all renames and directory fixups: names are durable */
	int (*names_barrier)(struct syncbatch *, struct dbp_error *);
};

/*
 * What the syncfs strategy syncs, shared by the batches of a run (files
 * and records): one barrier covers them all.  Each filesystem is synced
 * through a descriptor opened before the run wrote anything there, since
 * syncfs reports a writeback error only to descriptors older than it.
 */
struct sb_fsset {
	dev_t *dev;
	int *fd;
	bool *ok;		/* syncfs is trusted there (fskind.h) */
	char **path;		/* what FD was opened as, for messages */
	size_t n;
	struct dirs *tab[2];	/* the directory tables of the batches */
	size_t ntab;
	unsigned refs;
	bool data;		/* files written since the last syncfs */
	bool names;		/* names changed since the last syncfs */
};

struct syncbatch {
	const struct syncbatch_ops *ops;
	struct sb_fsset *fs;	/* syncfs strategy only */
	struct dirs *dirs;
	struct stats *st;
	struct sb_item *v;
	size_t n, cap;
	size_t maxfds, nopen;
	bool prepared;		/* data durable, backups kept */
	struct journal *journal;	/* synced before anything else is */
	bool renamed;		/* the commit renamed at least one name */
};

static int
sb_close(struct syncbatch *sb, struct sb_item *it, struct dbp_error *err)
{
	int r;

	if (it->fd < 0)
		return 0;
	r = close(it->fd);
	it->fd = -1;
	sb->nopen--;
	/* A close error is a write error reported late: the data is not safe. */
	if (r != 0 && errno != EINTR)
		return dbp_err(err, errno, it->path, "cannot close");
	return 0;
}

/* Whether a file closed now can be opened again for reading. */
static bool
sb_reopenable(int fd)
{
	struct stat st;

	if (geteuid() == 0)
		return true;
	return fstat(fd, &st) == 0 && (st.st_mode & S_IRUSR) &&
	    st.st_uid == geteuid();
}

/*
 * Descriptor of a written file: the one kept open, or the temporary
 * reopened by name (*REOPENED tells the caller to close it).
 */
static int
sb_item_fd(struct syncbatch *sb, struct sb_item *it, bool *reopened,
    struct dbp_error *err)
{
	int dfd, fd;

	*reopened = false;
	if (it->fd >= 0)
		return it->fd;
	if ((dfd = dirs_fd(sb->dirs, it->dir)) < 0)
		return dbp_err(err, -dfd, dirs_path(sb->dirs, it->dir),
		    "cannot open directory");
	sb->st->calls[SC_REOPEN]++;
	fd = openat(dfd, it->tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return dbp_err(err, errno, it->path, "cannot reopen");
	*reopened = true;
	return fd;
}

/* --- batched: start writeback early, wait and flush once at the end --- */

static int
batched_written(struct syncbatch *sb, struct sb_item *it,
    struct dbp_error *err)
{
#ifdef HAVE_SYNC_FILE_RANGE
	/*
	 * Start writeback now, without waiting: by the commit most data is
	 * on its way, and the fdatasync calls find little left to write.
	 */
	sb->st->calls[SC_SYNC_FILE_RANGE_WRITE]++;
	if (sync_file_range(it->fd, 0, 0, SYNC_FILE_RANGE_WRITE) != 0 &&
	    errno != ENOSYS && errno != EINVAL)
		return dbp_err(err, errno, it->path, "cannot start writeback");
#elif defined(HAVE_POSIX_FADVISE)
	/* What dpkg falls back to: DONTNEED starts writeback of dirty pages. */
	sb->st->calls[SC_FADVISE]++;
	(void)posix_fadvise(it->fd, 0, 0, POSIX_FADV_DONTNEED);
#else
	(void)sb;
	(void)it;
	(void)err;
#endif
	return 0;
}

/*
 * Run FN on the descriptor of every file whose data must be made durable,
 * reopening those closed past the limit.  FN returns 0 or an error; when
 * LAST, descriptors kept open are closed after it (close errors count).
 */
static int
sb_each_data(struct syncbatch *sb, bool last,
    int (*fn)(struct syncbatch *, struct sb_item *, int, struct dbp_error *),
    struct dbp_error *err)
{
	bool reopened;
	size_t i;
	int fd, r;

	for (i = 0; i < sb->n; i++) {
		struct sb_item *it = &sb->v[i];

		if (!it->data || it->state != SB_PENDING)
			continue;
		if ((fd = sb_item_fd(sb, it, &reopened, err)) < 0)
			return fd;
		r = fn(sb, it, fd, err);
		if (reopened)
			close(fd);
		else if (r == 0 && last)
			r = sb_close(sb, it, err);
		if (r != 0)
			return r;
	}
	return 0;
}

#ifdef HAVE_SYNC_FILE_RANGE
static int
batched_wait(struct syncbatch *sb, struct sb_item *it, int fd,
    struct dbp_error *err)
{
	sb->st->calls[SC_SYNC_FILE_RANGE_WAIT]++;
	if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE) != 0 &&
	    errno != ENOSYS && errno != EINVAL)
		return dbp_err(err, errno, it->path, "cannot wait for writeback");
	return 0;
}
#endif

static int
batched_fdatasync(struct syncbatch *sb, struct sb_item *it, int fd,
    struct dbp_error *err)
{
	sb->st->calls[SC_FDATASYNC]++;
	if (fdatasync(fd) != 0)
		return dbp_err(err, errno, it->path, "cannot sync");
	return 0;
}

static int
batched_data_barrier(struct syncbatch *sb, struct dbp_error *err)
{
	double t0 = stats_now();
	int r = 0;

#ifdef HAVE_SYNC_FILE_RANGE
	/* Wait for all writeback first, so the flushes below overlap nothing. */
	r = sb_each_data(sb, false, batched_wait, err);
#endif
	sb->st->phase[PH_WAIT] += stats_now() - t0;
	if (r != 0)
		return r;
	t0 = stats_now();
	/*
	 * The first fdatasync commits the journal transaction that holds
	 * every file's metadata; the others mostly find nothing to do.
	 */
	r = sb_each_data(sb, true, batched_fdatasync, err);
	sb->st->phase[PH_FDATASYNC] += stats_now() - t0;
	return r;
}

static int
sync_names(struct syncbatch *sb, struct dbp_error *err)
{
	return dirs_sync(sb->dirs, &sb->st->calls[SC_FSYNC], err);
}

/* --- perfile: the classic write, fsync, rename, fsync directory --- */

/*
 * Nothing of the run is made durable before the journal lines that name
 * where it is: else a power cut could keep a temporary, or a directory,
 * that no durable journal tells the repair about.
 */
static int
sb_journal_first(struct syncbatch *sb, struct dbp_error *err)
{
	return sb->journal != NULL ? journal_sync(sb->journal, err) : 0;
}

static int
perfile_written(struct syncbatch *sb, struct sb_item *it,
    struct dbp_error *err)
{
	int r;

	if ((r = sb_journal_first(sb, err)) != 0)
		return r;
	sb->st->calls[SC_FSYNC]++;
	if (fsync(it->fd) != 0)
		return dbp_err(err, errno, it->path, "cannot sync");
	return 0;
}

static int
perfile_renamed(struct syncbatch *sb, struct sb_item *it,
    struct dbp_error *err)
{
	return dirs_sync_one(sb->dirs, it->dir, &sb->st->calls[SC_FSYNC], err);
}

/* --- syncfs: start writeback early, one syncfs per barrier --- */

/*
 * Why this is as safe as batched: syncfs(2) writes back every dirty page
 * and inode of the filesystem, waits for it, commits the filesystem's
 * journal (ext4: a jbd2 commit; xfs: a log force; btrfs: a transaction
 * commit, which also makes the log tree unnecessary) and flushes the
 * device cache, and since Linux 5.8 it returns the writeback errors of
 * the whole filesystem.  So after the data barrier every temporary's
 * data and inode are durable, and no rename has been made yet; after the
 * names barrier every rename and directory change is.  Its cost does not
 * depend on the number of files: a few device flushes per barrier where
 * batched pays one fdatasync, thus one flush (btrfs: one log-tree sync),
 * per file.  What it costs instead is writing back whatever else is
 * dirty on that filesystem, which for a root being built is the root.
 */

/*
 * Add the filesystem of FD (PATH, root-relative) to the set, keeping a
 * descriptor for syncfs; *IDX tells which it is.
 */
static int
sb_fs_add(struct sb_fsset *fs, int fd, const char *path, size_t *idx)
{
	struct stat st;
	size_t i;
	void *p;
	int dup;

	if (fstat(fd, &st) != 0)
		return -errno;
	for (i = 0; i < fs->n; i++)
		if (fs->dev[i] == st.st_dev) {
			*idx = i;
			return 0;
		}
	if ((dup = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return -errno;
	if ((p = realloc(fs->dev, (fs->n + 1) * sizeof(*fs->dev))) == NULL)
		goto nomem;
	fs->dev = p;
	if ((p = realloc(fs->fd, (fs->n + 1) * sizeof(*fs->fd))) == NULL)
		goto nomem;
	fs->fd = p;
	if ((p = realloc(fs->ok, (fs->n + 1) * sizeof(*fs->ok))) == NULL)
		goto nomem;
	fs->ok = p;
	if ((p = realloc(fs->path, (fs->n + 1) * sizeof(*fs->path))) == NULL)
		goto nomem;
	fs->path = p;
	if ((fs->path[fs->n] = strdup(path)) == NULL)
		goto nomem;
	fs->dev[fs->n] = st.st_dev;
	/*
	 * A root may hold other mounts (a vfat /boot/efi, a FUSE or NFS
	 * admin directory): each filesystem is judged on its own.
	 */
	fs->ok[fs->n] = fskind_syncfs_ok(fd);
	fs->fd[fs->n] = dup;
	*idx = fs->n++;
	return 0;
nomem:
	close(dup);
	return -ENOMEM;
}

static int
syncfs_written(struct syncbatch *sb, struct sb_item *it,
    struct dbp_error *err)
{
	size_t idx;
	int r;

	/*
	 * The first file written on a filesystem is the one that is old
	 * enough to hear of every writeback error of the run there.
	 */
	if ((r = sb_fs_add(sb->fs, it->fd, it->path, &idx)) != 0)
		return dbp_err(err, -r, it->path, "cannot open filesystem");
	if (!sb->fs->ok[idx]) {
		/* Where syncfs is not trusted, the file is synced itself. */
		if ((r = sb_journal_first(sb, err)) != 0)
			return r;
		sb->st->calls[SC_FDATASYNC]++;
		if (fdatasync(it->fd) != 0)
			return dbp_err(err, errno, it->path, "cannot sync");
		return 0;
	}
	sb->fs->data = true;
	/* Writeback overlaps extraction: the barrier finds little to write. */
	return batched_written(sb, it, err);
}

/*
 * syncfs every filesystem of the set, and of the directories the run
 * changed (a package of directories and symlinks writes no file); on a
 * filesystem where syncfs is not trusted, fsync the changed directories.
 */
static int
syncfs_all(struct syncbatch *sb, struct dbp_error *err)
{
	struct sb_fsset *fs = sb->fs;
	size_t i, t, idx;
	int fd, r;

	if ((r = sb_journal_first(sb, err)) != 0)
		return r;
	for (t = 0; t < fs->ntab; t++)
		for (i = 0; i < dirs_count(fs->tab[t]); i++) {
			struct dirs *d = fs->tab[t];
			unsigned f = dirs_flags(d, i);

			if (!(f & (DIR_NAMES | DIR_META)) ||
			    (f & (DIR_SYNCED | DIR_GONE)))
				continue;
			if ((fd = dirs_fd(d, i)) < 0)
				return dbp_err(err, -fd, dirs_path(d, i),
				    "cannot open directory");
			if ((r = sb_fs_add(fs, fd, dirs_path(d, i), &idx)) != 0)
				return dbp_err(err, -r, dirs_path(d, i),
				    "cannot open filesystem");
			if (!fs->ok[idx] && (r = dirs_sync_one(d, i,
			    &sb->st->calls[SC_FSYNC], err)) != 0)
				return r;
		}
	for (i = 0; i < fs->n; i++) {
		if (!fs->ok[i])
			continue;
		sb->st->calls[SC_SYNCFS]++;
		if (syncfs(fs->fd[i]) != 0)
			return dbp_err(err, errno, fs->path[i],
			    "cannot sync its filesystem");
	}
	/* Every batch's directories are durable now, not only this one's. */
	for (t = 0; t < fs->ntab; t++)
		for (i = 0; i < dirs_count(fs->tab[t]); i++)
			if (dirs_flags(fs->tab[t], i) & (DIR_NAMES | DIR_META))
				dirs_mark(fs->tab[t], i, DIR_SYNCED);
	fs->data = fs->names = false;
	return 0;
}

/* Whether a directory of a batch changed since the last barrier. */
static bool
sb_dirs_changed(const struct sb_fsset *fs)
{
	size_t i, t;

	for (t = 0; t < fs->ntab; t++)
		for (i = 0; i < dirs_count(fs->tab[t]); i++) {
			unsigned f = dirs_flags(fs->tab[t], i);

			if ((f & (DIR_NAMES | DIR_META)) &&
			    !(f & (DIR_SYNCED | DIR_GONE)))
				return true;
		}
	return false;
}

static int
syncfs_data_barrier(struct syncbatch *sb, struct dbp_error *err)
{
	double t0 = stats_now();
	int r;

	/* Another batch's barrier may have covered this one's files. */
	if (!sb->fs->data)
		return 0;
	r = syncfs_all(sb, err);
	sb->st->phase[PH_FDATASYNC] += stats_now() - t0;
	return r;
}

static int
syncfs_renamed(struct syncbatch *sb, struct sb_item *it,
    struct dbp_error *err)
{
	(void)it;
	(void)err;
	sb->fs->names = true;
	return 0;
}

static int
syncfs_names_barrier(struct syncbatch *sb, struct dbp_error *err)
{
	if (!sb->fs->data && !sb->fs->names && !sb_dirs_changed(sb->fs))
		return 0;
	return syncfs_all(sb, err);
}

/* --- none: atomic renames, no durability --- */

static int
none_barrier(struct syncbatch *sb, struct dbp_error *err)
{
	(void)sb;
	(void)err;
	return 0;
}

static int
none_written(struct syncbatch *sb, struct sb_item *it, struct dbp_error *err)
{
	(void)it;
	return none_barrier(sb, err);
}

static const struct syncbatch_ops syncbatch_strategies[] = {
	{ "syncfs", false, syncfs_written, syncfs_data_barrier,
	    syncfs_renamed, syncfs_names_barrier },
	{ "batched", true, batched_written, batched_data_barrier, NULL,
	    sync_names },
	{ "perfile", false, perfile_written, none_barrier, perfile_renamed,
	    sync_names },
	{ "none", false, none_written, none_barrier, NULL, none_barrier },
};

const char *const syncbatch_modes[] = {
	"auto", "syncfs", "batched", "perfile", "none", NULL
};

const char *
syncbatch_auto(int fd)
{
	/*
	 * Elsewhere (NFS, FUSE, overlayfs, ...) syncfs may not reach the
	 * storage, or not report its errors: the per-file fdatasync is what
	 * every filesystem implements.
	 */
	return fskind_syncfs_ok(fd) ? "syncfs" : "batched";
}

static struct syncbatch *
sb_alloc(const struct syncbatch_ops *ops, struct dirs *dirs,
    struct stats *st, size_t maxfds)
{
	struct syncbatch *sb;

	if ((sb = calloc(1, sizeof(*sb))) == NULL)
		return NULL;
	sb->ops = ops;
	sb->dirs = dirs;
	sb->st = st;
	sb->maxfds = maxfds;
	return sb;
}

int
syncbatch_new(struct syncbatch **out, const char *mode, struct dirs *dirs,
    struct stats *st, size_t maxfds)
{
	struct syncbatch *sb;
	size_t i;

	for (i = 0; i < sizeof(syncbatch_strategies) /
	    sizeof(syncbatch_strategies[0]); i++)
		if (strcmp(mode, syncbatch_strategies[i].name) == 0)
			break;
	if (i == sizeof(syncbatch_strategies) / sizeof(syncbatch_strategies[0]))
		return -EINVAL;
	if ((sb = sb_alloc(&syncbatch_strategies[i], dirs, st, maxfds)) == NULL)
		return -ENOMEM;
	if (sb->ops->written == syncfs_written) {
		if ((sb->fs = calloc(1, sizeof(*sb->fs))) == NULL) {
			free(sb);
			return -ENOMEM;
		}
		sb->fs->refs = 1;
		sb->fs->tab[sb->fs->ntab++] = dirs;
	}
	st->mode = sb->ops->name;
	*out = sb;
	return 0;
}

int
syncbatch_new_like(struct syncbatch **out, struct syncbatch *peer,
    struct dirs *dirs, size_t maxfds)
{
	struct syncbatch *sb;

	if (peer->fs != NULL && peer->fs->ntab == sizeof(peer->fs->tab) /
	    sizeof(peer->fs->tab[0]))
		return -ENOSPC;
	if ((sb = sb_alloc(peer->ops, dirs, peer->st, maxfds)) == NULL)
		return -ENOMEM;
	if ((sb->fs = peer->fs) != NULL) {
		sb->fs->refs++;
		if (sb->fs->tab[0] != dirs)
			sb->fs->tab[sb->fs->ntab++] = dirs;
	}
	*out = sb;
	return 0;
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
	it->tmp = strdup(tmp);
	if (it->path == NULL || it->tmp == NULL) {
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
	int r, r2;

	it->fd = fd;
	it->data = true;
	sb->nopen++;
	r = sb->ops->written(sb, it, err);
	/* Past the limit the file is reopened by name at the commit. */
	if (r == 0 && sb->ops->keep_fds && sb->nopen > sb->maxfds &&
	    !sb_reopenable(fd)) {
		/* It could not be: make it durable now, at the cost of a flush. */
		sb->st->calls[SC_FDATASYNC]++;
		if (fdatasync(fd) != 0)
			r = dbp_err(err, errno, it->path, "cannot sync");
		it->data = false;
	}
	if (r != 0 || !sb->ops->keep_fds || sb->nopen > sb->maxfds) {
		r2 = sb_close(sb, it, err);
		if (r == 0)
			r = r2;
	}
	return r;
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

	journal_oldname(it->tmp, old, sizeof(old));
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

int
syncbatch_rename(struct syncbatch *sb, struct dbp_error *err)
{
	double t0;
	size_t i;
	int dfd, r;

	if (!sb->prepared && (r = syncbatch_prepare(sb, NULL, 0, err)) != 0)
		return r;
	/* Data first: a name must never point at data that is not durable. */
	if ((r = sb_journal_first(sb, err)) != 0 ||
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
		if ((dfd = dirs_fd(sb->dirs, it->dir)) < 0)
			return dbp_err(err, -dfd, dirs_path(sb->dirs, it->dir),
			    "cannot open directory");
		if (it->backup_dir && !it->dir_moved) {
			char old[NAME_MAX + 1];

			/* Entries of this run may have gone into it since. */
			if (!dirs_empty(dfd, it->name))
				return dbp_err(err, 0, it->path, "is a directory"
				    " that is not empty, not replacing it by a"
				    " file");
			journal_oldname(it->tmp, old, sizeof(old));
			if (renameat(dfd, it->name, dfd, old) != 0)
				return dbp_err(err, errno, it->path,
				    "cannot move the directory aside");
			it->dir_moved = true;
		}
		sb->st->calls[SC_RENAME]++;
		if (renameat(dfd, it->tmp, dfd, it->name) != 0)
			return dbp_err(err, errno, it->path, "cannot rename");
		it->state = SB_RENAMED;
		sb->renamed = true;
		dirs_mark(sb->dirs, it->dir, DIR_NAMES | DIR_RENAMED);
		if (sb->ops->renamed != NULL &&
		    (r = sb->ops->renamed(sb, it, err)) != 0)
			return r;
	}
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
	journal_oldname(it->tmp, old, sizeof(old));
	if ((dfd = dirs_fd(sb->dirs, it->dir)) < 0)
		return dfd;
	return unlinkat(dfd, old, it->backup_dir ? AT_REMOVEDIR : 0) == 0 ||
	    errno == ENOENT ? 0 : -errno;
}

/*
 * Undo the renames of a commit that failed, last first: a name that had
 * an old version gets it back from its backup, a new name goes away.
 */
static int
sb_rollback(struct syncbatch *sb)
{
	char old[NAME_MAX + 1];
	size_t i;
	int dfd, r = 0;

	for (i = sb->n; i-- > 0;) {
		struct sb_item *it = &sb->v[i];

		if (it->state != SB_RENAMED)
			continue;
		if ((dfd = dirs_fd(sb->dirs, it->dir)) < 0) {
			r = r != 0 ? r : dfd;
			continue;
		}
		journal_oldname(it->tmp, old, sizeof(old));
		/* A directory cannot be renamed over the file: remove it first. */
		if (it->backup_dir && unlinkat(dfd, it->name, 0) != 0 &&
		    errno != ENOENT) {
			r = r != 0 ? r : -errno;
			continue;
		}
		if (it->backup ? renameat(dfd, old, dfd, it->name) != 0 :
		    unlinkat(dfd, it->name, 0) != 0) {
			r = r != 0 ? r : -errno;
			continue;
		}
		it->backup = it->dir_moved = false;
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

	journal_oldname(it->tmp, old, sizeof(old));
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
	if (sb->fs != NULL && --sb->fs->refs == 0) {
		for (i = 0; i < sb->fs->n; i++) {
			close(sb->fs->fd[i]);
			free(sb->fs->path[i]);
		}
		free(sb->fs->path);
		free(sb->fs->ok);
		free(sb->fs->dev);
		free(sb->fs->fd);
		free(sb->fs);
	}
	free(sb);
}
