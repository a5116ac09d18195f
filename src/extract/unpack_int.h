/* SPDX-License-Identifier: MIT */
/*
 * Inside the unpacker: what unpack.c (entries into temporaries) and
 * unpackconf.c (dpkg's rules for conffiles) share.  Not for other modules.
 */
#ifndef DEBUNPACK_EXTRACT_UNPACK_INT_H
#define DEBUNPACK_EXTRACT_UNPACK_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/digest.h"
#include "db/dpkgdivert.h"
#include "db/dpkgstatov.h"
#include "extract/pathfilter.h"
#include "db/record.h"
#include "deb/conffiles.h"
#include "durable/dirs.h"
#include "durable/users.h"
#include "extract/unpackopts.h"
#include "manifest.h"
#include "store/store.h"
#include "syncbatch.h"
#include "util/stats.h"

struct archive_entry;

struct unpack {
	struct unpack_opts opts;
	struct dirs *dirs;
	struct syncbatch *sb;
	struct manifest *man;
	const struct users *users;
	struct stats *st;
	unsigned pkg;
	struct record *rec;	/* the package's record, or NULL */
	struct conffiles *conffiles;	/* the package's, or NULL */
	unsigned long tmpseq;	/* for temporaries of over-long names */
	uid_t uid;		/* owner of the current entry, in the root */
	gid_t gid;
	struct digest *dg;	/* of the file being written */
	struct digest *md5;	/* of a conffile being written, for dpkg */
	bool md5_all;		/* of every regular file (unpack_set_md5_all) */
	struct unpack_held *held;	/* unpack_held's, in no order */
	size_t nheld;
	/* dpkg-divert's diversions (unpack_set_diversions), or NULL */
	const struct dpkgdivert *divert;
	/* dpkg-statoverride's (unpack_set_statoverrides), or NULL */
	const struct dpkgstatov *statov;
	bool statov_hit;	/* one applies to the current entry */
	/* --path-exclude and --path-include (unpack_set_filters), or NULL */
	const struct pathfilter *filter;
	/*
	 * The current entry's path as its package ships it, root-relative,
	 * when a diversion sent it elsewhere; empty otherwise.  What the
	 * package's conffiles and dpkg's database name it by.
	 */
	char from[PATH_MAX];
	/* --cache: the package's store entry being filled, or NULL */
	struct store_fill *fill;
	/*
	 * unpack_stored: the store and its package, whose entry STORED_I
	 * is the current one, and how its contents came (store.h)
	 */
	struct store *store;
	struct store_pkg *stored;
	size_t stored_i;
	enum store_how how;
	bool cloned;		/* the current file was cloned from it */
};

/* The current entry's path as its package ships it: U->from, or PATH. */
static inline const char *
unpack_shipped(const struct unpack *u, const char *path)
{
	return u->from[0] != '\0' ? u->from : path;
}

/*
 * A conffile of one of the run's packages that stays as the user has it
 * (unpack_conffile): nothing of the run is at its path, its new version
 * is beside it or nowhere.  A later package of the run that ships the
 * path finds it here, as it would find a file the run put there.
 */
struct unpack_held {
	size_t dir;
	char *name;		/* the conffile's, in DIR */
	char *aside;		/* its new version's name in DIR, or NULL */
	size_t item;		/* ASIDE's in the batch */
	unsigned pkg;		/* the run's package */
	char *abspath;		/* as that package's record says it */
};

/* Where a non-directory entry goes, and the temporary it is made under. */
struct unpack_target {
	char path[PATH_MAX];	/* root-relative final path */
	const char *record_path;	/* what the record says: path, or orig */
	char orig[PATH_MAX];	/* a kept conffile's path, when path moved */
	const char *name;	/* last component, inside path */
	size_t dir;
	int dfd;
	bool existed;		/* something is at path now */
	char tmp[NAME_MAX + 1];
	size_t item;
	/*
	 * A conffile the package had: its entry in the installed record,
	 * and what unpack_conffile found (UNPACK_CONF_*).
	 */
	const struct record_entry *conf_old;
	int conf;
	/*
	 * Taken over from another package: what its installed version had
	 * here (TAKEN), and the package whose conffile it was before the
	 * run (record_entry's conf_from), or NULL.
	 */
	bool taken;
	struct record_entry taken_entry;	/* path and target unset */
	const char *taken_from;
	const char *conf_from;	/* a conffile's, for its record */
	/*
	 * A path the filters leave out: judged as dpkg judges it, but
	 * nothing changes hands (the owner keeps listing it).
	 */
	bool judge_only;
	/*
	 * Another Multi-Arch: same instance of the package, installed, has
	 * the path too: it stays theirs as well, if what is written is what
	 * is there (unpack_shared_check).  SHARED_FROM: that instance's
	 * record key, at any version (a conffile's hash is its).
	 */
	bool shared;
	const char *shared_from;
	/* a conffile: that instance's entry, which dpkg judges it by */
	const struct record_entry *shared_old;
};

#define UNPACK_CONF_PLAIN	0	/* written as any file */
#define UNPACK_CONF_KEPT	1	/* the user's kept, the new one beside */
#define UNPACK_CONF_DELETED	2	/* deleted by the user: stays deleted */
#define UNPACK_CONF_UNCHANGED	3	/* as installed: the new one replaces it,
					   unless it is the same (left alone) */
#define UNPACK_CONF_DPKG_NEW	4	/* to NAME.dpkg-new, for dpkg's
					   --configure (unpack_opts' dpkg_new) */
#define UNPACK_CONF_SHARED	5	/* another instance's, at NAME: not
					   written if the same (dpkg_new) */

/*
 * Conffile T's new version is written (its SHA-256 DIGEST, its MD5 when
 * computed, else NULL): drop it again where dpkg writes nothing
 * (unpack_conffile's table), or warn that it went beside the user's.
 */
int unpack_conffile_done(struct unpack *u, struct unpack_target *t,
    const uint8_t digest[DIGEST_LEN], const uint8_t *md5,
    struct dbp_error *err);

/*
 * Send root-relative PATH (a buffer of N) where dpkg-divert's diversions
 * put it for the package being extracted, its own name kept in U->from
 * (empty when it stays).  With CHECK, a diversion's new name is refused.
 * 0 or -errno with ERR.
 */
int unpack_divert(struct unpack *u, char *path, size_t n, bool check,
    struct dbp_error *err);

/*
 * dpkg-statoverride's owner (U->uid, U->gid) and mode (on AE) for PATH,
 * a hard link's too (dpkg sets them on the inode it shares): whether
 * one applies.
 */
bool unpack_statoverride(struct unpack *u, struct archive_entry *ae,
    const char *path);

/*
 * Whether the path filters leave entry AE at PATH out (*OUT), noted in
 * the package's record for dpkg's file list if so.  0 or -errno.
 */
int unpack_filtered(struct unpack *u, struct archive_entry *ae,
    const char *path, bool *out, struct dbp_error *err);

/*
 * Entry T (E: what this run put at its path, H: a conffile held there, or
 * NULL) is a non-directory at a path another package may have, installed
 * or earlier in this run: dpkg's judgment (unpackclaim.c).  0: the
 * entry goes on (T->taken tells what it took over); 1: the owner keeps
 * the path, the entry is left out; -errno with ERR: a conflict.
 */
/*
 * After T, marked shared, was written as KIND (S_IFREG, hardlinks too:
 * its content's DIGEST; S_IFLNK: its TARGET; S_IFIFO; S_IFCHR, S_IFBLK:
 * device RDEV): what is at its path must be the same, as dpkg's
 * tarobject_matches judges it, or dpkg's refusal (with --force-overwrite,
 * its warning).
 */
int unpack_shared_check(struct unpack *u, const struct unpack_target *t,
    mode_t kind, const uint8_t *digest, const char *target, dev_t rdev,
    struct dbp_error *err);

/*
 * Shared PATH differs from the other instances': dpkg's error, or its
 * warning with --force-overwrite (0).
 */
int unpack_shared_differs(struct unpack *u, const char *path,
    struct dbp_error *err);

int unpack_conflict(struct unpack *u, struct unpack_target *t,
    const struct manifest_entry *e, const struct unpack_held *h,
    struct dbp_error *err);

/* Split root-relative PATH into PARENT (a buffer of PATH_MAX) and *NAME. */
void unpack_split(char *path, char *parent, const char **name);

/*
 * T->dir's descriptor into T->dfd: -1 for a dry run's planned directory,
 * which holds nothing yet.
 */
int unpack_target_dir(struct unpack *u, struct unpack_target *t,
    struct dbp_error *err);

/*
 * Whether something is at T->path now (T->existed), and whether it is a
 * directory (*DIR), empty (*EMPTY): on disk, or planned by a dry run.
 */
void unpack_target_find(struct unpack *u, struct unpack_target *t, bool *dir,
    bool *empty);

/*
 * A temporary name already taken is left over from an interrupted run:
 * remove it once (TRIES 0), and say whether to try again.
 */
int unpack_stale(struct unpack_target *t, int tries);

/*
 * Register T's temporary, just made, with the batch and the run's path
 * table as an entry of TYPE (AE_IFREG...), or remove it if that fails;
 * a dry run is told its verdict.
 */
int unpack_register(struct unpack *u, struct unpack_target *t, unsigned type,
    struct dbp_error *err);

/* Whether root-relative PATH is one of the package's conffiles. */
bool unpack_is_conffile(const struct unpack *u, const char *path);

/*
 * Conffile T is about to be written: where the user changed it (or it was
 * there without a record), T moves to NAME.debunpack-dist, with a warning.
 */
int unpack_conffile(struct unpack *u, struct unpack_target *t,
    struct dbp_error *err);

/* The conffile NAME in directory DIR the run holds (unpack_held), or NULL. */
const struct unpack_held *unpack_held(const struct unpack *u, size_t dir,
    const char *name);

/*
 * A later entry takes held conffile H's path: its new version beside
 * the user's goes from the batch, and the path is no longer held.
 */
int unpack_release(struct unpack *u, const struct unpack_held *h,
    struct dbp_error *err);

/* Free U's list of held conffiles. */
void unpack_held_free(struct unpack *u);

#endif
