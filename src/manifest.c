/* SPDX-License-Identifier: MIT */
/* The run's manifest: the paths it installs, and its records (db/recstage.h, db/recowners.h) under one handle. */
#include "config.h"

#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "db/recowners.h"
#include "db/recstage.h"
#include "manifest.h"

struct manifest {
	void *root;		/* tsearch tree of struct manifest_entry */
	size_t n;
	struct recstage *rs;	/* the run's records */
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
	int r;

	if ((*out = calloc(1, sizeof(**out))) == NULL)
		return -ENOMEM;
	if ((r = recstage_new(&(*out)->rs)) != 0) {
		free(*out);
		*out = NULL;
		return r;
	}
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
	recstage_free(m->rs);
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

struct recstage *
manifest_records(struct manifest *m)
{
	return m->rs;
}

/*
 * The run's records: each call is its recstage_ or recowners_ namesake,
 * on the manifest's records.
 */

int
manifest_admin(struct manifest *m, int dirfd, const char *name,
    bool openat2, struct syncbatch *peer, struct stats *st,
    struct dbp_error *err)
{
	return recstage_attach(m->rs, dirfd, name, openat2, peer, st, err);
}

int
manifest_lock(struct manifest *m, bool shared, struct dbp_error *err)
{
	return recstage_lock(m->rs, shared, err);
}

int
manifest_admin_fd(const struct manifest *m)
{
	return recstage_admin_fd(m->rs);
}

void
manifest_set_dpkg_db(struct manifest *m)
{
	recstage_set_dpkg_db(m->rs);
}

void
manifest_set_adopt(struct manifest *m, recstage_adopt_fn *fn, void *ctx,
    const struct rootfs *rf)
{
	recstage_set_adopt(m->rs, fn, ctx, rf);
}

void
manifest_set_divert(struct manifest *m, const struct dpkgdivert *d)
{
	recstage_set_divert(m->rs, d);
}

void
manifest_set_stale(struct manifest *m, recstore_stale_fn *fn, void *ctx,
    bool forget)
{
	recstage_set_stale(m->rs, fn, ctx, forget);
}

int
manifest_names(struct manifest *m, char ***names, struct dbp_error *err)
{
	return recstage_names(m->rs, names, err);
}

void
manifest_names_free(char **names)
{
	recstore_names_free(names);
}

int
manifest_stage(struct manifest *m, struct record *r, struct dbp_error *err)
{
	return recstage_stage(m->rs, r, err);
}

int
manifest_in_run(const struct manifest *m, const char *name)
{
	return recstage_in_run(m->rs, name);
}

const char *
manifest_run_name(const struct manifest *m, unsigned pkg)
{
	return recstage_run_name(m->rs, pkg);
}

size_t
manifest_nstaged(const struct manifest *m)
{
	return recstage_nstaged(m->rs);
}

struct record *
manifest_staged(const struct manifest *m, size_t pkg)
{
	return recstage_staged(m->rs, pkg);
}

bool
manifest_staged_lacks(const struct manifest *m, const char *name,
    const char *abspath)
{
	return recstage_staged_lacks(m->rs, name, abspath);
}

int
manifest_disown_staged(struct manifest *m, unsigned pkg, const char *abspath)
{
	return recstage_disown_staged(m->rs, pkg, abspath);
}

int
manifest_drop(struct manifest *m, struct record *r)
{
	return recstage_drop(m->rs, r);
}

size_t
manifest_ndropped(const struct manifest *m)
{
	return recstage_ndropped(m->rs);
}

struct record *
manifest_dropped(const struct manifest *m, size_t i)
{
	return recstage_dropped(m->rs, i);
}

size_t
manifest_nforgotten(const struct manifest *m)
{
	return recstage_nforgotten(m->rs);
}

const char *
manifest_forgotten(const struct manifest *m, size_t i, const char **what)
{
	return recstage_forgotten(m->rs, i, what);
}

int
manifest_prepare(struct manifest *m, struct journal *j,
    struct dbp_error *err)
{
	return recstage_prepare(m->rs, j, err);
}

int
manifest_commit(struct manifest *m, struct dbp_error *err)
{
	return recstage_commit(m->rs, err);
}

int
manifest_sync(struct manifest *m, struct dbp_error *err)
{
	return recstage_sync(m->rs, err);
}

int
manifest_finish(struct manifest *m)
{
	return recstage_finish(m->rs);
}

int
manifest_drop_records(struct manifest *m, struct dbp_error *err)
{
	return recstage_drop_records(m->rs, err);
}

int
manifest_abort(struct manifest *m)
{
	return recstage_abort(m->rs);
}

int
manifest_load_installed(struct manifest *m, struct dbp_error *err)
{
	return recowners_load(m->rs, err);
}

struct record *
manifest_installed_record(struct manifest *m, const char *name)
{
	return recowners_installed(m->rs, name);
}

const struct record_entry *
manifest_installed_entry(struct manifest *m, const char *name,
    const char *abspath)
{
	return recowners_installed_entry(m->rs, name, abspath);
}

const struct record_entry *
manifest_diverted_entry(struct manifest *m, const char *abspath,
    const char *self, const char **owner)
{
	return recowners_diverted_entry(m->rs, abspath, self, owner);
}

const char *
manifest_owner(struct manifest *m, const char *abspath, const char *name)
{
	return recowners_owner(m->rs, abspath, name);
}

const char *
manifest_other_owner(struct manifest *m, const char *abspath, const char *name)
{
	return recowners_other_owner(m->rs, abspath, name);
}

int
manifest_disown(struct manifest *m, const char *owner, const char *abspath)
{
	return recowners_disown(m->rs, owner, abspath);
}

void
manifest_lost(struct manifest *m, const char *name)
{
	recowners_lost(m->rs, name);
}

struct record *
manifest_disowned_nth(struct manifest *m, size_t *i)
{
	return recowners_disowned_nth(m->rs, i);
}

const char *
manifest_disappearing(struct manifest *m, size_t *i, struct record **staged,
    struct record **inst)
{
	return recowners_disappearing(m->rs, i, staged, inst);
}
