/* SPDX-License-Identifier: MIT */
/* The run's records: staged as temporaries, committed after the files they list, dropped or put back. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "db/recstage.h"
#include "db/recstage_int.h"
#include "db/batchfile.h"
#include "durable/journal.h"
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

int
recstage_new(struct recstage **out)
{
	if ((*out = calloc(1, sizeof(**out))) == NULL)
		return -ENOMEM;
	(*out)->arf.fd = -1;
	return 0;
}

static void
recstage_free_records(struct record **v, size_t n)
{
	while (n > 0)
		record_free(v[--n]);
	free(v);
}

void
recstage_free(struct recstage *rs)
{
	if (rs == NULL)
		return;
	/* The installed records and their index, which recowners.c fills. */
	recstage_free_records(rs->inst, rs->ninst);
	free(rs->disowned);
	free(rs->lost);
	free(rs->owned);
	free(rs->bucket);
	recstage_free_records(rs->staged, rs->nstaged);
	recstage_free_records(rs->dropped, rs->ndropped);
	while (rs->nforgotten > 0) {
		free(rs->forgotten[--rs->nforgotten].name);
		free(rs->forgotten[rs->nforgotten].what);
	}
	free(rs->forgotten);
	/* The batch and the table use the store's descriptor: it goes last. */
	syncbatch_free(rs->asb);
	dirs_free(rs->adirs);
	recstore_free(rs->store);
	free(rs);
}

int
recstage_attach(struct recstage *rs, int dirfd, const char *name,
    bool openat2, struct syncbatch *peer, struct stats *st,
    struct dbp_error *err)
{
	int r;

	rs->admname = name;
	if ((r = recstore_open(&rs->store, dirfd, name, err)) != 0)
		return r;
	recstore_set_stale(rs->store, rs->stale, rs->stale_ctx);
	recstore_set_divert(rs->store, rs->divert);
	rs->arf.fd = recstore_fd(rs->store);
	rs->arf.openat2 = openat2;
	/* Records live in one directory: a tiny cache and few open files. */
	if ((r = dirs_new(&rs->adirs, &rs->arf, 4)) != 0 ||
	    (r = dirs_set_admin(rs->adirs, "")) != 0 ||
	    (r = peer != NULL ? syncbatch_new_like(&rs->asb, peer, rs->adirs,
	    64) : syncbatch_new(&rs->asb, "none", -1, rs->adirs, st, 64)) != 0)
		return dbp_err(err, -r, name, "cannot open admin directory");
	dirs_set_top_name(rs->adirs, name);
	return dirs_get(rs->adirs, "", false, 0, &rs->aroot, err);
}

int
recstage_lock(struct recstage *rs, bool shared, struct dbp_error *err)
{
	if (rs->arf.fd < 0)
		return 0;
	if (flock(rs->arf.fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0)
		return dbp_err(err, errno, rs->admname, errno == EWOULDBLOCK ?
		    "admin directory in use by another run" :
		    "cannot lock admin directory");
	return 0;
}

int
recstage_admin_fd(const struct recstage *rs)
{
	return rs->arf.fd;
}

void
recstage_set_dpkg_db(struct recstage *rs)
{
	rs->dpkg_db = true;
}

void
recstage_set_divert(struct recstage *rs, const struct dpkgdivert *d)
{
	rs->divert = d;
	if (rs->store != NULL)
		recstore_set_divert(rs->store, d);
}

void
recstage_set_stale(struct recstage *rs, recstore_stale_fn *fn, void *ctx,
    bool forget)
{
	rs->stale = fn;
	rs->stale_ctx = ctx;
	rs->forget = forget;
	if (rs->store != NULL)
		recstore_set_stale(rs->store, fn, ctx);
}

void
recstage_set_adopt(struct recstage *rs, recstage_adopt_fn *fn, void *ctx,
    const struct rootfs *rf)
{
	rs->adopt = fn;
	rs->adopt_ctx = ctx;
	rs->rf = rf;
}

int
recstage_names(struct recstage *rs, char ***names, struct dbp_error *err)
{
	if (rs->store == NULL)
		return dbp_err(err, EBADF, rs->admname,
		    "cannot list admin directory");
	return recstore_names(rs->store, names, err);
}

/* Write R as a temporary record and register it with the records' batch. */
static int
recstage_write_tmp(struct recstage *rs, struct record *r,
    struct dbp_error *err)
{
	const char *name = record_key(r);
	struct batchfile bf;
	char final[256];
	FILE *fp;
	int e;

	snprintf(final, sizeof(final), "%s" RECSTORE_SUFFIX, name);
	if ((e = batchfile_open(&bf, rs->asb, rs->adirs, rs->aroot, final,
	    final, 0644, err)) != 0)
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
recstage_stage(struct recstage *rs, struct record *r, struct dbp_error *err)
{
	const char *name = record_key(r);
	struct record **v;
	int e;

	if (name == NULL || !recstore_valid_key(name)) {
		e = dbp_err(err, 0, "control", "invalid package name '%s'",
		    name != NULL ? name : "");
		record_free(r);
		return e;
	}
	/* One version per run: two would each claim to be installed. */
	if (recstage_in_run(rs, name)) {
		e = dbp_err(err, 0, "", "package '%s' is given twice", name);
		record_free(r);
		return e;
	}
	if (rs->dpkg_db)
		r->dpkg_db = true;
	/* A path the package gave twice is recorded as its later entry. */
	if ((e = record_dedup(r)) != 0) {
		record_free(r);
		return dbp_err(err, -e, name, "cannot write record");
	}
	v = realloc(rs->staged, (rs->nstaged + 1) * sizeof(*v));
	if (v == NULL) {
		record_free(r);
		return dbp_err(err, ENOMEM, "", "cannot write record");
	}
	rs->staged = v;
	rs->staged[rs->nstaged++] = r;
	if (record_config_files(r))
		rs->nleaving++;
	return 0;
}

int
recstage_in_run(const struct recstage *rs, const char *name)
{
	size_t i;

	for (i = 0; i < rs->nstaged; i++)
		if (strcmp(record_key(rs->staged[i]), name) == 0)
			return 1;
	return 0;
}

const char *
recstage_run_name(const struct recstage *rs, unsigned pkg)
{
	return pkg < rs->nstaged ?
	    record_key(rs->staged[pkg]) : "?";
}

size_t
recstage_nstaged(const struct recstage *rs)
{
	return rs->nstaged;
}

struct record *
recstage_staged(const struct recstage *rs, size_t pkg)
{
	return rs->staged[pkg];
}

bool
recstage_staged_lacks(const struct recstage *rs, const char *name,
    const char *abspath)
{
	const struct record_entry *e;
	size_t i;

	for (i = 0; i < rs->nstaged; i++) {
		if (strcmp(record_key(rs->staged[i]), name) != 0)
			continue;
		if ((e = record_find(rs->staged[i], abspath)) == NULL)
			return true;
		/* An obsolete conffile goes to the package that ships it. */
		if (e->obsolete && record_remove(rs->staged[i], abspath) == 0) {
			rs->staged[i]->lost = true;
			return true;
		}
		return false;
	}
	return false;
}

int
recstage_disown_staged(struct recstage *rs, unsigned pkg,
    const char *abspath)
{
	int r;

	if (pkg >= rs->nstaged)
		return -EINVAL;
	/* A path the earlier package listed under another name stays. */
	r = record_remove(rs->staged[pkg], abspath);
	if (r == 0)
		rs->staged[pkg]->lost = true;
	return r == -ENOENT ? 0 : r;
}

int
recstage_drop(struct recstage *rs, struct record *r)
{
	struct record **v;

	if ((v = realloc(rs->dropped, (rs->ndropped + 1) * sizeof(*v))) ==
	    NULL) {
		record_free(r);
		return -ENOMEM;
	}
	rs->dropped = v;
	rs->dropped[rs->ndropped++] = r;
	rs->nleaving++;
	return 0;
}

size_t
recstage_ndropped(const struct recstage *rs)
{
	return rs->ndropped;
}

struct record *
recstage_dropped(const struct recstage *rs, size_t i)
{
	return rs->dropped[i];
}

int
recstage_forget(struct recstage *rs, const char *name, const char *what)
{
	struct recstage_forgotten *v;
	size_t i;

	for (i = 0; i < rs->nforgotten; i++)
		if (strcmp(rs->forgotten[i].name, name) == 0)
			return 0;
	if ((v = realloc(rs->forgotten, (rs->nforgotten + 1) * sizeof(*v))) ==
	    NULL)
		return -ENOMEM;
	rs->forgotten = v;
	v += rs->nforgotten;
	v->name = strdup(name);
	v->what = strdup(what);
	if (v->name == NULL || v->what == NULL) {
		free(v->name);
		free(v->what);
		return -ENOMEM;
	}
	rs->nforgotten++;
	return 0;
}

size_t
recstage_nforgotten(const struct recstage *rs)
{
	return rs->nforgotten;
}

const char *
recstage_forgotten(const struct recstage *rs, size_t i, const char **what)
{
	*what = rs->forgotten[i].what;
	return rs->forgotten[i].name;
}

/*
 * The file name of the Ith record the run drops: removed whole, or
 * stale.  False for a stale one the run installs again: its new record
 * takes the stale one's name at the commit, and stays.
 */
static bool
recstage_drop_file(const struct recstage *rs, size_t i, char *file,
    size_t size)
{
	const char *name = i < rs->ndropped ?
	    record_key(rs->dropped[i]) :
	    rs->forgotten[i - rs->ndropped].name;
	size_t k;

	for (k = 0; i >= rs->ndropped && k < rs->nstaged; k++)
		if (!rs->staged[k]->gone &&
		    strcmp(record_key(rs->staged[k]), name) == 0)
			return false;
	snprintf(file, size, "%s" RECSTORE_SUFFIX, name);
	return true;
}

int
recstage_prepare(struct recstage *rs, struct journal *j,
    struct dbp_error *err)
{
	char file[256];
	size_t i;
	int r;

	/* What the run judged by a path it could not look at is not sound. */
	if (rs->type_err != 0)
		return dbp_err(err, -rs->type_err, "", "cannot look at the"
		    " paths of the packages dpkg installed");
	if (rs->asb == NULL)
		return 0;
	/*
	 * Written only now, when the run knows every path a later package
	 * took over (--force-overwrite).
	 */
	for (i = 0; i < rs->nstaged; i++)
		if (!rs->staged[i]->gone &&
		    (r = recstage_write_tmp(rs, rs->staged[i], err)) != 0)
			return r;
	/*
	 * The records of packages removed whole go after the commit, and
	 * those dpkg made stale.
	 */
	for (i = 0; i < rs->ndropped + rs->nforgotten; i++) {
		if (!recstage_drop_file(rs, i, file, sizeof(file)))
			continue;
		if ((r = journal_drop(j, file)) != 0)
			return dbp_err(err, -r, JOURNAL_NAME,
			    "cannot write journal");
	}
	/*
	 * Packages that gave up paths to --force-overwrite get new records;
	 * dpkg's own packages have none: their file lists lose the paths
	 * (dpkgdb_disowned).
	 */
	for (i = 0; i < rs->ninst; i++)
		if (rs->disowned[i] && !rs->inst[i]->adopted &&
		    !recstage_in_run(rs,
		    record_key(rs->inst[i])) &&
		    (r = recstage_write_tmp(rs, rs->inst[i], err)) != 0)
			return r;
	return syncbatch_prepare(rs->asb, j, JOURNAL_ADMIN, err);
}

int
recstage_commit(struct recstage *rs, struct dbp_error *err)
{
	return rs->asb != NULL ? syncbatch_rename(rs->asb, err) : 0;
}

int
recstage_sync(struct recstage *rs, struct dbp_error *err)
{
	return rs->asb != NULL ? syncbatch_sync_dirs(rs->asb, err) : 0;
}

int
recstage_finish(struct recstage *rs)
{
	return rs->asb != NULL ? syncbatch_finish(rs->asb) : 0;
}

int
recstage_drop_records(struct recstage *rs, struct dbp_error *err)
{
	char file[256];
	size_t i;

	if (rs->asb == NULL || rs->ndropped + rs->nforgotten == 0)
		return 0;
	/* A repair would redo this from the journal's "drop" lines. */
	for (i = 0; i < rs->ndropped + rs->nforgotten; i++) {
		if (!recstage_drop_file(rs, i, file, sizeof(file)))
			continue;
		if (unlinkat(rs->arf.fd, file, 0) != 0 && errno != ENOENT)
			return dbp_err(err, errno, file, "cannot remove record");
	}
	/* Durable before the journal goes, by the run's strategy. */
	dirs_mark(rs->adirs, rs->aroot, DIR_NAMES);
	return syncbatch_sync_cleanup(rs->asb, err);
}

int
recstage_abort(struct recstage *rs)
{
	return rs->asb != NULL ? syncbatch_abort(rs->asb) : 0;
}
