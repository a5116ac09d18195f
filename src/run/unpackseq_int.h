/* SPDX-License-Identifier: MIT */
/* unpackseq's state, which unpackseq.c and its unpackseq_*.c share. */
#ifndef DEBUNPACK_UNPACKSEQ_INT_H
#define DEBUNPACK_UNPACKSEQ_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "db/dpkgdb.h"
#include "db/dpkgstatus.h"
#include "deb/control.h"
#include "deb/deb.h"
#include "durable/rootfs.h"
#include "run/emulate.h"
#include "run/install.h"
#include "util/error.h"
#include "util/stats.h"

#define SEQ_ADMIN	DPKGDB_DIR
#define SEQ_CI		"tmp.ci"		/* dpkg's name for it */
#define SEQ_OLD		"tmp.debunpack-old"	/* old postrms, kept */

enum seq_state {
	SEQ_TODO,	/* not yet run */
	SEQ_FAILED,	/* failed, unwound as dpkg unwinds it */
	SEQ_READY,	/* its preinst ran: into the batch */
	SEQ_DONE,	/* committed */
};

struct seq_pkg {
	const char *file;
	struct control *ctl;
	const char *name, *arch, *ma, *version;	/* owned by CTL */
	char *infoname;		/* info/ file stem */
	char shown[256];	/* as dpkg names it: NAME[:ARCH] */
	struct deb_info *info;
	size_t ninfo;
	bool essential;
	/* Installed instances of its name of other architectures. */
	unsigned others;
	/* Before the call: its stanza verbatim, its state, its version. */
	char *old_text;
	char *old_version;	/* as dpkg prints it, or NULL */
	char *old_cversion;
	const char *old_state;	/* static: "installed", ..., "not-installed" */
	bool upgrade;		/* an old version's files are there */
	bool prerm_ran;
	bool keep_postrm;	/* its old postrm copied aside */
	char *held;		/* its new stanza, held back until its
				   old postrm ran (seq_unpacked) */
	/* What it Breaks, deconfigured first (unpackseq_deps.c) */
	struct unpackdeps_deconf *deconf;
	size_t ndeconf;
	enum seq_state state;
	/* unpackconflict.c: the installed packages it removes in favour */
	struct seq_pkg *cf;
	size_t ncf;
	bool unwound;		/* a conflictor: its prerm's unwind ran */
};

/* A package the batch makes disappear: its postrm and list kept aside. */
struct seq_gone {
	char *name, *arch, *infoname, *version;
	char shown[256];
	bool postrm;		/* SEQ_OLD/INFONAME.postrm is there */
	char *list;		/* its file list, or NULL */
};

/* A package a package of the call Replaces: its file list before the batch. */
struct seq_repl {
	size_t by;		/* the replacing package, in seq.v */
	char shown[256];
	char *version, *list;
};

struct seq {
	const struct install_opts *o;
	struct install_opts in;	/* the batches' options */
	struct stats *st;
	char root[PATH_MAX];
	struct rootfs rf;
	int adfd;		/* ROOT/var/lib/dpkg */
	bool ad_syncfs;		/* syncfs trusted there (fskind_sync) */
	bool ad_fsync_all;	/* one fsync there commits everything
				   (fskind_fsync_commits_all) */
	bool ad_order;		/* a file written back is ordered before
				   later changes (fskind_writeback_orders) */
	bool ad_settle;		/* ... once settled, where syncfs is
				   trusted (fskind_settles: btrfs) and the
				   mode is not none */
	char *running;		/* the root's dpkg version, or NULL */
	/*
	 * The root's dpkg architecture, read once a call and given to its
	 * batches (s->in.architecture): the dpkg a call stands for has
	 * its own built in, whatever the call installs.
	 */
	char *native;
	struct seq_pkg *v;
	size_t n;
	unsigned failed;
	long ninstalled;	/* paths dpkg's file lists hold, or -1 */
	struct seq_repl *repl;	/* what the batch's packages replace */
	size_t nrepl;
	struct seq_gone *gone;	/* the batch's disappearing packages */
	size_t ngone;
	bool said_db;		/* the count was told */
	unsigned long scripts;	/* maintainer scripts run so far */
	struct emulate emu;	/* how the chrooted scripts run */
	bool stands;		/* the batch passed its commit point */
	bool owed;		/* a batch left its commit to seq_settle, or a
				   write of dpkg's status its rename */
	bool owed_end;		/* a batch left its cleanup's barrier to the
				   call's last sync */
	int late;		/* it failed after that: -errno, LATE_ERR */
	struct dbp_error late_err;
	size_t from, to;	/* the group the batch runs */
	/*
	 * The stanzas seq_unpacked writes, written ahead into status-new
	 * (seq_prewrite): over BASE (BLEN), dpkg's status as the batch left
	 * it, the stanzas TEXT (copies) of the packages PKG (N of each).
	 */
	struct seq_pre {
		char *base;
		size_t blen;
		struct seq_pkg **pkg;
		char **text;
		size_t n;
		int err;	/* -errno: writing it failed */
	} pre;
};

/*
 * unpackseq_load.c: before any script, every package read, its old state
 * from dpkg's status, the root's dpkg version; a package that cannot be
 * read, or that the root refuses, fails alone.  0, or -errno.
 */
int seq_load(struct seq *s, struct dbp_error *err);

/* unpackseq_say.c: a step told (INSTALL_SEQ), of package P (or NULL). */
void seq_say(struct seq *s, enum unpackseq_step step, const struct seq_pkg *p,
    const char *msg);
/* P's STATE told (dpkg's "status:" line). */
void seq_status(struct seq *s, const struct seq_pkg *p, const char *state);
/* P failed: MSG (dpkg's words) told, the failure counted. */
void seq_fail(struct seq *s, struct seq_pkg *p, const char *msg);
/* P failed of error E ("'PATH': MSG: CAUSE"), told and counted. */
void seq_fail_err(struct seq *s, struct seq_pkg *p, const struct dbp_error *e);

/*
 * unpackseq_status.c: the commit a batch or a write of dpkg's status
 * left to the call (OWED), made before a script runs; with END, also
 * the cleanup a batch left (OWED_END), before the call returns.  0, or
 * -errno with ERR set.
 */
int seq_settle(struct seq *s, bool end, struct dbp_error *err);

/* unpackseq_status.c: dpkg's status file. */
int seq_status_write(struct seq *s, struct seq_pkg *const *p,
    char *const *text, size_t n, bool carried, struct dbp_error *err);
/*
 * The write seq_unpacked will make, made ahead while the batch's names
 * barrier is to come (INSTALL_NAMING), from S->in.pending; forgotten.
 */
void seq_prewrite(struct seq *s);
void seq_pre_clear(struct seq *s);
char *seq_stanza(const struct seq_pkg *p, const char *base,
    const char *state);
char *seq_current(struct seq *s, const struct seq_pkg *p);
char *seq_not_installed(const struct seq_pkg *p, bool written);
int seq_status_one(struct seq *s, struct seq_pkg *p, char *text,
    struct dbp_error *err);
long seq_count_files(struct seq *s, const struct dpkgstatus *st);
int seq_old(struct seq_pkg *p, struct dpkgstatus *s);
/*
 * The installed instances (any state but not-installed) of NAME in S,
 * but those of arch BUT (NULL: all): what dpkg counts for REFCOUNT.
 */
unsigned seq_instances(const struct dpkgstatus *s, const char *name,
    const char *but);
/* P->others from S: its name's instances of other architectures. */
void seq_count_others(struct seq_pkg *p, const struct dpkgstatus *s);

/*
 * unpackseq_held.c: whether P's old postrm runs after the batch (its new
 * stanza then held back); the held stanzas of [FROM, TO)'s ready
 * packages into V (*N, what V held before freed; 0 or -ENOMEM); taken
 * by their committed packages; written once the postrms ran.
 */
bool seq_postrm_after(const struct seq_pkg *p);
int seq_hold_back(struct seq *s, size_t from, size_t to,
    struct dpkgdb_pending *v, size_t *n);
void seq_take_held(struct seq *s, size_t from, size_t to,
    struct dpkgdb_pending *v, size_t n);
int seq_unpacked(struct seq *s, size_t from, size_t to, struct dbp_error *err);

/* unpackseq_script.c: control areas, kept scripts, running them. */
void seq_rmdir(struct seq *s, const char *name);
int seq_ci(struct seq *s, struct seq_pkg *p, struct dbp_error *err);
const struct deb_info *seq_info(const struct seq_pkg *p, const char *name);
int seq_script(struct seq *s, struct seq_pkg *p, const char *script,
    const char *where, const char *a1, const char *a2, const char *a3,
    char *msg, size_t msglen, struct dbp_error *err);
int seq_script4(struct seq *s, struct seq_pkg *p, const char *script,
    const char *where, const char *a1, const char *a2, const char *a3,
    const char *a4, char *msg, size_t msglen, struct dbp_error *err);
int seq_fallback(struct seq *s, struct seq_pkg *p, const char *script,
    const char *old_where, const char *ifok, const char *iffallback,
    char *msg, size_t msglen, struct dbp_error *err);
int seq_keep(struct seq *s, const char *infoname, const char *what,
    struct dbp_error *err);

/* unpackseq_gone.c: what the batch takes from packages outside it. */
void seq_note(void *ctx, const struct install_note *n);
void seq_gone_clear(struct seq *s);
int seq_disappear(struct seq *s, size_t from, size_t to,
    struct dbp_error *err);
void seq_repl_clear(struct seq *s);
void seq_repl_load(struct seq *s, size_t from, size_t to);
void seq_repl_tell(struct seq *s);

#endif
