/* SPDX-License-Identifier: MIT */
/* The installed-package record: one readable text file per installed package. */
#ifndef DEBUNPACK_RECORD_H
#define DEBUNPACK_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "deb/control.h"
#include "util/error.h"

/*
 * The format (version 1, and version 2 for a record with a diverted
 * path) is described at the top of record.c.
 */
#define RECORD_VERSION	1
#define RECORD_VERSION_DIVERTED	2

/* One installed path. */
struct record_entry {
	char type;		/* 'f','h','l','d','c','b','p' */
	bool conffile;		/* f and h only */
	bool skipped;		/* c and b only: not made (--skip-devices) */
	bool obsolete;		/* a conffile its package no longer ships */
	mode_t mode;		/* permission bits only, <= 07777 */
	uid_t uid;
	gid_t gid;
	uint64_t size;		/* f, h; 0 otherwise */
	unsigned char sha256[32];	/* f, h; zero otherwise */
	char *path;		/* "/usr/bin/x": absolute, canonical */
	char *target;		/* h: absolute path; l: link text; NULL otherwise */
	/*
	 * A dpkg-divert diversion put the package's path elsewhere: PATH is
	 * where the object is, DIVERT_FROM the path as the package ships it
	 * (what dpkg's file list says).  NULL when it is at its own path.
	 * Not on directories.
	 */
	char *divert_from;
	unsigned major, minor;	/* c, b; 0 otherwise */
	/*
	 * Conffiles (f) extracted by this run: the MD5 that dpkg's status
	 * keeps, and the package whose conffile it was before the run (the
	 * package itself, or the one it was taken from; NULL: none), whose
	 * hash dpkg carries over until the new version is configured (a
	 * Package field of one of the run's records, not copied).  Not part
	 * of the record's format.
	 */
	bool has_md5;
	unsigned char md5[16];
	const char *conf_from;
	/*
	 * A conffile whose new version went to PATH.dpkg-new, PATH left as
	 * it was (unpack_opts' dpkg_new): dpkg's status keeps the hash
	 * carried over from CONF_FROM, or "newconffile", until --configure.
	 * Not part of the record's format.
	 */
	bool conf_new;
	/*
	 * Read from dpkg's database (dpkgadopt.h): SHA256 was never
	 * computed and is zero; what is known of the content is MD5 (when
	 * HAS_MD5: the status's hash of a conffile, the md5sums' of a
	 * file).  Not part of the record's format.
	 */
	bool sha256_unknown;
};

/*
 * A package's control stanza and its paths in installation order.  CTL,
 * V and N may be read directly; change them only through record_add.
 */
struct record {
	struct control *ctl;
	struct record_entry *v;
	size_t n, cap;
	/* record_find's index: V sorted by path, valid while nindex == n */
	const struct record_entry **index;
	size_t nindex;
	/*
	 * The package went into dpkg's database too (--dpkg-db): dpkg's
	 * status decides whether the record still stands (dpkgstale.h).
	 */
	bool dpkg_db;
	/*
	 * Which instance of the package this is, where one name has two
	 * (Multi-Arch: same, dpkg's database): "NAME:ARCH" for an instance
	 * beside the one NAME stands for; NULL: the package's name.  See
	 * record_key.
	 */
	char *key;
	/*
	 * Conffiles the package ships that another package keeps (it
	 * replaces this one): not the package's, but dpkg's status lists
	 * them, obsolete, with the hash the keeper has for them.  Not part
	 * of the record's format.
	 */
	struct record_kept {
		char *path;
		char *owner;		/* the keeper's name */
	} *kept;
	size_t nkept;
	/*
	 * A package dpkg installed, read from its database (dpkgadopt.h):
	 * debunpack has no record file of it and never writes one; what it
	 * loses goes into dpkg's file list.  Not part of the record's format.
	 */
	bool adopted;
	/*
	 * An adopted record read without looking at the root
	 * (DPKGADOPT_LAZY): every path but a conffile reads as a file and
	 * no MD5 of info/INFO.md5sums is on it until dpkgadopt_type types
	 * it in place.  INFO is the name of its files in var/lib/dpkg/info.
	 * Not part of the record's format.
	 */
	bool untyped;
	char *info;
	/*
	 * An adopted record whose paths are not entries yet
	 * (DPKGADOPT_DEFER): LIST holds its file list as dpkg wrote it, each
	 * line ended by a NUL (LISTLEN bytes), CONFFILES its Conffiles field
	 * (or NULL); dpkgadopt_list makes the entries.  The run's owner
	 * index points into LIST, which stays until the record goes.  Not
	 * part of the record's format.
	 */
	bool unlisted;
	bool unlisted_diverts;	/* a diversion moves one of its paths */
	char *list;
	size_t listlen;
	char *conffiles;
	size_t conffiles_len;
	/*
	 * Paths the package ships that the path filters left out
	 * (--path-exclude): nothing of them is installed, so no entry has
	 * them, but dpkg's file list names them as dpkg lists them; each
	 * with its type and the number of entries before it (its place in
	 * archive order).  Kept in the record file (flag "x", version 2).
	 */
	struct record_filtered {
		char *path;
		char type;
		size_t pos;
	} *filtered;
	size_t nfiltered;
	/*
	 * Its archive had no entry for the root directory ("./"), which
	 * dpkg-deb always writes: dpkg's file list then has no "/." either.
	 * Known from the package's unpack only; not part of the format.
	 */
	bool noroot;
	/* A staged record whose package disappears instead (recowners.h). */
	bool gone;
	/* A staged record that gave paths up to a later package of its run. */
	bool lost;
};

/*
 * A new empty record for the package CTL describes.  On success it takes
 * CTL (freed with the record) and *OUT is owned by the caller
 * (record_free); on failure CTL is still the caller's.  -EINVAL when CTL
 * is NULL, -ENOMEM.
 */
int record_new(struct record **out, struct control *ctl);

/*
 * Append a copy of E (its strings are copied; E stays the caller's).
 * E must be one record_read would accept: a known type, mode <= 07777,
 * uid and gid other than -1, a canonical absolute path ("/", or "/a/b"
 * with no empty, "." or ".." component), a target exactly for h (a
 * canonical absolute path), l (non-empty) and no other type, the
 * conffile flag only on f and h.  Size, digest and device numbers of
 * types that have none are stored as zero.  Duplicate paths are not
 * looked for here (that would be quadratic): record_write refuses them.
 * Returns 0, -EINVAL for an invalid entry or -ENOMEM; on error R is
 * unchanged.
 */
int record_add(struct record *r, const struct record_entry *e);

/*
 * Write R to FP in the version 1 format and flush FP.  Nothing is
 * written unless R reads back the same: every control field must come
 * back identical through control_parse (no blanks around the first line
 * of a value, no carriage return ending a line), entries must be valid
 * as for record_add and paths unique.  NAME names FP in errors.
 * Returns 0, -EINVAL (R cannot be written), -ENOMEM, or the -errno of a
 * failed write or flush (-EIO when stdio does not say), with ERR filled.
 * Syncing and closing FP are the caller's.
 */
int record_write(const struct record *r, FILE *fp, const char *name,
    struct dbp_error *err);

/*
 * Read a whole record from FP, named NAME in errors, and validate it
 * strictly.  On success *OUT is owned by the caller (record_free) and
 * its path index is built; on error *OUT is untouched and nothing is
 * kept.  Errors: -EINVAL for a malformed record, ERR's message starting
 * "line N: "; -ENOMEM; the -errno of a read error.
 */
int record_read(FILE *fp, const char *name, struct record **out,
    struct dbp_error *err);

/*
 * The entry for PATH, or NULL.  The first call after a change builds a
 * sorted index (O(n log n)), later calls are binary searches; if the
 * index cannot be allocated the search is linear, so the answer is
 * always right.  With duplicate paths (possible only before
 * record_write refuses them) any one of them is returned.  The entry
 * is valid until the next record_add or record_free.
 */
const struct record_entry *record_find(struct record *r, const char *path);

/*
 * Keep only the last entry of each path, in R's order otherwise: a path
 * given twice by one package ends up as its later entry made it, on disk
 * as in the record.  Returns 0 or -ENOMEM (R unchanged).
 */
int record_dedup(struct record *r);

/* Drop the entry for PATH (its first, with duplicates): 0 or -ENOENT. */
int record_remove(struct record *r, const char *path);

/*
 * The path as E's package ships it: DIVERT_FROM when a diversion moved
 * it, else PATH.  What dpkg's database (file list, md5sums, conffiles)
 * and the queries name it by.
 */
const char *record_entry_name(const struct record_entry *e);

/*
 * The entry the package ships as NAME (record_entry_name), or NULL:
 * record_find where no entry of R is diverted.
 */
const struct record_entry *record_find_name(struct record *r,
    const char *name);

/*
 * Entry I of R is at PATH now, shipped as FROM (NULL: at its own name),
 * as a diversion made since it was installed puts it.  0, -EINVAL for a
 * path record_add would refuse, -ENOMEM (R unchanged).
 */
int record_relocate(struct record *r, size_t i, const char *path,
    const char *from);

/* Whether some entry of R is diverted (the record is written as version 2). */
bool record_has_diverted(const struct record *r);

/* Why P is not a canonical absolute path (as every entry's is), or NULL. */
const char *record_path_problem(const char *p);

/* Free R, its control and its entries.  R may be NULL. */
void record_free(struct record *r);

/*
 * Note that the path filters left out PATH, of TYPE, at this point of the
 * package's entries (record_filtered).  0 or -ENOMEM.
 */
int record_add_filtered(struct record *r, const char *path, char type);

/* Whether the path filters left out the package's PATH (record_filtered). */
bool record_is_filtered(const struct record *r, const char *path);

/* Note that conffile PATH stays package OWNER's (record_kept).  -ENOMEM. */
int record_add_kept(struct record *r, const char *path, const char *owner);

/*
 * A new record, without entries, of R's package: its control fields, and
 * a Status field STATUS unless NULL.  0 or -errno.
 */
int record_new_like(struct record **out, const struct record *r,
    const char *status);

/*
 * What names R among the records of a root: its package's name, or for
 * a second Multi-Arch: same instance "NAME:ARCH" (record_set_key), the
 * name of its record file.
 */
const char *record_key(const struct record *r);
int record_set_key(struct record *r, const char *key);

/*
 * RECORD_CONFIG_FILES in a record's Status field: the package was removed
 * and only its conffiles (and the directories that hold them) are left,
 * as dpkg's "config-files" state.
 */
#define RECORD_CONFIG_FILES	"deinstall ok config-files"
bool record_config_files(const struct record *r);

#endif
