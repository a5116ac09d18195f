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

#include "durable/batchfile.h"
#include "deb/conffiles.h"
#include "db/dpkgdb.h"
#include "db/dpkgfmt.h"
#include "db/dpkgown.h"
#include "db/dpkgstatus.h"
#include "db/dpkgtrig.h"
#include "durable/fileat.h"
#include "durable/journal.h"
#include "manifest.h"
#include "durable/names.h"
#include "syncbatch.h"

/*
 * dpkg reads its database back on every run, so what is written here
 * follows dpkg 1.21: a stanza per package (dpkgfmt.c), sorted by name,
 * and an info file per control file.  The
 * files join the batch of the packages' files: they become durable with
 * them and are renamed after them, so that no crash leaves dpkg listing
 * files that are not there.
 */

/* A package of the run. */
struct dpkgdb_new {
	struct record *rec;	/* the manifest's */
	struct deb_info *info;
	size_t ninfo;
	char *infoname;
	const char *conffiles;	/* text of the conffiles info file, or NULL */
	struct dpkgstatus_stanza *old;	/* the stanza it replaces, or NULL */
	char *oldinfo;		/* the infoname of OLD */
	char *stanza;		/* as written */
	size_t stanza_len;
	bool removal;		/* removed: REC keeps its conffiles, or */
	bool whole;		/* nothing of it stays, not even a stanza */
	struct dpkgdb_carried *carried;	/* dpkgdb_carry's */
	size_t ncarried;
};

/*
 * A conffile of a package of the run and the MD5 dpkg carries for it
 * from before the run until the package is configured (dpkg reads it
 * when it unpacks the package): what its status keeps for a conffile
 * the package does not install.
 */
struct dpkgdb_carried {
	char *path;
	unsigned char md5[16];
};

/* A database file that goes: an old version's info file, an empty trigger. */
struct dpkgdb_gone {
	size_t dir;		/* in the run's directory table */
	char *name;
	char *path;		/* root-relative, for the journal and warnings */
};

struct dpkgdb {
	struct dirs *dirs;
	struct syncbatch *sb;
	struct manifest *man;
	bool exists;		/* var/lib/dpkg was there */
	bool plan;		/* a dry run (dirs_plans): no lock, no write */
	int lockfd[2];		/* lock-frontend, lock */
	struct dpkgstatus status;	/* the status file before the run */
	bool force_overwrite;
	struct dpkgown *own;	/* what dpkg owns already, or NULL */
	struct dpkgdb_new *run;
	size_t nrun;
	size_t infoidx;		/* var/lib/dpkg/info in the run's table */
	struct dpkgdb_gone *gone;	/* files to remove after the commit */
	size_t ngone;
	size_t didx;		/* var/lib/dpkg in the run's table */
	/* stanzas of packages outside the run that gave paths up */
	struct dpkgstatus_add *restanza;
	size_t nrestanza;
	size_t tidx;		/* var/lib/dpkg/triggers, when there */
};

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
static int
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
    struct manifest *man, bool force_overwrite, struct dbp_error *err)
{
	size_t idx, len = 0;
	char *text = NULL;
	int dfd, r;

	db->dirs = d;
	db->sb = sb;
	db->man = man;
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
	/* As dpkg --no-act: the database read, not locked (a lock writes). */
	if ((!db->plan && ((r = dpkgdb_lock(dfd, "lock-frontend",
	    &db->lockfd[0], err)) != 0 || (r = dpkgdb_lock(dfd, "lock",
	    &db->lockfd[1], err)) != 0)) ||
	    (r = dpkgdb_check_updates(dfd, err)) != 0)
		return r;
	if ((r = fileat_read(dfd, "status", &text, &len)) == -ENOENT)
		return dpkgown_load(&db->own, dfd, &db->status, man, err);
	if (r != 0)
		return dbp_err(err, -r, DPKGDB_DIR "/status", "cannot read");
	r = dpkgstatus_parse(&db->status, text, len);
	free(text);
	if (r == -EINVAL)
		return dbp_err(err, 0, DPKGDB_DIR "/status",
		    "a stanza without a Package field");
	if (r != 0)
		return dbp_err(err, -r, DPKGDB_DIR "/status", "cannot read");
	return dpkgown_load(&db->own, dfd, &db->status, man, err);
}

/* An info file of package P (its new version's), or NULL. */
static const char *
dpkgdb_info(const struct dpkgdb_new *p, const char *name)
{
	size_t k;

	for (k = 0; k < p->ninfo; k++)
		if (strcmp(p->info[k].name, name) == 0)
			return p->info[k].data;
	return NULL;
}

/*
 * dpkg makes the md5sums of a package that has none, from what it
 * extracted: every regular file but the conffiles, in archive order.
 * 0 or an errno.
 */
static int
dpkgdb_md5sums(struct dpkgdb_new *p)
{
	struct deb_info *v;
	char *text = NULL;
	size_t len = 0, i, k;
	FILE *fp;

	const unsigned char *md5;

	if (dpkgdb_info(p, "md5sums") != NULL)
		return 0;
	if ((fp = open_memstream(&text, &len)) == NULL)
		return ENOMEM;
	for (i = 0; i < p->rec->n; i++) {
		const struct record_entry *e = &p->rec->v[i];

		if ((e->type != 'f' && e->type != 'h') || e->conffile ||
		    (md5 = dpkgfmt_entry_md5(p->rec, e)) == NULL)
			continue;
		for (k = 0; k < 16; k++)
			fprintf(fp, "%02x", md5[k]);
		fprintf(fp, "  %s\n", e->path + 1);
	}
	if (fclose(fp) != 0) {
		free(text);
		return ENOMEM;
	}
	if (len == 0) {
		free(text);
		return 0;
	}
	if ((v = realloc(p->info, (p->ninfo + 1) * sizeof(*v))) == NULL ||
	    (v[p->ninfo].name = strdup("md5sums")) == NULL) {
		if (v != NULL)
			p->info = v;
		free(text);
		return ENOMEM;
	}
	p->info = v;
	v[p->ninfo].mode = 0644;
	v[p->ninfo].mtime = -1;	/* made now, as dpkg makes it */
	v[p->ninfo].data = text;
	v[p->ninfo].len = len;
	p->ninfo++;
	return 0;
}

/* What dpkgdb_conff_md5 looks for: PATH, its hash found into MD5. */
struct dpkgdb_conff_find {
	const char *path;
	unsigned char *md5;
	bool found;
};

static int
dpkgdb_conff_match(const struct dpkgfmt_conffile *c, void *ctx)
{
	struct dpkgdb_conff_find *q = ctx;

	if (strcmp(c->path, q->path) != 0)
		return 0;
	if ((q->found = c->has_md5))
		memcpy(q->md5, c->md5, 16);
	return 1;	/* the first line of PATH is dpkg's */
}

/*
 * PATH's hash in stanza O's Conffiles into MD5: false when O (may be
 * NULL) does not list it, or has no hash for it ("newconffile").
 */
static bool
dpkgdb_conff_md5(const struct dpkgstatus_stanza *o, const char *path,
    unsigned char md5[16])
{
	struct dpkgdb_conff_find q = { .path = path, .md5 = md5 };

	if (o != NULL && o->conffiles != NULL)
		dpkgfmt_conffiles(o->conffiles, o->conffiles_len,
		    dpkgdb_conff_match, &q);
	return q.found;
}

/* The package of the run called NAME (not a removal), or NULL. */
static struct dpkgdb_new *
dpkgdb_run_pkg(struct dpkgdb *db, const char *name)
{
	size_t i;

	for (i = 0; i < db->nrun; i++)
		if (!db->run[i].removal && strcmp(control_get(
		    db->run[i].rec->ctl, "Package"), name) == 0)
			return &db->run[i];
	return NULL;
}

/* P's carried MD5 of conffile PATH (dpkgdb_carried), or NULL. */
static const unsigned char *
dpkgdb_carried_of(const struct dpkgdb_new *p, const char *path)
{
	size_t i;

	for (i = 0; i < p->ncarried; i++)
		if (strcmp(p->carried[i].path, path) == 0)
			return p->carried[i].md5;
	return NULL;
}

/* dpkgstatus_carried_fn of a package of the run, CTX. */
static const unsigned char *
dpkgdb_carried_md5(void *ctx, const char *path)
{
	return dpkgdb_carried_of(ctx, path);
}

/*
 * The MD5 dpkg has now for conffile PATH of package NAME, into MD5: one
 * of the run carries it over from before the run, another has its
 * status's.  False for none.
 */
static bool
dpkgdb_conff_now(struct dpkgdb *db, const char *name, const char *path,
    unsigned char md5[16])
{
	const struct dpkgdb_new *p = dpkgdb_run_pkg(db, name);
	const unsigned char *h;

	if (p == NULL)
		return dpkgdb_conff_md5(dpkgstatus_peek(&db->status, name, NULL,
		    NULL), path, md5);
	if ((h = dpkgdb_carried_of(p, path)) == NULL)
		return false;
	memcpy(md5, h, 16);
	return true;
}

/*
 * Before the run, the stanza of package NAME: the one a package of the
 * run replaces, or the status's.  NULL for none.
 */
static const struct dpkgstatus_stanza *
dpkgdb_stanza_before(struct dpkgdb *db, const char *name)
{
	const struct dpkgdb_new *p = dpkgdb_run_pkg(db, name);

	return p != NULL ? p->old : dpkgstatus_peek(&db->status, name, NULL,
	    NULL);
}

static int
dpkgdb_carry_one(struct dpkgdb_new *p, const char *path,
    const unsigned char md5[16])
{
	struct dpkgdb_carried *v;

	if ((v = realloc(p->carried, (p->ncarried + 1) * sizeof(*v))) == NULL)
		return -ENOMEM;
	p->carried = v;
	if ((v[p->ncarried].path = strdup(path)) == NULL)
		return -ENOMEM;
	memcpy(v[p->ncarried++].md5, md5, 16);
	return 0;
}

/*
 * What dpkg reads for the conffiles of package P as it unpacks it (its
 * deb_parse_conffiles): the hash of each from the package that had it
 * before, the package itself first (another took a conffile from P's new
 * version later in the run: dpkg lists it obsolete with that hash), or
 * the one it was taken from; a conffile kept by a package that replaces
 * P has that one's; one flagged remove-on-upgrade, the old version's if
 * that installed it.
 */
static int
dpkgdb_carry(struct dpkgdb *db, struct dpkgdb_new *p, struct dbp_error *err)
{
	const char *name = control_get(p->rec->ctl, "Package");
	struct conffiles *c = NULL;
	char abspath[PATH_MAX + 1];
	unsigned char md5[16];
	size_t i;
	int r = 0;

	for (i = 0; r == 0 && i < p->rec->n; i++) {
		const struct record_entry *e = &p->rec->v[i];

		if (e->conffile && !e->obsolete && e->conf_from != NULL &&
		    dpkgdb_conff_md5(dpkgdb_stanza_before(db, e->conf_from),
		    e->path, md5))
			r = dpkgdb_carry_one(p, e->path, md5);
	}
	for (i = 0; r == 0 && i < p->rec->nkept; i++)
		if (dpkgdb_conff_now(db, p->rec->kept[i].owner,
		    p->rec->kept[i].path, md5))
			r = dpkgdb_carry_one(p, p->rec->kept[i].path, md5);
	if (r != 0)
		return dbp_err(err, -r, "", "cannot keep control files");
	if ((r = conffiles_parse(p->conffiles, &c, err)) != 0)
		return r;
	/*
	 * dpkg looks the hash up in the packages whose file lists have the
	 * path: once an upgrade removed the file, the next has none.
	 */
	for (i = 0; r == 0 && i < conffiles_nremove(c); i++) {
		snprintf(abspath, sizeof(abspath), "/%s",
		    conffiles_remove_at(c, i));
		if (manifest_installed_entry(db->man, name, abspath) != NULL &&
		    dpkgdb_conff_md5(p->old, abspath, md5))
			r = dpkgdb_carry_one(p, abspath, md5);
	}
	conffiles_free(c);
	return r != 0 ? dbp_err(err, -r, "", "cannot keep control files") : 0;
}

int
dpkgdb_stage(struct dpkgdb *db, const struct record *rec,
    struct deb_info *info, size_t n, struct dbp_error *err)
{
	const char *name = control_get(rec->ctl, "Package");
	const char *arch = control_get(rec->ctl, "Architecture");
	const char *ma = control_get(rec->ctl, "Multi-Arch");
	struct dpkgdb_new *v, *p;
	size_t i;
	int e;

	if ((e = dpkgown_check(db->own, rec, dpkgstatus_peek(&db->status,
	    name, arch, ma), db->force_overwrite, err)) != 0) {
		deb_info_free(info, n);
		return e;
	}
	if ((v = realloc(db->run, (db->nrun + 1) * sizeof(*v))) == NULL) {
		deb_info_free(info, n);
		return dbp_err(err, ENOMEM, "", "cannot keep control files");
	}
	db->run = v;
	p = memset(&v[db->nrun++], 0, sizeof(*p));
	p->rec = (struct record *)rec;
	p->info = info;
	p->ninfo = n;
	for (i = 0; i < n; i++)
		if (strcmp(info[i].name, "conffiles") == 0)
			p->conffiles = info[i].data;
	if ((e = dpkgdb_md5sums(p)) != 0)
		return dbp_err(err, e, "", "cannot keep control files");
	if ((p->old = dpkgstatus_take(&db->status, name, arch, ma)) != NULL &&
	    (p->oldinfo = dpkgstatus_infoname(p->old->name, p->old->arch,
	    p->old->ma)) == NULL)
		return dbp_err(err, ENOMEM, "", "cannot keep control files");
	if ((p->infoname = dpkgstatus_infoname(name, arch, ma)) == NULL)
		return dbp_err(err, ENOMEM, "", "cannot keep control files");
	/* Obsolete conffiles keep the hash dpkg's status had for them. */
	for (i = 0; p->old != NULL && i < rec->n; i++) {
		struct record_entry *o = (struct record_entry *)&rec->v[i];

		if (o->obsolete)
			o->has_md5 = dpkgdb_conff_md5(p->old, o->path, o->md5);
	}
	return dpkgdb_carry(db, p, err);
}

/* The new stanza of P, following dpkg's unpack of an upgrade. */
static int
dpkgdb_make_stanza(struct dpkgdb_new *p)
{
	const struct dpkgstatus_stanza *o = p->old;
	struct dpkgstatus_src src = { .ctl = p->rec->ctl,
	    .conffiles = p->conffiles, .rec = p->rec,
	    .carried = dpkgdb_carried_md5, .ctx = p };
	const char *state;
	char status[64];
	FILE *fp;
	int r;

	/* A hold stays a hold; anything else the user asked for: install. */
	snprintf(status, sizeof(status), "%s ok unpacked",
	    o != NULL && o->status != NULL && strncmp(o->status, "hold ", 5) == 0 ?
	    "hold" : "install");
	if (o != NULL) {
		state = dpkgstatus_state(o);
		/* What postinst configure is told the configured version was. */
		if (strcmp(state, "installed") == 0 ||
		    strcmp(state, "triggers-pending") == 0 ||
		    strcmp(state, "triggers-awaited") == 0)
			src.config_version = o->version;
		else if (strcmp(state, "not-installed") != 0)
			src.config_version = o->cversion;
	}
	src.status = status;
	if ((fp = open_memstream(&p->stanza, &p->stanza_len)) == NULL)
		return -ENOMEM;
	r = dpkgstatus_write(fp, &src);
	if (fclose(fp) != 0 && r == 0)
		r = -ENOMEM;
	return r;
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

/* How dpkgdb_removed_stanza copies the old stanza's fields. */
struct dpkgdb_removed {
	FILE *fp;
	struct dpkgstatus_src src;	/* the new Status and Config-Version */
	bool installed;
};

static int
dpkgdb_removed_field(const struct dpkgfmt_field *f, void *ctx)
{
	struct dpkgdb_removed *rm = ctx;

	if (dpkgfmt_field_is(f, "Status"))
		dpkgstatus_write_field(rm->fp, "Status", &rm->src);
	else if (!rm->installed || !dpkgfmt_field_is(f, "Config-Version"))
		fwrite(f->text, 1, f->textlen, rm->fp);
	/* Configured: that version is the configuration's. */
	if (rm->installed && dpkgfmt_field_is(f, "Version"))
		dpkgstatus_write_field(rm->fp, "Config-Version", &rm->src);
	return 0;
}

/*
 * The stanza of removed package P, as dpkg --remove leaves it when
 * conffiles stay: the old one, "deinstall ok config-files", and the
 * version it was configured at.
 */
static int
dpkgdb_removed_stanza(struct dpkgdb_new *p)
{
	const struct dpkgstatus_stanza *o = p->old;
	struct dpkgdb_removed rm = {
		.src = { .status = RECORD_CONFIG_FILES,
		    .config_version = o->version },
		.installed = strcmp(dpkgstatus_state(o), "installed") == 0 ||
		    strcmp(dpkgstatus_state(o), "triggers-pending") == 0 ||
		    strcmp(dpkgstatus_state(o), "triggers-awaited") == 0,
	};

	if ((rm.fp = open_memstream(&p->stanza, &p->stanza_len)) == NULL)
		return -ENOMEM;
	dpkgfmt_fields(o->text, o->len, dpkgdb_removed_field, &rm);
	return fclose(rm.fp) != 0 ? -ENOMEM : 0;
}

int
dpkgdb_stage_removal(struct dpkgdb *db, const struct record *rec,
    bool whole, struct dbp_error *err)
{
	const char *name = control_get(rec->ctl, "Package");
	const char *arch = control_get(rec->ctl, "Architecture");
	const char *ma = control_get(rec->ctl, "Multi-Arch");
	struct dpkgstatus_stanza *o;
	struct dpkgdb_new *v, *p;
	char file[NAME_MAX + 1], *data;
	struct stat st;
	size_t len, idx;
	int ifd, r;

	/* What dpkg does not know, or keeps nothing of: nothing to do. */
	if ((o = dpkgstatus_peek(&db->status, name, arch, ma)) == NULL ||
	    strcmp(dpkgstatus_state(o), "not-installed") == 0 ||
	    (!whole && !dpkgstatus_installed(o)))
		return 0;
	if ((v = realloc(db->run, (db->nrun + 1) * sizeof(*v))) == NULL)
		return dbp_err(err, ENOMEM, "", "cannot remove");
	db->run = v;
	p = memset(&v[db->nrun++], 0, sizeof(*p));
	p->rec = (struct record *)rec;
	p->removal = true;
	p->whole = whole;
	p->old = dpkgstatus_take(&db->status, name, arch, ma);
	if ((p->oldinfo = dpkgstatus_infoname(o->name, o->arch, o->ma)) == NULL ||
	    (p->infoname = strdup(p->oldinfo)) == NULL)
		return dbp_err(err, ENOMEM, "", "cannot remove");
	if (whole)
		return 0;
	/* dpkg keeps the postrm of a package whose conffiles stay. */
	if ((r = dirs_get(db->dirs, DPKGDB_DIR "/info", false, 0, &idx,
	    err)) != 0)
		return r;
	if ((ifd = dirs_fd(db->dirs, idx)) < 0)
		return dbp_err(err, -ifd, DPKGDB_DIR "/info",
		    "cannot open directory");
	snprintf(file, sizeof(file), "%s.postrm", p->infoname);
	if ((r = fileat_read(ifd, file, &data, &len)) == -ENOENT)
		return 0;
	if (r != 0 || fstatat(ifd, file, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (r == 0)
			free(data);
		return dbp_err(err, r != 0 ? -r : errno, file, "cannot read");
	}
	if ((p->info = calloc(1, sizeof(*p->info))) == NULL ||
	    (p->info->name = strdup("postrm")) == NULL) {
		free(data);
		return dbp_err(err, ENOMEM, "", "cannot remove");
	}
	p->ninfo = 1;
	p->info->mode = st.st_mode & 07777;
	p->info->mtime = st.st_mtime;
	p->info->data = data;
	p->info->len = len;
	return 0;
}

int
dpkgdb_disappear(struct dpkgdb *db, const struct record *staged,
    const struct record *gone, struct dbp_error *err)
{
	size_t i;

	for (i = 0; staged != NULL && i < db->nrun; i++)
		if (db->run[i].rec == staged) {
			/* Its stanza and every info file go: nothing written. */
			db->run[i].removal = db->run[i].whole = true;
			return 0;
		}
	return dpkgdb_stage_removal(db, gone, true, err);
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

/*
 * Write DATA as temporary of NAME in directory IDX (root-relative DIR)
 * and register it with the batch: renamed over NAME at the commit.
 */
static int dpkgdb_put_at(struct dpkgdb *, size_t, const char *, const char *,
    mode_t, time_t, const char *, size_t, struct dbp_error *);

static int
dpkgdb_put(struct dpkgdb *db, size_t idx, const char *dir, const char *name,
    mode_t mode, const char *data, size_t len, struct dbp_error *err)
{
	return dpkgdb_put_at(db, idx, dir, name, mode, -1, data, len, err);
}

/* dpkgdb_put, with modification time MTIME unless it is -1. */
static int
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
	if (manifest_find(db->man, idx, name) != NULL)
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

/* Info file INFONAME.SUFFIX of one of the run's packages is written. */
static bool
dpkgdb_written(const struct dpkgdb *db, const char *file)
{
	size_t i, k, len;

	for (i = 0; i < db->nrun; i++) {
		const struct dpkgdb_new *p = &db->run[i];

		len = strlen(p->infoname);
		if (strncmp(file, p->infoname, len) != 0 || file[len] != '.')
			continue;
		if (p->whole)
			continue;
		if (strcmp(file + len + 1, "list") == 0)
			return true;
		for (k = 0; k < p->ninfo; k++)
			if (strcmp(file + len + 1, p->info[k].name) == 0)
				return true;
	}
	return false;
}

static int
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

/* Note the old version's info files that the run does not write. */
static int
dpkgdb_find_gone(struct dpkgdb *db, int dfd)
{
	struct dirent *de;
	const char *dot;
	size_t i, len;
	DIR *dir;
	int fd;

	if ((fd = dup(dfd)) < 0)
		return -errno;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(dir)) != NULL) {
		if ((dot = strrchr(de->d_name, '.')) == NULL ||
		    names_reserved(de->d_name))
			continue;
		len = (size_t)(dot - de->d_name);
		for (i = 0; i < db->nrun; i++) {
			const char *names[2] = { db->run[i].infoname,
			    db->run[i].oldinfo };
			int k;

			for (k = 0; k < 2; k++)
				if (names[k] != NULL && strlen(names[k]) == len &&
				    strncmp(de->d_name, names[k], len) == 0)
					break;
			if (k < 2)
				break;
		}
		if (i == db->nrun || dpkgdb_written(db, de->d_name))
			continue;
		if (dpkgdb_add_gone(db, db->infoidx, DPKGDB_DIR "/info",
		    de->d_name) != 0) {
			closedir(dir);
			return -ENOMEM;
		}
	}
	closedir(dir);
	return 0;
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

/* Make DIR (root-relative) if missing, as part of the batch. */
static int
dpkgdb_dir(struct dpkgdb *db, const char *dir, size_t *idx,
    struct dbp_error *err)
{
	return dirs_get(db->dirs, dir, true, 0755, idx, err);
}


/*
 * Where dpkg keeps triggers (triggers/, made by its first run), register
 * the run's interests and queue what its packages activate (dpkgtrig.h).
 * A new database has none: dpkg builds it from info/PKG.triggers.
 */
static int
dpkgdb_triggers(struct dpkgdb *db, int ifd, struct dbp_error *err)
{
	struct dpkgtrig *t = NULL;
	const char *name, *text;
	char file[NAME_MAX + 1], *old;
	size_t i, idx = 0, len;
	int tfd, r;

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
		if (r == 0)
			r = dpkgtrig_package(t, p->infoname, p->oldinfo != NULL ?
			    p->oldinfo : p->infoname, old,
			    dpkgdb_info(p, "triggers"), p->rec);
		free(old);
	}
	if (r != 0)
		r = dbp_err(err, -r, DPKGDB_DIR "/triggers", "cannot update");
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

/* How dpkgdb_obsolete_conffiles copies a Conffiles value. */
struct dpkgdb_obsolete {
	FILE *fp;
	struct record *rec;	/* what the package keeps */
	const char *done;		/* copied up to there */
	bool changed;
};

static int
dpkgdb_obsolete_line(const struct dpkgfmt_conffile *c, void *ctx)
{
	struct dpkgdb_obsolete *ob = ctx;
	const char *end = c->line + c->linelen;

	fwrite(ob->done, 1, (size_t)(end - ob->done), ob->fp);
	ob->done = end;
	if (record_find(ob->rec, c->path) == NULL &&
	    !(c->flags & DPKGFMT_CONFF_OBSOLETE)) {
		fputs(" obsolete", ob->fp);
		ob->changed = true;
	}
	return 0;
}

/*
 * Package REC, outside the run, gave conffiles up to the run's: as dpkg,
 * its stanza keeps them in Conffiles, flagged "obsolete".
 */
static int
dpkgdb_obsolete_conffiles(struct dpkgdb *db, struct record *rec)
{
	struct dpkgdb_obsolete ob = { .rec = rec };
	struct dpkgstatus_stanza *o;
	struct dpkgstatus_add *v;
	char *text;
	size_t len;

	o = dpkgstatus_peek(&db->status, control_get(rec->ctl, "Package"),
	    control_get(rec->ctl, "Architecture"),
	    control_get(rec->ctl, "Multi-Arch"));
	if (o == NULL || o->conffiles == NULL)
		return 0;
	if ((ob.fp = open_memstream(&text, &len)) == NULL)
		return -ENOMEM;
	ob.done = o->text;
	dpkgfmt_conffiles(o->conffiles, o->conffiles_len, dpkgdb_obsolete_line,
	    &ob);
	fwrite(ob.done, 1, (size_t)(o->text + o->len - ob.done), ob.fp);
	if (fclose(ob.fp) != 0)
		return -ENOMEM;
	if (!ob.changed) {
		free(text);
		return 0;
	}
	if ((v = realloc(db->restanza, (db->nrestanza + 1) * sizeof(*v))) ==
	    NULL) {
		free(text);
		return -ENOMEM;
	}
	db->restanza = v;
	v[db->nrestanza].name = o->name;
	v[db->nrestanza].arch = o->arch;
	v[db->nrestanza++].text = text;
	o->replaced = true;
	return 0;
}

/*
 * Packages the run took paths from (Replaces, --force-overwrite) and
 * does not itself install: their file lists lose those paths, as dpkg's
 * do, so that no path is listed by two packages.
 */
static int
dpkgdb_disowned(struct dpkgdb *db, struct dbp_error *err)
{
	const struct dpkgstatus_stanza *o;
	struct record *rec;
	char file[NAME_MAX + 1], *info, *list;
	size_t i = 0, len;
	FILE *fp;
	int r;

	while ((rec = manifest_disowned_nth(db->man, &i)) != NULL) {
		if ((o = dpkgstatus_peek(&db->status, control_get(rec->ctl,
		    "Package"), control_get(rec->ctl, "Architecture"),
		    control_get(rec->ctl, "Multi-Arch"))) == NULL ||
		    !dpkgstatus_installed(o))
			continue;
		if ((r = dpkgdb_obsolete_conffiles(db, rec)) != 0)
			return dbp_err(err, -r, DPKGDB_DIR "/status",
			    "cannot write");
		if ((info = dpkgstatus_infoname(o->name, o->arch, o->ma)) == NULL)
			return dbp_err(err, ENOMEM, "", "cannot write");
		snprintf(file, sizeof(file), "%s.list", info);
		free(info);
		if ((fp = open_memstream(&list, &len)) == NULL)
			return dbp_err(err, ENOMEM, file, "cannot write");
		r = dpkgfmt_list(fp, rec, true);
		if (fclose(fp) != 0 && r == 0)
			r = -ENOMEM;
		if (r == 0)
			r = dpkgdb_put(db, db->infoidx, DPKGDB_DIR "/info", file,
			    0644, list, len, err);
		else
			r = dbp_err(err, -r, file, "cannot write");
		free(list);
		if (r != 0)
			return r;
	}
	return 0;
}

int
dpkgdb_prepare(struct dpkgdb *db, struct dbp_error *err)
{
	char file[NAME_MAX + 1], *list, *status;
	size_t i, k, len, uidx;
	struct stat st;
	FILE *fp;
	int ifd, r;

	if ((r = dpkgdb_dir(db, DPKGDB_DIR, &db->didx, err)) != 0 ||
	    (r = dpkgdb_dir(db, DPKGDB_DIR "/info", &db->infoidx, err)) != 0 ||
	    (r = dpkgdb_dir(db, DPKGDB_DIR "/updates", &uidx, err)) != 0)
		return r;
	/* A dry run's new database is only planned: nothing in it yet. */
	ifd = dirs_fd(db->dirs, db->infoidx);
	if (!db->plan && (dirs_fd(db->dirs, db->didx) < 0 || ifd < 0))
		return dbp_err(err, EIO, DPKGDB_DIR, "cannot open directory");
	for (i = 0; i < db->nrun; i++) {
		struct dpkgdb_new *p = &db->run[i];

		if (p->whole)
			continue;
		if ((r = p->removal ? dpkgdb_removed_stanza(p) :
		    dpkgdb_make_stanza(p)) != 0)
			return dbp_err(err, -r, DPKGDB_DIR "/status",
			    "cannot write");
		for (k = 0; k < p->ninfo; k++) {
			if (snprintf(file, sizeof(file), "%s.%s", p->infoname,
			    p->info[k].name) >= (int)sizeof(file))
				return dbp_err(err, ENAMETOOLONG, p->infoname,
				    "cannot write dpkg's info file");
			/* As dpkg, which extracts them with tar, has them. */
			if ((r = dpkgdb_put_at(db, db->infoidx, DPKGDB_DIR
			    "/info", file, p->info[k].mode, p->info[k].mtime,
			    p->info[k].data, p->info[k].len, err)) != 0)
				return r;
		}
		if ((fp = open_memstream(&list, &len)) == NULL)
			return dbp_err(err, ENOMEM, p->infoname, "cannot write");
		/*
		 * dpkg keeps in a removed package's list the directories no
		 * other package has: "/." only when no other is installed.
		 */
		r = dpkgfmt_list(fp, p->rec, !p->removal ||
		    !dpkgdb_others_installed(db));
		if (fclose(fp) != 0 && r == 0)
			r = -ENOMEM;
		if (r == 0 && snprintf(file, sizeof(file), "%s.list",
		    p->infoname) >= (int)sizeof(file))
			r = -ENAMETOOLONG;
		if (r != 0) {
			free(list);
			return dbp_err(err, -r, p->infoname,
			    "cannot write dpkg's file list");
		}
		r = dpkgdb_put(db, db->infoidx, DPKGDB_DIR "/info", file, 0644,
		    list, len, err);
		free(list);
		if (r != 0)
			return r;
	}
	if ((r = dpkgdb_disowned(db, err)) != 0)
		return r;
	if (ifd >= 0 && (r = dpkgdb_find_gone(db, ifd)) != 0)
		return dbp_err(err, -r, DPKGDB_DIR "/info", "cannot read");
	if ((r = dpkgdb_triggers(db, ifd, err)) != 0)
		return r;
	if ((r = dpkgdb_status_text(db, &status, &len)) != 0)
		return dbp_err(err, -r, DPKGDB_DIR "/status", "cannot write");
	r = dpkgdb_put(db, db->didx, DPKGDB_DIR, "status", 0644, status, len, err);
	free(status);
	if (r != 0)
		return r;
	/*
	 * What dpkg expects of a database it did not make: info/format says
	 * the info files have multiarch names.
	 */
	if ((ifd < 0 || fstatat(ifd, "format", &st, AT_SYMLINK_NOFOLLOW) != 0) &&
	    (r = dpkgdb_put(db, db->infoidx, DPKGDB_DIR "/info", "format", 0644,
	    "1\n", 2, err)) != 0)
		return r;
	/* dpkg's and apt's lock files, as their first run leaves them. */
	if (!db->exists && ((r = dpkgdb_put(db, db->didx, DPKGDB_DIR, "lock",
	    0640, "", 0, err)) != 0 || (r = dpkgdb_put(db, db->didx, DPKGDB_DIR,
	    "lock-frontend", 0640, "", 0, err)) != 0))
		return r;
	return 0;
}

int
dpkgdb_plan_obsolete(struct dpkgdb *db, struct journal *j,
    struct dbp_error *err)
{
	size_t i;
	int r;

	for (i = 0; i < db->ngone; i++)
		if ((r = journal_gone(j, 'f', db->gone[i].path)) != 0)
			return dbp_err(err, -r, db->gone[i].path,
			    "cannot plan removal");
	return 0;
}

void
dpkgdb_remove_obsolete(struct dpkgdb *db,
    void (*warn)(void *, const char *, const char *), void *ctx)
{
	size_t i;
	int dfd;

	for (i = 0; i < db->ngone; i++) {
		const struct dpkgdb_gone *g = &db->gone[i];

		if ((dfd = dirs_fd(db->dirs, g->dir)) < 0 ||
		    (unlinkat(dfd, g->name, 0) != 0 && errno != ENOENT)) {
			if (warn != NULL)
				warn(ctx, g->path, "cannot remove a file of"
				    " dpkg's database");
			continue;
		}
		dirs_mark(db->dirs, g->dir, DIR_NAMES);
	}
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
