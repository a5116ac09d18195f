/* SPDX-License-Identifier: MIT */
/* unpackseq: dpkg --unpack's maintainer scripts and states around debunpack's batch. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/dpkgdb.h"
#include "db/dpkgfmt.h"
#include "db/dpkgstatus.h"
#include "db/version.h"
#include "deb/deb.h"
#include "durable/fskind.h"
#include "durable/rootfs.h"
#include "run/feed.h"
#include "run/install.h"
#include "run/maintscript.h"
#include "run/pkgfiles.h"
#include "run/unpackconflict.h"
#include "run/unpackdeps.h"
#include "run/unpackseq.h"
#include "run/unpackseq_int.h"

/*
 * dpkg --unpack runs, for each package in turn: the old prerm, the new
 * preinst, the files, the old postrm (src/main/unpack.c).  debunpack
 * puts the files of all the packages of a call in one batch, made
 * durable by one barrier, so the scripts are grouped around it: every
 * prerm and preinst of a group first, then the batch, then every
 * postrm.  Debian Policy allows it:
 *
 *   - a preinst may rely only on Essential packages and on its
 *     Pre-Depends (§3.5, §7.2), and apt configures Pre-Depends in an
 *     earlier dpkg call; an Essential package works while merely
 *     unpacked, and its old version works until its files are replaced;
 *   - a postrm may rely only on Essential packages (§6.5);
 *   - a prerm runs while its package's files are all there, whatever
 *     the other packages of the call do.
 *
 * So no script of a group can tell whether another package of the group
 * was unpacked before it ran, except where a package of the call is
 * Essential but does not work yet (a first install, or a half-installed
 * one: a preinst after it in the call relies on it, and with dpkg would
 * find it unpacked), or is Pre-Depended on by a later package of the
 * call (which apt does not do, but dpkg would honour the order), or a
 * Multi-Arch: same instance whose pair comes later in the call.  Such a
 * package ends its group: the packages after it form the next group,
 * with a batch of their own, so that their scripts see it unpacked, as
 * with dpkg.  An Essential package whose files are all there works
 * (§3.8: even unpacked and not configured), at its old version until
 * the batch and at its new one after it, so a preinst that relies on it
 * works either way; one that needs its new version must Pre-Depend on
 * it (§3.5), which ends the group above.  Nor does an Essential package
 * with no preinst after it end its group: the prerms before the batch
 * find it working as it was, the postrms after it find it unpacked.
 */

/* Whether a package of [FROM, TO) still to unpack has a preinst. */
static bool
seq_preinst_comes(const struct seq *s, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		if (s->v[i].state == SEQ_TODO &&
		    seq_info(&s->v[i], "preinst") != NULL)
			return true;
	return false;
}

/*
 * Whether P is Essential and does not work before its batch: not
 * installed, or half-installed (its files may be in part there).
 */
static bool
seq_essential_missing(const struct seq_pkg *p)
{
	return p->essential && (!p->upgrade ||
	    strcmp(p->old_state, "half-installed") == 0);
}

/*
 * Whether P, of the group that starts at FROM, must end it (see the top
 * of the file): it is Essential, does not work yet and a later package
 * of the call has a preinst, a later package of the call Pre-Depends on
 * it, it and a later package conflict (unpackconflict.c), or the next
 * one is another Multi-Arch: same instance of a name of the group (dpkg
 * unpacks the second with the first in place: their shared paths are
 * judged against it, and its scripts count it).
 */
static bool
seq_ends_group(const struct seq *s, size_t from, size_t i)
{
	const struct seq_pkg *p = &s->v[i];
	size_t j, l;

	if ((seq_essential_missing(p) && seq_preinst_comes(s, i + 1, s->n)) ||
	    unpackconflict_ends_group(s, i))
		return true;
	if (i + 1 < s->n && s->v[i + 1].ctl != NULL &&
	    dpkgstatus_ma_same(s->v[i + 1].ma))
		for (j = from; j <= i; j++)
			if (s->v[j].ctl != NULL && s->v[j].state == SEQ_TODO &&
			    strcmp(s->v[j].name, s->v[i + 1].name) == 0 &&
			    dpkgstatus_ma_same(s->v[j].ma))
				return true;
	l = strlen(p->name);
	for (j = i + 1; j < s->n; j++) {
		const char *pd = s->v[j].ctl != NULL ?
		    control_get(s->v[j].ctl, "Pre-Depends") : NULL;
		const char *q;

		for (q = pd; q != NULL && (q = strstr(q, p->name)) != NULL;
		    q += l)
			if ((q == pd || strchr(" ,|\t\n", q[-1]) != NULL) &&
			    strchr(" ,|(:\t\n", q[l]) != NULL)
				return true;
	}
	return false;
}

/*
 * The unwind of an upgrade whose prerm ran: the old postinst
 * abort-upgrade NEWVER (dpkg's cu_prermupgrade), the stanza back as it
 * was, or left half-configured when that fails too.
 */
static int
seq_unwind_prerm(struct seq *s, struct seq_pkg *p, struct dbp_error *err)
{
	char msg[512];
	int r;

	if (!p->prerm_ran)
		return 0;
	r = seq_script(s, p, "postinst", "info", "abort-upgrade",
	    dpkgfmt_version(p->version), NULL, msg, sizeof(msg), err);
	if (r < -1)
		return r;
	if (r == -1) {
		seq_say(s, UNPACKSEQ_CLEANUP, p, msg);
		seq_status(s, p, "half-configured");
		return seq_status_one(s, p, seq_stanza(p, NULL, "half-configured"),
		    err);
	}
	seq_status(s, p, p->old_state);
	return seq_status_one(s, p, strdup(p->old_text), err);
}

/*
 * Step 1 of a group: the old prerm upgrade of each upgrade of an
 * installed (configured) version, with dpkg's fallback and unwind.
 */
static int
seq_prerms(struct seq *s, size_t from, size_t to, struct dbp_error *err)
{
	char msg[512];
	size_t i;
	int r;

	for (i = from; i < to; i++) {
		struct seq_pkg *p = &s->v[i];

		if (p->state != SEQ_TODO)
			continue;
		/* dpkg selects what was not wanted (its want, Status' first word). */
		if (p->old_text == NULL || (strstr(p->old_text,
		    "\nStatus: install ") == NULL && strstr(p->old_text,
		    "\nStatus: hold ") == NULL))
			seq_say(s, UNPACKSEQ_SELECTING, p, NULL);
		/* dpkg's checks of its relations come before anything else. */
		if ((r = unpackdeps_seq_check(s, p, err)) < 0)
			return r;
		if (r == 1)
			continue;
		if ((r = unpackconflict_check(s, p, err)) < 0)
			return r;
		if (r == 1)
			continue;
		/* dpkg reads its file lists for the first package it unpacks. */
		if (!s->said_db && s->ninstalled >= 0) {
			struct install_note n = { .event = INSTALL_SEQ,
			    .seq = UNPACKSEQ_DATABASE,
			    .count = (size_t)s->ninstalled };

			s->said_db = true;
			if (s->o->note != NULL)
				s->o->note(s->o->ctx, &n);
		}
		if (p->upgrade && p->old_version != NULL &&
		    strstr(p->old_text, " reinstreq ") == NULL &&
		    strcmp(p->old_state, "half-installed") != 0 &&
		    version_cmp(p->version, p->old_version) < 0) {
			snprintf(msg, sizeof(msg), "warning: downgrading %s"
			    " from %s to %s", p->shown, p->old_version,
			    dpkgfmt_version(p->version));
			seq_say(s, UNPACKSEQ_NOTICE, p, msg);
		}
		seq_say(s, UNPACKSEQ_PREPARING, p, NULL);
		seq_say(s, UNPACKSEQ_PROCESSING, p, NULL);
		/* dpkg runs it over a version that was configured. */
		if (strcmp(p->old_state, "installed") == 0 ||
		    strcmp(p->old_state, "half-configured") == 0 ||
		    strncmp(p->old_state, "triggers-", 9) == 0) {
			if (!unpackdeps_seq_deconfigured(s, p))
				seq_status(s, p, "half-configured");
			p->prerm_ran = true;
			r = seq_fallback(s, p, "prerm", "old", "upgrade",
			    "failed-upgrade", msg, sizeof(msg), err);
			if (r < -1)
				return r;
			if (r == -1) {
				seq_fail(s, p, msg);
				if ((r = seq_unwind_prerm(s, p, err)) != 0)
					return r;
				continue;
			}
			seq_status(s, p, "unpacked");
		}
		/* What it Breaks, after its prerm (dpkg's order). */
		if ((r = unpackdeps_seq_deconfigure(s, p, err)) < 0)
			return r;
		if (r == 1) {
			if ((r = seq_unwind_prerm(s, p, err)) != 0)
				return r;
			continue;
		}
		/* Then the prerms of what it removes in favour. */
		if ((r = unpackconflict_prerms(s, p, msg, sizeof(msg),
		    err)) < -1)
			return r;
		if (r == -1) {
			seq_fail(s, p, msg);
			/* Unwound in the reverse of dpkg's order. */
			if ((r = unpackconflict_unwind(s, p, err)) != 0 ||
			    (r = unpackdeps_seq_undo(s, p, err)) != 0 ||
			    (r = p->prerm_ran ? seq_unwind_prerm(s, p, err) :
			    seq_status_one(s, p, seq_not_installed(p, false),
			    err)) != 0)
				return r;
		}
	}
	return 0;
}

/*
 * Whether anything outside the batch's journal may change the root
 * between step 2 and the batch's commit: a script that ran in step 1
 * (SCRIPTS0: the count before it), or a preinst to come.
 */
static bool
seq_scripted(const struct seq *s, size_t from, size_t to,
    unsigned long scripts0)
{
	return s->scripts != scripts0 || seq_preinst_comes(s, from, to);
}

/*
 * Step 2: every package of the group half-installed in dpkg's status,
 * in one write and one barrier, before any preinst can change anything.
 * Where no script runs before the batch (SCRIPTED false), it is told
 * (apt's status lines) but not written: no script can see it, and the
 * batch's commit moves each package from its old stanza to "unpacked"
 * at once; a power cut or a failure before it leaves the old stanza
 * with the old files, a state durable dpkg passes through too.  Two
 * commits of the file system fewer per group.
 */
static int
seq_half_installed(struct seq *s, size_t from, size_t to, bool scripted,
    struct dbp_error *err)
{
	struct seq_pkg **pv;
	char **tv;
	size_t i, n = 0;
	int r = 0;

	if (!scripted) {
		for (i = from; i < to; i++)
			if (s->v[i].state == SEQ_TODO)
				seq_status(s, &s->v[i], "half-installed");
		return 0;
	}

	pv = calloc(to - from + 1, sizeof(*pv));
	tv = calloc(to - from + 1, sizeof(*tv));
	for (i = from; pv != NULL && tv != NULL && r == 0 && i < to; i++) {
		if (s->v[i].state != SEQ_TODO)
			continue;
		pv[n] = &s->v[i];
		if ((tv[n++] = seq_stanza(&s->v[i], NULL,
		    "half-installed")) == NULL)
			r = -ENOMEM;
	}
	if (pv == NULL || tv == NULL || r != 0)
		r = dbp_err(err, ENOMEM, NULL, "cannot write status");
	else if (n > 0 && (r = seq_status_write(s, pv, tv, n,
	    !seq_preinst_comes(s, from, to), err)) == 0)
		for (i = 0; i < n; i++)
			seq_status(s, pv[i], "half-installed");
	for (i = 0; tv != NULL && i < n; i++)
		free(tv[i]);
	free(pv);
	free(tv);
	return r;
}

/*
 * Undo P's new version before its files: the new postrm abort-install
 * or abort-upgrade (dpkg's cu_preinst*), the status back, then the
 * prerm's unwind.
 */
static int seq_unwind_before_preinst(struct seq *, struct seq_pkg *,
    struct dbp_error *);

static int
seq_unwind_preinst(struct seq *s, struct seq_pkg *p, struct dbp_error *err)
{
	const char *nv = dpkgfmt_version(p->version);
	char msg[512];
	int r;

	if ((r = seq_ci(s, p, err)) != 0)
		return r;
	if (p->upgrade)
		r = seq_script(s, p, "postrm", "new", "abort-upgrade",
		    p->old_version, nv, msg, sizeof(msg), err);
	else
		r = seq_script(s, p, "postrm", "new", "abort-install",
		    p->old_version != NULL ? p->old_version : NULL,
		    p->old_version != NULL ? nv : NULL, msg, sizeof(msg), err);
	seq_rmdir(s, SEQ_CI);
	if (r < -1)
		return r;
	if (r == -1) {
		/* dpkg leaves it half-installed, to be reinstalled. */
		seq_say(s, UNPACKSEQ_CLEANUP, p, msg);
		return 0;
	}
	return seq_unwind_before_preinst(s, p, err);
}

/*
 * Undo what P's unpack did before its preinst ran, in the reverse of
 * dpkg's order: conflictors' and broken packages' scripts, its prerm's
 * unwind, its status back.
 */
static int
seq_unwind_before_preinst(struct seq *s, struct seq_pkg *p,
    struct dbp_error *err)
{
	int r;

	if ((r = unpackconflict_unwind(s, p, err)) != 0 ||
	    (r = unpackdeps_seq_undo(s, p, err)) != 0)
		return r;
	if (p->prerm_ran) {
		seq_status(s, p, "unpacked");
		return seq_unwind_prerm(s, p, err);
	}
	seq_status(s, p, p->upgrade ? p->old_state : strcmp(p->old_state,
	    "config-files") == 0 ? "config-files" : "not-installed");
	return seq_status_one(s, p, seq_not_installed(p, true), err);
}

/* Copy P's installed postrm aside: the batch replaces info/ with the new. */
static int
seq_keep_postrm(struct seq *s, struct seq_pkg *p, struct dbp_error *err)
{
	int r = seq_keep(s, p->infoname, "postrm", err);

	p->keep_postrm = r == 0;
	return r < 0 ? r : 0;
}

/* Step 3: the new preinsts, each from its control area. */
static int
seq_preinsts(struct seq *s, size_t from, size_t to, struct dbp_error *err)
{
	const char *nv;
	char msg[512];
	size_t i;
	int r;

	for (i = from; i < to; i++) {
		struct seq_pkg *p = &s->v[i];

		if (p->state != SEQ_TODO)
			continue;
		nv = dpkgfmt_version(p->version);
		r = 1;
		if (seq_info(p, "preinst") != NULL) {
			/*
			 * dpkg reads a package's control area before any of
			 * its scripts: one that cannot be written fails the
			 * package alone, with what ran for it undone.
			 */
			if ((r = seq_ci(s, p, err)) != 0) {
				seq_rmdir(s, SEQ_CI);
				seq_fail_err(s, p, err);
				dbp_err_clear(err);
				if ((r = seq_unwind_before_preinst(s, p,
				    err)) != 0)
					return r;
				continue;
			}
			if (p->upgrade)
				r = seq_script(s, p, "preinst", "new",
				    "upgrade", p->old_version, nv, msg,
				    sizeof(msg), err);
			else
				r = seq_script(s, p, "preinst", "new",
				    "install", p->old_version,
				    p->old_version != NULL ? nv : NULL,
				    msg, sizeof(msg), err);
			seq_rmdir(s, SEQ_CI);
		}
		if (r < -1)
			return r;
		if (r == -1) {
			seq_fail(s, p, msg);
			if ((r = seq_unwind_preinst(s, p, err)) != 0)
				return r;
			continue;
		}
		if (p->upgrade && (r = seq_keep_postrm(s, p, err)) != 0)
			return r;
		p->state = SEQ_READY;
		seq_say(s, UNPACKSEQ_UNPACKING, p, NULL);
	}
	return 0;
}

/*
 * Step 4: the batch of the group's ready packages.  A package the batch
 * blames (a file conflict, a damaged archive) fails alone: unwound as
 * after its preinst, and the batch is run again without it, as dpkg
 * goes on with the next package.  Any other error stops the call.
 */
/*
 * The packages of [FROM, TO) the batch does not read (ALL: none now) no
 * longer decoded: the decoding goes on with the next ones.
 */
static void
seq_feed_done(struct seq *s, size_t from, size_t to, bool all)
{
	size_t i;

	for (i = from; s->in.feed != NULL && i < to; i++)
		if (all || s->v[i].state != SEQ_READY)
			feed_done(s->in.feed, i);
}

static int
seq_batch(struct seq *s, size_t from, size_t to, struct dbp_error *err)
{
	struct dbp_error berr;
	char **files, **taking = NULL;
	const char **fresh = NULL;
	struct dpkgdb_pending *pending = NULL;
	size_t i, n, ntaking = 0;
	int r;

	if ((files = calloc(to - from + 1, sizeof(*files))) == NULL ||
	    (fresh = calloc(to - from + 1, sizeof(*fresh))) == NULL ||
	    (pending = calloc(to - from + 1, sizeof(*pending))) == NULL) {
		free(files);
		free(fresh);
		return dbp_err(err, ENOMEM, NULL, "cannot start");
	}
	/* Their half-installed stanzas are this call's, not dpkg's verdict. */
	s->in.fresh = fresh;
	s->in.pending = pending;
	for (;;) {
		struct seq_pkg *blamed = NULL;

		s->in.nfresh = 0;
		for (i = from, n = 0; i < to; i++)
			if (s->v[i].state == SEQ_READY) {
				files[n++] = (char *)s->v[i].file;
				if (strcmp(s->v[i].old_state,
				    "not-installed") == 0)
					fresh[s->in.nfresh++] = s->v[i].name;
			}
		if (n == 0) {
			r = 0;
			break;
		}
		if (seq_hold_back(s, from, to, pending, &s->in.npending) != 0) {
			r = dbp_err(err, ENOMEM, NULL, "cannot start");
			break;
		}
		dbp_err_clear(&berr);
		seq_gone_clear(s);
		seq_repl_load(s, from, to);
		free(taking);
		if (unpackconflict_removing(s, from, to, &taking, &ntaking) != 0) {
			r = dbp_err(err, ENOMEM, NULL, "cannot start");
			break;
		}
		s->in.removing = taking;
		s->in.nremoving = ntaking;
		seq_feed_done(s, from, to, false);
		s->stands = false;
		/*
		 * A status write left to the call: where the filesystem's
		 * journal does not keep it before the batch's renames (one
		 * whose fsync commits only its own changes: btrfs, ext4
		 * with fast commits), the batch commits it first
		 * (seq_status_owes), or on btrfs with them (install.c).
		 */
		s->in.cover_admin = s->owed && !s->ad_fsync_all;
		s->from = from;
		s->to = to;
		r = install_run(&s->in, files, n, s->st, &berr);
		s->in.cover_admin = false;
		/* Undone: what it wrote ahead is not to be (seq_prewrite). */
		if (r != 0 && !s->stands)
			seq_pre_clear(s);
		/*
		 * The cleanup's barrier left to the status write after the
		 * postrms (the held stanzas): the call syncs before it
		 * returns, whether or not that write comes.
		 */
		if (s->stands && s->in.npending > 0)
			s->owed_end = true;
		/* Tried again, a package is decoded by its reader. */
		seq_feed_done(s, from, to, true);
		if (r != 0 && s->stands) {
			/*
			 * Failed past its commit point (a barrier of the
			 * cleanup): the new files are in place, and the next
			 * run finishes what is left.  dpkg, whose files are in
			 * place, goes on to the postrms and says what failed
			 * while cleaning up; so do we, then the call stops.
			 */
			s->late = r;
			s->late_err = berr;
			r = 0;
		}
		if (r == 0) {
			for (i = from; i < to; i++)
				if (s->v[i].state == SEQ_READY)
					s->v[i].state = SEQ_DONE;
			seq_take_held(s, from, to, pending, s->in.npending);
			seq_repl_tell(s);
			break;
		}
		for (i = from; berr.pkg[0] != '\0' && i < to; i++)
			if (s->v[i].state == SEQ_READY &&
			    strcmp(s->v[i].file, berr.pkg) == 0)
				blamed = &s->v[i];
		if (blamed == NULL) {
			/*
			 * The call stops here (the root was left as it was):
			 * the packages whose preinst ran are unwound as
			 * dpkg unwinds the one it was working on.
			 */
			*err = berr;
			for (i = from; i < to; i++) {
				struct dbp_error uerr;

				if (s->v[i].state != SEQ_READY)
					continue;
				s->v[i].state = SEQ_FAILED;
				(void)seq_unwind_preinst(s, &s->v[i], &uerr);
			}
			break;
		}
		seq_fail_err(s, blamed, &berr);
		if ((r = seq_unwind_preinst(s, blamed, err)) != 0)
			break;
	}
	s->in.fresh = NULL;
	s->in.nfresh = 0;
	free(fresh);
	seq_hold_back(s, from, from, pending, &s->in.npending);
	s->in.pending = NULL;
	free(pending);
	s->in.removing = NULL;
	s->in.nremoving = 0;
	free(taking);
	free(files);
	return r;
}

/*
 * Step 5, past the commit: the old postrm upgrade NEWVER, or the new
 * postrm failed-upgrade OLDVER NEWVER.  When both fail dpkg would undo
 * the unpack, putting the old files back; this run's are committed, so
 * the package is left half-installed and reinstreq, to be installed
 * again, and fails.
 */
static int
seq_postrms(struct seq *s, size_t from, size_t to, struct dbp_error *err)
{
	char msg[512];
	size_t i;
	int r;

	for (i = from; i < to; i++) {
		struct seq_pkg *p = &s->v[i];

		if (p->state != SEQ_DONE)
			continue;
		/* Without an old postrm, dpkg runs no new one either. */
		if (p->upgrade && p->keep_postrm) {
			r = seq_fallback(s, p, "postrm", "kept", "upgrade",
			    "failed-upgrade", msg, sizeof(msg), err);
			seq_rmdir(s, SEQ_CI);
			if (r < -1)
				return r;
			if (r == -1) {
				char *now = seq_current(s, p);

				seq_fail(s, p, msg);
				seq_status(s, p, "half-installed");
				r = seq_status_one(s, p, seq_stanza(p, now,
				    "half-installed"), err);
				free(now);
				if (r != 0)
					return r;
				continue;
			}
		}
		if (!seq_postrm_after(p))
			seq_status(s, p, "unpacked");
	}
	return 0;
}

static void
seq_free(struct seq *s)
{
	size_t i;

	for (i = 0; s->v != NULL && i < s->n; i++) {
		struct seq_pkg *p = &s->v[i];

		unpackdeps_seq_free(p);
		control_free(p->ctl);
		deb_info_free(p->info, p->ninfo);
		free(p->infoname);
		free(p->old_text);
		free(p->old_version);
		free(p->old_cversion);
		free(p->held);
		unpackconflict_free(p);
	}
	if (s->st != NULL)
		s->st->ahead += feed_ahead_count(s->in.feed);
	feed_free(s->in.feed);
	free(s->v);
	free(s->running);
	free(s->native);
	seq_gone_clear(s);
	seq_repl_clear(s);
	seq_pre_clear(s);
	if (s->adfd >= 0)
		close(s->adfd);
	rootfs_close(&s->rf);
}

int
unpackseq_run(const struct install_opts *o, char *const *all, size_t nall,
    struct stats *st, unsigned *failed, struct dbp_error *err)
{
	struct seq s = { .o = o, .st = st, .rf = { .fd = -1 }, .adfd = -1 };
	char **files = NULL;
	size_t nfiles = 0, i, from;
	unsigned long scripts0;
	int r;

	*failed = 0;
	s.in = *o;
	s.in.dpkg_db = true;
	s.in.run_preinst = false;
	s.in.note = seq_note;
	s.in.ctx = &s;
	/* One commit for the call's batches, not two for each (seq_settle). */
	s.in.defer_end = true;
	/* Each package is read twice: its control area, then the batch. */
	for (i = 0; i < nall; i++)
		if (strcmp(all[i], "-") == 0)
			return dbp_err(err, 0, "-", "a package on standard input"
			    " cannot be unpacked with --maintscripts: give its"
			    " file");
	if ((r = pkgfiles_last(o, all, nall, &files, &nfiles, err)) != 0)
		return r;
	if (realpath(o->root, s.root) == NULL) {
		free(files);
		return dbp_err(err, errno, o->root, "cannot open root");
	}
	/* A root whose scripts cannot run is refused before it is touched. */
	if (!o->script_chrootless && (r = emulate_judge(&s.emu, s.root,
	    o->architecture, o->emulator, err)) != 0) {
		free(files);
		return r;
	}
	if ((r = rootfs_open(&s.rf, s.root, err)) != 0 ||
	    (o->dpkg_admindir != NULL && (r = rootfs_open_dpkg(&s.rf,
	    o->dpkg_admindir, err)) != 0))
		goto out;
	/* dpkg's database, made as --dpkg-db makes it for a new root. */
	if (o->dpkg_admindir == NULL) {
		(void)mkdirat(s.rf.fd, "var", 0755);
		(void)mkdirat(s.rf.fd, "var/lib", 0755);
		(void)mkdirat(s.rf.fd, SEQ_ADMIN, 0755);
	}
	if ((s.adfd = rootfs_resolve(&s.rf, SEQ_ADMIN, O_RDONLY |
	    O_DIRECTORY)) < 0) {
		r = dbp_err(err, -s.adfd, SEQ_ADMIN, "cannot open");
		goto out;
	}
	/* Judged once: each status write and batch asks. */
	s.ad_syncfs = fskind_sync(s.adfd) == FSKIND_SYNCFS;
	s.ad_fsync_all = fskind_fsync_commits_all(s.adfd);
	s.ad_order = fskind_writeback_orders(s.adfd);
	/* Not with --sync-mode none, where no syncfs comes to commit it. */
	s.ad_settle = s.ad_syncfs && fskind_settles(s.adfd) &&
	    (s.in.mode == NULL || strcmp(s.in.mode, "none") != 0);
	if ((s.v = calloc(nfiles + 1, sizeof(*s.v))) == NULL) {
		r = dbp_err(err, ENOMEM, NULL, "cannot start");
		goto out;
	}
	s.n = nfiles;
	for (i = 0; i < nfiles; i++)
		s.v[i].file = files[i];
	/* What an interrupted call left aside is of no use now. */
	seq_rmdir(&s, SEQ_CI);
	seq_rmdir(&s, SEQ_OLD);
	/*
	 * Decoding from here on, beside the reading of the database and the
	 * scripts (install_feed); each batch takes its packages by name.
	 */
	if ((r = install_feed(&s.in, files, nfiles, &s.in.feed)) != 0) {
		r = dbp_err(err, -r, NULL, "cannot start threads");
		goto out;
	}
	if ((r = seq_load(&s, err)) != 0)
		goto out;
	/*
	 * The grouping: every prerm and preinst of [FROM, I), one batch, then
	 * every postrm.  Policy lets no preinst or postrm rely on another
	 * package of the group being unpacked or not (the argument at the
	 * top of this file); where one may (an Essential package not yet
	 * there with a preinst after it, or one a later package
	 * Pre-Depends on), the group ends with it, and the next group sees
	 * it unpacked, in dpkg's order.
	 */
	for (from = 0; r == 0 && from < s.n; from = i) {
		for (i = from; i < s.n; i++)
			if (s.v[i].state == SEQ_TODO &&
			    seq_ends_group(&s, from, i)) {
				i++;
				break;
			}
		scripts0 = s.scripts;
		if ((r = seq_prerms(&s, from, i, err)) != 0 ||
		    (r = seq_half_installed(&s, from, i, seq_scripted(&s,
		    from, i, scripts0), err)) != 0 ||
		    (r = seq_preinsts(&s, from, i, err)) != 0 ||
		    (r = seq_batch(&s, from, i, err)) != 0 ||
		    (r = seq_postrms(&s, from, i, err)) != 0 ||
		    (r = seq_disappear(&s, from, i, err)) != 0 ||
		    (r = unpackconflict_remove(&s, from, i, err)) != 0 ||
		    (r = seq_unpacked(&s, from, i, err)) != 0)
			break;
		if (s.late != 0) {
			/* The group is done as dpkg would; the call stops. */
			*err = s.late_err;
			r = s.late;
		}
	}
	*failed = s.failed;
out:
	/* The call's changes durable before it says it is done. */
	if (s.owed || s.owed_end) {
		struct dbp_error serr;
		int sr;

		dbp_err_clear(&serr);
		if ((sr = seq_settle(&s, true, &serr)) != 0 && r == 0) {
			*err = serr;
			r = sr;
		}
	}
	if (s.adfd >= 0) {
		seq_rmdir(&s, SEQ_CI);
		seq_rmdir(&s, SEQ_OLD);
	}
	seq_free(&s);
	free(files);
	return r;
}
