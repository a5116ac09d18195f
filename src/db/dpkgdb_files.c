/* SPDX-License-Identifier: MIT */
/* dpkg's database: the files the run writes, and those that go after it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/batchfile.h"
#include "db/dpkgdb.h"
#include "db/dpkgdb_int.h"
#include "db/dpkgfmt.h"
#include "db/dpkgstatus.h"
#include "db/dpkgtrig.h"
#include "durable/fileat.h"

/*
 * Every file is written as a temporary of the run's batch: it becomes
 * durable with the packages' files and is renamed after them, so that
 * no crash leaves dpkg listing files that are not there.  A file that
 * goes is removed after the commit point (dpkgdb_gone.c plans it).
 */

int
dpkgdb_put_at(struct dpkgdb *db, size_t idx, const char *dir,
    const char *name, mode_t mode, time_t mtime, const char *data, size_t len,
    struct dbp_error *err)
{
	struct timespec ts[2];
	struct batchfile bf;
	char path[PATH_MAX];
	int r;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path))
		return dbp_err(err, ENAMETOOLONG, path, "cannot create");
	/* A package's own file there would be renamed over by this one. */
	if (db->shipped(db->shipped_ctx, idx, name))
		return dbp_err(err, 0, path, "a package ships a file of dpkg's"
		    " database");
	if (db->plan)
		return 0;	/* a dry run judges it, writes nothing */
	if ((r = batchfile_open(&bf, db->sb, db->dirs, idx, path, name, 0600,
	    err)) != 0)
		return r;
	ts[0].tv_sec = ts[1].tv_sec = mtime;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	if ((r = batchfile_write(&bf, data, len, err)) == 0 &&
	    fchmod(bf.fd, mode) != 0)
		r = dbp_err(err, errno, path, "cannot change mode");
	if (r == 0 && mtime != -1 && futimens(bf.fd, ts) != 0)
		r = dbp_err(err, errno, path, "cannot set times");
	return batchfile_end(&bf, r, err);
}

int
dpkgdb_put(struct dpkgdb *db, size_t idx, const char *dir, const char *name,
    mode_t mode, const char *data, size_t len, struct dbp_error *err)
{
	return dpkgdb_put_at(db, idx, dir, name, mode, -1, data, len, err);
}

int
dpkgdb_add_gone(struct dpkgdb *db, size_t dir, const char *dirpath,
    const char *name)
{
	struct dpkgdb_gone *v;

	if ((v = realloc(db->gone, (db->ngone + 1) * sizeof(*v))) == NULL)
		return -ENOMEM;
	db->gone = v;
	v += db->ngone;
	v->dir = dir;
	v->name = strdup(name);
	if (v->name == NULL || asprintf(&v->path, "%s/%s", dirpath, name) < 0) {
		free(v->name);
		return -ENOMEM;
	}
	db->ngone++;
	return 0;
}

int
dpkgdb_put_info(struct dpkgdb *db, const struct dpkgdb_new *p,
    struct dbp_error *err)
{
	char file[NAME_MAX + 1];
	size_t k;
	int r;

	for (k = 0; k < p->ninfo; k++) {
		if (snprintf(file, sizeof(file), "%s.%s", p->infoname,
		    p->info[k].name) >= (int)sizeof(file))
			return dbp_err(err, ENAMETOOLONG, p->infoname,
			    "cannot write dpkg's info file");
		/* As dpkg, which extracts them with tar, has them. */
		if ((r = dpkgdb_put_at(db, db->infoidx, DPKGDB_DIR "/info", file,
		    p->info[k].mode, p->info[k].mtime, p->info[k].data,
		    p->info[k].len, err)) != 0)
			return r;
	}
	return 0;
}

/* Whether a package the run does not remove stays installed, by dpkg's status. */
static bool
dpkgdb_others_installed(const struct dpkgdb *db)
{
	size_t i;

	for (i = 0; i < db->status.n; i++)
		if (!db->status.v[i].replaced &&
		    dpkgstatus_installed(&db->status.v[i]))
			return true;
	for (i = 0; i < db->nrun; i++)
		if (!db->run[i].removal)
			return true;
	return false;
}

bool
dpkgdb_list_rooted(struct dpkgdb *db, const char *file)
{
	char head[3];
	ssize_t n;
	int dfd, fd;

	if ((dfd = dirs_fd(db->dirs, db->infoidx)) < 0 ||
	    (fd = openat(dfd, file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return true;
	n = read(fd, head, sizeof(head));
	close(fd);
	return n != sizeof(head) || memcmp(head, "/.\n", 3) == 0;
}

int
dpkgdb_put_list(struct dpkgdb *db, const struct dpkgdb_new *p,
    struct dbp_error *err)
{
	char file[NAME_MAX + 1], *list;
	size_t len;
	FILE *fp;
	int r;

	if (snprintf(file, sizeof(file), "%s.list", p->infoname) >=
	    (int)sizeof(file))
		return dbp_err(err, ENAMETOOLONG, p->infoname,
		    "cannot write dpkg's file list");
	if ((fp = open_memstream(&list, &len)) == NULL)
		return dbp_err(err, ENOMEM, p->infoname, "cannot write");
	/*
	 * dpkg keeps in a removed package's list the directories no
	 * other package has: "/." only when no other is installed, and
	 * only if its list had it.  A new list has it if the archive has
	 * "./" (all that dpkg-deb builds).
	 */
	if (p->removal)
		r = dpkgfmt_list(fp, p->rec, !dpkgdb_others_installed(db) &&
		    dpkgdb_list_rooted(db, file));
	else
		r = dpkgfmt_list(fp, p->rec, !p->rec->noroot);
	if (fclose(fp) != 0 && r == 0)
		r = -ENOMEM;
	if (r != 0) {
		free(list);
		return dbp_err(err, -r, p->infoname,
		    "cannot write dpkg's file list");
	}
	r = dpkgdb_put(db, db->infoidx, DPKGDB_DIR "/info", file, 0644, list,
	    len, err);
	free(list);
	return r;
}

/*
 * Whether the package of stanza O was above config-files before the
 * run.  Under --maintscripts the stanza is the half-installed one the
 * sequence wrote before the batch: for a package that was not installed
 * it has only the few fields dpkg writes then (no Description).
 */
static bool
dpkgdb_was_there(const struct dpkgstatus_stanza *o)
{
	const char *state;

	if (o == NULL)
		return false;
	state = dpkgstatus_state(o);
	if (strcmp(state, "half-installed") == 0)
		return memmem(o->text, o->len, "\nDescription:", 13) != NULL;
	return strcmp(state, "config-files") != 0 &&
	    strcmp(state, "not-installed") != 0;
}

/*
 * Where dpkg keeps triggers (triggers/, made by its first run), register
 * the run's interests and note what its packages activate in the status
 * (dpkgtrig.h, dpkgdb_trig.c).
 * A new database has none: dpkg builds it from info/PKG.triggers.
 */
int
dpkgdb_triggers(struct dpkgdb *db, struct dbp_error *err)
{
	struct dpkgtrig *t = NULL;
	const char *name, *text;
	char file[NAME_MAX + 1], *old, *list;
	size_t i, idx = 0, len;
	int ifd, tfd, r;

	if ((r = dirs_get(db->dirs, DPKGDB_DIR "/triggers", false, 0, &db->tidx,
	    err)) == -ENOENT) {
		dbp_err_clear(err);
		return 0;
	}
	if (r != 0)
		return r;
	if ((tfd = dirs_fd(db->dirs, db->tidx)) < 0)
		return dbp_err(err, -tfd, DPKGDB_DIR "/triggers",
		    "cannot open directory");
	ifd = dirs_fd(db->dirs, db->infoidx);
	if ((r = dpkgtrig_new(&t, tfd)) != 0)
		return dbp_err(err, -r, DPKGDB_DIR "/triggers", "cannot read");
	for (i = 0; r == 0 && i < db->nrun; i++) {
		const struct dpkgdb_new *p = &db->run[i];

		old = NULL;
		snprintf(file, sizeof(file), "%s.triggers", p->oldinfo != NULL ?
		    p->oldinfo : p->infoname);
		if ((r = ifd < 0 ? -ENOENT : fileat_read(ifd, file, &old,
		    &len)) == -ENOENT)
			r = 0;
		list = NULL;
		snprintf(file, sizeof(file), "%s.list", p->oldinfo != NULL ?
		    p->oldinfo : p->infoname);
		if (r == 0 && p->old != NULL && (r = ifd < 0 ? -ENOENT :
		    fileat_read(ifd, file, &list, &len)) == -ENOENT)
			r = 0;
		if (r == 0)
			r = dpkgtrig_package(t, p->infoname, p->oldinfo != NULL ?
			    p->oldinfo : p->infoname, old,
			    dpkgdb_info(p, "triggers"), p->rec, list,
			    dpkgdb_was_there(p->old), db->rs);
		free(old);
		free(list);
	}
	if (r != 0)
		r = dbp_err(err, -r, DPKGDB_DIR "/triggers", "cannot update");
	else
		r = dpkgdb_trig_status(db, t, err);
	while (r == 0 && (r = dpkgtrig_file(t, &idx, &name, &text, &len)) > 0) {
		/* dpkg removes the file of a trigger nobody is interested in. */
		if (len == 0 && strcmp(name, "File") != 0 &&
		    strcmp(name, "Unincorp") != 0)
			r = dpkgdb_add_gone(db, db->tidx, DPKGDB_DIR "/triggers",
			    name) != 0 ? dbp_err(err, ENOMEM, "", "cannot"
			    " update triggers") : 0;
		else
			r = dpkgdb_put(db, db->tidx, DPKGDB_DIR "/triggers",
			    name, 0644, text, len, err);
	}
	if (r < 0 && err->msg[0] == '\0')
		dbp_err(err, -r, DPKGDB_DIR "/triggers", "cannot update");
	dpkgtrig_free(t);
	return r < 0 ? r : 0;
}

/* The new status: the untouched stanzas and the run's, sorted as dpkg does. */
static int
dpkgdb_status_text(struct dpkgdb *db, char **out, size_t *len)
{
	struct dpkgstatus_add *add;
	size_t i, k;
	int r;

	if ((add = calloc(db->nrun + db->nrestanza + 1, sizeof(*add))) == NULL)
		return -ENOMEM;
	for (i = k = 0; i < db->nrun; i++) {
		if (db->run[i].whole)
			continue;	/* its stanza goes */
		add[k].name = control_get(db->run[i].rec->ctl, "Package");
		add[k].arch = control_get(db->run[i].rec->ctl, "Architecture");
		add[k++].text = db->run[i].stanza;
	}
	for (i = 0; i < db->nrestanza; i++)
		add[k++] = db->restanza[i];
	r = dpkgstatus_merge(&db->status, add, k, out, len);
	free(add);
	return r;
}

int
dpkgdb_put_status(struct dpkgdb *db, struct dbp_error *err)
{
	char *status;
	size_t len;
	int r;

	if ((r = dpkgdb_status_text(db, &status, &len)) != 0)
		return dbp_err(err, -r, DPKGDB_DIR "/status", "cannot write");
	r = dpkgdb_put(db, db->didx, DPKGDB_DIR, "status", 0644, status, len,
	    err);
	free(status);
	return r;
}

/*
 * What dpkg expects of a database it did not make: info/format says the
 * info files have multiarch names.
 */
int
dpkgdb_put_format(struct dpkgdb *db, struct dbp_error *err)
{
	int ifd = dirs_fd(db->dirs, db->infoidx);
	struct stat st;

	if (ifd >= 0 && fstatat(ifd, "format", &st, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	return dpkgdb_put(db, db->infoidx, DPKGDB_DIR "/info", "format", 0644,
	    "1\n", 2, err);
}

/* dpkg's and apt's lock files, as their first run leaves them. */
int
dpkgdb_put_locks(struct dpkgdb *db, struct dbp_error *err)
{
	int r;

	if (db->exists)
		return 0;
	if ((r = dpkgdb_put(db, db->didx, DPKGDB_DIR, "lock", 0640, "", 0,
	    err)) != 0)
		return r;
	return dpkgdb_put(db, db->didx, DPKGDB_DIR, "lock-frontend", 0640, "",
	    0, err);
}
