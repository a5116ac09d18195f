/* SPDX-License-Identifier: MIT */
/* install: one run that puts packages into a root, from the first write to the commit. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>


#include "db/admin.h"
#include "durable/dirs.h"
#include "db/dpkgdb.h"
#include "db/dpkgdivert.h"
#include "db/dpkgstatov.h"
#include "run/feed.h"
#include "run/install.h"
#include "run/install_int.h"
#include "durable/journal.h"
#include "run/maintscript.h"
#include "manifest.h"
#include "extract/obsolete.h"
#include "run/pkgfiles.h"
#include "store/store.h"
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
 * no more than 8192, a few MiB of kernel memory.  A quarter, up to 256,
 * caches directories; the rest keeps written files open until the
 * commit.  A file closed before it cannot be waited for alone, its
 * writeback errors unseen by a descriptor opened later: the data
 * barrier then syncs the whole filesystem (syncfs.c, syncfs_wait_data),
 * a commit more, where an apt call of a few thousand files (gcc's, perl's
 * modules) would otherwise wait for each.
 */
static void
install_fd_budget(size_t *files, size_t *dirs, unsigned jobs)
{
	struct rlimit rl;
	size_t n = 8192, keep = 16 + jobs;	/* each thread reads a package */

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < n + keep)
		n = rl.rlim_cur > keep + 16 ? (size_t)rl.rlim_cur - keep : 16;
	*dirs = n / 4 < 256 ? n / 4 : 256;
	if (*dirs < 4)
		*dirs = 4;
	*files = n - *dirs > 4 ? n - *dirs : 4;
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
	if (kind == DIRS_LOG_AHEAD)
		return journal_mkdir_ahead(ctx, path);
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
		syncbatch_defer_end(in->sb, o->defer_end);
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
	dpkgdb_set_pending(in->db, o->pending, o->npending);
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
 * The caller's write of dpkg's status, not committed yet (cover_admin),
 * committed before the first rename: by the data barrier, where it
 * syncs that filesystem anyway, else by a syncfs here.  No rename of the
 * batch can then be durable without it, whatever the filesystem (a
 * btrfs log tree makes one directory's names durable alone).  On btrfs,
 * where the status was settled (seq_status_data), with them: the names
 * barrier's commit carries it (syncbatch_cover_settled).
 */
static int
install_cover_admin(struct install *in, struct dbp_error *err)
{
	int fd;

	if (!in->o->cover_admin || in->db == NULL ||
	    (fd = dpkgdb_admin_fd(in->db)) < 0)
		return 0;
	if (syncbatch_cover_settled(in->sb, fd) != 1 &&
	    syncbatch_cover(in->sb, fd) != 1) {
		in->st->calls[SC_SYNCFS]++;
		if (syncfs(fd) != 0)
			return dbp_err(err, errno, NULL,
			    "cannot sync dpkg's database");
	}
	in->covered = true;
	return 0;
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
	/*
	 * Only entries to name ask for it: a hit or no fill leaves it be.
	 * Where the data barrier settles (btrfs), a store filled by clones
	 * of the root's files is settled too, and the names barrier's
	 * commit carries its entries: neither a commit of its own nor a
	 * data barrier that syncs instead of settling.  Asking makes that
	 * barrier commit, which it does on btrfs anyway.
	 */
	covered = in->store != NULL && store_filled(in->store) &&
	    ((syncbatch_cover_settled(in->sb, store_dirfd(in->store)) == 1 &&
	    store_settle(in->store) == 0) ||
	    syncbatch_cover(in->sb, store_dirfd(in->store)) == 1);
	if ((r = install_cover_admin(in, err)) != 0)
		return r;
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
 * system fewer; where the filesystem also keeps its changes in order,
 * the barrier only orders the line before the cleanup, and the commit
 * point is the cleanup's commit, or the caller's (syncfs_leave).  Else
 * the names barrier, then the line and its sync.
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
	int fd, r;

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
	/* The caller's synced write of dpkg's status may carry the cleanup. */
	if (in->o->npending > 0 && in->db != NULL &&
	    (fd = dpkgdb_admin_fd(in->db)) >= 0)
		syncbatch_cleanup_carried(in->sb, fd);
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
	{
		struct install_note n = { .event = INSTALL_NAMING };

		install_say(o, &n);
	}
	r = install_commit(&in, err);
	if (journal_committed(in.j)) {
		/*
		 * Its caller may have run scripts for this batch (the shim):
		 * what fails from here on is reported, never unwound.
		 */
		struct install_note n = { .event = INSTALL_STANDS,
		    .deferred = syncbatch_owed(in.sb),
		    .covered = in.covered };

		install_say(o, &n);
	}
	if (r != 0)
		goto out;
	if ((r = install_finish(&in, err)) == 0 && o->run_preinst &&
	    in.db != NULL)
		r = install_preinsts(&in, err);
out:
	install_close(&in);
	if (st != NULL)
		st->ahead += feed_ahead_count(in.own_feed);
	feed_free(in.own_feed);
	free(files);
	return r;
}
