/* SPDX-License-Identifier: MIT */
/* dpkg's database: the run's packages, their stanzas, the hashes carried. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "deb/conffiles.h"
#include "db/dpkgdb.h"
#include "db/dpkgdb_int.h"
#include "db/dpkgfmt.h"
#include "db/dpkgown.h"
#include "db/dpkgstatus.h"
#include "durable/fileat.h"
#include "db/recowners.h"

/*
 * A package staged is a new version (dpkgdb_stage) or a removal
 * (dpkgdb_stage_removal).  Its stanza follows dpkg's unpack: for a new
 * version, the hash of each conffile it does not install is the one dpkg
 * carries over from before the run, found here in the stanzas the run
 * replaces.
 */

/*
 * dpkg makes the md5sums of a package that has none, from what it
 * extracted: every regular file, its conffiles too (the archive's
 * version, whatever stays on disk: newhash of each node of the unpack,
 * write_filehash_except with no mask), in archive order; not the
 * obsolete conffiles it keeps, which it did not extract.  0 or an errno.
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

		if ((e->type != 'f' && e->type != 'h') || e->obsolete ||
		    (md5 = dpkgfmt_entry_md5(p->rec, e)) == NULL)
			continue;
		for (k = 0; k < 16; k++)
			fprintf(fp, "%02x", md5[k]);
		fprintf(fp, "  %s\n", record_entry_name(e) + 1);
	}
	if (fclose(fp) != 0) {
		free(text);
		return ENOMEM;
	}
	/* Empty too: dpkg writes the file whatever it holds. */
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

/*
 * The package of the run whose record key is NAME (not a removal), or
 * NULL: a Multi-Arch: same instance beside another of its name has
 * NAME:ARCH.
 */
static struct dpkgdb_new *
dpkgdb_run_pkg(struct dpkgdb *db, const char *name)
{
	size_t i;

	for (i = 0; i < db->nrun; i++)
		if (!db->run[i].removal &&
		    strcmp(record_key(db->run[i].rec), name) == 0)
			return &db->run[i];
	return NULL;
}

/* Package KEY's stanza in dpkg's status (a key NAME:ARCH: that instance). */
static struct dpkgstatus_stanza *
dpkgdb_peek_key(struct dpkgdb *db, const char *key)
{
	const char *colon = strchr(key, ':');
	char bare[256];

	if (colon == NULL || (size_t)(colon - key) >= sizeof(bare))
		return dpkgstatus_peek(&db->status, key, NULL, NULL);
	memcpy(bare, key, (size_t)(colon - key));
	bare[colon - key] = '\0';
	return dpkgstatus_peek(&db->status, bare, colon + 1, "same");
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
		return dpkgdb_conff_md5(dpkgdb_peek_key(db, name), path, md5);
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

	return p != NULL ? p->old : dpkgdb_peek_key(db, name);
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
		    record_entry_name(e), md5))
			r = dpkgdb_carry_one(p, record_entry_name(e), md5);
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
		if (recowners_installed_entry(db->rs, name, abspath) != NULL &&
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
	const struct dpkgstatus_stanza *old;
	struct dpkgdb_new *v, *p;
	size_t i;
	int e;

	/*
	 * A half-installed package is one to be installed again, as dpkg
	 * installs it again (--maintscripts marks a new package so before
	 * its preinst): not a version dpkg installed.
	 */
	old = dpkgstatus_peek(&db->status, name, arch, ma);
	if (old != NULL && strcmp(dpkgstatus_state(old), "half-installed") == 0)
		old = NULL;
	if ((e = dpkgown_check(db->own, rec, old, db->force_overwrite,
	    err)) != 0) {
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
	for (i = 0; i < db->npending && p->pend == NULL; i++)
		if (strcmp(db->pending[i].name, name) == 0)
			p->pend = &db->pending[i];
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
			o->has_md5 = dpkgdb_conff_md5(p->old,
			    record_entry_name(o), o->md5);
	}
	return dpkgdb_carry(db, p, err);
}

/* The new stanza of P, following dpkg's unpack of an upgrade. */
static int
dpkgdb_new_stanza(struct dpkgdb_new *p)
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
dpkgdb_make_stanza(struct dpkgdb_new *p, struct dbp_error *err)
{
	int r;

	if ((r = p->removal ? dpkgdb_removed_stanza(p) :
	    dpkgdb_new_stanza(p)) != 0)
		return dbp_err(err, -r, DPKGDB_DIR "/status", "cannot write");
	return 0;
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
