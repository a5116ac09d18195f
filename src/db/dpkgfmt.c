/* SPDX-License-Identifier: MIT */
/* dpkg's database formats: values, a stanza's fields, Conffiles, .list files. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "deb/control.h"
#include "db/dpkgfmt.h"

/*
 * dpkg reads its database back on every run, and front ends compare it
 * with what dpkg itself writes, so this follows dpkg 1.21
 * (lib/dpkg/parse.c, fields.c, dump.c): values in dpkg's form, fields and
 * conffiles read as dpkg reads them.  Which field is written how is
 * dpkgstatus.c's table.
 */

const char *
dpkgfmt_version(const char *version)
{
	const char *p = version;

	/* dpkg drops a zero epoch: "0:1.2" and "1.2" are the same version. */
	while (*p == '0')
		p++;
	if (p != version && *p == ':')
		return p + 1;
	return version;
}

static const char *
dpkgfmt_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n'))
		p++;
	return p;
}

/* The token of P up to END made of no character of STOP or blank. */
static const char *
dpkgfmt_token(const char *p, const char *end, const char *stop)
{
	while (p < end && *p != ' ' && *p != '\t' && *p != '\n' &&
	    strchr(stop, *p) == NULL)
		p++;
	return p;
}

/*
 * Whether NAME (LEN bytes) is "pkg" or "pkg:arch" as dpkg reads them: a
 * package name (letters, digits, "+-.", dpkg's own check being laxer on
 * case) and an architecture name or "any", "native".
 */
static bool
dpkgfmt_valid_name(const char *name, size_t len)
{
	const char *colon = memchr(name, ':', len);
	char arch[64];
	size_t n, i;

	n = colon != NULL ? (size_t)(colon - name) : len;
	if (n == 0 || !isalnum((unsigned char)name[0]))
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) &&
		    strchr("+-.", name[i]) == NULL)
			return false;
	if (colon == NULL)
		return true;
	n = len - n - 1;
	if (n == 0 || n >= sizeof(arch))
		return false;
	memcpy(arch, colon + 1, n);
	arch[n] = '\0';
	return control_valid_arch(arch);
}

/*
 * One "name[:arch] [(op version)]" alternative, S to END, written to OUT
 * in dpkg's form, or -EINVAL where dpkg would not read it back.
 * Architecture restrictions and build profiles belong to source
 * packages: dpkg refuses them in a binary one, and so does this.
 */
static int
dpkgfmt_alt(const char *s, const char *end, FILE *out)
{
	const char *name, *name_end, *op, *op_end, *ver, *ver_end, *p;
	char version[256];
	size_t vlen;

	name = dpkgfmt_blanks(s, end);
	name_end = dpkgfmt_token(name, end, "()[]<>,|");
	if (!dpkgfmt_valid_name(name, (size_t)(name_end - name)))
		return -EINVAL;
	p = dpkgfmt_blanks(name_end, end);
	if (p == end) {
		fprintf(out, "%.*s", (int)(name_end - name), name);
		return 0;
	}
	if (*p != '(')
		return -EINVAL;
	op = dpkgfmt_blanks(p + 1, end);
	for (op_end = op; op_end < end && (*op_end == '<' || *op_end == '>' ||
	    *op_end == '='); op_end++)
		;
	ver = dpkgfmt_blanks(op_end, end);
	ver_end = dpkgfmt_token(ver, end, "()");
	p = dpkgfmt_blanks(ver_end, end);
	vlen = (size_t)(ver_end - ver);
	if (op_end == op || vlen == 0 || vlen >= sizeof(version) || p == end ||
	    *p != ')' || dpkgfmt_blanks(p + 1, end) != end)
		return -EINVAL;
	memcpy(version, ver, vlen);
	version[vlen] = '\0';
	if (control_bad_version(version) != NULL)
		return -EINVAL;
	fprintf(out, "%.*s (", (int)(name_end - name), name);
	/* dpkg reads the obsolete "<" and ">" as "<=" and ">=". */
	if (op_end - op == 1 && *op == '<')
		fputs("<=", out);
	else if (op_end - op == 1 && *op == '>')
		fputs(">=", out);
	else if ((op_end - op == 2 && (strncmp(op, "<<", 2) == 0 ||
	    strncmp(op, "<=", 2) == 0 || strncmp(op, ">=", 2) == 0 ||
	    strncmp(op, ">>", 2) == 0)) || (op_end - op == 1 && *op == '='))
		fprintf(out, "%.*s", (int)(op_end - op), op);
	else
		return -EINVAL;
	fprintf(out, " %s)", dpkgfmt_version(version));
	return 0;
}

int
dpkgfmt_depends(const char *value, char **out)
{
	const char *p = value, *end, *bar;
	size_t len = 0;
	FILE *fp;
	int r = 0;

	if ((fp = open_memstream(out, &len)) == NULL)
		return -ENOMEM;
	while (r == 0) {
		end = strchr(p, ',');
		if (end == NULL)
			end = p + strlen(p);
		/* Alternatives of one dependency, "|" apart. */
		for (;;) {
			bar = memchr(p, '|', (size_t)(end - p));
			if ((r = dpkgfmt_alt(p, bar != NULL ? bar : end,
			    fp)) != 0 || bar == NULL)
				break;
			fputs(" | ", fp);
			p = bar + 1;
		}
		if (r != 0 || *end == '\0')
			break;
		fputs(", ", fp);
		p = end + 1;
	}
	if (fclose(fp) != 0 && r == 0)
		r = -ENOMEM;
	if (r != 0) {
		free(*out);
		*out = NULL;
	}
	return r;
}

const unsigned char *
dpkgfmt_entry_md5(struct record *rec, const struct record_entry *e)
{
	/* A hardlink's data is its target's, and so is its MD5, for dpkg. */
	if (e != NULL && e->type == 'h' && e->target != NULL)
		e = record_find(rec, e->target);
	return e != NULL && e->has_md5 ? e->md5 : NULL;
}

/* dpkg's words for a conffile's flags, in the order it writes them. */
static const struct {
	const char *word;
	unsigned flag;
} dpkgfmt_conff_flags[] = {
	{ "obsolete", DPKGFMT_CONFF_OBSOLETE },
	{ "remove-on-upgrade", DPKGFMT_CONFF_REMOVE_ON_UPGRADE },
};
#define DPKGFMT_NCONFF_FLAGS \
	(sizeof(dpkgfmt_conff_flags) / sizeof(dpkgfmt_conff_flags[0]))

void
dpkgfmt_conffile_line(FILE *fp, const char *path, const unsigned char *md5,
    unsigned flags)
{
	size_t i;

	fprintf(fp, " %s ", path);
	if (md5 == NULL)
		fputs("newconffile", fp);
	for (i = 0; md5 != NULL && i < 16; i++)
		fprintf(fp, "%02x", md5[i]);
	for (i = 0; i < DPKGFMT_NCONFF_FLAGS; i++)
		if (flags & dpkgfmt_conff_flags[i].flag)
			fprintf(fp, " %s", dpkgfmt_conff_flags[i].word);
	fputc('\n', fp);
}

/* Where the last space-separated word of S to END starts; NULL: no space. */
static const char *
dpkgfmt_last_word(const char *s, const char *end)
{
	const char *p = end;

	while (p > s && p[-1] != ' ')
		p--;
	return p > s ? p : NULL;
}

bool
dpkgfmt_hex_md5(const char *word, size_t len, unsigned char md5[16])
{
	static const char hex[] = "0123456789abcdef";
	const char *hi, *lo;
	size_t k;

	if (len != 32)
		return false;
	for (k = 0; k < 16; k++) {
		hi = strchr(hex, tolower((unsigned char)word[2 * k]));
		lo = strchr(hex, tolower((unsigned char)word[2 * k + 1]));
		if (hi == NULL || lo == NULL || *hi == '\0' || *lo == '\0')
			return false;
		md5[k] = (unsigned char)((hi - hex) << 4 | (lo - hex));
	}
	return true;
}

/*
 * Line LINE (LEN bytes, after its leading space) into C as dpkg's
 * f_conffiles reads it: from the end, since a path may hold spaces.
 * False when dpkg could not read it.
 */
static bool
dpkgfmt_conffile_parse(const char *line, size_t len,
    struct dpkgfmt_conffile *c)
{
	const char *end = line + len, *w;
	size_t i, wlen;

	while (end > line && (end[-1] == ' ' || end[-1] == '\t' ||
	    end[-1] == '\r'))
		end--;
	c->flags = 0;
	for (;;) {
		if ((w = dpkgfmt_last_word(line, end)) == NULL)
			return false;
		wlen = (size_t)(end - w);
		for (i = 0; i < DPKGFMT_NCONFF_FLAGS; i++)
			if (!(c->flags & dpkgfmt_conff_flags[i].flag) &&
			    strlen(dpkgfmt_conff_flags[i].word) == wlen &&
			    memcmp(w, dpkgfmt_conff_flags[i].word, wlen) == 0)
				break;
		if (i == DPKGFMT_NCONFF_FLAGS)
			break;		/* W is the hash */
		c->flags |= dpkgfmt_conff_flags[i].flag;
		end = w - 1;
	}
	if (wlen == 11 && memcmp(w, "newconffile", 11) == 0)
		c->flags |= DPKGFMT_CONFF_NEW;
	c->has_md5 = dpkgfmt_hex_md5(w, wlen, c->md5);
	len = (size_t)(w - 1 - line);
	if (len == 0 || len >= sizeof(c->path))
		return false;
	memcpy(c->path, line, len);
	c->path[len] = '\0';
	return true;
}

int
dpkgfmt_conffiles(const char *value, size_t len, dpkgfmt_conffile_fn *fn,
    void *ctx)
{
	const char *p = value, *end = value + len, *nl;
	struct dpkgfmt_conffile c;
	int r;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		/*
		 * A conffile is a continuation line; what follows the name on
		 * the field's own line (dpkg writes nothing there) is none.
		 */
		if (p == value || *p != ' ')
			continue;
		c.line = p;
		c.linelen = (size_t)(nl - p);
		if (dpkgfmt_conffile_parse(p + 1, (size_t)(nl - p - 1), &c) &&
		    (r = fn(&c, ctx)) != 0)
			return r;
	}
	return 0;
}

int
dpkgfmt_fields(const char *text, size_t len, dpkgfmt_field_fn *fn, void *ctx)
{
	const char *p = text, *end = text + len, *eol, *colon, *q;
	struct dpkgfmt_field f;
	int r;

	while (p < end) {
		memset(&f, 0, sizeof(f));
		f.text = p;
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		colon = memchr(p, ':', (size_t)(eol - p));
		if (colon != NULL && *p != ' ' && *p != '\t') {
			f.name = p;
			f.namelen = (size_t)(colon - p);
			for (f.value = colon + 1; f.value < eol &&
			    (*f.value == ' ' || *f.value == '\t'); f.value++)
				;
		} else
			f.value = p;
		for (q = eol; q > f.value && (q[-1] == ' ' || q[-1] == '\t'); q--)
			;
		f.firstlen = (size_t)(q - f.value);
		/* Continuation lines start with a blank. */
		for (q = eol < end ? eol + 1 : end; q < end && (*q == ' ' ||
		    *q == '\t'); q = eol < end ? eol + 1 : end)
			if ((eol = memchr(q, '\n', (size_t)(end - q))) == NULL)
				eol = end;
		f.textlen = (size_t)(q - p);
		f.len = (size_t)(eol - f.value);
		if ((r = fn(&f, ctx)) != 0)
			return r;
		p = q;
	}
	return 0;
}

bool
dpkgfmt_field_is(const struct dpkgfmt_field *f, const char *name)
{
	return f->name != NULL && strlen(name) == f->namelen &&
	    strncasecmp(f->name, name, f->namelen) == 0;
}

/*
 * The paths the filters left out that come before entry I (I == REC->n:
 * the rest), of symlinks or (!SYMLINKS) of the other types, from *K on.
 */
static int
dpkgfmt_list_filtered(const struct record *rec, size_t i, bool symlinks,
    size_t *k, dpkgfmt_path_fn *fn, void *ctx)
{
	const struct record_filtered *f;
	int r;

	for (; *k < rec->nfiltered && rec->filtered[*k].pos <= i; ++*k) {
		f = &rec->filtered[*k];
		if ((f->type == 'l') == symlinks &&
		    (r = fn(f->path, NULL, ctx)) != 0)
			return r;
	}
	return 0;
}

int
dpkgfmt_list_walk(const struct record *rec, bool root,
    dpkgfmt_path_fn *fn, void *ctx)
{
	size_t i, k;
	int r;

	if (root && (r = fn("/.", NULL, ctx)) != 0)
		return r;
	/*
	 * dpkg makes symlinks after every other entry of a package (so
	 * that none can lead its files astray) and lists them so; the
	 * conffiles the package no longer ships it keeps after all that.
	 * What the filters left out stays in its place: dpkg lists it all
	 * the same.
	 */
	for (i = k = 0; i < rec->n; i++)
		if ((r = dpkgfmt_list_filtered(rec, i, false, &k, fn,
		    ctx)) != 0 ||
		    (strcmp(rec->v[i].path, "/") != 0 &&
		    rec->v[i].type != 'l' && !rec->v[i].obsolete &&
		    (r = fn(record_entry_name(&rec->v[i]), &rec->v[i],
		    ctx)) != 0))
			return r;
	if ((r = dpkgfmt_list_filtered(rec, rec->n, false, &k, fn, ctx)) != 0)
		return r;
	for (i = k = 0; i < rec->n; i++)
		if ((r = dpkgfmt_list_filtered(rec, i, true, &k, fn,
		    ctx)) != 0 ||
		    (rec->v[i].type == 'l' && !rec->v[i].obsolete &&
		    (r = fn(record_entry_name(&rec->v[i]), &rec->v[i],
		    ctx)) != 0))
			return r;
	if ((r = dpkgfmt_list_filtered(rec, rec->n, true, &k, fn, ctx)) != 0)
		return r;
	for (i = 0; i < rec->n; i++)
		if (rec->v[i].obsolete &&
		    (r = fn(record_entry_name(&rec->v[i]), &rec->v[i],
		    ctx)) != 0)
			return r;
	return 0;
}

static int
dpkgfmt_list_line(const char *path, const struct record_entry *e, void *ctx)
{
	(void)e;
	fprintf(ctx, "%s\n", path);
	return 0;
}

int
dpkgfmt_list(FILE *fp, const struct record *rec, bool root)
{
	dpkgfmt_list_walk(rec, root, dpkgfmt_list_line, fp);
	return ferror(fp) ? -EIO : 0;
}
