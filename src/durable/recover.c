/* SPDX-License-Identifier: MIT */
/* Repairing what an interrupted run left, from its journal. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durable/dirs.h"
#include "util/escape.h"
#include "durable/fileat.h"
#include "durable/fsset.h"
#include "durable/journal.h"
#include "durable/names.h"
#include "durable/recover.h"

/*
 * Invariants the repair relies on (see also db/recstage.c and syncbatch.c):
 *
 * I1. Before a run creates anything in a directory of the root, the
 *     journal names it ("dir", or "mkdir" before it is made), and that
 *     line is on disk before any commit of the filesystem can carry the
 *     change (journal_ahead; for a directory found, when the run first
 *     uses it: journal_use), so every temporary a killed run or a power
 *     cut can leave is in a directory the journal names, or in the admin
 *     directory.
 * I2. Temporaries and backups have reserved names (names_reserved)
 *     that no package may ship: any such name left in those directories
 *     is the run's, and is removed.
 * I3. No name is replaced before the journal lists it ("item", synced):
 *     its temporary, and whether its old version is kept as the backup.
 *     A backup is a hardlink made before the rename, in the same
 *     directory; file systems that journal metadata in order (ext4, xfs,
 *     btrfs) never keep the rename without the link.
 * I3b. A new name (no old version) may be a link made to its temporary,
 *     which is removed only after every such link: until then both names
 *     are one inode, and undoing the item removes both.
 * I4. Records are renamed only after every file is renamed and durable,
 *     and "commit" is written (and synced) only after every record is:
 *     without it, undoing every item gives back the old root and the old
 *     records; with it, the new ones stand and only cleanup is left.
 * I4b. A package's file is moved aside for a directory ("aside", synced)
 *     only to PATH.debunpack-old; undone, it comes back once the
 *     directory made in its place is removed.
 * I5. Backups are removed, and old versions' paths ("gone") deleted, only
 *     after "commit" is durable; so are the records of packages the run
 *     removes ("drop"), after their paths: until then a repair undoes the
 *     removal and the record still lists everything that is there.
 * Even in a directory the run made, a file waits under its temporary
 * name: named at once, a power cut (or ext4's periodic commit) can keep
 * its name without its data, an empty file at a final path until the
 * repair; the power-loss matrix finds it with perfile on ext4 and xfs.
 * Each step below can be repeated: a repair killed half way is finished
 * by the next one.
 */

struct rc_line {
	enum journal_kind kind;
	char tree;		/* dir, item: JOURNAL_ROOT or JOURNAL_ADMIN */
	char type;		/* gone */
	bool hadold;		/* item */
	struct timespec times[2];	/* dir */
	char *path;		/* dir, mkdir, gone; item: its directory;
				   drop: the admin directory's file */
	char *tmp, *name;	/* item */
};

struct recover {
	const struct rootfs *rf;
	int admfd;
	struct rc_line *v;
	size_t n;
	bool committed;
	/* the last directory opened, for runs of lines about one */
	char tree;
	char *lastpath;
	int lastfd;
	int err;		/* first error, -errno */
	char errpath[PATH_MAX];
	const char *errmsg;
	const char *dpkgdir;	/* the journal's dpkgdir line, or NULL */
};

static void
rc_fail(struct recover *rc, int e, const char *path, const char *msg)
{
	if (rc->err != 0)
		return;
	rc->err = e < 0 ? e : -e;
	snprintf(rc->errpath, sizeof(rc->errpath), "%s", path);
	rc->errmsg = msg;
}

/* Descriptor of directory PATH of TREE, or -errno; cached, not the caller's. */
static int
rc_dir(struct recover *rc, char tree, const char *path)
{
	int fd;

	if (tree == JOURNAL_ADMIN)
		return rc->admfd;
	if (rc->lastpath != NULL && strcmp(rc->lastpath, path) == 0)
		return rc->lastfd;
	fd = rootfs_resolve(rc->rf, strcmp(path, ".") == 0 ? "" : path,
	    O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	if (rc->lastfd >= 0)
		close(rc->lastfd);
	free(rc->lastpath);
	rc->lastpath = strdup(path);
	rc->lastfd = fd;
	if (rc->lastpath == NULL) {
		rc->lastfd = -1;
		close(fd);
		return -ENOMEM;
	}
	return fd;
}

/* Parsing. */

static int
rc_time(const char *s, struct timespec *t)
{
	char *end;
	long long sec;
	long ns;

	errno = 0;
	sec = strtoll(s, &end, 10);
	if (errno != 0 || *end != '.' || end[1] < '0' || end[1] > '9')
		return -1;
	ns = strtol(end + 1, &end, 10);
	if (errno != 0 || *end != '\0' || ns < 0 || ns > 999999999)
		return -1;
	t->tv_sec = (time_t)sec;
	t->tv_nsec = ns;
	return 0;
}

/* Split LINE at TABs into at most MAX fields; their number. */
static size_t
rc_split(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *p;

	f[n++] = line;
	for (p = line; *p != '\0'; p++)
		if (*p == '\t') {
			if (n == max)
				return max + 1;
			*p = '\0';
			f[n++] = p + 1;
		}
	return n;
}

static const char *
rc_parse_line(struct recover *rc, char *line, struct rc_line *l)
{
	char *f[7];
	size_t n = rc_split(line, f, 6), i, k, want;
	const char *why;

	memset(l, 0, sizeof(*l));
	for (k = 0; k < JOURNAL_NKINDS; k++)
		if (strcmp(f[0], journal_lines[k].word) == 0)
			break;
	if (k == JOURNAL_NKINDS)
		return "unknown line";
	l->kind = (enum journal_kind)k;
	want = journal_lines[k].fields + 1;
	if (n != want)
		return "wrong number of fields";
	if (l->kind == JOURNAL_COMMIT) {
		rc->committed = true;
		return "";
	}
	for (i = want - journal_lines[k].escaped; i < want; i++)
		if ((why = escape_parse_field(f[i])) != NULL)
			return why;
	if ((l->kind == JOURNAL_DIR || l->kind == JOURNAL_ITEM) &&
	    ((f[1][0] != JOURNAL_ROOT && f[1][0] != JOURNAL_ADMIN) ||
	    f[1][1] != '\0'))
		return "bad tree";
	if (l->kind == JOURNAL_DIR || l->kind == JOURNAL_ITEM)
		l->tree = f[1][0];
	switch (l->kind) {
	case JOURNAL_DIR:
		if (rc_time(f[2], &l->times[0]) != 0 ||
		    rc_time(f[3], &l->times[1]) != 0)
			return "bad time";
		l->path = f[4];
		break;
	case JOURNAL_MKDIR:
	case JOURNAL_ASIDE:
		l->path = f[1];
		break;
	case JOURNAL_DROP:
		/* A record of the admin directory, never a reserved name. */
		l->path = f[1];
		if (strchr(l->path, '/') != NULL || names_reserved(l->path) ||
		    strcmp(l->path, JOURNAL_NAME) == 0)
			return "bad name";
		break;
	case JOURNAL_ITEM:
		if ((f[2][0] != '0' && f[2][0] != '1') || f[2][1] != '\0')
			return "bad backup flag";
		l->hadold = f[2][0] == '1';
		l->path = f[3];
		l->tmp = f[4];
		l->name = f[5];
		if (strchr(l->tmp, '/') != NULL || strchr(l->name, '/') != NULL ||
		    l->tmp[0] == '\0' || l->name[0] == '\0')
			return "bad name";
		/*
		 * A temporary has a reserved name and its target has not
		 * (I2): else an undo could remove a name that was never the
		 * run's, the journal itself among them.
		 */
		if (!names_reserved(l->tmp) || names_reserved(l->name) ||
		    (l->tree == JOURNAL_ADMIN &&
		    strcmp(l->name, JOURNAL_NAME) == 0))
			return "bad name";
		break;
	case JOURNAL_GONE:
		if (f[1][0] == '\0' || f[1][1] != '\0')
			return "bad type";
		l->type = f[1][0];
		l->path = f[2];
		break;
	case JOURNAL_DPKGDIR:
		/* A host path: rc_dpkgdir compares it with the repair's. */
		if (f[1][0] != '/')
			return "bad path";
		rc->dpkgdir = f[1];
		return "";
	case JOURNAL_COMMIT:	/* taken above */
	case JOURNAL_NKINDS:
		return "unknown line";
	}
	/* Paths are the run's own, relative to the root or the admin directory. */
	if (l->path[0] == '/' || l->path[0] == '\0')
		return "bad path";
	return NULL;
}

/* Parse BUF (LEN bytes, the journal), keeping pointers into it. */
static int
rc_parse(struct recover *rc, char *buf, size_t len, struct dbp_error *err)
{
	char *line = buf, *nl;
	const char *why;
	size_t lineno = 1, i, full = len;

	/*
	 * Past the last newline, a line being written when the power went:
	 * cut, or zeros where the file system had not written it yet.
	 */
	while (len > 0 && buf[len - 1] != '\n')
		len--;
	if (len == 0) {
		/* Not even its first line: killed before it said anything. */
		for (i = 0; i < full && buf[i] == '\0'; i++)
			;
		if (i == full || strncmp(buf, JOURNAL_MAGIC, full <
		    strlen(JOURNAL_MAGIC) ? full : strlen(JOURNAL_MAGIC)) == 0)
			return 0;
	}
	if ((nl = memchr(buf, '\n', len)) == NULL ||
	    memchr(buf, '\0', len) != NULL)
		return dbp_err(err, 0, JOURNAL_NAME, "cannot repair: not a"
		    " journal");
	*nl = '\0';
	if (strncmp(buf, JOURNAL_MAGIC, strlen(JOURNAL_MAGIC)) != 0 ||
	    atoi(buf + strlen(JOURNAL_MAGIC)) != JOURNAL_VERSION)
		return dbp_err(err, 0, JOURNAL_NAME, "cannot repair: unknown"
		    " journal version");
	if ((rc->v = calloc(len / 6 + 1, sizeof(*rc->v))) == NULL)
		return dbp_err(err, ENOMEM, JOURNAL_NAME, "cannot read journal");
	/* A last line without its newline was being written: ignore it. */
	for (line = nl + 1; (nl = memchr(line, '\n', len - (size_t)(line -
	    buf))) != NULL; line = nl + 1) {
		lineno++;
		*nl = '\0';
		if (rc->committed)
			continue;	/* appended after the commit point */
		why = rc_parse_line(rc, line, &rc->v[rc->n]);
		if (why == NULL)
			rc->n++;
		else if (why[0] != '\0')
			return dbp_err(err, 0, JOURNAL_NAME, "cannot repair:"
			    " line %zu: %s", lineno, why);
	}
	return 0;
}

/*
 * The interrupted run's var/lib/dpkg paths were dpkg's database as
 * rc->dpkgdir says (none: the root's own): a repair seeing another one
 * there would undo or finish in the wrong directory.  It matters only
 * when a line names such a path.
 */
static int
rc_dpkgdir(struct recover *rc, struct dbp_error *err)
{
	static const char dpkg[] = ROOTFS_DPKG;
	char ours[PATH_MAX];
	const char *p;
	bool named = false, same;
	size_t i;

	for (i = 0; i < rc->n && !named; i++) {
		p = rc->v[i].path;
		if (rc->v[i].kind == JOURNAL_DROP || p == NULL ||
		    (rc->v[i].tree == JOURNAL_ADMIN))
			continue;
		named = strncmp(p, dpkg, sizeof(dpkg) - 1) == 0 &&
		    (p[sizeof(dpkg) - 1] == '\0' || p[sizeof(dpkg) - 1] == '/');
	}
	if (!named)
		return 0;
	if (rc->rf->dpkg && realpath(rc->rf->dpkgdir, ours) == NULL)
		return dbp_err(err, errno, rc->rf->dpkgdir, "cannot open dpkg's"
		    " database directory");
	same = rc->rf->dpkg ? rc->dpkgdir != NULL &&
	    strcmp(ours, rc->dpkgdir) == 0 : rc->dpkgdir == NULL;
	if (same)
		return 0;
	if (rc->dpkgdir != NULL)
		return dbp_err(err, 0, JOURNAL_NAME, "cannot repair: the"
		    " interrupted run kept dpkg's database in %s: repair with"
		    " --dpkg-admindir=%s", rc->dpkgdir, rc->dpkgdir);
	return dbp_err(err, 0, JOURNAL_NAME, "cannot repair: the interrupted"
	    " run kept dpkg's database in the root's var/lib/dpkg: repair"
	    " without --dpkg-admindir");
}

/* Undoing and finishing. */

/*
 * The directory of item L, and its backup name in OLD; -1 when there is
 * nothing to do there.
 */
static int
rc_item_dir(struct recover *rc, const struct rc_line *l,
    char old[NAME_MAX + 1])
{
	int dfd;

	if ((dfd = rc_dir(rc, l->tree, l->path)) < 0) {
		/* Gone, or a file moved back in its place: nothing there. */
		if (dfd != -ENOENT && dfd != -ENOTDIR)
			rc_fail(rc, dfd, l->path, "cannot open directory");
		return -1;
	}
	names_old(l->tmp, old, NAME_MAX + 1);
	return dfd;
}

/* Put back the old version of item L, or remove what the run put there. */
static void
rc_undo_item(struct recover *rc, const struct rc_line *l,
    struct recover_result *res)
{
	char old[NAME_MAX + 1];
	int dfd, r;

	if ((dfd = rc_item_dir(rc, l, old)) < 0)
		return;
	if ((r = names_undo(dfd, l->name, l->tmp, l->hadold)) < 0)
		rc_fail(rc, -r, l->name, "cannot restore");
	else
		res->items += (size_t)r;
}

/* After the commit point: only the backup of item L is left to drop. */
static void
rc_finish_item(struct recover *rc, const struct rc_line *l,
    struct recover_result *res)
{
	char old[NAME_MAX + 1];
	int dfd, r;

	if ((dfd = rc_item_dir(rc, l, old)) < 0)
		return;
	if (fileat_exists(dfd, old))
		res->items++;
	if (fileat_is_dir(dfd, old))
		r = unlinkat(dfd, old, AT_REMOVEDIR) == 0 || errno == ENOENT ?
		    0 : -errno;
	else
		r = fileat_unlink(dfd, old);
	if (r != 0 || (r = fileat_unlink(dfd, l->tmp)) != 0)
		rc_fail(rc, r, l->name, "cannot remove backup");
}

/* Open the parent of root-relative PATH; *BASE is its last component. */
static int
rc_parent(struct recover *rc, const char *path, const char **base)
{
	char parent[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (slash == NULL) {
		*base = path;
		return rc_dir(rc, JOURNAL_ROOT, ".");
	}
	snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);
	*base = slash + 1;
	return rc_dir(rc, JOURNAL_ROOT, parent);
}

/* Remove path L of an old version as the run would have: never a full directory. */
static void
rc_gone(struct recover *rc, const struct rc_line *l,
    struct recover_result *res)
{
	const char *base;
	int dfd;

	/* Like the run, which only warns: the new versions are in place. */
	if ((dfd = rc_parent(rc, l->path, &base)) >= 0 &&
	    fileat_remove_old(dfd, base, l->type) > 0)
		res->gone++;
}

/* Whether NAME in directory PATH is a file moved aside (kept by an undo). */
static bool
rc_is_aside(const struct recover *rc, const char *path, const char *name)
{
	size_t i, pl = strcmp(path, ".") == 0 ? 0 : strlen(path);
	const char *p, *base;

	if (rc->committed)
		return false;
	for (i = 0; i < rc->n; i++) {
		if (rc->v[i].kind != JOURNAL_ASIDE)
			continue;
		p = rc->v[i].path;
		base = strrchr(p, '/') != NULL ? strrchr(p, '/') + 1 : p;
		if ((size_t)(base - p) == (pl > 0 ? pl + 1 : 0) &&
		    strncmp(p, path, pl) == 0 && names_is_aside(name, base))
			return true;
	}
	return false;
}

/* Put back the files moved aside for directories the undo removed. */
static void
rc_asides_back(struct recover *rc, struct recover_result *res)
{
	char old[NAME_MAX + 1];
	const char *base;
	size_t i;
	int dfd;

	for (i = rc->n; i-- > 0;) {
		if (rc->v[i].kind != JOURNAL_ASIDE ||
		    (dfd = rc_parent(rc, rc->v[i].path, &base)) < 0)
			continue;
		if (names_aside(base, old, sizeof(old)) != 0 ||
		    !fileat_exists(dfd, old) || fileat_exists(dfd, base))
			continue;	/* never moved, or already back */
		if (renameat(dfd, old, dfd, base) != 0)
			rc_fail(rc, errno, rc->v[i].path, "cannot restore");
		else
			res->items++;
	}
}

/* Remove every reserved name left in directory PATH of TREE. */
static void
rc_sweep(struct recover *rc, char tree, const char *path,
    struct recover_result *res)
{
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int dfd, fd;

	if ((dfd = rc_dir(rc, tree, path)) < 0)
		return;
	if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (dir = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		rc_fail(rc, errno, path, "cannot list directory");
		return;
	}
	while ((de = readdir(dir)) != NULL) {
		if (!names_reserved(de->d_name) ||
		    (tree == JOURNAL_ROOT && rc_is_aside(rc, path, de->d_name)) ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		/* A directory only as the backup of an empty one: empty. */
		if (unlinkat(dfd, de->d_name, S_ISDIR(st.st_mode) ?
		    AT_REMOVEDIR : 0) == 0)
			res->removed++;
		else if (errno != ENOENT && errno != ENOTEMPTY)
			rc_fail(rc, errno, de->d_name, "cannot remove");
	}
	closedir(dir);
}

static void
rc_sweep_all(struct recover *rc, struct recover_result *res)
{
	size_t i;

	rc_sweep(rc, JOURNAL_ADMIN, ".", res);
	/*
	 * Each directory once: every one the run used has its "dir" or
	 * "mkdir" line (I1), items name them again, once per file.
	 */
	for (i = 0; i < rc->n; i++)
		if ((rc->v[i].kind == JOURNAL_DIR || rc->v[i].kind == JOURNAL_MKDIR) &&
		    rc->v[i].tree != JOURNAL_ADMIN)
			rc_sweep(rc, JOURNAL_ROOT, rc->v[i].path, res);
}

/*
 * A merged-/usr link the run made where the journal says a directory
 * was made (usrmerge.c): a link NAME -> usr/NAME at the top of the root.
 * Any other symlink there is a package's (a directory was to replace
 * it), and stays.
 */
static void
rc_unlink_link(int dfd, const char *path, const char *base)
{
	char target[PATH_MAX], want[PATH_MAX];
	ssize_t n;

	if (strchr(path, '/') != NULL ||
	    (n = readlinkat(dfd, base, target, sizeof(target) - 1)) < 0)
		return;
	target[n] = '\0';
	snprintf(want, sizeof(want), "usr/%s", base);
	if (strcmp(target, want) == 0)
		unlinkat(dfd, base, 0);
}

/* Remove the directories the run created, deepest (latest) first, if empty. */
static void
rc_rmdirs(struct recover *rc)
{
	const char *base;
	size_t i;
	int dfd;

	for (i = rc->n; i-- > 0;) {
		if (rc->v[i].kind != JOURNAL_MKDIR ||
		    (dfd = rc_parent(rc, rc->v[i].path, &base)) < 0)
			continue;
		/* Not empty: someone put files there since; keep it. */
		if (unlinkat(dfd, base, AT_REMOVEDIR) != 0 && errno == ENOTDIR)
			rc_unlink_link(dfd, rc->v[i].path, base);
	}
}

static void
rc_restore_times(struct recover *rc)
{
	size_t i;
	int dfd;

	for (i = 0; i < rc->n; i++) {
		if (rc->v[i].kind != JOURNAL_DIR ||
		    (dfd = rc_dir(rc, rc->v[i].tree, rc->v[i].path)) < 0)
			continue;
		futimens(dfd, rc->v[i].times);
	}
}

/*
 * Add directory DFD (PATH) to the filesystems to sync; where syncfs is
 * not trusted (FUSE, NFS: a mount inside the root that the run synced
 * file by file), fsync it now: the repair changes names only, and a
 * directory's fsync makes its names durable.
 */
static void
rc_sync_dir(struct recover *rc, struct fsset *fs, int dfd, const char *path)
{
	enum fskind_sync kind;
	int r;

	/* Names only: syncfs reports their errors on an overlay too. */
	if ((r = fsset_add(fs, dfd, path, &kind)) != 0)
		rc_fail(rc, r, path, "cannot open filesystem");
	else if (kind == FSKIND_PERFILE && fsync(dfd) != 0)
		rc_fail(rc, errno, path, "cannot sync");
}

/*
 * Make what was done durable before the journal that describes it goes,
 * as the run made its own changes: one syncfs per filesystem where it is
 * trusted, each directory the journal names elsewhere (I1: every one
 * where the repair can have changed a name).
 */
static void
rc_sync(struct recover *rc)
{
	struct dbp_error err;
	unsigned long calls = 0;
	struct fsset *fs;
	size_t i;
	int dfd;

	if (fsset_new(&fs) != 0) {
		rc_fail(rc, ENOMEM, "", "cannot sync");
		return;
	}
	rc_sync_dir(rc, fs, rc->rf->fd, ".");
	rc_sync_dir(rc, fs, rc->admfd, JOURNAL_NAME);
	for (i = 0; i < rc->n && rc->err == 0; i++) {
		if (rc->v[i].kind != JOURNAL_DIR && rc->v[i].kind != JOURNAL_MKDIR)
			continue;
		/* Gone (a directory the undo removed): its parent has a line. */
		if ((dfd = rc_dir(rc, rc->v[i].tree, rc->v[i].path)) < 0)
			continue;
		rc_sync_dir(rc, fs, dfd, rc->v[i].path);
	}
	if (rc->err == 0 && fsset_syncfs(fs, &calls, &err) != 0)
		rc_fail(rc, err.errnum, err.path, "cannot sync its filesystem");
	fsset_free(fs);
}

/* Read whole or not at all: a lost commit line would undo the run. */
static int
rc_read(int admfd, char **buf, size_t *len, struct dbp_error *err)
{
	int r = fileat_read(admfd, JOURNAL_NAME, buf, len);

	if (r != 0 && r != -ENOENT)
		return dbp_err(err, -r, JOURNAL_NAME, "cannot read journal");
	return r;
}

/*
 * Whether the admin directory's item L took effect: its temporary is
 * gone (renamed), or its name is a link to it (a new name, linked).
 */
static bool
rc_record_moved(int admfd, const struct rc_line *l)
{
	struct stat tmp, name;

	if (fstatat(admfd, l->tmp, &tmp, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT;
	return fstatat(admfd, l->name, &name, AT_SYMLINK_NOFOLLOW) == 0 &&
	    name.st_dev == tmp.st_dev && name.st_ino == tmp.st_ino;
}

int
recover_pending(int admfd, struct recover_pending *p, struct dbp_error *err)
{
	struct recover rc;
	char *buf = NULL, **v;
	size_t len = 0, i;
	int r;

	memset(p, 0, sizeof(*p));
	if ((r = rc_read(admfd, &buf, &len, err)) != 0)
		return r == -ENOENT ? 0 : r;
	p->found = true;
	memset(&rc, 0, sizeof(rc));
	rc.lastfd = -1;
	if ((r = rc_parse(&rc, buf, len, err)) == 0) {
		p->committed = rc.committed;
		for (i = 0; i < rc.n && r == 0; i++) {
			const struct rc_line *l = &rc.v[i];

			if (!rc.committed && l->kind == JOURNAL_ITEM &&
			    l->tree == JOURNAL_ADMIN &&
			    rc_record_moved(admfd, l))
				p->records_moving = true;
			if (!rc.committed || l->kind != JOURNAL_DROP)
				continue;
			if ((v = realloc(p->dropped, (p->ndropped + 1) *
			    sizeof(*v))) == NULL ||
			    ((p->dropped = v)[p->ndropped] =
			    strdup(l->path)) == NULL)
				r = dbp_err(err, ENOMEM, JOURNAL_NAME,
				    "cannot read journal");
			else
				p->ndropped++;
		}
	}
	free(rc.v);
	free(buf);
	if (r != 0)
		recover_pending_free(p);
	return r;
}

void
recover_pending_free(struct recover_pending *p)
{
	while (p->ndropped > 0)
		free(p->dropped[--p->ndropped]);
	free(p->dropped);
	p->dropped = NULL;
}

bool
recover_pending_drops(const struct recover_pending *p, const char *file)
{
	size_t i;

	for (i = 0; i < p->ndropped; i++)
		if (strcmp(p->dropped[i], file) == 0)
			return true;
	return false;
}

int
recover_run(const struct rootfs *rf, int admfd, struct recover_result *res,
    struct dbp_error *err)
{
	struct recover rc;
	char *buf = NULL;
	size_t len = 0, i;
	int r;

	memset(res, 0, sizeof(*res));
	if ((r = rc_read(admfd, &buf, &len, err)) != 0)
		return r == -ENOENT ? 0 : r;
	res->found = true;
	memset(&rc, 0, sizeof(rc));
	rc.rf = rf;
	rc.admfd = admfd;
	rc.lastfd = -1;
	if ((r = rc_parse(&rc, buf, len, err)) != 0 ||
	    (r = rc_dpkgdir(&rc, err)) != 0)
		goto out;
	res->forward = rc.committed;
	if (rc.committed) {
		for (i = 0; i < rc.n; i++)
			if (rc.v[i].kind == JOURNAL_ITEM)
				rc_finish_item(&rc, &rc.v[i], res);
		for (i = 0; i < rc.n; i++)
			if (rc.v[i].kind == JOURNAL_GONE)
				rc_gone(&rc, &rc.v[i], res);
		/* The records of removed packages, after their paths. */
		for (i = 0; i < rc.n; i++)
			if (rc.v[i].kind == JOURNAL_DROP &&
			    unlinkat(rc.admfd, rc.v[i].path, 0) != 0 &&
			    errno != ENOENT)
				rc_fail(&rc, errno, rc.v[i].path,
				    "cannot remove record");
		rc_sweep_all(&rc, res);
		rc_sync(&rc);
		if (rc.err == 0 && unlinkat(admfd, JOURNAL_NAME, 0) != 0)
			rc_fail(&rc, errno, JOURNAL_NAME, "cannot remove");
	} else {
		/* Last first: the records, then the files, as they were done. */
		for (i = rc.n; i-- > 0;)
			if (rc.v[i].kind == JOURNAL_ITEM)
				rc_undo_item(&rc, &rc.v[i], res);
		rc_sweep_all(&rc, res);
		/* Created directories that do not hold the journal go first. */
		rc_rmdirs(&rc);
		rc_asides_back(&rc, res);
		rc_sync(&rc);
		if (rc.err == 0) {
			if (unlinkat(admfd, JOURNAL_NAME, 0) != 0)
				rc_fail(&rc, errno, JOURNAL_NAME, "cannot remove");
			else {
				rc_rmdirs(&rc);
				rc_restore_times(&rc);
				rc_sync(&rc);
			}
		}
	}
	if (rc.err != 0)
		r = dbp_err(err, -rc.err, rc.errpath, "cannot repair interrupted"
		    " run: %s", rc.errmsg);
out:
	if (rc.lastfd >= 0)
		close(rc.lastfd);
	free(rc.lastpath);
	free(rc.v);
	free(buf);
	return r;
}
