/* SPDX-License-Identifier: MIT */
/* A run's packages into its batch: each checked, decoded (or cloned from the store) and its record staged. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>

#include "db/dpkgarch.h"
#include "db/dpkgdb.h"
#include "db/dpkgstatus.h"
#include "db/record.h"
#include "deb/deb.h"
#include "extract/unpackconf.h"
#include "manifest.h"
#include "run/feed.h"
#include "run/install.h"
#include "run/install_int.h"
#include "run/installcache.h"
#include "run/instance.h"
#include "run/pkgfiles.h"
#include "store/store.h"
#include "unpack.h"

/*
 * The memory of the decoding threads, queues and decoders together
 * (feed.c): 40 MiB a thread lets each decode a 24 MiB block (what
 * dpkg-deb and xz -T write) ahead of the one being read, so that the
 * threads of one big package never wait for each other, and keeps a run
 * within 64 MiB + 48 MiB a thread.
 */
#define INSTALL_FEED_PER_JOB	((size_t)40 << 20)

static size_t
install_feed_budget(const struct install_opts *o, unsigned jobs)
{
	return o->feed_budget != 0 ? o->feed_budget :
	    INSTALL_FEED_PER_JOB * jobs;
}

/*
 * Decoding started as the run starts, before it reads the root: for a
 * small package the database's reading (its status, every list and
 * record), the maintainer scripts and the decoding of the data member
 * take about as long each, and two cores do them at once, as dpkg's
 * dpkg-deb decodes beside dpkg.  Decoding has no effect on the root and
 * its result does not depend on when it ran (feed.c).  Not with a store
 * (which packages it has is known once it is opened, in the run), nor
 * for one thread or a package that is not a file.
 */
int
install_feed(const struct install_opts *o, char *const *files, size_t n,
    struct feed **out)
{
	unsigned jobs;

	*out = NULL;
	if (o->remove || o->cache != NULL || n == 0 ||
	    (jobs = pkgfiles_jobs(o->jobs, files, n)) < 2)
		return 0;
	return feed_new(out, files, n, jobs, install_feed_budget(o, jobs));
}



static int
install_data(struct unpack *u, struct deb *d, struct feed *feed,
    size_t fidx, unsigned idx, struct record *rec, struct archive **tar,
    struct dbp_error *err)
{
	int r;

	if ((r = feed != NULL ? deb_data_open_fed(d, tar, feed_read,
	    feed_pkg(feed, fidx, deb_fd(d)), err) : deb_data_open(d, tar,
	    err)) != 0)
		return r;
	return unpack_archive(u, *tar, idx, rec, err);
}

/*
 * Whether the root takes CTL's architecture, as dpkg decides it (before
 * any of the package is written): refused in dpkg's words, or with
 * --force-architecture installed all the same, told.
 */
static int
install_arch(const struct install_opts *o, const struct dpkgarch *arch,
    const struct control *ctl, const char *file, struct dbp_error *err)
{
	struct install_note n = { .event = INSTALL_WARN };
	char msg[256], line[PATH_MAX + 320];

	if (o->arch_judged || dpkgarch_check(arch, control_get(ctl,
	    "Architecture"), msg, sizeof(msg)) == 0)
		return 0;
	if (!o->force_architecture)
		return dbp_err(err, 0, "", "%s", msg);
	snprintf(line, sizeof(line), "%s: %s, installed as"
	    " --force-architecture asks", file, msg);
	n.msg = line;
	install_say(o, &n);
	return 0;
}

/*
 * Extract one package into the batch and stage its record (written as a
 * temporary by manifest_prepare, renamed after the files).  With the
 * store C (NULL: none), a package found there is cloned instead of
 * decoded, and one decoded fills it.
 */
static int
install_one(const struct install_opts *o, struct unpack *u,
    struct manifest *man, struct obsolete *ob, struct dpkgdb *db,
    struct feed *feed, size_t fidx, const struct dpkgarch *arch,
    struct install_cache *c, const char *file,
    unsigned idx, struct stats *st, struct dbp_error *err)
{
	struct store_pkg *hit = c != NULL ? c->hit[idx] : NULL;
	enum store_how how = STORE_DECODED;
	struct store_fill *fill = NULL;
	struct control *ctl = NULL;
	struct record *rec = NULL, *staged, *old;
	struct deb_info *info;
	struct archive *tar = NULL;
	struct deb *d;
	char pkgname[256] = "", key[512];
	bool filled = false;
	size_t ninfo;
	int r;

	if ((r = deb_open(&d, file, err)) != 0)
		return r;
	/* The store's entry is the hashed file's: this must be that file. */
	if (hit != NULL && !install_cache_same(c, idx, deb_fd(d))) {
		deb_close(d);
		return dbp_err(err, 0, "", "the file changed while it was"
		    " read");
	}
	if (db != NULL)
		deb_keep_info(d);
	if ((r = deb_read_control(d, &ctl, err)) == 0 && db != NULL &&
	    (r = dpkgstatus_check(ctl, err)) != 0)
		control_free(ctl);
	else if (r == 0 && (r = install_arch(o, arch, ctl, file, err)) != 0)
		control_free(ctl);
	else if (r == 0 && (r = instance_check(man, db != NULL ?
	    dpkgdb_status(db) : NULL, ctl, err)) != 0)
		control_free(ctl);
	else if (r == 0 && (r = instance_key(man, db != NULL, ctl, key,
	    sizeof(key), err)) != 0) {
		control_free(ctl);
	} else if (r == 0 && manifest_in_run(man, control_get(ctl, "Package"))) {
		/* Before extracting it: one version of a package per run. */
		r = dbp_err(err, 0, "", "package '%s' is given twice",
		    control_get(ctl, "Package"));
		control_free(ctl);
	} else if (r == 0 && db == NULL && (old = manifest_installed_record(man,
	    control_get(ctl, "Package"))) != NULL && old->dpkg_db) {
		/* dpkg's database would keep the old version's stanza. */
		r = dbp_err(err, 0, "", "'%s' is in dpkg's database too:"
		    " --dpkg-db upgrades it there as well",
		    control_get(ctl, "Package"));
		control_free(ctl);
	} else if (r == 0 && (r = record_new(&rec, ctl)) != 0) {
		control_free(ctl);
		r = dbp_err(err, -r, NULL, "cannot start record");
	} else if (r == 0 && strcmp(key, control_get(ctl, "Package")) != 0 &&
	    (r = record_set_key(rec, key)) != 0) {
		r = dbp_err(err, -r, NULL, "cannot start record");
	} else if (r == 0) {
		struct install_note n = { .event = INSTALL_UNPACKING,
		    .pkg = file, .ctl = ctl };
		char name[256];

		/* Names as dpkg shows them, for front ends. */
		n.name = pkgfiles_name(ctl, name, sizeof(name));
		snprintf(pkgname, sizeof(pkgname), "%s", n.name);
		if ((old = manifest_installed_record(man, key)) != NULL) {
			n.upgrade = true;
			n.old_version = control_get(old->ctl, "Version");
		}
		install_say(o, &n);
		n.event = INSTALL_EXTRACTED;
		unpack_set_md5_all(u, db != NULL && !deb_has_info(d, "md5sums"));
		if (c != NULL && hit == NULL)
			fill = store_fill_new(c->s, c->key[idx]);
		unpack_set_fill(u, fill);
		/* From the store, the data member is not read: its key is
		   the whole file's hash, checked when it was stored. */
		if ((r = unpack_set_conffiles(u, deb_conffiles(d), err)) == 0 &&
		    (r = hit != NULL ? unpack_stored(u, c->s, hit, idx, rec,
		    &how, err) : install_data(u, d, feed, fidx, idx, rec, &tar,
		    err)) == 0 &&
		    (r = unpack_remove_on_upgrade(u, rec, ob, err)) == 0 &&
		    (r = unpack_keep_obsolete(u, rec, err)) == 0 &&
		    (r = hit != NULL ? 0 : deb_finish(d, err)) == 0) {
			staged = rec;
			r = manifest_stage(man, rec, err);
			rec = NULL;	/* the manifest took it */
			if (r == 0 && db != NULL) {
				deb_take_info(d, &info, &ninfo);
				r = dpkgdb_stage(db, staged, info, ninfo, err);
			}
		}
		/* Garbage from a corrupt stream: the stream's error says why. */
		if (r != 0 && tar != NULL)
			(void)deb_data_check(d, err);
		if (r == 0) {
			static const char *const hows[] = { "decoded",
			    "cloned from the cache", "copied from the cache" };

			n.bytes = st->bytes;
			n.msg = c != NULL ? hows[how] : NULL;
			n.count = hit != NULL ? store_pkg_bytes(hit) : 0;
			install_say(o, &n);
		}
	}
	unpack_set_fill(u, NULL);
	if (r == 0 && fill != NULL)
		st->cache_filled += (filled = store_fill_end(fill));
	else
		store_fill_free(fill);
	if (r == 0 && c != NULL && c->s != NULL) {
		st->cache_pkgs[how]++;
		if (hit != NULL)
			st->cache_saved += store_pkg_bytes(hit);
		if (stats_add_pkg(st, pkgname, (int)how, hit != NULL ?
		    store_pkg_bytes(hit) : 0, filled) != 0)
			r = dbp_err(err, ENOMEM, NULL, "cannot note how '%s'"
			    " was installed", pkgname);
	}
	if (r == 0)
		st->packages++;
	if (feed != NULL && hit == NULL)
		feed_done(feed, fidx);
	record_free(rec);
	deb_close(d);
	return r;
}

static void
install_cache_note(void *ctx, const char *msg)
{
	struct install_ctx *ic = ctx;
	struct install_note n = { .event = INSTALL_WARN, .msg = msg };

	install_say(ic->opts, &n);
}

/*
 * Decoding started before the run reads the root (install_feed), or
 * started here for the packages the store does not have.
 */
int
install_extract(struct install *in, char *const *files, size_t nfiles,
    unsigned jobs, struct dbp_error *err)
{
	const struct install_opts *o = in->o;
	struct install_cache c;
	struct feed *early = o->feed != NULL ? o->feed : in->own_feed;
	struct feed *feed = early, *pf;
	struct dpkgarch arch;
	double t0 = stats_now();
	size_t i, fidx;
	int r = 0;

	if ((r = dpkgarch_load(&arch, &in->rf, o->architecture, err)) != 0)
		return r;
	/* Nothing of a dry run is kept: it neither fills nor reads one. */
	if ((r = install_cache_open(&c, o->dry_run ? NULL : o->cache,
	    o->cache_max_size, o->cache_verify, files, nfiles,
	    install_cache_note, &in->ic)) != 0) {
		dpkgarch_clear(&arch);
		return dbp_err(err, -r, NULL, "cannot look the cache up");
	}
	in->st->cache = c.s != NULL;
	if (feed == NULL && jobs > 1 && c.nfed > 0 && (r = feed_new(&feed,
	    c.fed, c.nfed, jobs, install_feed_budget(o, jobs))) != 0) {
		install_cache_close(&c, nfiles);
		dpkgarch_clear(&arch);
		return dbp_err(err, -r, NULL, "cannot start threads");
	}
	for (i = 0; i < nfiles; i++) {
		in->ic.pkg = files[i];
		pf = feed;
		fidx = c.s != NULL ? c.fidx[i] : i;
		/* Found by name: the caller's may cover more packages. */
		if (early != NULL &&
		    (fidx = feed_find(early, files[i])) == FEED_NOT_FED)
			pf = NULL;
		if ((r = install_one(o, in->u, in->man, in->ob, in->db, pf,
		    fidx, &arch, c.s != NULL ? &c : NULL, files[i],
		    (unsigned)i, in->st, err)) != 0) {
			dbp_err_pkg(err, files[i]);
			break;
		}
	}
	in->ic.pkg = NULL;
	if (feed != early) {
		in->st->ahead += feed_ahead_count(feed);
		feed_free(feed);
	}
	dpkgarch_clear(&arch);
	/*
	 * What was filled is the packages', whether the run commits or not:
	 * committed after the data barrier, which may cover it
	 * (install_prepare), or when the run ends (install_close).
	 */
	in->store = install_cache_keep(&c);
	install_cache_close(&c, nfiles);
	in->st->phase[PH_EXTRACT] = stats_now() - t0;
	/* Past this point a signal no longer stops the run: commit finishes. */
	if (r == 0 && o->stop != NULL && *o->stop)
		r = dbp_err(err, EINTR, NULL, "interrupted");
	return r;
}
