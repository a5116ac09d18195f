/* SPDX-License-Identifier: MIT */
/* Turning data.tar entries into temporary objects under the root, ready to commit. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "deb/conffiles.h"
#include "util/digest.h"
#include "deb/stream.h"
#include "extract/dirfile.h"
#include "durable/names.h"
#include "unpack.h"
#include "extract/unpack_int.h"


/* Refuses to make a directory where this run already put a file. */
static int
unpack_dir_guard(void *ctx, size_t pidx, const char *base)
{
	struct unpack *u = ctx;

	return manifest_find(u->man, pidx, base) != NULL ? -EEXIST : 0;
}

/* dirs asks before it moves a non-directory aside for a directory. */
static int
unpack_displace(void *ctx, const char *rel, struct dbp_error *err)
{
	struct unpack *u = ctx;

	if (u->rec == NULL)
		return 1;
	return dirfile_dir_over_file(u->man, control_get(u->rec->ctl,
	    "Package"), rel, err);
}

int
unpack_new(struct unpack **out, const struct unpack_opts *opts,
    struct dirs *dirs, struct syncbatch *sb, struct manifest *man,
    const struct users *users, struct stats *st)
{
	struct unpack *u;

	if ((u = calloc(1, sizeof(*u))) == NULL)
		return -ENOMEM;
	if (digest_new(&u->dg) != 0 || digest_new_md5(&u->md5) != 0) {
		digest_free(u->dg);
		digest_free(u->md5);
		free(u);
		return -ENOMEM;
	}
	u->opts = *opts;
	u->dirs = dirs;
	u->sb = sb;
	u->man = man;
	u->users = users;
	u->st = st;
	dirs_set_guard(dirs, unpack_dir_guard, u);
	dirs_set_displace(dirs, unpack_displace, u);
	*out = u;
	return 0;
}

void
unpack_free(struct unpack *u)
{
	if (u == NULL)
		return;
	dirs_set_guard(u->dirs, NULL, NULL);
	unpack_held_free(u);
	conffiles_free(u->conffiles);
	digest_free(u->dg);
	digest_free(u->md5);
	free(u);
}

void
unpack_set_md5_all(struct unpack *u, bool all)
{
	u->md5_all = all;
}

int
unpack_set_conffiles(struct unpack *u, const char *text,
    struct dbp_error *err)
{
	struct conffiles *c;
	int r;

	if ((r = conffiles_parse(text, &c, err)) != 0)
		return r;
	conffiles_free(u->conffiles);
	u->conffiles = c;
	return 0;
}

/*
 * Find the directory of T->path (creating it), refuse to replace a
 * directory by a non-directory, drop what an earlier entry of this run
 * made at the same path, and choose the temporary name.
 */
static int
unpack_prepare(struct unpack *u, struct unpack_target *t,
    struct dbp_error *err)
{
	char parent[PATH_MAX];
	const struct unpack_held *h = NULL;
	struct manifest_entry *e;
	bool dir, empty;
	int r;

	t->record_path = t->path;
	t->judge_only = false;
	unpack_split(t->path, parent, &t->name);
	if ((r = dirs_get(u->dirs, parent, true, 0755, &t->dir, err)) != 0 ||
	    (r = unpack_target_dir(u, t, err)) != 0)
		return r;
	/* The records and the journal are the run's: no package's path. */
	if (dirs_flags(u->dirs, t->dir) & DIR_SEALED)
		return dbp_err(err, 0, t->path, "is in the admin directory,"
		    " where no package may write");
	/* As dpkg: a package does not ship what it says its upgrade removes. */
	if (conffiles_removes(u->conffiles, unpack_shipped(u, t->path)))
		return dbp_err(err, 0, t->path, "is in the package, but its"
		    " conffiles say remove-on-upgrade");
	if ((e = manifest_find(u->man, t->dir, t->name)) == NULL)
		h = unpack_held(u, t->dir, t->name);
	unpack_target_find(u, t, &dir, &empty);
	if (t->existed && dir && (r = dirfile_file_over_dir(u->man,
	    u->rec != NULL ? control_get(u->rec->ctl, "Package") : NULL,
	    t->path, empty, e != NULL && e->type == AE_IFDIR, err)) != 0)
		return r;
	if ((r = unpack_conflict(u, t, e, h, err)) != 0)
		return r;
	/* Within one package the later entry wins (dpkg-deb -x does the same). */
	if (e != NULL && (r = syncbatch_drop(u->sb, e->item, err)) != 0)
		return r;
	/* So does a later package's over a conffile left as the user has it. */
	if (h != NULL && (r = unpack_release(u, h, err)) != 0)
		return r;
	if (names_tmp(t->name, &u->tmpseq, t->tmp, sizeof(t->tmp)) != 0)
		return dbp_err(err, ENAMETOOLONG, t->path, "name too long");
	return 0;
}

/* The entry's owner by name in the root's passwd/group, else its numbers. */
static void
unpack_owner(struct unpack *u, struct archive_entry *ae)
{
	u->uid = users_uid(u->users, archive_entry_uname(ae),
	    (uid_t)archive_entry_uid(ae));
	u->gid = users_gid(u->users, archive_entry_gname(ae),
	    (gid_t)archive_entry_gid(ae));
}

static void
unpack_times(struct archive_entry *ae, struct timespec ts[2])
{
	ts[1].tv_sec = archive_entry_mtime(ae);
	ts[1].tv_nsec = archive_entry_mtime_nsec(ae);
	ts[0] = ts[1];
}

/*
 * Owner, mode and times of a temporary that is not a regular file.  The
 * mode goes after chown, which would clear setuid and setgid bits.
 */
static int
unpack_meta_at(struct unpack *u, struct unpack_target *t,
    struct archive_entry *ae, bool link, struct dbp_error *err)
{
	struct timespec ts[2];

	if (u->opts.chown) {
		if (fchownat(t->dfd, t->tmp, u->uid, u->gid,
		    AT_SYMLINK_NOFOLLOW) != 0)
			return users_chown_err(err, errno, t->path, u->uid,
			    u->gid);
	}
	if (!link && fchmodat(t->dfd, t->tmp, archive_entry_perm(ae), 0) != 0)
		return dbp_err(err, errno, t->path, "cannot change mode");
	unpack_times(ae, ts);
	if (utimensat(t->dfd, t->tmp, ts, AT_SYMLINK_NOFOLLOW) != 0)
		return dbp_err(err, errno, t->path, "cannot set times");
	return 0;
}

static int
unpack_stopped(struct unpack *u, const char *path, struct dbp_error *err)
{
	if (u->opts.stop != NULL && *u->opts.stop)
		return dbp_err(err, EINTR, path, "interrupted");
	return 0;
}

/*
 * Stream the entry's data into FD with its SHA-256 (the record keeps it),
 * and its MD5 when MD5 is not NULL (conffiles, for dpkg's status).
 */
static int
unpack_data(struct unpack *u, struct archive *a, struct archive_entry *ae,
    int fd, const char *path, uint8_t digest[DIGEST_LEN], uint8_t *md5,
    struct dbp_error *err)
{
	struct stream_to s = { a, fd, path, u->dg,
	    md5 != NULL ? u->md5 : NULL, u->opts.stop, &u->st->bytes, NULL };
	int r;

	if (u->stored != NULL) {
		enum store_how how = STORE_CLONED;

		if ((r = store_pkg_write(u->store, u->stored, u->stored_i, fd,
		    path, digest, md5, &how, err)) == 0)
			u->st->bytes += (uint64_t)archive_entry_size(ae);
		if (how == STORE_COPIED)
			u->how = STORE_COPIED;
		u->cloned = how == STORE_CLONED;
		return r;
	}
	if (fd >= 0)
		s.tee = store_fill_tee(u->fill);
	r = stream_entry(&s, archive_entry_size(ae), digest, md5, err);
	if (r == 0 && fd >= 0)
		store_fill_data(u->fill, fd, (uint64_t)archive_entry_size(ae),
		    digest, md5);
	return r;
}

/*
 * Note a path in the package's record.  PATH is root-relative; records
 * say "/PATH".  For hardlinks SIZE and DIGEST come from the target's entry.
 */
static int
unpack_record_as(struct unpack *u, struct archive_entry *ae, char type,
    const char *path, uint64_t size, const uint8_t *digest,
    const char *target, bool skipped, struct dbp_error *err)
{
	struct record_entry e;
	char abspath[PATH_MAX + 1], from[PATH_MAX + 1];
	int r;

	if (u->rec == NULL)
		return 0;
	memset(&e, 0, sizeof(e));
	e.type = type;
	e.mode = archive_entry_perm(ae);
	e.uid = u->uid;
	e.gid = u->gid;
	e.size = size;
	if (digest != NULL)
		memcpy(e.sha256, digest, sizeof(e.sha256));
	snprintf(abspath, sizeof(abspath), "/%s", path);
	e.path = abspath;
	e.target = (char *)target;
	if (u->from[0] != '\0' && type != 'd') {
		snprintf(from, sizeof(from), "/%s", u->from);
		e.divert_from = from;
	}
	e.conffile = (type == 'f' || type == 'h') &&
	    unpack_is_conffile(u, unpack_shipped(u, path));
	if (type == 'c' || type == 'b') {
		e.major = (unsigned)archive_entry_rdevmajor(ae);
		e.minor = (unsigned)archive_entry_rdevminor(ae);
	}
	e.skipped = skipped;
	if ((r = record_add(u->rec, &e)) != 0)
		return dbp_err(err, -r, path, "cannot record");
	return 0;
}

static int
unpack_record(struct unpack *u, struct archive_entry *ae, char type,
    const char *path, uint64_t size, const uint8_t *digest,
    const char *target, struct dbp_error *err)
{
	return unpack_record_as(u, ae, type, path, size, digest, target,
	    false, err);
}

static int
unpack_file(struct unpack *u, struct archive *a, struct archive_entry *ae,
    struct unpack_target *t, struct dbp_error *err)
{
	uint8_t digest[DIGEST_LEN], md5[DIGEST_MD5_LEN];
	struct manifest_entry *e;
	struct timespec ts[2];
	struct stat sb;
	bool conffile = unpack_is_conffile(u, unpack_shipped(u, t->path));
	bool want_md5 = conffile || u->md5_all;
	mode_t perm = archive_entry_perm(ae) & 07777;
	int fd = -1, tries, r;

	if (conffile && (r = unpack_conffile(u, t, err)) != 0)
		return r;
	/* A dry run reads and checks the data, and writes none of it. */
	for (tries = 0; !u->opts.nowrite; tries++) {
		/*
		 * Readable when the store clones it.  Made with its mode
		 * where no setuid, setgid or sticky bit waits for the chown:
		 * most files then need neither chown nor chmod (below), each
		 * an inode update.
		 */
		fd = openat(t->dfd, t->tmp, (u->fill != NULL ? O_RDWR :
		    O_WRONLY) | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, perm & 07000 ? 0600 : perm);
		if (fd >= 0 || !unpack_stale(t, tries))
			break;
	}
	if (!u->opts.nowrite && fd < 0)
		return dbp_err(err, errno, t->path, "cannot create");
	if ((r = unpack_register(u, t, AE_IFREG, err)) != 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	r = unpack_data(u, a, ae, fd, t->path, digest, want_md5 ? md5 : NULL,
	    err);
	if (r == 0 && fd < 0)
		goto recorded;
	/*
	 * Metadata before the data is made durable, so that the same
	 * journal commit carries it; mode after chown, which clears setuid.
	 * What the file was made with (the run's owner, or a setgid
	 * directory's group; the mode less the umask) is left where it is
	 * what the entry says.
	 */
	if (r == 0 && fstat(fd, &sb) != 0)
		r = dbp_err(err, errno, t->path, "cannot read metadata");
	if (r == 0 && u->opts.chown && (sb.st_uid != u->uid ||
	    sb.st_gid != u->gid)) {
		if (fchown(fd, u->uid, u->gid) != 0)
			r = users_chown_err(err, errno, t->path, u->uid,
			    u->gid);
		sb.st_mode = 0;		/* the mode goes after it */
	}
	if (r == 0 && (sb.st_mode & 07777) != perm && fchmod(fd, perm) != 0)
		r = dbp_err(err, errno, t->path, "cannot change mode");
	unpack_times(ae, ts);
	if (r == 0 && futimens(fd, ts) != 0)
		r = dbp_err(err, errno, t->path, "cannot set times");
	if (r != 0) {
		close(fd);
		return r;
	}
	if ((r = u->stored != NULL && u->cloned ?
	    syncbatch_written_cloned(u->sb, t->item, fd, err) :
	    syncbatch_written(u->sb, t->item, fd, err)) != 0)
		return r;
recorded:
	if ((r = unpack_shared_check(u, t, S_IFREG, digest, NULL, 0,
	    err)) != 0)
		return r;
	u->st->entries[ST_FILE]++;
	if (conffile && (r = unpack_conffile_done(u, t, digest,
	    want_md5 ? md5 : NULL, err)) != 0)
		return r;
	if ((e = manifest_find(u->man, t->dir, t->name)) != NULL) {
		e->size = (uint64_t)archive_entry_size(ae);
		memcpy(e->sha256, digest, sizeof(e->sha256));
	}
	if ((r = unpack_record(u, ae, 'f', t->record_path,
	    (uint64_t)archive_entry_size(ae), digest, NULL, err)) != 0)
		return r;
	/*
	 * unpack_record appended the entry; dpkg's database wants the MD5,
	 * and whose conffile it was.
	 */
	if (want_md5 && u->rec != NULL && u->rec->n > 0) {
		u->rec->v[u->rec->n - 1].has_md5 = true;
		memcpy(u->rec->v[u->rec->n - 1].md5, md5, DIGEST_MD5_LEN);
		if (conffile) {
			u->rec->v[u->rec->n - 1].conf_from = t->conf_from;
			u->rec->v[u->rec->n - 1].conf_new =
			    t->conf == UNPACK_CONF_DPKG_NEW;
		}
	}
	return 0;
}

static int
unpack_symlink(struct unpack *u, struct archive_entry *ae,
    struct unpack_target *t, struct dbp_error *err)
{
	const char *target = archive_entry_symlink(ae);
	int tries, r;

	if (target == NULL || target[0] == '\0')
		return dbp_err(err, 0, t->path, "symlink without a target");
	/* The kernel's limit, judged here so that a dry run judges it too. */
	if (strlen(target) >= PATH_MAX)
		return dbp_err(err, ENAMETOOLONG, t->path,
		    "cannot create symlink");
	for (tries = 0, r = 0; !u->opts.nowrite; tries++) {
		r = symlinkat(target, t->dfd, t->tmp);
		if (r == 0 || !unpack_stale(t, tries))
			break;
	}
	if (r != 0)
		return dbp_err(err, errno, t->path, "cannot create symlink");
	if ((r = unpack_register(u, t, AE_IFLNK, err)) != 0 ||
	    (!u->opts.nowrite && (r = unpack_meta_at(u, t, ae, true,
	    err)) != 0) ||
	    (r = unpack_shared_check(u, t, S_IFLNK, NULL, target, 0,
	    err)) != 0)
		return r;
	u->st->entries[ST_SYMLINK]++;
	return unpack_record(u, ae, 'l', t->path, 0, NULL, target, err);
}

static int
unpack_node(struct unpack *u, struct archive_entry *ae,
    struct unpack_target *t, struct dbp_error *err)
{
	unsigned type = archive_entry_filetype(ae);
	mode_t kind = type == AE_IFCHR ? S_IFCHR : type == AE_IFBLK ?
	    S_IFBLK : S_IFIFO;
	int tries, r;

	for (tries = 0, r = 0; !u->opts.nowrite; tries++) {
		r = mknodat(t->dfd, t->tmp, kind | 0600,
		    kind == S_IFIFO ? 0 : archive_entry_rdev(ae));
		if (r == 0 || !unpack_stale(t, tries))
			break;
	}
	if (r != 0)
		return dbp_err(err, errno, t->path, "cannot create %s",
		    kind == S_IFIFO ? "fifo" : "device node");
	if ((r = unpack_register(u, t, type, err)) != 0 ||
	    (!u->opts.nowrite && (r = unpack_meta_at(u, t, ae, false,
	    err)) != 0) ||
	    (r = unpack_shared_check(u, t, kind, NULL, NULL, kind == S_IFIFO ?
	    0 : archive_entry_rdev(ae), err)) != 0)
		return r;
	u->st->entries[kind == S_IFCHR ? ST_CHAR : kind == S_IFBLK ?
	    ST_BLOCK : ST_FIFO]++;
	return unpack_record(u, ae, kind == S_IFCHR ? 'c' : kind == S_IFBLK ?
	    'b' : 'p', t->path, 0, NULL, NULL, err);
}

/*
 * A statoverride of hardlink T (to TARGET, root-relative): dpkg sets its
 * owner and mode on the inode, which the target shares; so does this,
 * and the target's entry in the record says so too.
 */
static int
unpack_link_override(struct unpack *u, struct archive_entry *ae,
    struct unpack_target *t, const char *target, struct dbp_error *err)
{
	char abstarget[PATH_MAX + 1];
	size_t i;

	if (!u->opts.nowrite) {
		if (u->opts.chown && fchownat(t->dfd, t->tmp, u->uid, u->gid,
		    AT_SYMLINK_NOFOLLOW) != 0)
			return users_chown_err(err, errno, t->path, u->uid,
			    u->gid);
		if (fchmodat(t->dfd, t->tmp, archive_entry_perm(ae), 0) != 0)
			return dbp_err(err, errno, t->path, "cannot change"
			    " mode");
	}
	if (u->rec == NULL)
		return 0;
	snprintf(abstarget, sizeof(abstarget), "/%s", target);
	for (i = 0; i < u->rec->n; i++)
		if (strcmp(u->rec->v[i].path, abstarget) == 0 ||
		    (u->rec->v[i].type == 'h' && strcmp(u->rec->v[i].target,
		    abstarget) == 0)) {
			u->rec->v[i].mode = archive_entry_perm(ae);
			u->rec->v[i].uid = u->uid;
			u->rec->v[i].gid = u->gid;
		}
	return 0;
}

/*
 * A hardlink joins the temporary of a regular file of the same package.
 * A conffile's new version may be aside (NAME.dpkg-new): a link to it
 * joins that, and a link that is a conffile itself goes aside too, as
 * dpkg links NAME.dpkg-new to NAME.dpkg-new.
 */
static int
unpack_hardlink(struct unpack *u, struct archive_entry *ae,
    struct unpack_target *t, struct dbp_error *err)
{
	char target[PATH_MAX], parent[PATH_MAX], abstarget[PATH_MAX + 1];
	uint8_t digest[DIGEST_LEN];
	struct manifest_entry *e;
	const struct unpack_held *h;
	uint64_t size;
	const char *tname;
	size_t tdir = 0, titem;
	bool conffile;
	int tdfd = -1, tries, r;

	if ((r = names_path(archive_entry_hardlink(ae), target,
	    sizeof(target), err)) != 0)
		return r;
	/* The target is where its own entry went: diverted or not. */
	if (u->divert != NULL) {
		char from[PATH_MAX];

		memcpy(from, u->from, sizeof(from));
		r = unpack_divert(u, target, sizeof(target), false, err);
		memcpy(u->from, from, sizeof(from));
		if (r != 0)
			return r;
	}
	unpack_split(target, parent, &tname);
	e = NULL;
	if (target[0] != '\0' &&
	    dirs_get(u->dirs, parent, false, 0, &tdir, NULL) == 0 &&
	    (e = manifest_find(u->man, tdir, tname)) == NULL &&
	    (h = unpack_held(u, tdir, tname)) != NULL && h->aside != NULL &&
	    h->pkg == u->pkg)
		e = manifest_find(u->man, tdir, h->aside);
	if (e == NULL || e->pkg != u->pkg || e->type != AE_IFREG)
		return dbp_err(err, 0, t->path, "hardlink target '%s' is"
		    " not a file of this package", target);
	titem = e->item;
	/* The record of a hardlink repeats its target's size and digest. */
	size = e->size;
	memcpy(digest, e->sha256, sizeof(digest));
	if (tdir == t->dir && strcmp(tname, t->name) == 0)
		return dbp_err(err, 0, t->path, "hardlink to itself");
	if ((r = unpack_prepare(u, t, err)) != 0)
		return r > 0 ? 0 : r;
	conffile = u->opts.dpkg_new &&
	    unpack_is_conffile(u, unpack_shipped(u, t->path));
	if (conffile && (r = unpack_conffile(u, t, err)) != 0)
		return r;
	if (!u->opts.nowrite &&
	    ((tdfd = dirs_fd(u->dirs, syncbatch_dir(u->sb, titem))) < 0 ||
	    (t->dfd = dirs_fd(u->dirs, t->dir)) < 0))
		return dbp_err(err, tdfd < 0 ? -tdfd : -t->dfd, t->path,
		    "cannot open directory");
	for (tries = 0, r = 0; !u->opts.nowrite; tries++) {
		r = linkat(tdfd, syncbatch_tmpname(u->sb, titem), t->dfd,
		    t->tmp, 0);
		if (r == 0 || !unpack_stale(t, tries))
			break;
	}
	if (r != 0)
		return dbp_err(err, errno, t->path, "cannot link");
	if ((r = unpack_register(u, t, AE_IFREG, err)) != 0)
		return r;
	if ((r = syncbatch_link(u->sb, t->item, titem)) != 0)
		return dbp_err(err, -r, t->path, "cannot link");
	if (u->statov_hit && (r = unpack_link_override(u, ae, t, target,
	    err)) != 0)
		return r;
	if ((r = unpack_shared_check(u, t, S_IFREG, digest, NULL, 0,
	    err)) != 0)
		return r;
	u->st->entries[ST_HARDLINK]++;
	if (conffile && (r = unpack_conffile_done(u, t, digest, NULL,
	    err)) != 0)
		return r;
	snprintf(abstarget, sizeof(abstarget), "/%s", target);
	if ((r = unpack_record(u, ae, 'h', t->record_path, size, digest,
	    abstarget, err)) != 0)
		return r;
	if (conffile && u->rec != NULL && u->rec->n > 0) {
		u->rec->v[u->rec->n - 1].conf_from = t->conf_from;
		u->rec->v[u->rec->n - 1].conf_new = true;
	}
	return 0;
}

static int
unpack_dir(struct unpack *u, struct archive_entry *ae, const char *path,
    struct dbp_error *err)
{
	struct dir_meta m;
	size_t idx;
	bool existed = true;
	int r;

	/* Said once, by the entry that makes it. */
	if (u->opts.plan != NULL)
		existed = dirs_get(u->dirs, path, false, 0, &idx, NULL) == 0;
	if ((r = dirs_get(u->dirs, path, true, archive_entry_perm(ae), &idx,
	    err)) != 0)
		return r;
	if (!existed)
		u->opts.plan(u->opts.warn_ctx, dirs_flags(u->dirs, idx) &
		    DIR_ASIDE ? PLAN_REPLACE : PLAN_CREATE_DIR, path, NULL);
	memset(&m, 0, sizeof(m));
	m.mode = archive_entry_perm(ae);
	m.chown = u->opts.chown;
	m.uid = u->uid;
	m.gid = u->gid;
	m.mtime.tv_sec = archive_entry_mtime(ae);
	m.mtime.tv_nsec = archive_entry_mtime_nsec(ae);
	if ((r = dirs_set_meta(u->dirs, idx, &m, err)) != 0)
		return r;
	u->st->entries[ST_DIR]++;
	return unpack_record(u, ae, 'd', path, 0, NULL, NULL, err);
}

/*
 * A symlink where a directory is (not a symlink to one): dpkg leaves the
 * directory and all in it as they are, asks no one whose the path is,
 * and lists it as the package's; dpkg-maintscript-helper's dir_to_symlink
 * makes the switch, in the postinst.  Recorded as the directory it is,
 * as adopting dpkg's list types it.  1 when so, 0 when no directory is
 * there, -errno with ERR.
 */
static int
unpack_link_on_dir(struct unpack *u, struct archive_entry *ae,
    struct unpack_target *t, struct dbp_error *err)
{
	char parent[PATH_MAX];
	struct stat st;
	bool dir, empty;
	int r;

	unpack_split(t->path, parent, &t->name);
	if ((r = dirs_get(u->dirs, parent, true, 0755, &t->dir, err)) != 0 ||
	    (r = unpack_target_dir(u, t, err)) != 0)
		return r;
	unpack_target_find(u, t, &dir, &empty);
	if (!dir)
		return 0;
	/* A dry run's planned directory is the run's: as it makes them. */
	st.st_mode = 0755;
	st.st_uid = 0;
	st.st_gid = 0;
	if (t->dfd >= 0 && fstatat(t->dfd, t->name, &st,
	    AT_SYMLINK_NOFOLLOW) != 0)
		return dbp_err(err, errno, t->path, "cannot stat");
	archive_entry_set_perm(ae, st.st_mode & 07777);
	u->uid = st.st_uid;
	u->gid = st.st_gid;
	if ((r = unpack_record(u, ae, 'd', t->path, 0, NULL, NULL, err)) != 0)
		return r;
	return 1;
}

static int
unpack_entry(struct unpack *u, struct archive *a, struct archive_entry *ae,
    struct dbp_error *err)
{
	struct unpack_target t;
	unsigned type = archive_entry_filetype(ae);
	bool filtered;
	int r;

	if ((r = names_path(archive_entry_pathname(ae), t.path,
	    sizeof(t.path), err)) != 0)
		return r;
	if ((r = unpack_stopped(u, t.path, err)) != 0)
		return r;
	/* Not directories: dpkg-divert diverts none. */
	u->from[0] = '\0';
	if (t.path[0] != '\0' && (archive_entry_hardlink(ae) != NULL ||
	    type != AE_IFDIR) && (r = unpack_divert(u, t.path,
	    sizeof(t.path), true, err)) != 0)
		return r;
	/* Looked up once per entry: chown and the record both need it. */
	unpack_owner(u, ae);
	u->statov_hit = unpack_statoverride(u, ae, t.path);
	if ((r = unpack_filtered(u, ae, t.path, &filtered, err)) != 0 ||
	    filtered)
		return r;
	if (archive_entry_hardlink(ae) == NULL && type == AE_IFDIR) {
		if (t.path[0] != '\0')
			return unpack_dir(u, ae, t.path, err);
		if (u->rec != NULL)
			u->rec->noroot = false;
		return 0;
	}
	if (t.path[0] == '\0')
		return dbp_err(err, 0, ".", "the root can only be a"
		    " directory");
	if (archive_entry_hardlink(ae) != NULL) {
		/* Locate our own directory first, for the self-link check. */
		char parent[PATH_MAX];

		unpack_split(t.path, parent, &t.name);
		if ((r = dirs_get(u->dirs, parent, true, 0755, &t.dir, err)) != 0)
			return r;
		return unpack_hardlink(u, ae, &t, err);
	}
	if ((type == AE_IFCHR || type == AE_IFBLK) && !u->opts.devices) {
		if (!u->opts.skip_devices)
			return dbp_err(err, EPERM, t.path, geteuid() == 0 ?
			    "device nodes cannot be made in a user namespace"
			    " (--skip-devices skips them)" : "device nodes need"
			    " root (--skip-devices skips them)");
		if (u->opts.warn != NULL)
			u->opts.warn(u->opts.warn_ctx, t.path, geteuid() == 0 ?
			    "device node skipped: in a user namespace" :
			    "device node skipped: not running as root");
		u->st->entries[ST_SKIPPED]++;
		/* Recorded all the same: --verify tells, a later run can make it. */
		return unpack_record_as(u, ae, type == AE_IFCHR ? 'c' : 'b',
		    t.path, 0, NULL, NULL, true, err);
	}
	switch (type) {
	case AE_IFREG:
	case AE_IFLNK:
	case AE_IFCHR:
	case AE_IFBLK:
	case AE_IFIFO:
		break;
	default:
		return dbp_err(err, 0, t.path, "unsupported entry type");
	}
	if (type == AE_IFLNK && (r = unpack_link_on_dir(u, ae, &t, err)) != 0)
		return r > 0 ? 0 : r;
	/* 1: another package keeps the path (it replaces this one). */
	if ((r = unpack_prepare(u, &t, err)) != 0)
		return r > 0 ? 0 : r;
	if (type == AE_IFREG)
		return unpack_file(u, a, ae, &t, err);
	if (type == AE_IFLNK)
		return unpack_symlink(u, ae, &t, err);
	return unpack_node(u, ae, &t, err);
}

int
unpack_archive(struct unpack *u, struct archive *tar, unsigned pkg,
    struct record *rec, struct dbp_error *err)
{
	struct archive_entry *ae;
	int r;

	u->pkg = pkg;
	u->rec = rec;
	/* Until its "./" entry comes (unpack_entry). */
	if (rec != NULL)
		rec->noroot = true;
	for (;;) {
		r = archive_read_next_header(tar, &ae);
		if (r == ARCHIVE_EOF)
			return 0;
		/*
		 * ARCHIVE_WARN is a name charset notice: the entry is usable.
		 * ARCHIVE_RETRY (a damaged header) is not.
		 */
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
			return dbp_err(err, 0, "", "%s",
			    archive_error_string(tar) != NULL ?
			    archive_error_string(tar) : "read error");
		store_fill_entry(u->fill, ae);
		if ((r = unpack_entry(u, tar, ae, err)) != 0)
			return r;
		store_fill_rest(u->fill, tar);
	}
}

void
unpack_set_fill(struct unpack *u, struct store_fill *f)
{
	u->fill = f;
}

/*
 * Every directory a package from the store needs is known before its
 * first entry: those missing from the root are announced to the journal
 * together (dirs_ahead), one wait for all where each directory made
 * would wait for its own line.  Paths are taken as the archive has
 * them; one that a diversion or a filter moves or drops costs a line
 * for nothing.
 */
static int
unpack_stored_dirs(struct unpack *u, struct store_pkg *p,
    struct dbp_error *err)
{
	char path[PATH_MAX], last[PATH_MAX] = "", *c;
	struct dbp_error ignored;
	size_t i, done;
	bool dir;
	int r;

	for (i = 0; i < store_pkg_count(p); i++) {
		if (names_path(store_pkg_path(p, i, &dir), path, sizeof(path),
		    &ignored) != 0)
			continue;
		if (!dir && (c = strrchr(path, '/')) != NULL)
			*c = '\0';
		else if (!dir)
			continue;
		/*
		 * Entries come directory by directory: what the last one
		 * walked (LAST and its parents) is not looked up again.
		 */
		for (done = 0; path[done] != '\0' && path[done] == last[done];
		    done++)
			;
		if (path[done] == '\0' && (last[done] == '\0' ||
		    last[done] == '/'))
			continue;
		while (done > 0 && path[done] != '/')
			done--;
		/* Parents first: a repair removes the deepest first. */
		for (c = path + done + (done > 0); (c = strchr(c, '/')) != NULL;
		    *c++ = '/') {
			*c = '\0';
			if ((r = dirs_ahead(u->dirs, path)) != 0)
				return dbp_err(err, -r, path,
				    "cannot write journal");
		}
		if ((r = dirs_ahead(u->dirs, path)) != 0)
			return dbp_err(err, -r, path, "cannot write journal");
		memcpy(last, path, strlen(path) + 1);
	}
	if ((r = dirs_ahead_done(u->dirs)) != 0)
		return dbp_err(err, -r, "", "cannot write journal");
	return 0;
}

int
unpack_stored(struct unpack *u, struct store *s, struct store_pkg *p,
    unsigned pkg, struct record *rec, enum store_how *how,
    struct dbp_error *err)
{
	struct archive_entry *ae;
	size_t i;
	int r = 0;

	u->pkg = pkg;
	u->rec = rec;
	if (rec != NULL)
		rec->noroot = true;
	u->store = s;
	u->stored = p;
	u->how = STORE_CLONED;
	r = unpack_stored_dirs(u, p, err);
	for (i = 0; i < store_pkg_count(p) && r == 0; i++) {
		u->stored_i = i;
		if ((ae = store_pkg_entry(p, i)) == NULL)
			r = dbp_err(err, ENOMEM, "", "cannot read the cache");
		else
			r = unpack_entry(u, NULL, ae, err);
	}
	u->store = NULL;
	u->stored = NULL;
	*how = u->how;
	return r;
}
