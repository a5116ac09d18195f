/* SPDX-License-Identifier: MIT */
/* Records of installed files: the run's path table and the admin directory. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durable/batchfile.h"
#include "durable/dirs.h"
#include "durable/journal.h"
#include "manifest.h"
#include "durable/rootfs.h"
#include "db/recstore.h"
#include "syncbatch.h"

/*
 * Ordering (why a record is never ahead of its files): records are staged
 * as temporaries while the packages are extracted, and committed by a
 * second batch with the same sync strategy, started only after the first
 * batch (the files) committed: data durable, names renamed, directories
 * synced.  A crash before the second batch's renames leaves the old record
 * (or none) next to new files: the record may lag behind the root, never
 * run ahead of it.  After exit 0 both batches are durable.
 */
/*
 * One path of an installed record, in the index of all of them: owner
 * lookups are one binary search, not one per installed package.
 */
struct manifest_owned {
	const char *path;	/* the record's own string */
	size_t inst;		/* the record: m->inst[inst] */
	char type;
};

struct manifest {
	void *root;		/* tsearch tree of struct manifest_entry */
	size_t n;
	/* the admin directory, when attached, and what errors call it */
	const char *admname;
	struct recstore *store;	/* reads the records; owns the descriptor */
	struct rootfs arf;	/* the store's descriptor, for adirs */
	struct dirs *adirs;
	struct syncbatch *asb;
	size_t aroot;		/* its index in adirs */
	/* records installed before the run, and those this run stages */
	struct record **inst;
	size_t ninst;
	bool *disowned;		/* inst[i] gave up paths: restage it */
	bool *lost;		/* inst[i] lost paths to the run's packages */
	struct record **staged;	/* by package index of the run */
	size_t nstaged;
	/* packages the run removes whole: their records go after the commit */
	struct record **dropped;
	size_t ndropped;
	/* dropped, and staged down to conffiles: manifest_leaving's */
	size_t nleaving;
	/* which records dpkg made stale, and whether the run drops them */
	recstore_stale_fn *stale;
	void *stale_ctx;
	bool forget;
	bool dpkg_db;		/* the run keeps dpkg's database too */
	struct manifest_forgotten *forgotten;
	size_t nforgotten;
	/* every installed path, sorted by path; NULL: search each record */
	struct manifest_owned *owned;
	size_t nowned;
};

/* A record dpkg made stale, dropped after the commit (no path goes). */
struct manifest_forgotten {
	char *name;
	char *what;
};

static int
manifest_cmp(const void *a, const void *b)
{
	const struct manifest_entry *x = a, *y = b;

	if (x->dir != y->dir)
		return x->dir < y->dir ? -1 : 1;
	return strcmp(x->name, y->name);
}

int
manifest_new(struct manifest **out)
{
	if ((*out = calloc(1, sizeof(**out))) == NULL)
		return -ENOMEM;
	(*out)->arf.fd = -1;
	return 0;
}

static void
manifest_entry_free(void *p)
{
	struct manifest_entry *e = p;

	free(e->name);
	free(e);
}

void
manifest_free(struct manifest *m)
{
	if (m == NULL)
		return;
	tdestroy(m->root, manifest_entry_free);
	while (m->ninst > 0)
		record_free(m->inst[--m->ninst]);
	free(m->inst);
	free(m->disowned);
	free(m->lost);
	while (m->nstaged > 0)
		record_free(m->staged[--m->nstaged]);
	free(m->staged);
	while (m->ndropped > 0)
		record_free(m->dropped[--m->ndropped]);
	free(m->dropped);
	while (m->nforgotten > 0) {
		free(m->forgotten[--m->nforgotten].name);
		free(m->forgotten[m->nforgotten].what);
	}
	free(m->forgotten);
	free(m->owned);
	/* The batch and the table use the store's descriptor: it goes last. */
	syncbatch_free(m->asb);
	dirs_free(m->adirs);
	recstore_free(m->store);
	free(m);
}

struct manifest_entry *
manifest_find(struct manifest *m, size_t dir, const char *name)
{
	struct manifest_entry key, **found;

	key.dir = dir;
	key.name = (char *)name;
	found = tfind(&key, &m->root, manifest_cmp);
	return found != NULL ? *found : NULL;
}

int
manifest_put(struct manifest *m, size_t dir, const char *name, size_t item,
    unsigned pkg, unsigned type)
{
	struct manifest_entry *e, **slot;

	if ((e = manifest_find(m, dir, name)) == NULL) {
		if ((e = calloc(1, sizeof(*e))) == NULL ||
		    (e->name = strdup(name)) == NULL) {
			free(e);
			return -ENOMEM;
		}
		e->dir = dir;
		slot = tsearch(e, &m->root, manifest_cmp);
		if (slot == NULL) {
			manifest_entry_free(e);
			return -ENOMEM;
		}
		m->n++;
	}
	e->item = item;
	e->pkg = pkg;
	e->type = type;
	return 0;
}

void
manifest_forget_path(struct manifest *m, size_t dir, const char *name)
{
	struct manifest_entry *e = manifest_find(m, dir, name);

	if (e == NULL || tdelete(e, &m->root, manifest_cmp) == NULL)
		return;
	manifest_entry_free(e);
	m->n--;
}

size_t
manifest_count(const struct manifest *m)
{
	return m->n;
}

int
manifest_admin(struct manifest *m, int dirfd, const char *name,
    bool openat2, struct syncbatch *peer, struct stats *st,
    struct dbp_error *err)
{
	int r;

	m->admname = name;
	if ((r = recstore_open(&m->store, dirfd, name, err)) != 0)
		return r;
	recstore_set_stale(m->store, m->stale, m->stale_ctx);
	m->arf.fd = recstore_fd(m->store);
	m->arf.openat2 = openat2;
	/* Records live in one directory: a tiny cache and few open files. */
	if ((r = dirs_new(&m->adirs, &m->arf, 4)) != 0 ||
	    (r = peer != NULL ? syncbatch_new_like(&m->asb, peer, m->adirs,
	    64) : syncbatch_new(&m->asb, "none", -1, m->adirs, st, 64)) != 0)
		return dbp_err(err, -r, name, "cannot open admin directory");
	dirs_set_top_name(m->adirs, name);
	return dirs_get(m->adirs, "", false, 0, &m->aroot, err);
}

int
manifest_lock(struct manifest *m, bool shared, struct dbp_error *err)
{
	if (m->arf.fd < 0)
		return 0;
	if (flock(m->arf.fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0)
		return dbp_err(err, errno, m->admname, errno == EWOULDBLOCK ?
		    "admin directory in use by another run" :
		    "cannot lock admin directory");
	return 0;
}

int
manifest_admin_fd(const struct manifest *m)
{
	return m->arf.fd;
}

/* Write R as a temporary record and register it with the records' batch. */
static int
manifest_write_tmp(struct manifest *m, struct record *r,
    struct dbp_error *err)
{
	const char *name = control_get(r->ctl, "Package");
	struct batchfile bf;
	char final[256];
	FILE *fp;
	int e;

	snprintf(final, sizeof(final), "%s" RECSTORE_SUFFIX, name);
	if ((e = batchfile_open(&bf, m->asb, m->adirs, m->aroot, final, final,
	    0644, err)) != 0)
		return e;
	/* The stream gets its own descriptor: the batch takes the file's. */
	if ((fp = fdopen(fcntl(bf.fd, F_DUPFD_CLOEXEC, 0), "w")) == NULL)
		e = dbp_err(err, errno, final, "cannot write record");
	else {
		if ((e = record_write(r, fp, final, err)) == 0 && fflush(fp) != 0)
			e = dbp_err(err, errno, final, "cannot write record");
		if (fclose(fp) != 0 && e == 0)
			e = dbp_err(err, errno, final, "cannot write record");
	}
	return batchfile_end(&bf, e, err);
}

int
manifest_stage(struct manifest *m, struct record *r, struct dbp_error *err)
{
	const char *name = control_get(r->ctl, "Package");
	struct record **v;
	int e;

	if (name == NULL || !recstore_valid_name(name)) {
		e = dbp_err(err, 0, "control", "invalid package name '%s'",
		    name != NULL ? name : "");
		record_free(r);
		return e;
	}
	/* One version per run: two would each claim to be installed. */
	if (manifest_in_run(m, name)) {
		e = dbp_err(err, 0, "", "package '%s' is given twice", name);
		record_free(r);
		return e;
	}
	if (m->dpkg_db)
		r->dpkg_db = true;
	/* A path the package gave twice is recorded as its later entry. */
	if ((e = record_dedup(r)) != 0) {
		record_free(r);
		return dbp_err(err, -e, name, "cannot write record");
	}
	v = realloc(m->staged, (m->nstaged + 1) * sizeof(*v));
	if (v == NULL) {
		record_free(r);
		return dbp_err(err, ENOMEM, "", "cannot write record");
	}
	m->staged = v;
	m->staged[m->nstaged++] = r;
	if (record_config_files(r))
		m->nleaving++;
	return 0;
}

int
manifest_disown_staged(struct manifest *m, unsigned pkg, const char *abspath)
{
	int r;

	if (pkg >= m->nstaged)
		return -EINVAL;
	/* A path the earlier package listed under another name stays. */
	r = record_remove(m->staged[pkg], abspath);
	if (r == 0)
		m->staged[pkg]->lost = true;
	return r == -ENOENT ? 0 : r;
}


static void manifest_index(struct manifest *);
static int manifest_forget(struct manifest *, const char *, const char *);

int
manifest_prepare(struct manifest *m, struct journal *j,
    struct dbp_error *err)
{
	char file[256];
	size_t i;
	int r;

	if (m->asb == NULL)
		return 0;
	/*
	 * Written only now, when the run knows every path a later package
	 * took over (--force-overwrite).
	 */
	for (i = 0; i < m->nstaged; i++)
		if (!m->staged[i]->gone &&
		    (r = manifest_write_tmp(m, m->staged[i], err)) != 0)
			return r;
	/*
	 * The records of packages removed whole go after the commit, and
	 * those dpkg made stale.
	 */
	for (i = 0; i < m->ndropped + m->nforgotten; i++) {
		snprintf(file, sizeof(file), "%s" RECSTORE_SUFFIX,
		    i < m->ndropped ? control_get(m->dropped[i]->ctl,
		    "Package") : m->forgotten[i - m->ndropped].name);
		if ((r = journal_drop(j, file)) != 0)
			return dbp_err(err, -r, JOURNAL_NAME,
			    "cannot write journal");
	}
	/* Packages that gave up paths to --force-overwrite get new records. */
	for (i = 0; i < m->ninst; i++)
		if (m->disowned[i] && !manifest_in_run(m,
		    control_get(m->inst[i]->ctl, "Package")) &&
		    (r = manifest_write_tmp(m, m->inst[i], err)) != 0)
			return r;
	return syncbatch_prepare(m->asb, j, JOURNAL_ADMIN, err);
}

int
manifest_commit(struct manifest *m, struct dbp_error *err)
{
	return m->asb != NULL ? syncbatch_rename(m->asb, err) : 0;
}

int
manifest_sync(struct manifest *m, struct dbp_error *err)
{
	return m->asb != NULL ? syncbatch_sync_dirs(m->asb, err) : 0;
}

size_t
manifest_nstaged(const struct manifest *m)
{
	return m->nstaged;
}

struct record *
manifest_staged(const struct manifest *m, size_t pkg)
{
	return m->staged[pkg];
}

const char *
manifest_run_name(const struct manifest *m, unsigned pkg)
{
	return pkg < m->nstaged ?
	    control_get(m->staged[pkg]->ctl, "Package") : "?";
}

/*
 * Whether installed package NAME is removed by the run: whole, or down
 * to its conffiles (its staged record then says which paths it keeps).
 */
static bool
manifest_leaving(const struct manifest *m, const char *name)
{
	size_t i;

	/* Owner lookups ask this for every path: nothing to look at in an install. */
	if (m->nleaving == 0)
		return false;
	for (i = 0; i < m->ndropped; i++)
		if (strcmp(control_get(m->dropped[i]->ctl, "Package"),
		    name) == 0)
			return true;
	for (i = 0; i < m->nstaged; i++)
		if (record_config_files(m->staged[i]) &&
		    strcmp(control_get(m->staged[i]->ctl, "Package"), name) == 0)
			return true;
	return false;
}

/* The installed record of package NAME, or NULL. */
static struct record *
manifest_installed(const struct manifest *m, const char *name, size_t *idx)
{
	size_t i;

	for (i = 0; i < m->ninst; i++)
		if (strcmp(control_get(m->inst[i]->ctl, "Package"), name) == 0) {
			if (idx != NULL)
				*idx = i;
			return m->inst[i];
		}
	return NULL;
}

struct record *
manifest_installed_record(struct manifest *m, const char *name)
{
	return manifest_installed(m, name, NULL);
}

const struct record_entry *
manifest_installed_entry(struct manifest *m, const char *name,
    const char *abspath)
{
	struct record *rec = manifest_installed(m, name, NULL);

	return rec != NULL ? record_find(rec, abspath) : NULL;
}

struct record *
manifest_disowned_nth(const struct manifest *m, size_t *i)
{
	for (; *i < m->ninst; (*i)++)
		if (m->disowned[*i] && !manifest_in_run(m,
		    control_get(m->inst[*i]->ctl, "Package")))
			return m->inst[(*i)++];
	return NULL;
}

bool
manifest_staged_lacks(const struct manifest *m, const char *name,
    const char *abspath)
{
	const struct record_entry *e;
	size_t i;

	for (i = 0; i < m->nstaged; i++) {
		if (strcmp(control_get(m->staged[i]->ctl, "Package"), name) != 0)
			continue;
		if ((e = record_find(m->staged[i], abspath)) == NULL)
			return true;
		/* An obsolete conffile goes to the package that ships it. */
		if (e->obsolete && record_remove(m->staged[i], abspath) == 0) {
			m->staged[i]->lost = true;
			return true;
		}
		return false;
	}
	return false;
}

int
manifest_in_run(const struct manifest *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->nstaged; i++)
		if (strcmp(control_get(m->staged[i]->ctl, "Package"), name) == 0)
			return 1;
	return 0;
}

int
manifest_load_installed(struct manifest *m, struct dbp_error *err)
{
	struct record *rec, **v;
	const char *what;
	char **names, file[256];
	size_t i;
	int r;

	if (m->store == NULL)
		names = NULL;
	else if ((r = recstore_names(m->store, &names, err)) != 0)
		return r;
	r = 0;
	for (i = 0; names != NULL && names[i] != NULL; i++) {
		if ((r = recstore_load(m->store, names[i], &rec, &what,
		    err)) != 0) {
			if (r != -ENOENT)
				break;
			/* Gone since the listing, or dpkg's now (stale). */
			r = 0;
			if (what != NULL && m->forget &&
			    (r = manifest_forget(m, names[i], what)) != 0) {
				snprintf(file, sizeof(file), "%s"
				    RECSTORE_SUFFIX, names[i]);
				r = dbp_err(err, -r, file, "cannot read record");
				break;
			}
			continue;
		}
		v = realloc(m->inst, (m->ninst + 1) * sizeof(*v));
		if (v == NULL) {
			record_free(rec);
			r = dbp_err(err, ENOMEM, "", "cannot read records");
			break;
		}
		m->inst = v;
		m->inst[m->ninst++] = rec;
	}
	recstore_names_free(names);
	if (r == 0 && ((m->disowned = calloc(m->ninst + 1, sizeof(bool))) == NULL ||
	    (m->lost = calloc(m->ninst + 1, sizeof(bool))) == NULL))
		r = dbp_err(err, ENOMEM, "", "cannot read records");
	if (r == 0)
		manifest_index(m);
	return r;
}

static int
manifest_owned_cmp(const void *a, const void *b)
{
	const struct manifest_owned *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c != 0)
		return c;
	return x->inst < y->inst ? -1 : x->inst > y->inst;
}

/* Index every installed path; without memory, lookups search each record. */
static void
manifest_index(struct manifest *m)
{
	size_t i, k, n = 0;

	for (i = 0; i < m->ninst; i++)
		n += m->inst[i]->n;
	if (n == 0 || (m->owned = malloc(n * sizeof(*m->owned))) == NULL)
		return;
	for (i = 0; i < m->ninst; i++)
		for (k = 0; k < m->inst[i]->n; k++) {
			struct manifest_owned *o = &m->owned[m->nowned++];

			o->path = m->inst[i]->v[k].path;
			o->inst = i;
			o->type = m->inst[i]->v[k].type;
		}
	qsort(m->owned, m->nowned, sizeof(*m->owned), manifest_owned_cmp);
}

/* The first index slot of ABSPATH (or where it would be). */
static size_t
manifest_owned_first(const struct manifest *m, const char *abspath)
{
	size_t lo = 0, hi = m->nowned, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(m->owned[mid].path, abspath) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The first installed package other than NAME that has ABSPATH (not as
 * a directory, with NONDIR), or NULL.
 */
static const char *
manifest_installed_owner(struct manifest *m, const char *abspath,
    const char *name, bool nondir)
{
	const struct record_entry *e;
	const char *owner;
	size_t i;

	if (m->owned != NULL) {
		for (i = manifest_owned_first(m, abspath); i < m->nowned &&
		    strcmp(m->owned[i].path, abspath) == 0; i++) {
			owner = control_get(m->inst[m->owned[i].inst]->ctl,
			    "Package");
			if (strcmp(owner, name) != 0 &&
			    !manifest_leaving(m, owner) &&
			    (!nondir || m->owned[i].type != 'd'))
				return owner;
		}
		return NULL;
	}
	for (i = 0; i < m->ninst; i++) {
		owner = control_get(m->inst[i]->ctl, "Package");
		if (strcmp(owner, name) != 0 && !manifest_leaving(m, owner) &&
		    (e = record_find(m->inst[i], abspath)) != NULL &&
		    (!nondir || e->type != 'd'))
			return owner;
	}
	return NULL;
}

const char *
manifest_owner(struct manifest *m, const char *abspath, const char *name)
{
	return manifest_installed_owner(m, abspath, name, true);
}

int
manifest_disown(struct manifest *m, const char *owner, const char *abspath)
{
	struct manifest_owned key;
	size_t i, k;
	int r;

	if (manifest_installed(m, owner, &i) == NULL)
		return 0;
	/* Out of the index first: its string goes with the entry. */
	if (m->owned != NULL) {
		key.path = abspath;
		key.inst = i;
		for (k = manifest_owned_first(m, abspath); k < m->nowned &&
		    strcmp(m->owned[k].path, abspath) == 0; k++)
			if (m->owned[k].inst == i) {
				memmove(&m->owned[k], &m->owned[k + 1],
				    (m->nowned - k - 1) * sizeof(key));
				m->nowned--;
				break;
			}
	}
	if ((r = record_remove(m->inst[i], abspath)) == 0)
		m->disowned[i] = m->lost[i] = true;
	return r;
}

void
manifest_lost(struct manifest *m, const char *name)
{
	size_t i;

	if (manifest_installed(m, name, &i) != NULL)
		m->lost[i] = true;
}

/* Whether R lists anything but directories. */
static bool
manifest_has_files(const struct record *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->v[i].type != 'd')
			return true;
	return false;
}

/* Whether R, a package's new or installed record, makes it disappear. */
static bool
manifest_empties(const struct record *r)
{
	const char *ess;

	/* dpkg never makes an essential or protected package go. */
	return !r->gone && !manifest_has_files(r) &&
	    !((ess = control_get(r->ctl, "Essential")) != NULL &&
	    strcmp(ess, "yes") == 0) &&
	    !((ess = control_get(r->ctl, "Protected")) != NULL &&
	    strcmp(ess, "yes") == 0);
}

const char *
manifest_disappearing(struct manifest *m, size_t *i, struct record **staged,
    struct record **inst)
{
	const char *name;
	size_t k;

	/* Installed packages that lost paths, then the run's own. */
	for (; *i < m->ninst + m->nstaged; (*i)++) {
		if (*i < m->ninst) {
			if (!m->lost[*i])
				continue;
			*inst = m->inst[*i];
			name = control_get((*inst)->ctl, "Package");
			*staged = NULL;
			for (k = 0; k < m->nstaged; k++)
				if (strcmp(control_get(m->staged[k]->ctl,
				    "Package"), name) == 0)
					*staged = m->staged[k];
		} else {
			*staged = m->staged[*i - m->ninst];
			if (!(*staged)->lost)
				continue;
			name = control_get((*staged)->ctl, "Package");
			*inst = manifest_installed(m, name, NULL);
		}
		if (!manifest_empties(*staged != NULL ? *staged : *inst))
			continue;
		(*i)++;
		return name;
	}
	return NULL;
}

const char *
manifest_other_owner(struct manifest *m, const char *abspath, const char *name)
{
	const char *p;
	size_t i;

	if ((p = manifest_installed_owner(m, abspath, name, false)) != NULL)
		return p;
	for (i = 0; i < m->nstaged; i++) {
		p = control_get(m->staged[i]->ctl, "Package");
		if (strcmp(p, name) != 0 && !m->staged[i]->gone &&
		    record_find(m->staged[i], abspath))
			return p;
	}
	return NULL;
}

int
manifest_finish(struct manifest *m)
{
	return m->asb != NULL ? syncbatch_finish(m->asb) : 0;
}

int
manifest_drop_records(struct manifest *m, struct dbp_error *err)
{
	char file[256];
	size_t i;

	if (m->asb == NULL || m->ndropped + m->nforgotten == 0)
		return 0;
	/* A repair would redo this from the journal's "drop" lines. */
	for (i = 0; i < m->ndropped + m->nforgotten; i++) {
		snprintf(file, sizeof(file), "%s" RECSTORE_SUFFIX,
		    i < m->ndropped ? control_get(m->dropped[i]->ctl,
		    "Package") : m->forgotten[i - m->ndropped].name);
		if (unlinkat(m->arf.fd, file, 0) != 0 && errno != ENOENT)
			return dbp_err(err, errno, file, "cannot remove record");
	}
	/* Durable before the journal goes, by the run's strategy. */
	dirs_mark(m->adirs, m->aroot, DIR_NAMES);
	return syncbatch_sync_dirs(m->asb, err);
}

int
manifest_drop(struct manifest *m, struct record *r)
{
	struct record **v;

	if ((v = realloc(m->dropped, (m->ndropped + 1) * sizeof(*v))) == NULL) {
		record_free(r);
		return -ENOMEM;
	}
	m->dropped = v;
	m->dropped[m->ndropped++] = r;
	m->nleaving++;
	return 0;
}

size_t
manifest_ndropped(const struct manifest *m)
{
	return m->ndropped;
}

struct record *
manifest_dropped(const struct manifest *m, size_t i)
{
	return m->dropped[i];
}

int
manifest_abort(struct manifest *m)
{
	return m->asb != NULL ? syncbatch_abort(m->asb) : 0;
}

/* Note stale record NAME (WHAT dpkg did) for the run to drop, once. */
static int
manifest_forget(struct manifest *m, const char *name, const char *what)
{
	struct manifest_forgotten *v;
	size_t i;

	for (i = 0; i < m->nforgotten; i++)
		if (strcmp(m->forgotten[i].name, name) == 0)
			return 0;
	if ((v = realloc(m->forgotten, (m->nforgotten + 1) * sizeof(*v))) ==
	    NULL)
		return -ENOMEM;
	m->forgotten = v;
	v += m->nforgotten;
	v->name = strdup(name);
	v->what = strdup(what);
	if (v->name == NULL || v->what == NULL) {
		free(v->name);
		free(v->what);
		return -ENOMEM;
	}
	m->nforgotten++;
	return 0;
}

void
manifest_set_dpkg_db(struct manifest *m)
{
	m->dpkg_db = true;
}

void
manifest_set_stale(struct manifest *m, recstore_stale_fn *fn, void *ctx,
    bool forget)
{
	m->stale = fn;
	m->stale_ctx = ctx;
	m->forget = forget;
	if (m->store != NULL)
		recstore_set_stale(m->store, fn, ctx);
}

size_t
manifest_nforgotten(const struct manifest *m)
{
	return m->nforgotten;
}

const char *
manifest_forgotten(const struct manifest *m, size_t i, const char **what)
{
	*what = m->forgotten[i].what;
	return m->forgotten[i].name;
}

int
manifest_names(struct manifest *m, char ***names, struct dbp_error *err)
{
	if (m->store == NULL)
		return dbp_err(err, EBADF, m->admname,
		    "cannot list admin directory");
	return recstore_names(m->store, names, err);
}

void
manifest_names_free(char **names)
{
	recstore_names_free(names);
}
