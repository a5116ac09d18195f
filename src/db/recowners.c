/* SPDX-License-Identifier: MIT */
/* Who owns a path: the installed records, indexed by path, as the run's packages take paths from them. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/dpkgadopt.h"
#include "db/dpkgdivert.h"
#include "db/recowners.h"
#include "db/recstage_int.h"
#include "deb/control.h"
#include "util/strhash.h"

/*
 * Whether installed package NAME is removed by the run: whole, or down
 * to its conffiles (its staged record then says which paths it keeps).
 */
static bool
recowners_leaving(const struct recstage *rs, const char *name)
{
	size_t i;

	/* Owner lookups ask this for every path: nothing to look at in an install. */
	if (rs->nleaving == 0)
		return false;
	for (i = 0; i < rs->ndropped; i++)
		if (strcmp(record_key(rs->dropped[i]),
		    name) == 0)
			return true;
	for (i = 0; i < rs->nstaged; i++)
		if (record_config_files(rs->staged[i]) &&
		    strcmp(record_key(rs->staged[i]), name) == 0)
			return true;
	return false;
}

/*
 * REC with its entries: one adopted unlisted (DPKGADOPT_DEFER) has its
 * paths read into entries.  A failure keeps it unlisted, in RS->TYPE_ERR,
 * as recowners_typed's.
 */

/*
 * REC as dpkgadopt_one reads it typed (listed first): a record adopted lazily
 * (recowners_adopt) is typed when the run first asks for it, whole.  A
 * failure keeps it untyped and stays in RS->TYPE_ERR, which fails the
 * run before its commit (recstage_prepare).
 */
static struct record *
recowners_listed(struct recstage *rs, struct record *rec)
{
	int r;

	if (rec == NULL || !rec->unlisted)
		return rec;
	/*
	 * Where the diversions send its paths, as recowners_adopt's.  A
	 * failure (out of memory) fails the run before its commit.
	 */
	if ((r = dpkgadopt_list(rec)) == 0 && rs->divert != NULL)
		r = dpkgdivert_follow(rs->divert, rec);
	if (r != 0 && rs->type_err == 0)
		rs->type_err = r;
	return rec;
}

static struct record *
recowners_typed(struct recstage *rs, struct record *rec)
{
	int r;

	recowners_listed(rs, rec);
	if (rec != NULL && rec->untyped && !rec->unlisted && rs->rf != NULL &&
	    (r = dpkgadopt_type(rs->rf, rec)) != 0 && rs->type_err == 0)
		rs->type_err = r;
	return rec;
}

/* The installed record of package NAME and its index *IDX, or NULL. */
static struct record *
recowners_find(const struct recstage *rs, const char *name, size_t *idx)
{
	size_t i;

	for (i = 0; i < rs->ninst; i++)
		if (strcmp(record_key(rs->inst[i]), name) == 0) {
			if (idx != NULL)
				*idx = i;
			return rs->inst[i];
		}
	return NULL;
}

bool
recowners_has(const struct recstage *rs, const char *name)
{
	return recowners_find(rs, name, NULL) != NULL;
}

struct record *
recowners_installed(struct recstage *rs, const char *name)
{
	return recowners_typed(rs, recowners_find(rs, name, NULL));
}

const struct record_entry *
recowners_installed_entry(struct recstage *rs, const char *name,
    const char *abspath)
{
	struct record *rec = recowners_installed(rs, name);

	return rec != NULL ? record_find(rec, abspath) : NULL;
}

const struct record_entry *
recowners_diverted_entry(struct recstage *rs, const char *abspath,
    const char *self, const char **owner)
{
	const char *name;
	size_t i, k;

	/* Only diverted entries can match: few, and only with diversions. */
	for (i = 0; i < rs->ninst; i++) {
		name = record_key(rs->inst[i]);
		if (strcmp(name, self) == 0)
			continue;
		/*
		 * An unlisted one has a diverted entry only if the index
		 * marked it (without an index, every one is listed).
		 */
		if (rs->inst[i]->unlisted && ((rs->owned != NULL &&
		    !rs->inst[i]->unlisted_diverts) ||
		    recowners_listed(rs, rs->inst[i])->unlisted))
			continue;
		for (k = 0; k < rs->inst[i]->n; k++)
			if (rs->inst[i]->v[k].divert_from != NULL &&
			    strcmp(rs->inst[i]->v[k].divert_from,
			    abspath) == 0) {
				*owner = name;
				recowners_typed(rs, rs->inst[i]);
				return &rs->inst[i]->v[k];
			}
	}
	return NULL;
}

/* PATH's bucket in RS's index. */
static size_t
recowners_hash(const struct recstage *rs, const char *path)
{
	return strhash(path) & (rs->nbucket - 1);
}

/* What recowners_index_path adds an unlisted record's paths to. */
struct recowners_add {
	struct recstage *rs;
	size_t inst, cap;
	const char *pkg;	/* the record's package, for the diversions */
};

/*
 * PATH of record A->INST with its TYPE into the index, where the
 * diversions send it (dpkgdivert_follow would move its entry there, and
 * the record is marked, for recowners_diverted_entry): 0 or -ENOMEM.
 */
static int
recowners_index_path(void *ctx, const char *path, char type)
{
	struct recowners_add *a = ctx;
	struct recstage *rs = a->rs;
	struct recstage_owned *v;
	const char *where;

	if (rs->divert != NULL && dpkgdivert_count(rs->divert) > 0 &&
	    (where = dpkgdivert_use(rs->divert, path, a->pkg)) != path &&
	    strcmp(where, path) != 0) {
		path = where;
		rs->inst[a->inst]->unlisted_diverts = true;
	}

	if (rs->nowned == a->cap) {
		a->cap = a->cap != 0 ? 2 * a->cap : 1024;
		if ((v = reallocarray(rs->owned, a->cap, sizeof(*v))) == NULL)
			return -ENOMEM;
		rs->owned = v;
	}
	v = &rs->owned[rs->nowned++];
	v->path = path;
	v->inst = a->inst;
	v->type = type;
	return 0;
}

/* Index every installed path; without memory, lookups search each record. */
static void
recowners_index(struct recstage *rs)
{
	struct recowners_add a = { .rs = rs };
	size_t i, k, n = 0;

	for (i = 0; i < rs->ninst; i++)
		n += rs->inst[i]->n + rs->inst[i]->nfiltered +
		    (rs->inst[i]->unlisted ? rs->inst[i]->listlen / 32 : 0);
	if (n == 0)
		n = 16;
	if ((rs->owned = malloc(n * sizeof(*rs->owned))) == NULL)
		return;
	a.cap = n;
	for (i = 0; i < rs->ninst; i++) {
		/*
		 * An unlisted record's paths from its list's text, typed as
		 * its entries would be below: no entry made for each.
		 */
		if (rs->inst[i]->unlisted) {
			a.inst = i;
			a.pkg = control_get(rs->inst[i]->ctl, "Package");
			if (dpkgadopt_paths(rs->inst[i], recowners_index_path,
			    &a) != 0) {
				free(rs->owned);
				rs->owned = NULL;
				rs->nowned = 0;
				return;
			}
			continue;
		}
		/* Room for this record's: the estimate may fall short. */
		if (rs->nowned + rs->inst[i]->n + rs->inst[i]->nfiltered >
		    a.cap) {
			struct recstage_owned *v;

			a.cap = 2 * (rs->nowned + rs->inst[i]->n +
			    rs->inst[i]->nfiltered);
			if ((v = reallocarray(rs->owned, a.cap,
			    sizeof(*v))) == NULL) {
				free(rs->owned);
				rs->owned = NULL;
				rs->nowned = 0;
				return;
			}
			rs->owned = v;
		}
		for (k = 0; k < rs->inst[i]->n; k++) {
			struct recstage_owned *o = &rs->owned[rs->nowned++];

			o->path = rs->inst[i]->v[k].path;
			o->inst = i;
			/* Untyped: looked at in the root when it matters. */
			o->type = rs->inst[i]->untyped &&
			    !rs->inst[i]->v[k].conffile ? '?' :
			    rs->inst[i]->v[k].type;
		}
		/*
		 * What the filters left out is the package's all the
		 * same: dpkg lists it, and judges another's file there.
		 */
		for (k = 0; k < rs->inst[i]->nfiltered; k++) {
			struct recstage_owned *o = &rs->owned[rs->nowned++];

			o->path = rs->inst[i]->filtered[k].path;
			o->inst = i;
			o->type = rs->inst[i]->filtered[k].type;
		}
	}
	/*
	 * A hash table, where a sorted array cost a sort of every installed
	 * path (a fifth of a small package's call).  Chained from the last
	 * path back, so that each bucket lists its paths in the records'
	 * order, which is the order of a path's owners.
	 */
	for (rs->nbucket = 16; rs->nbucket < 2 * rs->nowned; rs->nbucket *= 2)
		continue;
	if ((rs->bucket = calloc(rs->nbucket, sizeof(*rs->bucket))) == NULL) {
		free(rs->owned);
		rs->owned = NULL;
		rs->nowned = 0;
		return;
	}
	for (k = rs->nowned; k > 0; k--) {
		size_t h = recowners_hash(rs, rs->owned[k - 1].path);

		rs->owned[k - 1].next = rs->bucket[h];
		rs->bucket[h] = k;
	}
}

/* The packages dpkg installed, after debunpack's own (recstage_set_adopt). */
static int
recowners_adopt(struct recstage *rs, struct dbp_error *err)
{
	struct record **add, **v;
	size_t n, i;
	int r;

	if ((r = rs->adopt(rs->adopt_ctx, rs, &add, &n, err)) != 0 || n == 0)
		return r;
	/* dpkg's lists name paths as shipped: where they are now, as ours. */
	for (i = 0; r == 0 && rs->divert != NULL && i < n; i++)
		if ((r = dpkgdivert_follow(rs->divert, add[i])) != 0)
			r = dbp_err(err, -r, "var/lib/dpkg/diversions", "cannot"
			    " follow the diversions");
	if (r != 0) {
		for (i = 0; i < n; i++)
			record_free(add[i]);
		free(add);
		return r;
	}
	if ((v = realloc(rs->inst, (rs->ninst + n) * sizeof(*v))) == NULL) {
		for (i = 0; i < n; i++)
			record_free(add[i]);
		free(add);
		return dbp_err(err, ENOMEM, "", "cannot read records");
	}
	rs->inst = v;
	for (i = 0; i < n; i++)
		rs->inst[rs->ninst++] = add[i];
	free(add);
	return 0;
}

int
recowners_load(struct recstage *rs, struct dbp_error *err)
{
	struct record *rec, **v;
	const char *what;
	char **names, file[256];
	size_t i;
	int r;

	if (rs->store == NULL)
		names = NULL;
	else if ((r = recstore_names(rs->store, &names, err)) != 0)
		return r;
	r = 0;
	for (i = 0; names != NULL && names[i] != NULL; i++) {
		if ((r = recstore_load(rs->store, names[i], &rec, &what,
		    err)) != 0) {
			if (r != -ENOENT)
				break;
			/* Gone since the listing, or dpkg's now (stale). */
			r = 0;
			if (what != NULL && rs->forget &&
			    (r = recstage_forget(rs, names[i], what)) != 0) {
				snprintf(file, sizeof(file), "%s"
				    RECSTORE_SUFFIX, names[i]);
				r = dbp_err(err, -r, file, "cannot read record");
				break;
			}
			continue;
		}
		v = realloc(rs->inst, (rs->ninst + 1) * sizeof(*v));
		if (v == NULL) {
			record_free(rec);
			r = dbp_err(err, ENOMEM, "", "cannot read records");
			break;
		}
		rs->inst = v;
		rs->inst[rs->ninst++] = rec;
	}
	recstore_names_free(names);
	if (r == 0 && rs->adopt != NULL)
		r = recowners_adopt(rs, err);
	if (r == 0 && ((rs->disowned = calloc(rs->ninst + 1,
	    sizeof(bool))) == NULL ||
	    (rs->lost = calloc(rs->ninst + 1, sizeof(bool))) == NULL))
		r = dbp_err(err, ENOMEM, "", "cannot read records");
	if (r == 0)
		recowners_index(rs);
	return r;
}

/*
 * The next owner of ABSPATH in RS's index after slot K + 1 (0: from the
 * first), + 1; 0 when there is no other.
 */
static size_t
recowners_next(const struct recstage *rs, const char *abspath, size_t k)
{
	for (k = k == 0 ? rs->bucket[recowners_hash(rs, abspath)] :
	    rs->owned[k - 1].next; k != 0; k = rs->owned[k - 1].next)
		if (strcmp(rs->owned[k - 1].path, abspath) == 0)
			return k;
	return 0;
}

/*
 * The type of installed path ABSPATH, TYPE in the index or a record: an
 * untyped path ('?') as dpkgadopt_one would type it now.  *SEEN caches
 * the answer for the other owners of the same path.
 */
static char
recowners_type(struct recstage *rs, const char *abspath, char type,
    char *seen)
{
	if (type != '?')
		return type;
	if (*seen == '\0')
		*seen = rs->rf != NULL ? dpkgadopt_path_type(rs->rf, abspath,
		    &rs->type_err) : 'f';
	return *seen;
}

/*
 * The first installed package other than NAME that has ABSPATH (not as
 * a directory, with NONDIR), or NULL.
 */
static const char *
recowners_installed_owner(struct recstage *rs, const char *abspath,
    const char *name, bool nondir)
{
	const struct record_entry *e;
	const char *owner;
	char seen = '\0';
	size_t i;

	if (rs->owned != NULL) {
		for (i = recowners_next(rs, abspath, 0); i != 0;
		    i = recowners_next(rs, abspath, i)) {
			owner = record_key(rs->inst[rs->owned[i - 1].inst]);
			if (strcmp(owner, name) != 0 &&
			    !recowners_leaving(rs, owner) &&
			    (!nondir || recowners_type(rs, abspath,
			    rs->owned[i - 1].type, &seen) != 'd'))
				return owner;
		}
		return NULL;
	}
	for (i = 0; i < rs->ninst; i++) {
		recowners_typed(rs, rs->inst[i]);
		owner = record_key(rs->inst[i]);
		if (strcmp(owner, name) != 0 && !recowners_leaving(rs, owner) &&
		    (((e = record_find(rs->inst[i], abspath)) != NULL &&
		    (!nondir || e->type != 'd')) ||
		    record_is_filtered(rs->inst[i], abspath)))
			return owner;
	}
	return NULL;
}

const char *
recowners_owner(struct recstage *rs, const char *abspath,
    const char *name)
{
	return recowners_installed_owner(rs, abspath, name, true);
}

const char *
recowners_other_owner(struct recstage *rs, const char *abspath,
    const char *name)
{
	const char *p;
	size_t i;

	if ((p = recowners_installed_owner(rs, abspath, name, false)) != NULL)
		return p;
	for (i = 0; i < rs->nstaged; i++) {
		p = record_key(rs->staged[i]);
		if (strcmp(p, name) != 0 && !rs->staged[i]->gone &&
		    record_find(rs->staged[i], abspath))
			return p;
	}
	return NULL;
}

int
recowners_disown(struct recstage *rs, const char *owner, const char *abspath)
{
	size_t i, k;
	int r;

	if (recowners_find(rs, owner, &i) == NULL)
		return 0;
	/* Its entries first: the path goes from one of them. */
	if (recowners_listed(rs, rs->inst[i])->unlisted)
		return rs->type_err;
	/*
	 * Out of the index first, unlinked from its bucket's chain: its
	 * string goes with the entry.
	 */
	if (rs->owned != NULL) {
		size_t *link = &rs->bucket[recowners_hash(rs, abspath)];

		for (k = *link; k != 0; link = &rs->owned[k - 1].next,
		    k = *link)
			if (rs->owned[k - 1].inst == i &&
			    strcmp(rs->owned[k - 1].path, abspath) == 0) {
				*link = rs->owned[k - 1].next;
				break;
			}
	}
	if ((r = record_remove(rs->inst[i], abspath)) == 0)
		rs->disowned[i] = rs->lost[i] = true;
	return r;
}

void
recowners_lost(struct recstage *rs, const char *name)
{
	size_t i;

	if (recowners_find(rs, name, &i) != NULL)
		rs->lost[i] = true;
}

struct record *
recowners_disowned_nth(struct recstage *rs, size_t *i)
{
	for (; *i < rs->ninst; (*i)++)
		if (rs->disowned[*i] && !recstage_in_run(rs,
		    record_key(rs->inst[*i])))
			return recowners_typed(rs, rs->inst[(*i)++]);
	return NULL;
}

/* Whether R lists anything but directories. */
static bool
recowners_has_files(const struct record *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->v[i].type != 'd')
			return true;
	return false;
}

/* Whether R, a package's new or installed record, makes it disappear. */
static bool
recowners_empties(const struct record *r)
{
	const char *ess;

	/*
	 * dpkg never makes an essential or protected package go, nor one
	 * with only its conffiles left (removed, not purged).
	 */
	return !r->gone && !recowners_has_files(r) && !record_config_files(r) &&
	    !((ess = control_get(r->ctl, "Essential")) != NULL &&
	    strcmp(ess, "yes") == 0) &&
	    !((ess = control_get(r->ctl, "Protected")) != NULL &&
	    strcmp(ess, "yes") == 0);
}

const char *
recowners_disappearing(struct recstage *rs, size_t *i,
    struct record **staged, struct record **inst)
{
	const char *name;
	size_t k;

	/* Installed packages that lost paths, then the run's own. */
	for (; *i < rs->ninst + rs->nstaged; (*i)++) {
		if (*i < rs->ninst) {
			if (!rs->lost[*i])
				continue;
			*inst = recowners_typed(rs, rs->inst[*i]);
			name = record_key(*inst);
			*staged = NULL;
			for (k = 0; k < rs->nstaged; k++)
				if (strcmp(record_key(rs->staged[k]), name) == 0)
					*staged = rs->staged[k];
		} else {
			*staged = rs->staged[*i - rs->ninst];
			if (!(*staged)->lost)
				continue;
			name = record_key(*staged);
			*inst = recowners_installed(rs, name);
		}
		if (!recowners_empties(*staged != NULL ? *staged : *inst))
			continue;
		(*i)++;
		return name;
	}
	return NULL;
}
