/* SPDX-License-Identifier: MIT */
/* The installed-package record: one readable text file per installed package. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "db/record.h"
#include "db/record_int.h"

/*
 * Format, version 1.  A text file that a person can read and grep:
 *
 *	debunpack-record 1
 *	Package: foo
 *	Version: 1.0-1
 *	Architecture: amd64
 *	Description: short
 *	 long line one
 *	 .
 *	<empty line>
 *	d	-	0755	0:0	-	-	/usr
 *	f	-	0644	0:0	1234	<sha256>	/usr/share/doc/foo/README
 *	f	c	0644	0:0	20	<sha256>	/etc/foo.conf
 *	h	-	0644	0:0	1234	<sha256>	/usr/bin/foo2	/usr/bin/foo
 *	l	-	0777	0:0	-	-	/usr/bin/bar	../lib/bar
 *	c	-	0600	0:0	-	-	/dev/x	1,3
 *	p	-	0644	0:0	-	-	/run/fifo
 *
 * Line 1 is exactly "debunpack-record 1"; a reader refuses any other
 * version, so a future format change bumps the number.
 *
 * Then the package's control stanza, field by field as "Name: value".  A
 * value holding '\n' continues on following lines, each prefixed by one
 * space: control_parse joins them back the same way.  record_write only
 * writes a stanza that reads back identical.  An empty line ends it.
 *
 * Then one line per installed path, in installation order, with columns
 * separated by one TAB:
 *	TYPE	f regular file, h hard link, l symlink, d directory,
 *		c character device, b block device, p fifo
 *	FLAGS	"-", "c" for a conffile (f and h only), "o" for a
 *		conffile the package no longer ships, which it keeps (as
 *		dpkg keeps it, obsolete), or "s" for a device node not
 *		made (--skip-devices; c and b only)
 *	MODE	four octal digits: permission, setuid, setgid, sticky bits
 *	UID:GID	decimal, as installed
 *	SIZE	decimal bytes for f and h, "-" otherwise
 *	SHA256	64 lowercase hex digits for f and h, "-" otherwise
 *	PATH	absolute inside the root and canonical: "/" or "/a/b", no
 *		empty, "." or ".." component; unique in the record
 *	TARGET	only for h (the absolute path it links to), l (the link
 *		text exactly, not empty) and c, b ("MAJOR,MINOR", decimal)
 * Numbers are written without sign or leading zeros.  In PATH and TARGET,
 * backslash, TAB, newline and the other control bytes (below 0x20, 0x7f)
 * are written as \\, \t, \n and \xNN (lowercase hex); every other byte,
 * UTF-8 included, as itself.  Each name has exactly one spelling, so a
 * reader refuses other escapes (\x41, \x09, \X1B) as well as raw control
 * bytes: what grep finds is what is installed.
 *
 * Version 2 is version 1 where a dpkg-divert diversion put a package's
 * path elsewhere (--dpkg-db): such a path's line has one more column,
 * last, and its PATH says where the object really is, so that --verify,
 * removals, upgrades and the repair of a crash find it:
 *	FROM	the path as the package ships it (escaped as PATH is):
 *		what dpkg's file list, md5sums and conffiles name it by,
 *		and what --files and --owner show
 *	f	-	0755	0:0	20	<sha256>	/usr/bin/foo.distrib	/usr/bin/foo
 *	l	-	0777	0:0	-	-	/usr/bin/bar.real	bar.sh	/usr/bin/bar
 * A diversion is never of a directory.  A record without a diverted path
 * is written as version 1, byte for byte as before; a reader of version 1
 * only refuses a record that has one rather than misplace its file.
 * Version 2 also has the paths the package ships that --path-exclude
 * left out (record_filtered), each in its place among the others, with
 * FLAGS "x" and nothing but TYPE and PATH (as the package ships it):
 *	f	x	-	-	-	-	/usr/share/doc/foo/README
 * nothing of them is installed, but dpkg's file list names them, as
 * --files does, and dpkg judges another package's path there as a
 * conflict.
 *
 * The file ends with the newline of its last line; a record with no
 * paths ends with the empty line.  NUL bytes are refused anywhere.
 *
 * Truncation: a file cut inside a line fails to read (no final newline,
 * or a header or stanza without its end), but a file cut exactly after
 * a path line is a valid record of fewer paths.  The format has no
 * trailer to tell the two apart: a record is replaced whole, written to
 * a temporary, synced and renamed, so a reader never sees a partial one
 * (see recstage.c for the ordering).
 */

const char record_types[] = "fhldcbp";

/* Types with a size and a digest: the regular files. */
bool
record_has_data(char type)
{
	return type == 'f' || type == 'h';
}

bool
record_has_target(char type)
{
	return type == 'h' || type == 'l' || type == 'c' || type == 'b';
}

bool
record_is_device(char type)
{
	return type == 'c' || type == 'b';
}

/* S escaped for an error message, cut to fit BUF. */
const char *
record_show(const char *s, char buf[64])
{
	return escape_name(s, buf, 64);
}

const char *
record_path_problem(const char *p)
{
	const char *s, *e;
	size_t len;

	if (p[0] != '/')
		return "is not absolute";
	if (p[1] == '\0')
		return NULL;
	for (s = p + 1;; s = e + 1) {
		e = strchr(s, '/');
		len = e != NULL ? (size_t)(e - s) : strlen(s);
		if (len == 0 || (len == 1 && s[0] == '.') ||
		    (len == 2 && s[0] == '.' && s[1] == '.'))
			return "has an empty, '.' or '..' component";
		if (e == NULL)
			return NULL;
	}
}

/*
 * Whether E could be written and read back; if not, why in WHY.  The one
 * place for the rules that record_add, record_write and record_read share.
 */
bool
record_entry_ok(const struct record_entry *e, char *why, size_t n)
{
	const char *p;

	if (e->type == '\0' || strchr(record_types, e->type) == NULL) {
		snprintf(why, n, "unknown type");
		return false;
	}
	if (e->conffile && !record_has_data(e->type)) {
		snprintf(why, n, "conffile flag on type '%c'", e->type);
		return false;
	}
	if (e->obsolete && !e->conffile) {
		snprintf(why, n, "obsolete flag on a path that is no conffile");
		return false;
	}
	if (e->skipped && !record_is_device(e->type)) {
		snprintf(why, n, "skipped flag on type '%c'", e->type);
		return false;
	}
	if ((e->mode & ~(mode_t)07777) != 0) {
		snprintf(why, n, "mode %o is more than permission bits",
		    (unsigned)e->mode);
		return false;
	}
	if (e->uid == (uid_t)-1 || e->gid == (gid_t)-1) {
		snprintf(why, n, "uid or gid is -1");
		return false;
	}
	if (e->path == NULL) {
		snprintf(why, n, "no path");
		return false;
	}
	if ((p = record_path_problem(e->path)) != NULL) {
		snprintf(why, n, "path %s", p);
		return false;
	}
	if (e->divert_from != NULL && e->type == 'd') {
		snprintf(why, n, "diverted directory");
		return false;
	}
	if (e->divert_from != NULL &&
	    ((p = record_path_problem(e->divert_from)) != NULL ||
	    strcmp(e->divert_from, e->path) == 0)) {
		snprintf(why, n, "diverted-from path %s", p != NULL ? p :
		    "is the path itself");
		return false;
	}
	if (!record_has_target(e->type) || record_is_device(e->type)) {
		if (e->target != NULL) {
			snprintf(why, n, "target on type '%c'", e->type);
			return false;
		}
	} else if (e->target == NULL) {
		snprintf(why, n, "no target for type '%c'", e->type);
		return false;
	} else if (e->type == 'h' &&
	    (p = record_path_problem(e->target)) != NULL) {
		snprintf(why, n, "hard link target %s", p);
		return false;
	} else if (e->type == 'l' && e->target[0] == '\0') {
		snprintf(why, n, "empty symlink target");
		return false;
	}
	return true;
}

void
record_entry_clear(struct record_entry *e)
{
	free(e->path);
	free(e->target);
	free(e->divert_from);
}

const char *
record_entry_name(const struct record_entry *e)
{
	return e->divert_from != NULL ? e->divert_from : e->path;
}

bool
record_has_diverted(const struct record *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->v[i].divert_from != NULL)
			return true;
	return false;
}

const struct record_entry *
record_find_name(struct record *r, const char *name)
{
	const struct record_entry *e;
	size_t i;

	/* Few records have a diverted path: they alone pay the scan. */
	for (i = 0; i < r->n; i++)
		if (r->v[i].divert_from != NULL &&
		    strcmp(r->v[i].divert_from, name) == 0)
			return &r->v[i];
	/* At its own name, unless a diversion sent it away. */
	e = record_find(r, name);
	return e != NULL && e->divert_from == NULL ? e : NULL;
}

int
record_relocate(struct record *r, size_t i, const char *path,
    const char *from)
{
	struct record_entry c = r->v[i];
	char why[128];

	c.path = (char *)path;
	c.divert_from = (char *)from;
	if (!record_entry_ok(&c, why, sizeof(why)))
		return -EINVAL;
	if ((c.path = strdup(path)) == NULL ||
	    (from != NULL && (c.divert_from = strdup(from)) == NULL)) {
		free(c.path);
		return -ENOMEM;
	}
	free(r->v[i].path);
	free(r->v[i].divert_from);
	r->v[i].path = c.path;
	r->v[i].divert_from = from != NULL ? c.divert_from : NULL;
	/* The index is sorted by path. */
	free(r->index);
	r->index = NULL;
	r->nindex = 0;
	return 0;
}

int
record_new(struct record **out, struct control *ctl)
{
	struct record *r;

	if (ctl == NULL)
		return -EINVAL;
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return -ENOMEM;
	r->ctl = ctl;
	*out = r;
	return 0;
}

int
record_new_like(struct record **out, const struct record *r,
    const char *status)
{
	struct dbp_error perr;
	struct control *ctl;
	char *text, *t2;
	size_t len;
	int e;

	if ((text = record_format_control(r->ctl, &len)) == NULL)
		return -ENOMEM;
	if (status != NULL) {
		if (asprintf(&t2, "%.*sStatus: %s\n", (int)len, text,
		    status) < 0) {
			free(text);
			return -ENOMEM;
		}
		free(text);
		text = t2;
		len = strlen(t2);
	}
	e = control_parse(text, len, &ctl, &perr);
	free(text);
	if (e != 0)
		return e < 0 ? e : -EINVAL;
	if ((e = record_new(out, ctl)) != 0)
		control_free(ctl);
	else if (r->key != NULL && (e = record_set_key(*out, r->key)) != 0) {
		record_free(*out);
		*out = NULL;
	}
	return e;
}

const char *
record_key(const struct record *r)
{
	return r->key != NULL ? r->key : control_get(r->ctl, "Package");
}

int
record_set_key(struct record *r, const char *key)
{
	char *k = NULL;

	if (key != NULL && (k = strdup(key)) == NULL)
		return -ENOMEM;
	free(r->key);
	r->key = k;
	return 0;
}

bool
record_config_files(const struct record *r)
{
	const char *s = control_get(r->ctl, "Status");

	return s != NULL && strcmp(s, RECORD_CONFIG_FILES) == 0;
}

void
record_free(struct record *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->n; i++)
		record_entry_clear(&r->v[i]);
	free(r->v);
	free(r->index);
	for (i = 0; i < r->nkept; i++) {
		free(r->kept[i].path);
		free(r->kept[i].owner);
	}
	free(r->kept);
	for (i = 0; i < r->nfiltered; i++)
		free(r->filtered[i].path);
	free(r->filtered);
	control_free(r->ctl);
	free(r->key);
	free(r->info);
	free(r->list);
	free(r->conffiles);
	free(r);
}

int
record_add_filtered(struct record *r, const char *path, char type)
{
	struct record_filtered *v;

	if ((v = realloc(r->filtered, (r->nfiltered + 1) * sizeof(*v))) ==
	    NULL)
		return -ENOMEM;
	r->filtered = v;
	if ((v[r->nfiltered].path = strdup(path)) == NULL)
		return -ENOMEM;
	v[r->nfiltered].type = type;
	v[r->nfiltered++].pos = r->n;
	return 0;
}

bool
record_is_filtered(const struct record *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->nfiltered; i++)
		if (strcmp(r->filtered[i].path, path) == 0)
			return true;
	return false;
}

int
record_add_kept(struct record *r, const char *path, const char *owner)
{
	struct record_kept *v;

	if ((v = realloc(r->kept, (r->nkept + 1) * sizeof(*v))) == NULL)
		return -ENOMEM;
	r->kept = v;
	v += r->nkept;
	v->path = strdup(path);
	v->owner = strdup(owner);
	if (v->path == NULL || v->owner == NULL) {
		free(v->path);
		free(v->owner);
		return -ENOMEM;
	}
	r->nkept++;
	return 0;
}

/* Append E, taking its strings.  -ENOMEM leaves R and E as they were. */
int
record_push(struct record *r, const struct record_entry *e)
{
	struct record_entry *v;
	size_t cap;

	if (r->n == r->cap) {
		cap = r->cap != 0 ? r->cap : 16;
		if (cap > SIZE_MAX / 2 / sizeof(*v))
			return -ENOMEM;
		cap *= 2;
		if ((v = realloc(r->v, cap * sizeof(*v))) == NULL)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	/* The index points into V, which may just have moved. */
	free(r->index);
	r->index = NULL;
	r->nindex = 0;
	r->v[r->n++] = *e;
	return 0;
}

int
record_add(struct record *r, const struct record_entry *e)
{
	struct record_entry c = *e;
	char why[128];
	int ret;

	if (!record_entry_ok(e, why, sizeof(why)))
		return -EINVAL;
	if (!record_has_data(c.type)) {
		c.size = 0;
		memset(c.sha256, 0, sizeof(c.sha256));
	}
	if (!record_is_device(c.type))
		c.major = c.minor = 0;
	c.path = strdup(e->path);
	c.target = e->target != NULL ? strdup(e->target) : NULL;
	c.divert_from = e->divert_from != NULL ? strdup(e->divert_from) :
	    NULL;
	if (c.path == NULL || (e->target != NULL && c.target == NULL) ||
	    (e->divert_from != NULL && c.divert_from == NULL))
		ret = -ENOMEM;
	else
		ret = record_push(r, &c);
	if (ret != 0)
		record_entry_clear(&c);
	return ret;
}

/* Equal paths sort by position, so the later of two is a duplicate. */
static int
record_cmp(const void *a, const void *b)
{
	const struct record_entry *const *x = a, *const *y = b;
	int c = strcmp((*x)->path, (*y)->path);

	if (c != 0)
		return c;
	return *x < *y ? -1 : *x > *y;
}

static int
record_key_cmp(const void *key, const void *elem)
{
	const struct record_entry *const *e = elem;

	return strcmp(key, (*e)->path);
}

/* R's entries sorted by path, in a new array; NULL when out of memory. */
const struct record_entry **
record_sorted(const struct record *r)
{
	const struct record_entry **idx;
	size_t i;

	if ((idx = calloc(r->n != 0 ? r->n : 1, sizeof(*idx))) == NULL)
		return NULL;
	for (i = 0; i < r->n; i++)
		idx[i] = &r->v[i];
	qsort(idx, r->n, sizeof(*idx), record_cmp);
	return idx;
}

/*
 * The first entry (in R's order) that repeats an earlier path, or NULL;
 * the earliest entry with that path in *EARLIER.  IDX is record_sorted's.
 */
const struct record_entry *
record_first_duplicate(const struct record_entry **idx, size_t n,
    const struct record_entry **earlier)
{
	const struct record_entry *dup = NULL;
	size_t i, run;

	/* A run of equal paths is in R's order: its second is the repeat. */
	for (run = 0, i = 1; i < n; i++)
		if (strcmp(idx[run]->path, idx[i]->path) != 0)
			run = i;
		else if (i == run + 1 && (dup == NULL || idx[i] < dup)) {
			dup = idx[i];
			*earlier = idx[run];
		}
	return dup;
}

int
record_dedup(struct record *r)
{
	const struct record_entry **idx;
	unsigned char *drop;
	size_t i, o;

	if (r->n < 2)
		return 0;
	if ((idx = record_sorted(r)) == NULL ||
	    (drop = calloc(r->n, 1)) == NULL) {
		free(idx);
		return -ENOMEM;
	}
	/* In a run of equal paths, all but the last (in R's order) go. */
	for (i = 0; i + 1 < r->n; i++)
		if (strcmp(idx[i]->path, idx[i + 1]->path) == 0)
			drop[idx[i] - r->v] = 1;
	free(idx);
	for (i = o = 0; i < r->n; i++) {
		if (drop[i])
			record_entry_clear(&r->v[i]);
		else
			r->v[o++] = r->v[i];
	}
	free(drop);
	r->n = o;
	free(r->index);
	r->index = NULL;
	r->nindex = 0;
	return 0;
}

int
record_remove(struct record *r, const char *path)
{
	size_t i;

	size_t k;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->v[i].path, path) == 0)
			break;
	if (i == r->n) {
		/* A path the filters left out goes the same way. */
		for (k = 0; k < r->nfiltered; k++)
			if (strcmp(r->filtered[k].path, path) == 0)
				break;
		if (k == r->nfiltered)
			return -ENOENT;
		free(r->filtered[k].path);
		memmove(&r->filtered[k], &r->filtered[k + 1],
		    (r->nfiltered - k - 1) * sizeof(*r->filtered));
		r->nfiltered--;
		return 0;
	}
	record_entry_clear(&r->v[i]);
	memmove(&r->v[i], &r->v[i + 1], (r->n - i - 1) * sizeof(r->v[i]));
	r->n--;
	/* The left-out paths after it keep their places. */
	for (k = 0; k < r->nfiltered; k++)
		if (r->filtered[k].pos > i)
			r->filtered[k].pos--;
	free(r->index);
	r->index = NULL;
	r->nindex = 0;
	return 0;
}

const struct record_entry *
record_find(struct record *r, const char *path)
{
	const struct record_entry **hit;
	size_t i;

	if (r->n == 0)
		return NULL;
	if (r->index == NULL || r->nindex != r->n) {
		free(r->index);
		r->index = record_sorted(r);
		r->nindex = r->index != NULL ? r->n : 0;
	}
	if (r->index == NULL) {
		for (i = 0; i < r->n; i++)
			if (strcmp(r->v[i].path, path) == 0)
				return &r->v[i];
		return NULL;
	}
	hit = bsearch(path, r->index, r->n, sizeof(*r->index),
	    record_key_cmp);
	return hit != NULL ? *hit : NULL;
}
