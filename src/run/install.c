/* SPDX-License-Identifier: MIT */
/* install: one run that puts packages into a root, from the first write to the commit. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>

#include "db/admin.h"
#include "deb/deb.h"
#include "durable/dirs.h"
#include "db/dpkgarch.h"
#include "db/dpkgdb.h"
#include "db/dpkgdivert.h"
#include "db/dpkgstatov.h"
#include "db/dpkgstatus.h"
#include "run/feed.h"
#include "run/install.h"
#include "run/install_int.h"
#include "run/installcache.h"
#include "run/instance.h"
#include "durable/journal.h"
#include "run/maintscript.h"
#include "manifest.h"
#include "extract/obsolete.h"
#include "extract/unpackconf.h"
#include "run/pkgfiles.h"
#include "db/record.h"
#include "syncbatch.h"
#include "unpack.h"
#include "durable/users.h"

static void
install_warn(void *ctx, const char *path, const char *msg)
{
	struct install_ctx *ic = ctx;
	struct install_note n = { .event = INSTALL_WARN_PATH, .pkg = ic->pkg,
	    .path = path, .msg = msg };

	install_say(ic->opts, &n);
}

/*
 * Descriptors a run may keep open: the soft limit less a reserve for the
 * package being read, the root, standard streams and the C library, and
 * no more than 2048 (past that, reopening costs less than the kernel
 * memory).  A quarter, up to 256, caches directories; the rest keeps
 * written files open until the commit.
 */
static void
install_fd_budget(size_t *files, size_t *dirs, unsigned jobs)
{
	struct rlimit rl;
	size_t n = 2048, keep = 16 + jobs;	/* each thread reads a package */

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < n + keep)
		n = rl.rlim_cur > keep + 16 ? (size_t)rl.rlim_cur - keep : 16;
	*dirs = n / 4 < 256 ? n / 4 : 256;
	if (*dirs < 4)
		*dirs = 4;
	*files = n - *dirs > 4 ? n - *dirs : 4;
}

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
install_phase(const struct install_opts *o, enum install_phase ph)
{
	struct install_note n = { .event = INSTALL_PHASE, .phase = ph };

	install_say(o, &n);
}

static void
install_preinst(void *ctx, const char *name)
{
	struct install_ctx *ic = ctx;
	struct install_note n = { .event = INSTALL_PREINST, .name = name };

	install_say(ic->opts, &n);
}

static int
install_journal_dir(void *ctx, enum dirs_log kind, const char *path,
    const struct timespec *times, int fd)
{
	if (kind == DIRS_LOG_ASIDE)
		return journal_aside(ctx, path);
	if (kind == DIRS_LOG_USE)
		return journal_use(ctx, fd);
	return journal_dir(ctx, path, kind == DIRS_LOG_FOUND ? times : NULL,
	    fd);
}

/* A dry run's verdict on one path. */
static void
install_plan_note(void *ctx, enum plan_verdict v, const char *path,
    const char *detail)
{
	struct install_ctx *ic = ctx;
	struct install_note n = { .event = INSTALL_PLAN, .pkg = ic->pkg,
	    .path = path, .msg = detail, .verdict = v };

	install_say(ic->opts, &n);
}

/*
 * The end of a dry run, where a run prepares its commit: dpkg's database
 * staged (it refuses what the run would), the old versions' paths planned
 * as the run plans them, and their verdicts told.  install_abort follows.
 */
static int
install_plan_end(struct install *in, struct dbp_error *err)
{
	int r;

	if ((in->db != NULL && (r = dpkgdb_prepare(in->db, err)) != 0) ||
	    (r = obsolete_plan(in->ob, in->man, in->dirs, NULL, err)) != 0)
		return r;
	obsolete_verdicts(in->ob, in->dirs, install_plan_note, &in->ic);
	return 0;
}

/* dpkgdb_shipped_fn on the manifest (CTX): the paths the run installs. */
static bool
install_shipped(void *ctx, size_t dir, const char *name)
{
	return manifest_find(ctx, dir, name) != NULL;
}

/*
 * Open the root, repair what an interrupted run left, and set up the
 * run's pieces: the directory table, the batch (its strategy judged on
 * the root), the journal, the records and dpkg's database, locked.
 * Nothing of the root changes before the journal names it: the merged
 * /usr links come last.  -errno with ERR; once IN->undoable, a failure
 * is to be undone by install_abort.
 */
static int
install_open(struct install *in, char *const *files, size_t nfiles,
    unsigned jobs, struct dbp_error *err)
{
	const struct install_opts *o = in->o;
	struct unpack_opts uo;
	size_t maxfiles, maxdirs;
	const char *arch;
	bool merge;
	int r;

	memset(&uo, 0, sizeof(uo));
	uo.chown = geteuid() == 0;
	/* In a user namespace root may chown, not mknod a device. */
	uo.devices = geteuid() == 0 && users_initial_ns();
	uo.skip_devices = o->skip_devices;
	uo.force_overwrite = o->force_overwrite;
	uo.dpkg_words = o->dpkg_db;
	uo.dpkg_dist = o->dpkg_dist;
	uo.dpkg_new = o->dpkg_new;
	uo.stop = o->stop;
	uo.warn = install_warn;
	uo.warn_ctx = &in->ic;
	uo.plan = o->dry_run ? install_plan_note : NULL;
	uo.nowrite = o->dry_run;
	uo.removing = o->removing;
	uo.nremoving = o->nremoving;

	if ((r = rootfs_open(&in->rf, o->root, err)) != 0 ||
	    (o->dpkg_admindir != NULL && (r = rootfs_open_dpkg(&in->rf,
	    o->dpkg_admindir, err)) != 0))
		return r;
	if (o->force_walk)
		rootfs_force_walk(&in->rf);
	/* A dry run repairs nothing: install_stale tells of the journal. */
	if ((!o->dry_run && (r = install_recover(o, &in->rf, true,
	    err)) != 0) ||
	    (r = usrmerge_wanted(o->usrmerge, in->rf.fd, files, nfiles, &merge,
	    &arch, err)) != 0)
		return r;
	if (uo.chown && (r = users_load(&in->users, &in->rf)) != 0)
		return dbp_err(err, -r, "etc/passwd", "cannot read users");
	/* The store's delayed clones (STORE_FILL_DELAY) hold some too. */
	install_fd_budget(&maxfiles, &maxdirs, jobs + (o->cache != NULL &&
	    !o->dry_run ? STORE_FILL_DELAY : 0));
	/* "auto" follows the filesystem of the root (syncbatch.c). */
	if ((r = dirs_new(&in->dirs, &in->rf, maxdirs)) != 0 ||
	    (r = syncbatch_new(&in->sb, o->dry_run ? "none" : o->mode,
	    in->rf.fd, in->dirs, in->st,
	    maxfiles)) != 0 ||
	    (r = journal_new(&in->j, syncbatch_durable(in->sb), in->st)) != 0 ||
	    (r = manifest_new(&in->man)) != 0 ||
	    (r = obsolete_new(&in->ob)) != 0 ||
	    (r = unpack_new(&in->u, &uo, in->dirs, in->sb, in->man, in->users,
	    in->st)) != 0)
		return dbp_err(err, -r, NULL, "cannot start");
	dirs_set_top_name(in->dirs, o->root);
	/* The databases' directories: not the tree (syncbatch_sync_cleanup). */
	if ((o->admindir == NULL &&
	    (r = dirs_set_admin(in->dirs, ADMIN_DIR_DEFAULT)) != 0) ||
	    (o->dpkg_db && (r = dirs_set_admin(in->dirs, DPKGDB_DIR)) != 0))
		return dbp_err(err, -r, NULL, "cannot start");
	unpack_set_filters(in->u, o->filters);
	/* A repair must find dpkg's database where this run keeps it. */
	if (in->rf.dpkg && (r = journal_dpkgdir(in->j, in->rf.dpkgdir)) != 0)
		return dbp_err(err, -r, in->rf.dpkgdir, "cannot open dpkg's"
		    " database directory");
	/*
	 * A dry run makes nothing: its directories are planned, it keeps no
	 * journal, and there is nothing to undo (install_run).
	 */
	if (o->dry_run)
		dirs_set_plan(in->dirs);
	else {
		/* Every directory the run touches is in the journal first. */
		dirs_set_log(in->dirs, install_journal_dir, in->j);
		syncbatch_set_journal(in->sb, in->j);
		in->undoable = true;
	}
	if ((r = install_admindir(o, &in->rf, in->dirs, in->sb, in->man,
	    in->st, err)) != 0 ||
	    (r = manifest_lock(in->man, o->dry_run, err)) != 0 ||
	    (r = install_stale(in, err)) != 0 ||
	    (r = install_diversions(in, err)) != 0 ||
	    (r = install_statoverrides(in, err)) != 0 ||
	    (o->dry_run && (r = install_no_pending(in, err)) != 0) ||
	    (!o->dry_run && (r = journal_open(in->j,
	    manifest_admin_fd(in->man), admin_name(o->admindir), err)) != 0) ||
	    (r = manifest_load_installed(in->man, err)) != 0 ||
	    (merge && (r = usrmerge_make(&in->um, in->dirs, in->j, arch,
	    err)) != 0))
		return r;
	if (!o->dpkg_db)
		return 0;
	if ((r = dpkgdb_new(&in->db)) != 0)
		return dbp_err(err, -r, NULL, "cannot start");
	return dpkgdb_open(in->db, in->dirs, in->sb, manifest_records(in->man),
	    install_shipped, in->man, o->force_overwrite, err);
}

/* A package named for removal that has nothing to remove. */
static void
install_remove_warn(void *ctx, const char *name, const char *msg)
{
	struct install_ctx *ic = ctx;
	struct install_note n = { .event = INSTALL_WARN };
	char buf[512];

	snprintf(buf, sizeof(buf), "ignoring '%s': %s", name, msg);
	n.msg = buf;
	install_say(ic->opts, &n);
}

/*
 * Stage the removal of the packages NAMES (N), each told, into the batch
 * in place of an extraction: what goes is planned at the commit, with
 * the old versions' paths (obsolete_plan).
 */
static int
install_removals(struct install *in, char *const *names, size_t n,
    struct dbp_error *err)
{
	struct remove_opts ro = in->o->rm;
	struct record *rec;
	size_t i;
	int r;

	ro.warn = install_remove_warn;
	ro.ctx = &in->ic;
	if ((r = remove_stage(&ro, in->man, in->ob, in->db, in->rf.fd, names,
	    n, err)) != 0)
		return r;
	for (i = 0; i < manifest_nstaged(in->man) +
	    manifest_ndropped(in->man); i++) {
		struct install_note note = { .event = INSTALL_REMOVING,
		    .path = ro.purge ? "purge" : "remove" };

		rec = i < manifest_nstaged(in->man) ? manifest_staged(in->man,
		    i) : manifest_dropped(in->man, i -
		    manifest_nstaged(in->man));
		note.name = control_get(rec->ctl, "Package");
		note.old_version = control_get(rec->ctl, "Version");
		note.msg = i < manifest_nstaged(in->man) ? "config-files" :
		    "not-installed";
		install_say(in->o, &note);
		in->st->packages++;
	}
	return 0;
}

/*
 * Packages that lost every file to the run's (Replaces, a moved
 * conffile) disappear, as dpkg makes them: their records and dpkg's
 * stanzas go in this batch, told (before it: --maintscripts keeps their
 * postrm, for "postrm disappear" after the commit).
 */
static int
install_disappear(struct install *in, struct dbp_error *err)
{
	struct install_note n = { .event = INSTALL_DISAPPEARS };
	struct record *staged, *inst, *gone;
	const char *name;
	char buf[512];
	size_t i = 0;
	int r;

	while ((name = manifest_disappearing(in->man, &i, &staged,
	    &inst)) != NULL) {
		size_t k;

		/* A conflictor is removed after the run, not disappeared. */
		for (k = 0; k < in->o->nremoving &&
		    strcmp(in->o->removing[k], name) != 0; k++)
			;
		/* Nor a package of which only conffiles are left (dpkg's). */
		if (k < in->o->nremoving || record_config_files(inst != NULL ?
		    inst : staged))
			continue;
		if ((r = record_new_like(&gone, inst != NULL ? inst : staged,
		    NULL)) != 0 ||
		    (r = manifest_drop(in->man, gone)) != 0)
			return dbp_err(err, -r, "", "cannot drop '%s'", name);
		if (staged != NULL)
			staged->gone = true;
		if (in->db != NULL && (r = dpkgdb_disappear(in->db, staged,
		    gone, err)) != 0)
			return r;
		snprintf(buf, sizeof(buf), "'%s' disappears: every file of"
		    " it is another package's now", name);
		n.msg = buf;
		n.name = name;
		n.ctl = (inst != NULL ? inst : staged)->ctl;
		install_say(in->o, &n);
	}
	return 0;
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
static int
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
	    o->cache_max_size, o->cache_verify, in->rf.fd, files, nfiles,
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
	if (feed != early)
		feed_free(feed);
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

/* The store's entries filled by the run made visible; SYNCED as store_commit. */
static void
install_store_commit(struct install *in, bool synced)
{
	if (in->store == NULL)
		return;
	store_commit(in->store, synced);
	store_close(in->store);
	in->store = NULL;
}

/*
 * Every rename to come in the journal, durable with the directory lines
 * no later than the temporaries' names (else a power cut could keep
 * names no durable journal lists: syncbatch_rename syncs it first, or
 * its data barrier carries it); data durable before the first rename.
 * Files first, then the records that describe them; then the obsolete
 * paths are planned.
 * The names are made durable by install_commit.  A failure here is
 * undone by install_abort.
 */
static int
install_prepare(struct install *in, struct dbp_error *err)
{
	bool covered;
	int r;

	install_phase(in->o, INSTALL_SYNCING);
	covered = in->store != NULL &&
	    syncbatch_cover(in->sb, store_dirfd(in->store)) == 1;
	if ((in->db != NULL && (r = dpkgdb_prepare(in->db, err)) != 0) ||
	    (r = syncbatch_prepare(in->sb, in->j, JOURNAL_ROOT, err)) != 0 ||
	    (r = manifest_prepare(in->man, in->j, err)) != 0 ||
	    (r = syncbatch_rename(in->sb, err)) != 0)
		return r;
	/* The store's contents are durable with the data: its entries now. */
	install_store_commit(in, covered);
	/* The data is durable and the files renamed: the records. */
	install_phase(in->o, INSTALL_RENAMING);
	if ((r = manifest_commit(in->man, err)) != 0 ||
	    (r = obsolete_plan(in->ob, in->man, in->dirs, in->j, err)) != 0 ||
	    (in->db != NULL && (r = dpkgdb_plan_obsolete(in->db, in->j,
	    err)) != 0))
		return r;
	return 0;
}

static void install_abort(struct install *in);

/* One barrier makes all the names durable (one syncfs, or fsyncs). */
static int
install_names(struct install *in, struct dbp_error *err)
{
	int r;

	if ((r = syncbatch_sync_dirs(in->sb, err)) != 0)
		return r;
	return manifest_sync(in->man, err);
}

/*
 * The commit point: the "commit" line durable after every name (I4 in
 * recover.c).  Where the names barrier can carry it, the line is written
 * first and that barrier is the commit point: one commit of the file
 * system fewer.  Else the names barrier, then the line and its sync.
 * A failure before the line is written is undone (install_abort); from
 * then on the line may reach the disk, so the run stands, and the next
 * run repairs it one way or the other, from what reached the disk.
 */
static int
install_commit(struct install *in, struct dbp_error *err)
{
	int carries, r;

	if ((carries = r = syncbatch_carries_commit(in->sb, err)) < 0 ||
	    (!carries && (r = install_names(in, err)) != 0) ||
	    (r = journal_commit_line(in->j, err)) != 0) {
		if (!journal_committed(in->j))
			install_abort(in);
		return r;
	}
	if (carries && (r = install_names(in, err)) != 0)
		return r;
	return journal_sync(in->j, err);
}

/*
 * Past the commit point the run stands: the old versions' backups go,
 * then what the old versions had and the new ones do not, so that a
 * crash never loses a file that a committed record still lists; the
 * cleanup durable, the journal goes (a repair would redo it).
 */
static int
install_finish(struct install *in, struct dbp_error *err)
{
	struct install_note n = { .event = INSTALL_WARN };
	bool left;		/* a cleanup step left something behind */
	int r;

	/* Each step runs whatever the one before it gave, in this order. */
	left = syncbatch_finish(in->sb) != 0;
	left |= manifest_finish(in->man) != 0;
	left |= dirs_finish(in->dirs) != 0;
	if (left) {
		n.msg = "some backups (*.debunpack-old) could not be removed";
		install_say(in->o, &n);
	}
	obsolete_remove(in->ob, in->dirs, install_warn, &in->ic);
	if (in->db != NULL)
		dpkgdb_remove_obsolete(in->db, install_warn, &in->ic);
	if ((r = syncbatch_sync_cleanup(in->sb, err)) != 0 ||
	    (r = manifest_drop_records(in->man, err)) != 0 ||
	    (r = journal_end(in->j, false, err)) != 0)
		return r;
	/* Only now: a run that fails drops no record. */
	install_tell_stale(in);
	n.event = INSTALL_COMMITTED;
	n.msg = NULL;
	n.count = manifest_count(in->man);
	n.mode = syncbatch_mode(in->sb);
	install_say(in->o, &n);
	return 0;
}

/* The files stay: a failing script is the package's error, not the run's. */
static int
install_preinsts(struct install *in, struct dbp_error *err)
{
	int r;

	/*
	 * No descriptor of the batch stays open (Linux refuses to run a
	 * file open for writing: syncfs keeps one), nor dpkg's locks: a
	 * preinst may run dpkg-divert, which takes them.
	 */
	syncbatch_close_fds(in->sb);
	dpkgdb_unlock(in->db);
	install_phase(in->o, INSTALL_PREINSTS);
	if ((r = maintscript_dev_setup(in->rf.fd, err)) != 0)
		return r;
	return maintscript_preinsts(in->o->root, in->o->dpkg_admindir,
	    &in->emu, in->db,
	    install_preinst,
	    &in->ic, err);
}

/*
 * Undo a run that failed before its commit point: records first, then
 * files, then the directories this run created (files moved aside for
 * them come back); the journal goes only once all that is undone (else
 * the next run finishes the undo), and last the directories that held
 * it: the admin directory may be new.
 */
static void
install_abort(struct install *in)
{
	struct install_note n = { .event = INSTALL_WARN };
	struct dbp_error ign;
	bool left;

	left = manifest_abort(in->man) != 0;
	left |= syncbatch_abort(in->sb) != 0;
	left |= usrmerge_undo(&in->um, in->dirs) != 0;
	left |= syncbatch_abort_dirs(in->sb) != 0;
	if (left || journal_end(in->j, true, &ign) != 0) {
		n.msg = "cleanup after the error was incomplete; the next run"
		    " repairs it";
		install_say(in->o, &n);
	} else
		/* Now empty: the directories that held the journal. */
		syncbatch_abort_dirs(in->sb);
}

static void
install_close(struct install *in)
{
	install_store_commit(in, false);
	unpack_free(in->u);
	syncbatch_free(in->sb);
	dpkgdb_free(in->db);	/* before the manifest: it holds its records */
	admin_view_close(&in->view);
	obsolete_free(in->ob);	/* before the manifest: it points into it */
	manifest_free(in->man);
	journal_free(in->j);
	dirs_free(in->dirs);
	users_free(in->users);
	dpkgdivert_free(in->divert);	/* after the manifest, which borrowed it */
	dpkgstatov_free(in->statov);
	rootfs_close(&in->rf);
}



int
install_run(const struct install_opts *o, char *const *all, size_t nall,
    struct stats *st, struct dbp_error *err)
{
	struct install in = { .o = o, .ic = { o, NULL }, .st = st,
	    .rf = { .fd = -1 }, .um = { .nmade = 0 } };
	char **files;
	size_t nfiles;
	unsigned jobs;
	int r;

	if (o->remove) {
		/* Names, not files: nothing to read before the run. */
		files = NULL;
		nfiles = 0;
	} else if ((r = pkgfiles_last(o, all, nall, &files, &nfiles,
	    err)) != 0)
		return r;
	jobs = pkgfiles_jobs(o->jobs, files, nfiles);
	/* A root whose scripts cannot run is refused before it is touched. */
	if (o->run_preinst && o->dpkg_db && !o->dry_run &&
	    (r = emulate_judge(&in.emu, o->root, o->architecture, o->emulator,
	    err)) != 0) {
		free(files);
		return r;
	}

	/* The caller's decoding, else this run's own, from here on. */
	if (o->feed == NULL &&
	    (r = install_feed(o, files, nfiles, &in.own_feed)) != 0) {
		free(files);
		return dbp_err(err, -r, NULL, "cannot start threads");
	}

	/*
	 * Open, extract, prepare the commit, commit, finish.  A failure
	 * before the commit point is undone (once the journal exists,
	 * install_abort cleans up whatever was done); one after it stands,
	 * and the next run repairs what is left.
	 */
	if ((r = install_open(&in, files, nfiles, jobs, err)) != 0) {
		if (in.undoable)
			install_abort(&in);
		goto out;
	}
	/* A dry run ends where the commit would be prepared, undone by nature. */
	if ((r = o->remove ? install_removals(&in, all, nall, err) :
	    install_extract(&in, files, nfiles, jobs, err)) != 0 ||
	    (r = install_disappear(&in, err)) != 0 ||
	    (r = o->dry_run ? install_plan_end(&in, err) :
	    install_prepare(&in, err)) != 0 || o->dry_run) {
		if (in.undoable)
			install_abort(&in);
		goto out;
	}
	if ((r = install_commit(&in, err)) != 0)
		goto out;
	if ((r = install_finish(&in, err)) == 0 && o->run_preinst &&
	    in.db != NULL)
		r = install_preinsts(&in, err);
out:
	install_close(&in);
	feed_free(in.own_feed);
	free(files);
	return r;
}
