/* SPDX-License-Identifier: MIT */
/* The run's journal: what an interrupted run leaves for the next one to repair. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <search.h>
#include <sys/stat.h>
#include <linux/falloc.h>
#include <unistd.h>

#include "util/escape.h"
#include "durable/fileat.h"
#include "durable/fskind.h"
#include "durable/journal.h"
#include "util/stats.h"

/*
 * Format, version 1: text, one line per fact, fields separated by TAB,
 * paths escaped as in records (escape_put_field):
 *
 *	debunpack-journal 1
 *	dir	TREE	ATIME	MTIME	PATH	a directory in use, its times
 *	mkdir	PATH			a directory about to be created
 *	item	TREE	OLD	DIR	TMP	NAME
 *					TMP is about to become DIR/NAME;
 *					OLD 1: NAME's old version is kept
 *					as TMP's backup name
 *	aside	PATH			PATH's file is about to be moved to
 *					PATH.debunpack-old for a directory
 *	gone	TYPE	PATH		removed after the commit point
 *	dpkgdir	PATH			the host directory that the root's
 *					var/lib/dpkg paths stand for
 *	commit				the commit point
 *
 * TREE is R (the root, paths relative to it) or A (the admin directory,
 * whose own path is "."); times are SECONDS.NANOSECONDS.  The lines are
 * appended in the order of the run; "dir" and "mkdir" lines are written
 * (and on disk: journal_ahead) before the directory is touched, "item"
 * lines before the first rename
 * (and synced), "commit" after the last rename of files and records.  A
 * last line without its newline was cut by a crash and is ignored.
 */

const struct journal_line journal_lines[JOURNAL_NKINDS] = {
	[JOURNAL_DIR] = { .word = "dir", .fields = 4, .escaped = 1 },
	[JOURNAL_MKDIR] = { .word = "mkdir", .fields = 1, .escaped = 1 },
	[JOURNAL_ITEM] = { .word = "item", .fields = 5, .escaped = 3 },
	[JOURNAL_GONE] = { .word = "gone", .fields = 2, .escaped = 1 },
	[JOURNAL_ASIDE] = { .word = "aside", .fields = 1, .escaped = 1 },
	[JOURNAL_DROP] = { .word = "drop", .fields = 1, .escaped = 1 },
	[JOURNAL_COMMIT] = { .word = "commit" },
	[JOURNAL_DPKGDIR] = { .word = "dpkgdir", .fields = 1, .escaped = 1 },
};

/* How journal_ahead puts the lines on disk before a directory changes. */
enum { AHEAD_NONE, AHEAD_WRITEBACK, AHEAD_SETTLE, AHEAD_FIEMAP, AHEAD_SYNC };

struct journal {
	FILE *fp;		/* the file once open, else a memory stream */
	char *mem;		/* the memory stream's buffer */
	size_t memlen;
	int admfd;		/* the admin directory, once open */
	const char *admname;	/* what errors call it */
	struct timespec admtimes[2];	/* its times before the journal */
	dev_t dev;		/* its filesystem */
	int ahead;		/* how lines get on disk there: AHEAD_* */
	bool durable;
	bool dirsynced;		/* its name is durable */
	bool dirty;		/* lines written since the last sync */
	bool owed;		/* a "dir" line not yet ahead (journal_use),
				   or a "mkdir" line of journal_mkdir_ahead */
	void *mkdirs;		/* the paths of those "mkdir" lines (tsearch) */
	bool created;		/* this run made the file: its to remove */
	bool committed;		/* the commit line may be in the file */
	struct stats *st;	/* its sync calls are counted with the run's */
	int err;		/* first write error, -errno */
};

int
journal_new(struct journal **out, bool durable, struct stats *st)
{
	struct journal *j;

	if ((j = calloc(1, sizeof(*j))) == NULL)
		return -ENOMEM;
	j->admfd = -1;
	j->durable = durable;
	j->st = st;
	if ((j->fp = open_memstream(&j->mem, &j->memlen)) == NULL) {
		free(j);
		return -ENOMEM;
	}
	*out = j;
	return 0;
}

/*
 * A stdio call on the journal failed: keep the first cause (a flush of
 * the buffer met ENOSPC, say) for journal_sync to report.
 */
static void
journal_failed(struct journal *j)
{
	if (j->err == 0)
		j->err = errno != 0 ? -errno : -EIO;
}

static int
journal_check(struct journal *j, FILE *fp)
{
	if (j->err == 0 && (ferror(fp) || fflush(fp) != 0))
		journal_failed(j);
	return j->err;
}

/*
 * Append a line of KIND: HEAD, the fields before its names, already
 * formatted (NULL: none), then its names NAMES, escaped.
 */
static void
journal_put(struct journal *j, enum journal_kind kind, const char *head,
    const char *const *names)
{
	const struct journal_line *l = &journal_lines[kind];
	unsigned i;

	j->dirty = true;
	if (fputs(l->word, j->fp) == EOF ||
	    (head != NULL && fprintf(j->fp, "\t%s", head) < 0))
		journal_failed(j);
	for (i = 0; i < l->escaped; i++)
		if (putc('\t', j->fp) == EOF ||
		    !escape_put_field(j->fp, names[i]))
			journal_failed(j);
	if (putc('\n', j->fp) == EOF)
		journal_failed(j);
}

/* The times of a "dir" line: ATIME and MTIME, tab-separated, in BUF. */
static const char *
journal_times(char *buf, size_t n, char tree, const struct timespec *t)
{
	snprintf(buf, n, "%c\t%jd.%09ld\t%jd.%09ld", tree,
	    (intmax_t)t[0].tv_sec, t[0].tv_nsec, (intmax_t)t[1].tv_sec,
	    t[1].tv_nsec);
	return buf;
}

/*
 * The lines written so far must be on disk before any commit of the
 * filesystem of directory FD can carry what the caller is about to do:
 * make a directory there, or create temporaries in it.  Until the
 * barrier, the filesystem commits on its own (ext4 every 5 s, or when any
 * program fsyncs): left in the page cache, the lines would reach the disk
 * only with the barrier, and a power cut after such a commit would find
 * temporaries and new directories that no durable line names (I1 in
 * recover.c), which a repair would leave.
 *
 * On the journal's own filesystem the lines are written back and waited
 * for, without a flush: their blocks are then on the device and the
 * journal's new size in the running transaction (ext4 sets it when it
 * maps the blocks, xfs when the write completes) before the directory
 * changes, and whichever commit carries the change carries the size, its
 * cache flush the blocks.  At most one write per directory the run
 * writes in, none for one it only passes (journal_use).  btrfs
 * records a write's extents just after it completes, in a worker, where
 * a commit could still miss them: there fallocate(2) of what the file
 * already holds (KEEP_SIZE: nothing to allocate) writes back and waits
 * for those extents first (btrfs_fallocate waits for the ordered extents
 * of its range).  On an overlay sync_file_range does nothing:
 * FIEMAP_FLAG_SYNC writes back the upper file (fskind.c), but on btrfs
 * below does not wait for its extents.  Where syncfs is not trusted
 * (FUSE, NFS) or the directory is on another filesystem, nothing keeps
 * that order: the lines are synced.  A tmpfs keeps nothing through a
 * power cut.
 */
static int
journal_ahead(struct journal *j, int fd, bool owed_only)
{
	struct dbp_error err;
	struct stat st;
	int how, r;

	/* Under debunpack-nosync no sync is made: nor is this wait. */
	if (journal_check(j, j->fp) != 0 || !j->durable || !j->created ||
	    j->st->nosync)
		return j->err;
	how = j->ahead;
	if (fd != j->admfd) {
		if (fstat(fd, &st) != 0)
			return -errno;
		if (st.st_dev != j->dev)
			how = fskind_volatile(fd) ? AHEAD_NONE : AHEAD_SYNC;
	}
	/*
	 * Each way below puts every line written so far on disk: a
	 * directory whose line an earlier one covered owes nothing (for
	 * another filesystem, only a sync covers it).
	 */
	if (owed_only && (how == AHEAD_SYNC ? !j->dirty : !j->owed))
		return 0;
	switch (how) {
	case AHEAD_NONE:
		return 0;
	case AHEAD_WRITEBACK:
		if ((r = fileat_writeback(fileno(j->fp))) < 0)
			return j->err = -errno;
		if (r == 0) {
			j->st->calls[SC_SYNC_FILE_RANGE_WAIT]++;
			j->owed = false;
			return 0;
		}
		break;
	case AHEAD_SETTLE:
		/* Not counted: no sync call, a write and a wait. */
		if (fallocate(fileno(j->fp), FALLOC_FL_KEEP_SIZE, 0,
		    ftello(j->fp)) == 0) {
			j->owed = false;
			return 0;
		}
		break;
	case AHEAD_FIEMAP:
		j->st->calls[SC_FIEMAP]++;
		if ((r = fileat_writeback_mapped(fileno(j->fp))) < 0)
			return j->err = -errno;
		if (r == 0) {
			j->owed = false;
			return 0;
		}
		break;
	}
	if (journal_sync(j, &err) != 0)
		j->err = err.errnum != 0 ? -err.errnum : -EIO;
	return j->err;
}

int
journal_open(struct journal *j, int admfd, const char *name,
    struct dbp_error *err)
{
	struct stat st;
	char head[96];
	FILE *fp;
	int fd;

	j->admname = name;
	if (fstat(admfd, &st) != 0 ||
	    (j->admfd = fcntl(admfd, F_DUPFD_CLOEXEC, 0)) < 0)
		return dbp_err(err, errno, JOURNAL_NAME, "cannot create journal");
	fd = openat(admfd, JOURNAL_NAME, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return dbp_err(err, errno, JOURNAL_NAME, errno == EEXIST ?
		    "an interrupted run's journal appeared meanwhile; the next"
		    " run repairs it" : "cannot create journal");
	j->created = true;
	/*
	 * Where syncing the new file makes its name durable too, the
	 * directory's fsync would only cost one more device flush.
	 */
	j->dirsynced = fskind_fsync_names_new(admfd);
	if ((fp = fdopen(fd, "w")) == NULL) {
		close(fd);
		unlinkat(admfd, JOURNAL_NAME, 0);
		return dbp_err(err, errno, JOURNAL_NAME, "cannot create journal");
	}
	/* The admin directory's times as they were before the journal came. */
	j->admtimes[0] = st.st_atim;
	j->admtimes[1] = st.st_mtim;
	j->dev = st.st_dev;
	j->ahead = fskind_volatile(admfd) ? AHEAD_NONE :
	    fskind_sync(admfd) == FSKIND_SYNCFS_CHECK ? AHEAD_FIEMAP :
	    fskind_sync(admfd) != FSKIND_SYNCFS ? AHEAD_SYNC :
	    fskind_extents_late(admfd) ? AHEAD_SETTLE : AHEAD_WRITEBACK;
	fprintf(fp, JOURNAL_MAGIC "%d\n%s\t%s\t.\n", JOURNAL_VERSION,
	    journal_lines[JOURNAL_DIR].word, journal_times(head, sizeof(head),
	    JOURNAL_ADMIN, j->admtimes));
	if (j->err == 0 && fflush(j->fp) == 0 && j->memlen > 0)
		fwrite(j->mem, 1, j->memlen, fp);
	fclose(j->fp);
	free(j->mem);
	j->mem = NULL;
	j->fp = fp;
	j->dirty = true;
	/* Its first lines name the admin directory, where records wait. */
	if (journal_ahead(j, j->admfd, false) != 0)
		return dbp_err(err, -j->err, JOURNAL_NAME, "cannot write journal");
	return 0;
}

int
journal_dpkgdir(struct journal *j, const char *dir)
{
	char path[PATH_MAX];
	const char *names[] = { path };

	if (j->fp == NULL)
		return 0;
	if (realpath(dir, path) == NULL)
		return -errno;
	journal_put(j, JOURNAL_DPKGDIR, NULL, names);
	return j->err;
}

int
journal_dir(struct journal *j, const char *path, const struct timespec *t,
    int fd)
{
	const char *names[] = { path[0] != '\0' ? path : "." };
	char head[96];

	if (j->fp == NULL)
		return 0;
	/*
	 * A directory found may only be passed through (an archive's entry
	 * for a directory that is there): its line goes on disk when the
	 * run first uses it (journal_use).  One about to be made is acted
	 * on now.
	 */
	if (t != NULL) {
		journal_put(j, JOURNAL_DIR, journal_times(head, sizeof(head),
		    JOURNAL_ROOT, t), names);
		j->owed = true;
		return j->err;
	}
	/* Its line went ahead of it: on disk if nothing is owed. */
	if (j->mkdirs != NULL && tfind(path, &j->mkdirs,
	    (int (*)(const void *, const void *))strcmp) != NULL)
		return journal_ahead(j, fd, true);
	journal_put(j, JOURNAL_MKDIR, NULL, names);
	return journal_ahead(j, fd, false);
}

int
journal_mkdir_ahead(struct journal *j, const char *path)
{
	char *copy, **slot;

	if (j->fp == NULL || path[0] == '\0')
		return 0;
	if ((copy = strdup(path)) == NULL)
		return -ENOMEM;
	slot = tsearch(copy, &j->mkdirs,
	    (int (*)(const void *, const void *))strcmp);
	if (slot == NULL) {
		free(copy);
		return -ENOMEM;
	}
	/* Told twice: the first line stands. */
	if (*slot != copy) {
		free(copy);
		return 0;
	}
	journal_put(j, JOURNAL_MKDIR, NULL, (const char *const *)&copy);
	j->owed = true;
	return j->err;
}

int
journal_use(struct journal *j, int fd)
{
	if (j->fp == NULL)
		return 0;
	return journal_ahead(j, fd, true);
}

int
journal_aside(struct journal *j, const char *path)
{
	struct dbp_error ignored;

	if (j->fp == NULL)
		return 0;
	journal_put(j, JOURNAL_ASIDE, NULL, &path);
	/* Durable before the rename it announces: it moves a package's file. */
	return journal_sync(j, &ignored);
}

int
journal_item(struct journal *j, char tree, bool hadold, const char *dir,
    const char *tmp, const char *name)
{
	const char *names[] = { dir[0] != '\0' ? dir : ".", tmp, name };
	char head[] = { tree, '\t', hadold ? '1' : '0', '\0' };

	if (j->fp == NULL)
		return 0;
	journal_put(j, JOURNAL_ITEM, head, names);
	return j->err;
}

int
journal_gone(struct journal *j, char type, const char *path)
{
	char head[] = { type, '\0' };

	if (j->fp == NULL)
		return 0;
	journal_put(j, JOURNAL_GONE, head, &path);
	return j->err;
}

int
journal_drop(struct journal *j, const char *file)
{
	if (j->fp == NULL)
		return 0;
	journal_put(j, JOURNAL_DROP, NULL, &file);
	return j->err;
}

int
journal_sync(struct journal *j, struct dbp_error *err)
{
	if (j->fp == NULL)
		return 0;
	if (journal_check(j, j->fp) != 0)
		return dbp_err(err, -j->err, JOURNAL_NAME, "cannot write journal");
	if (!j->durable || !j->created || !j->dirty)
		return 0;
	j->st->calls[SC_FDATASYNC]++;
	if (fdatasync(fileno(j->fp)) != 0)
		return dbp_err(err, errno, JOURNAL_NAME, "cannot sync journal");
	/* Once: a journal that a crash could unname would protect nothing. */
	if (!j->dirsynced) {
		j->st->calls[SC_FSYNC]++;
		if (fsync(j->admfd) != 0)
			return dbp_err(err, errno, j->admname,
			    "cannot sync admin directory");
		j->dirsynced = true;
	}
	j->dirty = j->owed = false;
	return 0;
}

bool
journal_pending(const struct journal *j)
{
	return j->fp != NULL && j->durable && j->created &&
	    (j->dirty || !j->dirsynced);
}

int
journal_dirfd(const struct journal *j, const char **name)
{
	*name = j->admname;
	return j->fp != NULL && j->created ? j->admfd : -1;
}

int
journal_flush(struct journal *j, struct dbp_error *err)
{
	if (j->fp != NULL && journal_check(j, j->fp) != 0)
		return dbp_err(err, -j->err, JOURNAL_NAME, "cannot write journal");
	return 0;
}

int
journal_writeback(struct journal *j, struct dbp_error *err)
{
	int r;

	if ((r = journal_flush(j, err)) != 0 || j->fp == NULL)
		return r;
	/*
	 * btrfs: the lines' extents in the running transaction, not only
	 * their pages written (journal_ahead's AHEAD_SETTLE).
	 */
	if (j->ahead == AHEAD_SETTLE)
		return fallocate(fileno(j->fp), FALLOC_FL_KEEP_SIZE, 0,
		    ftello(j->fp)) == 0 ? 0 : journal_sync(j, err);
	if ((r = fileat_writeback(fileno(j->fp))) < 0)
		return dbp_err(err, errno, JOURNAL_NAME, "cannot write journal");
	if (r == 0) {
		j->st->calls[SC_SYNC_FILE_RANGE_WAIT]++;
		return 0;
	}
	/* No way to write it back alone: synced by itself, as before. */
	return journal_sync(j, err);
}

void
journal_covered(struct journal *j)
{
	j->dirty = false;
	j->dirsynced = true;
}

int
journal_commit_line(struct journal *j, struct dbp_error *err)
{
	if (j->fp == NULL)
		return 0;
	journal_put(j, JOURNAL_COMMIT, NULL, NULL);
	/*
	 * The last line: if writing failed, it did not reach the file whole
	 * (journal_end and journal_free never write it later), and the run
	 * can still be undone.
	 */
	if (journal_check(j, j->fp) != 0)
		return dbp_err(err, -j->err, JOURNAL_NAME, "cannot write journal");
	j->committed = true;
	return 0;
}

int
journal_commit(struct journal *j, struct dbp_error *err)
{
	int r;

	if ((r = journal_commit_line(j, err)) != 0)
		return r;
	return journal_sync(j, err);
}

bool
journal_committed(const struct journal *j)
{
	return j->committed;
}

/*
 * Close FP.  After a write error what is still buffered is dropped: a
 * line written later, after the undo it asked for, would say otherwise.
 */
static int
journal_close(struct journal *j, FILE *fp)
{
	if (j->err != 0)
		__fpurge(fp);
	return fclose(fp);
}

int
journal_end(struct journal *j, bool undone, struct dbp_error *err)
{
	FILE *fp = j->fp;

	if (fp == NULL || !j->created)
		return 0;
	j->fp = NULL;
	if (journal_close(j, fp) != 0 && j->err == 0)
		j->err = -errno;
	if (unlinkat(j->admfd, JOURNAL_NAME, 0) != 0)
		return dbp_err(err, errno, JOURNAL_NAME, "cannot remove journal");
	/* Best effort, like every directory's times after an undo. */
	if (undone)
		futimens(j->admfd, j->admtimes);
	return 0;
}

void
journal_free(struct journal *j)
{
	if (j == NULL)
		return;
	if (j->fp != NULL)
		journal_close(j, j->fp);
	free(j->mem);
	if (j->admfd >= 0)
		close(j->admfd);
	tdestroy(j->mkdirs, free);
	free(j);
}
