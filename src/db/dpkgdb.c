/* SPDX-License-Identifier: MIT */
/* dpkg's database in the root (var/lib/dpkg), written in the run's batch. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/dpkgdb.h"
#include "db/dpkgdb_int.h"
#include "db/dpkgfmt.h"
#include "db/dpkgown.h"
#include "db/dpkgstatus.h"
#include "durable/fileat.h"

/*
 * dpkg reads its database back on every run, so what is written here
 * follows dpkg 1.21: a stanza per package (dpkgstatus.c's table), sorted
 * by name, and an info file per control file.  The files join the batch
 * of the packages' files: they become durable with them and are renamed
 * after them, so that no crash leaves dpkg listing files that are not
 * there.  This file opens the database and answers about it; the other
 * files of the module are named in dpkgdb_int.h.
 */

int
dpkgdb_new(struct dpkgdb **out)
{
	struct dpkgdb *db;

	if ((db = calloc(1, sizeof(*db))) == NULL)
		return -ENOMEM;
	db->lockfd[0] = db->lockfd[1] = -1;
	*out = db;
	return 0;
}

int
dpkgdb_admin_fd(struct dpkgdb *db)
{
	return db->dirs != NULL ? dirs_fd(db->dirs, db->didx) : -EINVAL;
}

void
dpkgdb_set_pending(struct dpkgdb *db, struct dpkgdb_pending *v, size_t n)
{
	db->pending = v;
	db->npending = n;
}

void
dpkgdb_free(struct dpkgdb *db)
{
	size_t i;

	if (db == NULL)
		return;
	dpkgstatus_clear(&db->status);
	dpkgown_free(db->own);
	for (i = 0; i < db->nrun; i++) {
		deb_info_free(db->run[i].info, db->run[i].ninfo);
		free(db->run[i].infoname);
		free(db->run[i].oldinfo);
		free(db->run[i].stanza);
		while (db->run[i].ncarried > 0)
			free(db->run[i].carried[--db->run[i].ncarried].path);
		free(db->run[i].carried);
	}
	free(db->run);
	for (i = 0; i < db->ngone; i++) {
		free(db->gone[i].name);
		free(db->gone[i].path);
	}
	free(db->gone);
	for (i = 0; i < db->nrestanza; i++)
		free((char *)db->restanza[i].text);
	free(db->restanza);
	dpkgdb_unlock(db);
	free(db);
}

/* Take dpkg's lock file NAME in DFD as dpkg does: a whole-file fcntl lock. */
static int
dpkgdb_lock(int dfd, const char *name, int *out, struct dbp_error *err)
{
	struct flock fl;
	int fd;

	fd = openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0)
		return dbp_err(err, errno, DPKGDB_DIR, "cannot open dpkg's %s",
		    name);
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, F_SETLK, &fl) != 0) {
		int e = errno;

		close(fd);
		if (e == EAGAIN || e == EACCES)
			return dbp_err(err, 0, DPKGDB_DIR, "dpkg's database is"
			    " in use (%s held by another process)", name);
		return dbp_err(err, e, DPKGDB_DIR, "cannot lock dpkg's %s",
		    name);
	}
	*out = fd;
	return 0;
}

/*
 * dpkg journals its status changes in updates/ and folds them in when it
 * next opens the database: a status written now would be overridden.
 */
int
dpkgdb_check_updates(int dfd, struct dbp_error *err)
{
	struct dirent *de;
	DIR *dir;
	int fd, r = 0;

	if ((fd = openat(dfd, "updates", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : dbp_err(err, errno,
		    DPKGDB_DIR "/updates", "cannot open directory");
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return dbp_err(err, errno, DPKGDB_DIR "/updates",
		    "cannot open directory");
	}
	while ((de = readdir(dir)) != NULL)
		if (isdigit((unsigned char)de->d_name[0])) {
			r = dbp_err(err, 0, DPKGDB_DIR "/updates", "dpkg was"
			    " interrupted: run 'dpkg --configure -a' first");
			break;
		}
	closedir(dir);
	return r;
}

int
dpkgdb_open(struct dpkgdb *db, struct dirs *d, struct syncbatch *sb,
    struct recstage *rs, dpkgdb_shipped_fn *shipped, void *ctx,
    bool force_overwrite, struct dbp_error *err)
{
	size_t idx, len = 0;
	char *text = NULL;
	int dfd, r;

	db->dirs = d;
	db->sb = sb;
	db->rs = rs;
	db->shipped = shipped;
	db->shipped_ctx = ctx;
	db->force_overwrite = force_overwrite;
	db->plan = dirs_plans(d);
	if ((r = dirs_get(d, DPKGDB_DIR, false, 0, &idx, err)) == -ENOENT) {
		dbp_err_clear(err);
		return 0;	/* a new database, made at dpkgdb_prepare */
	}
	if (r != 0)
		return r;
	db->exists = true;
	if ((dfd = dirs_fd(d, idx)) < 0)
		return dbp_err(err, -dfd, DPKGDB_DIR, "cannot open directory");
	/*
	 * As dpkg --no-act: the database read, not locked (a lock writes).
	 * Under a front end that holds lock-frontend itself and says so
	 * (apt sets DPKG_FRONTEND_LOCKED for the dpkg it runs), only lock is
	 * taken, as dpkg then takes it: lock-frontend would wait for apt.
	 */
	if ((!db->plan && ((getenv("DPKG_FRONTEND_LOCKED") == NULL &&
	    (r = dpkgdb_lock(dfd, "lock-frontend", &db->lockfd[0],
	    err)) != 0) || (r = dpkgdb_lock(dfd, "lock", &db->lockfd[1],
	    err)) != 0)) ||
	    (r = dpkgdb_check_updates(dfd, err)) != 0)
		return r;
	if ((r = fileat_read(dfd, "status", &text, &len)) == -ENOENT)
		return dpkgown_load(&db->own, dfd, &db->status, rs, err);
	if (r != 0)
		return dbp_err(err, -r, DPKGDB_DIR "/status", "cannot read");
	r = dpkgstatus_parse(&db->status, text, len);
	free(text);
	if (r == -EINVAL)
		return dbp_err(err, 0, DPKGDB_DIR "/status",
		    "a stanza without a Package field");
	if (r != 0)
		return dbp_err(err, -r, DPKGDB_DIR "/status", "cannot read");
	return dpkgown_load(&db->own, dfd, &db->status, rs, err);
}

const char *
dpkgdb_info(const struct dpkgdb_new *p, const char *name)
{
	size_t k;

	for (k = 0; k < p->ninfo; k++)
		if (strcmp(p->info[k].name, name) == 0)
			return p->info[k].data;
	return NULL;
}

bool
dpkgdb_has_script(struct dpkgdb *db, const struct record *rec,
    const char *script)
{
	const struct dpkgstatus_stanza *o;
	char file[NAME_MAX + 1], *info;
	struct stat st;
	size_t idx;
	bool has;
	int ifd;

	if ((o = dpkgstatus_peek(&db->status, control_get(rec->ctl, "Package"),
	    control_get(rec->ctl, "Architecture"),
	    control_get(rec->ctl, "Multi-Arch"))) == NULL ||
	    (info = dpkgstatus_infoname(o->name, o->arch, o->ma)) == NULL)
		return false;
	snprintf(file, sizeof(file), "%s.%s", info, script);
	free(info);
	has = dirs_get(db->dirs, DPKGDB_DIR "/info", false, 0, &idx,
	    NULL) == 0 && (ifd = dirs_fd(db->dirs, idx)) >= 0 &&
	    fstatat(ifd, file, &st, AT_SYMLINK_NOFOLLOW) == 0;
	return has;
}

const struct dpkgstatus *
dpkgdb_status(const struct dpkgdb *db)
{
	return &db->status;
}

void
dpkgdb_unlock(struct dpkgdb *db)
{
	size_t i;

	for (i = 2; i-- > 0;)
		if (db->lockfd[i] >= 0) {
			close(db->lockfd[i]);
			db->lockfd[i] = -1;
		}
}

size_t
dpkgdb_count(const struct dpkgdb *db)
{
	return db->nrun;
}

void
dpkgdb_pkg(const struct dpkgdb *db, size_t i, struct dpkgdb_pkg *out)
{
	const struct dpkgdb_new *p = &db->run[i];
	const char *state;

	memset(out, 0, sizeof(*out));
	out->name = control_get(p->rec->ctl, "Package");
	out->arch = control_get(p->rec->ctl, "Architecture");
	out->version = control_get(p->rec->ctl, "Version");
	out->infoname = p->infoname;
	out->version = dpkgfmt_version(out->version);
	out->action = "install";
	if (p->old != NULL) {
		/* dpkg's: over a version, upgrade; over its conffiles, install. */
		state = dpkgstatus_state(p->old);
		if (strcmp(state, "config-files") == 0)
			out->old_version = p->old->cversion;
		else if (strcmp(state, "not-installed") != 0) {
			out->old_version = p->old->version;
			out->action = "upgrade";
		}
		if (out->old_version != NULL)
			out->old_version = dpkgfmt_version(out->old_version);
	}
	out->has_preinst = dpkgdb_info(p, "preinst") != NULL;
}

