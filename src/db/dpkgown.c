/* SPDX-License-Identifier: MIT */
/* What dpkg owns already in a root: diverted paths, the files of the packages it installed. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/dpkgdivert.h"
#include "db/dpkgown.h"
#include "durable/fileat.h"
#include "db/recowners.h"

/* A path of a package that dpkg installed, from its .list. */
struct dpkgown_owned {
	const char *path;
	const char *pkg;
};

struct dpkgown {
	const struct recstage *rs;	/* the run's records */
	/* Paths of packages dpkg installed (no record), sorted, and texts. */
	struct dpkgown_owned *foreign;
	size_t nforeign;
	char **lists;
	size_t nlists;
	struct dpkgdivert *divert;	/* dpkg-divert's diversions */
};

void
dpkgown_free(struct dpkgown *o)
{
	size_t i;

	if (o == NULL)
		return;
	dpkgdivert_free(o->divert);
	free(o->foreign);
	for (i = 0; i < o->nlists; i++)
		free(o->lists[i]);
	free(o->lists);
	free(o);
}

/*
 * A path a package of the run ships (NAME, its own name for it) that a
 * package dpkg installed (OTHER) also lists is no conflict when one of
 * the two diverts it, as dpkg's unpack judges it: the diverting package
 * has the original name, the other the diversion's new one.
 */
static bool
dpkgown_diverted_apart(const struct dpkgown *db, const char *path,
    const char *name, const char *other)
{
	const struct dpkgdivert_entry *d = dpkgdivert_from(db->divert, path);

	return d != NULL && d->pkg != NULL && (strcmp(d->pkg, name) == 0 ||
	    strcmp(d->pkg, other) == 0);
}

static int
dpkgown_cmp_owned(const void *a, const void *b)
{
	return strcmp(((const struct dpkgown_owned *)a)->path,
	    ((const struct dpkgown_owned *)b)->path);
}

/*
 * The paths of the packages dpkg installed that the run has no record
 * of even read from dpkg's database (dpkgadopt.h: another instance of a
 * Multi-Arch: same package, a stanza no record can hold): from their
 * info/PKG.list, for the conflicts a record would catch.
 */
static int
dpkgown_foreign(struct dpkgown *db, int dfd, const struct dpkgstatus *status)
{
	struct dpkgown_owned *v;
	char file[NAME_MAX + 1], *text, *p, *nl, *infoname, **l;
	size_t i, len;
	int r = 0;

	for (i = 0; r == 0 && i < status->n; i++) {
		const struct dpkgstatus_stanza *o = &status->v[i];

		if (!dpkgstatus_installed(o) ||
		    recowners_has(db->rs, o->name))
			continue;
		if ((infoname = dpkgstatus_infoname(o->name, o->arch, o->ma)) == NULL)
			return -ENOMEM;
		snprintf(file, sizeof(file), "info/%s.list", infoname);
		free(infoname);
		if ((r = fileat_read(dfd, file, &text, &len)) == -ENOENT) {
			r = 0;
			continue;
		}
		if (r != 0)
			return r;
		if ((l = realloc(db->lists, (db->nlists + 1) * sizeof(*l))) == NULL) {
			free(text);
			return -ENOMEM;
		}
		db->lists = l;
		db->lists[db->nlists++] = text;
		for (p = text; *p != '\0'; p = nl + 1) {
			if ((nl = strchr(p, '\n')) == NULL)
				break;
			*nl = '\0';
			if (*p != '/' || strcmp(p, "/.") == 0)
				continue;
			v = realloc(db->foreign, (db->nforeign + 1) * sizeof(*v));
			if (v == NULL)
				return -ENOMEM;
			db->foreign = v;
			v[db->nforeign].path = p;
			v[db->nforeign++].pkg = o->name;
		}
	}
	if (db->nforeign > 0)
		qsort(db->foreign, db->nforeign, sizeof(*db->foreign),
		    dpkgown_cmp_owned);
	return 0;
}

/*
 * A path one of those lists is another package's, as dpkg would say.
 * The packages dpkg installed are otherwise the run's installed
 * records, upgraded, replaced and overwritten by the same rules as
 * debunpack's own.
 */
static int
dpkgown_check_foreign(const struct dpkgown *db, const struct record *rec,
    const struct dpkgstatus_stanza *old, bool force_overwrite,
    struct dbp_error *err)
{
	const char *name = control_get(rec->ctl, "Package");
	struct dpkgown_owned key, *hit;
	size_t i;

	(void)old;
	for (i = 0; db->nforeign > 0 && !force_overwrite && i < rec->n;
	    i++) {
		if (rec->v[i].type == 'd')
			continue;
		/* dpkg's file lists name paths as packages ship them. */
		key.path = record_entry_name(&rec->v[i]);
		hit = bsearch(&key, db->foreign, db->nforeign, sizeof(key),
		    dpkgown_cmp_owned);
		if (hit != NULL && !dpkgown_diverted_apart(db, key.path, name,
		    hit->pkg))
			return dbp_err(err, 0, key.path + 1, "is in"
			    " package '%s' (dpkg's database)", hit->pkg);
	}
	return 0;
}

int
dpkgown_load(struct dpkgown **out, int dfd, const struct dpkgstatus *status,
    const struct recstage *rs, struct dbp_error *err)
{
	struct dpkgown *o;
	int r;

	if ((o = calloc(1, sizeof(*o))) == NULL)
		return dbp_err(err, ENOMEM, "", "cannot read dpkg's database");
	o->rs = rs;
	if ((r = dpkgdivert_read(&o->divert, dfd)) != 0)
		r = dbp_err(err, -r, "var/lib/dpkg/diversions", "cannot read");
	else if ((r = dpkgown_foreign(o, dfd, status)) != 0)
		r = dbp_err(err, -r, "var/lib/dpkg/info", "cannot read the file"
		    " lists");
	if (r != 0) {
		dpkgown_free(o);
		return r;
	}
	*out = o;
	return 0;
}

int
dpkgown_check(const struct dpkgown *o, const struct record *rec,
    const struct dpkgstatus_stanza *old, bool force_overwrite,
    struct dbp_error *err)
{
	if (o == NULL)
		return 0;
	return dpkgown_check_foreign(o, rec, old, force_overwrite, err);
}
