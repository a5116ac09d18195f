/* SPDX-License-Identifier: MIT */
/* dpkg's database formats: values, a stanza's fields, Conffiles, .list files. */
#ifndef DEBUNPACK_DPKGFMT_H
#define DEBUNPACK_DPKGFMT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "db/record.h"

/*
 * Dependency field VALUE in dpkg's form: "a (>= 1), b | c:any".  *OUT is
 * the caller's (free).  -EINVAL when VALUE does not parse (then dpkg's
 * form is the value itself, trimmed), -ENOMEM.
 */
int dpkgfmt_depends(const char *value, char **out);

/*
 * The MD5 of entry E of REC (E may be NULL; a hardlink's is its
 * target's), or NULL when the run did not compute one.
 */
const unsigned char *dpkgfmt_entry_md5(struct record *rec,
    const struct record_entry *e);

/* Whether the LEN bytes at WORD are an MD5 in hex (either case), into MD5. */
bool dpkgfmt_hex_md5(const char *word, size_t len, unsigned char md5[16]);

/* VERSION as dpkg writes it: without a "0:" epoch. */
const char *dpkgfmt_version(const char *version);

/*
 * The .list text of REC: "/." (unless !ROOT: a removed package whose
 * root directory another package has), then its paths in REC's order,
 * symlinks after the others, then the obsolete conffiles it keeps, as
 * dpkg lists them.
 */
int dpkgfmt_list(FILE *fp, const struct record *rec, bool root);

/*
 * The same paths, one call of FN each in that order: "/." (E NULL),
 * then each path with its entry E: the path as the package ships it
 * (record_entry_name), where E->path says where a diversion put it; the
 * paths the filters left out (record_filtered) in their places, E NULL.  Stops at FN's first non-zero
 * return, which it returns; 0 after the last.
 */
typedef int dpkgfmt_path_fn(const char *path, const struct record_entry *e,
    void *ctx);
int dpkgfmt_list_walk(const struct record *rec, bool root,
    dpkgfmt_path_fn *fn, void *ctx);

/*
 * One field of a stanza as dpkg reads it: NAME (NAMELEN bytes; NULL
 * for a first line without a colon, which is no field dpkg knows), VALUE
 * (LEN bytes: after the colon and its blanks, through the continuation
 * lines, without the last newline), the first line of which is FIRSTLEN
 * bytes without its trailing blanks, and the field's lines as they are,
 * TEXT (TEXTLEN bytes, the last newline included).
 */
struct dpkgfmt_field {
	const char *name;
	size_t namelen;
	const char *value;
	size_t len;
	size_t firstlen;
	const char *text;
	size_t textlen;
};

/*
 * Each field of stanza TEXT (LEN bytes), in order, one call of FN each;
 * every byte of TEXT is in one field's TEXT, so that a stanza can be
 * copied with a field changed.  Stops at FN's first non-zero return,
 * which it returns; 0 after the last.
 */
typedef int dpkgfmt_field_fn(const struct dpkgfmt_field *f, void *ctx);
int dpkgfmt_fields(const char *text, size_t len, dpkgfmt_field_fn *fn,
    void *ctx);

/* Whether field F is NAME, which dpkg compares without case. */
bool dpkgfmt_field_is(const struct dpkgfmt_field *f, const char *name);

/* A conffile's flags in dpkg's Conffiles field. */
#define DPKGFMT_CONFF_NEW		0x1	/* "newconffile": no hash yet */
#define DPKGFMT_CONFF_OBSOLETE		0x2	/* no longer shipped */
#define DPKGFMT_CONFF_REMOVE_ON_UPGRADE	0x4	/* flagged so in its package */

/*
 * One line of a Conffiles value, " PATH HASH [FLAGS]": PATH, the MD5 of
 * HASH when it is one (HAS_MD5), the flags, and the line as it is (LINE,
 * LINELEN bytes, its newline left out).
 */
struct dpkgfmt_conffile {
	char path[PATH_MAX + 1];
	bool has_md5;
	unsigned char md5[16];
	unsigned flags;
	const char *line;
	size_t linelen;
};

/*
 * The conffiles of Conffiles value VALUE (LEN bytes, as
 * dpkgfmt_field's), one call of FN each, in order.  Read as dpkg reads
 * them: the flags are the last words, the hash the word before them, the
 * path the rest (it may hold spaces).  A line dpkg could not read (no
 * hash, a path too long) is passed over.  Stops at FN's first non-zero
 * return, which it returns; 0 after the last.
 */
typedef int dpkgfmt_conffile_fn(const struct dpkgfmt_conffile *c, void *ctx);
int dpkgfmt_conffiles(const char *value, size_t len, dpkgfmt_conffile_fn *fn,
    void *ctx);

/*
 * The Conffiles line of PATH as dpkg writes it: " PATH HASH", HASH being
 * MD5 in hex or "newconffile" (MD5 NULL), then FLAGS
 * (DPKGFMT_CONFF_OBSOLETE, DPKGFMT_CONFF_REMOVE_ON_UPGRADE) as words.
 */
void dpkgfmt_conffile_line(FILE *fp, const char *path,
    const unsigned char *md5, unsigned flags);

#endif
