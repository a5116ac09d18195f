/* SPDX-License-Identifier: MIT */
/* The record format: a record's text, as it is written. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "db/record.h"
#include "db/record_int.h"

static bool
record_put_entry(FILE *fp, const struct record_entry *e)
{
	static const char hex[] = "0123456789abcdef";
	char sha[2 * sizeof(e->sha256) + 1];
	bool ok;
	size_t i;

	ok = fprintf(fp, "%c\t%c\t%04o\t%ju:%ju\t", e->type,
	    e->obsolete ? 'o' : e->conffile ? 'c' : e->skipped ? 's' : '-',
	    (unsigned)e->mode,
	    (uintmax_t)e->uid,
	    (uintmax_t)e->gid) >= 0;
	if (record_has_data(e->type)) {
		for (i = 0; i < sizeof(e->sha256); i++) {
			sha[2 * i] = hex[e->sha256[i] >> 4];
			sha[2 * i + 1] = hex[e->sha256[i] & 0xf];
		}
		sha[2 * i] = '\0';
		ok = ok && fprintf(fp, "%" PRIu64 "\t%s\t", e->size, sha) >= 0;
	} else
		ok = ok && fputs("-\t-\t", fp) >= 0;
	ok = ok && escape_put_field(fp, e->path);
	if (record_is_device(e->type))
		ok = ok && fprintf(fp, "\t%u,%u", e->major, e->minor) >= 0;
	else if (e->target != NULL)
		ok = ok && putc('\t', fp) != EOF &&
		    escape_put_field(fp, e->target);
	if (e->divert_from != NULL)
		ok = ok && putc('\t', fp) != EOF &&
		    escape_put_field(fp, e->divert_from);
	return ok && putc('\n', fp) != EOF;
}

/*
 * C as a stanza in a new buffer of *LEN bytes (not terminated), or NULL
 * when out of memory.  "Name:" alone when the first line is empty, so no
 * line ends in a blank; each following line gets its one space.
 */
char *
record_format_control(const struct control *c, size_t *len)
{
	const char *v;
	char *buf, *o;
	size_t i, n = 0, add;

	for (i = 0; i < c->nfields; i++) {
		v = c->fields[i].value;
		add = strlen(c->fields[i].name) + strlen(v) + 3;
		for (; *v != '\0'; v++)
			add += *v == '\n';
		if (add > SIZE_MAX - n)
			return NULL;
		n += add;
	}
	if ((buf = malloc(n != 0 ? n : 1)) == NULL)
		return NULL;
	for (o = buf, i = 0; i < c->nfields; i++) {
		v = c->fields[i].value;
		o = stpcpy(o, c->fields[i].name);
		*o++ = ':';
		if (*v != '\n' && *v != '\0')
			*o++ = ' ';
		for (; *v != '\0'; v++)
			if ((*o++ = *v) == '\n')
				*o++ = ' ';
		*o++ = '\n';
	}
	*len = (size_t)(o - buf);
	return buf;
}

/*
 * C as a stanza, in a new buffer *TEXT of *LEN bytes, provided it reads
 * back identical through control_parse: a control made by hand could
 * hold what the format cannot carry (blanks around a first line, a
 * carriage return ending a line, a bad field name).
 */
static int
record_stanza(const struct control *c, char **text, size_t *len,
    const char *name, struct dbp_error *err)
{
	struct dbp_error cerr;
	struct control *back = NULL;
	char shown[64];
	size_t i;
	int r;

	if ((*text = record_format_control(c, len)) == NULL)
		return dbp_err(err, ENOMEM, name, "cannot write record");
	dbp_err_clear(&cerr);
	r = control_parse(*text, *len, &back, &cerr);
	if (r == -ENOMEM)
		r = dbp_err(err, ENOMEM, name, "cannot write record");
	else if (r != 0)
		r = dbp_err(err, 0, name, "cannot write record: control "
		    "stanza would not read back: %s", cerr.msg);
	for (i = 0; r == 0 && i < c->nfields; i++)
		if (i >= back->nfields ||
		    strcmp(back->fields[i].name, c->fields[i].name) != 0 ||
		    strcmp(back->fields[i].value, c->fields[i].value) != 0)
			r = dbp_err(err, 0, name, "cannot write record: control "
			    "field '%s' would not read back the same",
			    record_show(c->fields[i].name, shown));
	if (r == 0 && back->nfields != c->nfields)
		r = dbp_err(err, 0, name, "cannot write record: control "
		    "stanza would not read back the same");
	control_free(back);
	if (r != 0) {
		free(*text);
		*text = NULL;
	}
	return r;
}

int
record_write(const struct record *r, FILE *fp, const char *name,
    struct dbp_error *err)
{
	const struct record_entry **idx = NULL, *dup, *first;
	char *stanza, why[128], shown[64];
	size_t slen, i, k;
	bool ok;
	int ret;

	/* Everything is checked before the first byte goes out. */
	if ((ret = record_stanza(r->ctl, &stanza, &slen, name, err)) != 0)
		return ret;
	for (i = 0; i < r->n; i++)
		if (!record_entry_ok(&r->v[i], why, sizeof(why))) {
			ret = dbp_err(err, 0, name, "cannot write record: "
			    "path '%s': %s", r->v[i].path != NULL ?
			    record_show(r->v[i].path, shown) : "", why);
			goto out;
		}
	if ((idx = record_sorted(r)) == NULL) {
		ret = dbp_err(err, ENOMEM, name, "cannot write record");
		goto out;
	}
	if ((dup = record_first_duplicate(idx, r->n, &first)) != NULL) {
		ret = dbp_err(err, 0, name, "cannot write record: duplicate "
		    "path '%s'", record_show(dup->path, shown));
		goto out;
	}

	errno = 0;
	/* Version 2 too: the paths the filters left out. */
	ok = fprintf(fp, RECORD_MAGIC "%d%s\n", record_has_diverted(r) ||
	    r->nfiltered > 0 ?
	    RECORD_VERSION_DIVERTED : RECORD_VERSION, r->dpkg_db ?
	    " " RECORD_DPKG_DB : "") >= 0 &&
	    fwrite(stanza, 1, slen, fp) == slen && putc('\n', fp) != EOF;
	for (i = k = 0; ok && i <= r->n; i++) {
		/* A left-out path in its place among the entries. */
		for (; ok && k < r->nfiltered && (r->filtered[k].pos <= i ||
		    i == r->n); k++)
			ok = fprintf(fp, "%c\tx\t-\t-\t-\t-\t",
			    r->filtered[k].type) >= 0 &&
			    escape_put_field(fp, r->filtered[k].path) &&
			    putc('\n', fp) != EOF;
		if (i < r->n)
			ok = ok && record_put_entry(fp, &r->v[i]);
	}
	/* Flushed here, so a full disk is reported by the write, not lost. */
	if (!ok || fflush(fp) != 0 || ferror(fp))
		ret = dbp_err(err, errno != 0 ? errno : EIO, name,
		    "cannot write record");
out:
	free(idx);
	free(stanza);
	return ret;
}
