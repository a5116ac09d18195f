/* SPDX-License-Identifier: MIT */
/* install: one run that puts packages into a root, from the first write to the commit. */
#ifndef DEBUNPACK_INSTALL_H
#define DEBUNPACK_INSTALL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "deb/control.h"
#include "util/error.h"
#include "util/plan.h"
#include "durable/recover.h"
#include "run/remove.h"
#include "durable/rootfs.h"
#include "util/stats.h"

struct pathfilter;
#include "run/usrmerge.h"

/* What a run tells its caller, who decides what the user sees. */
enum install_event {
	INSTALL_UNPACKING,	/* PKG's data comes next; CTL is its control */
	INSTALL_WARN_PATH,	/* PATH of PKG (either may be NULL): MSG */
	INSTALL_WARN,		/* MSG, about the run as a whole */
	INSTALL_REPAIRED,	/* an interrupted run was repaired: REPAIR */
	INSTALL_COMMITTED,	/* COUNT paths committed with sync mode MODE */
	INSTALL_EXTRACTED,	/* PKG's data is written; BYTES in the run so far;
				   with --cache, MSG: how ("cloned from the
				   cache"...), COUNT: the bytes not decoded */
	INSTALL_PHASE,		/* the run enters PHASE */
	INSTALL_PREINST,	/* the preinst of package NAME runs next */
	INSTALL_PLAN,		/* a dry run's VERDICT on PATH (MSG: its detail,
				   or NULL; plan.h) */
	INSTALL_SUPERSEDED,	/* PKG, package NAME version MSG, is left out:
				   PATH, version OLD_VERSION's file, comes
				   later on the command line */
	INSTALL_EXPECTED,	/* the packages' Installed-Size adds up to
				   BYTES, before the first is unpacked */
	INSTALL_REMOVING,	/* package NAME, version OLD_VERSION, is
				   removed (PATH "remove") or purged
				   ("purge"), to state MSG: "config-files"
				   or "not-installed" */
	INSTALL_DISAPPEARS,	/* package NAME (control CTL), every file of
				   it another's now, goes in this batch
				   (MSG: that, in words), its dpkg info
				   files still there */
	INSTALL_SEQ,		/* --maintscripts (unpackseq.h): step SEQ of
				   package NAME, file PKG, version VERSION
				   (over OLD_VERSION when UPGRADE) */
	INSTALL_STALE,		/* the run dropped debunpack's record of
				   package NAME: dpkg changed it since
				   (MSG: how); housekeeping, not news */
	INSTALL_STANDS,		/* the run passed its commit point: its
				   files and records stay whatever fails
				   next (the next run repairs the rest) */
	INSTALL_NAMING,		/* every name is made, the barrier that
				   makes them durable comes next: what the
				   caller writes now, that barrier may make
				   durable too */
};

/* The steps of dpkg's --unpack that its front ends see (unpackseq.c). */
enum unpackseq_step {
	UNPACKSEQ_SELECTING,	/* NAME was not installed before */
	UNPACKSEQ_DATABASE,	/* dpkg's file lists hold COUNT paths */
	UNPACKSEQ_PREPARING,	/* PKG is next */
	UNPACKSEQ_PROCESSING,	/* dpkg's "processing:" line */
	UNPACKSEQ_STATUS,	/* NAME's state is now MSG */
	UNPACKSEQ_UNPACKING,	/* NAME's files go in next */
	UNPACKSEQ_FAILED,	/* PKG failed: MSG, dpkg's words */
	UNPACKSEQ_SAY,		/* MSG: a line of dpkg's on its standard
				   output ("Replacing files in old package") */
	UNPACKSEQ_DISAPPEAR,	/* dpkg's "processing: disappear:" line */
	UNPACKSEQ_CLEANUP,	/* undoing PKG failed too: MSG */
	UNPACKSEQ_NOTICE,	/* MSG: dpkg's notices ("trying script
				   from the new package instead ...") */
	UNPACKSEQ_REGARDING,	/* PKG's NAME has a problem with what is
				   installed: MSG, lines ("  x (version 1)
				   is present and installed.") */
	UNPACKSEQ_DETAIL,	/* MSG: a line of the notice before it,
				   as it is ("" a blank one) */
};

/* Where a run is, past the extraction. */
enum install_phase { INSTALL_SYNCING, INSTALL_RENAMING, INSTALL_PREINSTS };

struct dpkgdb_pending;

struct install_note {
	enum install_event event;
	const char *pkg;
	const char *path;
	const char *msg;
	const struct control *ctl;
	const struct recover_result *repair;
	size_t count;
	const char *mode;
	/* UNPACKING, EXTRACTED, PREINST: dpkg's name (NAME:ARCH if M-A: same) */
	const char *name;
	bool upgrade;		/* UNPACKING: a version of it is installed */
	/* UNPACKING: the installed version, if known; SUPERSEDED: the later one */
	const char *old_version;
	unsigned long long bytes;
	enum install_phase phase;
	enum plan_verdict verdict;
	enum unpackseq_step seq;	/* SEQ */
	const char *version;		/* SEQ */
	/* STANDS: the batch's commit is the caller's to make (defer_end) */
	bool deferred;
	/* STANDS: cover_admin was honoured: dpkg's status is committed */
	bool covered;
};

struct feed;

struct install_opts {
	const char *root;
	const char *admindir;	/* NULL: ROOT/ADMIN_DIR_DEFAULT (admin.h) */
	const char *mode;	/* a syncbatch mode, or "auto" */
	unsigned jobs;		/* decompressing threads at most; 1: none */
	size_t feed_budget;	/* threads' memory in all; 0: by jobs */
	/*
	 * Decoding the caller started (install_feed) for the packages of
	 * all its runs, or NULL: each run starts its own.
	 */
	struct feed *feed;
	bool skip_devices;
	bool force_overwrite;
	/*
	 * The root's native architecture (NULL: the host dpkg's), and
	 * whether a package of one the root does not take installs anyway
	 * (dpkgarch.h).
	 */
	const char *architecture;
	bool force_architecture;
	bool arch_judged;	/* the caller judged and told each one already */
	/*
	 * Names of the packages dpkg's status did not have installed before
	 * the call (--maintscripts writes them half-installed, at their new
	 * version, before the batch): a record of one of them describes
	 * files dpkg purged since, whatever the status says now.
	 */
	const char *const *fresh;
	size_t nfresh;
	/*
	 * The packages whose old postrm runs after the batch
	 * (--maintscripts): their new stanzas held back (db/dpkgdb.h).  The
	 * caller then writes dpkg's status after the run and syncs the
	 * filesystem (syncfs) before it returns: where syncfs is trusted,
	 * that sync is the cleanup's barrier too.
	 */
	struct dpkgdb_pending *pending;
	size_t npending;
	/*
	 * The caller syncs the root's filesystem before it runs a script and
	 * before it returns, whenever a batch says so (INSTALL_STANDS's
	 * deferred): where that filesystem keeps its changes in order, the
	 * batches end without a commit of their own (syncbatch_defer_end).
	 */
	bool defer_end;
	/*
	 * The caller's last write of dpkg's status is not committed yet
	 * (its data is synced, its rename not): the batch commits dpkg's
	 * directory's filesystem before its first rename, with its data
	 * barrier where that barrier is a syncfs of it, else by a syncfs of
	 * its own (INSTALL_STANDS's covered).
	 */
	bool cover_admin;
	bool dpkg_dist;		/* kept conffiles' new versions: NAME.dpkg-dist */
	/* conffiles' new versions to NAME.dpkg-new, for dpkg --configure */
	bool dpkg_new;
	bool force_walk;	/* for tests: rootfs_force_walk */
	bool dpkg_db;		/* keep dpkg's database in the root too */
	const char *dpkg_admindir;	/* dpkg's database (rootfs_open_dpkg),
					   NULL: ROOT/var/lib/dpkg */
	enum usrmerge_mode usrmerge;	/* merged-/usr links in a new root */
	bool run_preinst;	/* then run the preinsts (maintscript.h) */
	/* a static qemu-user for a foreign root's scripts (emulate.h) */
	const char *emulator;
	/* --path-exclude, --path-include (pathfilter.h), or NULL */
	const struct pathfilter *filters;
	/* --maintscripts (unpackseq.h): scripts chrootless, DPKG_FORCE */
	bool script_chrootless;
	const char *dpkg_force;
	/* dpkg's --auto-deconfigure: deconfigure what a package Breaks */
	bool auto_deconfigure;
	/* dpkg's --ignore-depends list (unpackdeps_ignored), or NULL */
	const char *ignore_depends;
	/*
	 * Remove the packages named instead of installing files: RM says
	 * how (remove.h; its warn and ctx are the run's).
	 */
	bool remove;
	struct remove_opts rm;
	/*
	 * --maintscripts: the installed packages removed in favour of the
	 * run's after it (Conflicts), whose paths the run takes silently.
	 */
	char *const *removing;
	size_t nremoving;
	/*
	 * The run up to its commit point, each path's verdict told
	 * (INSTALL_PLAN), then undone: no data written, nothing synced.
	 */
	bool dry_run;
	/*
	 * --cache DIR (store.h): packages found there are cloned, the
	 * others fill it; NULL: none.  Past CACHE_MAX_SIZE bytes (0: no
	 * limit) the least recently used entries go; CACHE_VERIFY: each
	 * content's hash checked before it is cloned.
	 */
	const char *cache;
	unsigned long long cache_max_size;
	bool cache_verify;
	/* Set (by a signal handler) to stop before the commit; may be NULL. */
	volatile sig_atomic_t *stop;
	/* Told what the run does; may be NULL. */
	void (*note)(void *ctx, const struct install_note *n);
	void *ctx;
};

/*
 * Install the N package files FILES into the root as one batch: all of
 * them or, on any error, none (the root is left as it was, or left for
 * the next run to repair when the error came past the commit point).
 * Repairs an interrupted earlier run first.  ST receives the counts.
 * With O->dry_run, the same run is stopped before its commit and undone,
 * every decision it made told: it fails where the run would.
 * 0, or -errno with ERR filled (ERR's package set where one is to blame).
 */
int install_run(const struct install_opts *o, char *const *files, size_t n,
    struct stats *st, struct dbp_error *err);

/*
 * Start decoding the N package files FILES in threads, as install_run
 * would, for a caller that reads the root (and runs scripts) before its
 * runs: *OUT, for O->feed, freed with feed_free; NULL where install_run
 * would not decode ahead (one job, a store, a package that is not a
 * file).  0, or -errno when threads cannot start.
 */
int install_feed(const struct install_opts *o, char *const *files, size_t n,
    struct feed **out);

/*
 * admin_recover on the options' admin directory, telling the note
 * callback what a repair did (INSTALL_REPAIRED).  0 or -errno.
 */
int install_recover(const struct install_opts *o, const struct rootfs *rf,
    bool lock, struct dbp_error *err);

#endif
