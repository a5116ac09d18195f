/* SPDX-License-Identifier: MIT */
/* Questions about packages and the root that change nothing: --list, --owner, --contents, --verify. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "deb/control.h"
#include "deb/deb.h"
#include "db/dpkgdivert.h"
#include "db/dpkgfmt.h"
#include "db/dpkgstatus.h"
#include "util/escape.h"
#include "run/ownerorder.h"
#include "run/query.h"
#include "db/record.h"
#include "durable/names.h"

/* REC's package as dpkg-query names it: NAME:ARCH for Multi-Arch: same. */
static const char *
query_name(const struct record *rec, char *buf, size_t n)
{
	return dpkgstatus_name(control_get(rec->ctl, "Package"),
	    control_get(rec->ctl, "Architecture"),
	    control_get(rec->ctl, "Multi-Arch"), buf, n);
}

/*
 * Whether PART (LEN bytes, not NUL-terminated) names VALUE: a shell
 * pattern when PATTERNS and it has *, ?, [ or \, else the same string.
 */
static bool
query_part_match(const char *part, size_t len, const char *value,
    bool patterns)
{
	char buf[256];

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, part, len);
	buf[len] = '\0';
	if (patterns && strpbrk(buf, "*?[\\") != NULL)
		return fnmatch(buf, value, 0) == 0;
	return strcmp(buf, value) == 0;
}

/*
 * Whether package specifier SPEC names REC's package, as dpkg-query reads
 * one: NAME or NAME:ARCH, each part a pattern when PATTERNS (-l, -W).
 */
static bool
query_spec_match(const char *spec, const struct record *rec, bool patterns)
{
	const char *colon = strchr(spec, ':');
	const char *arch = control_get(rec->ctl, "Architecture");

	if (!query_part_match(spec, colon != NULL ? (size_t)(colon - spec) :
	    strlen(spec), control_get(rec->ctl, "Package"), patterns))
		return false;
	return colon == NULL || (arch != NULL && query_part_match(colon + 1,
	    strlen(colon + 1), arch, patterns));
}

int
query_load(struct recstore *s, const char *spec, struct record **out,
    struct dbp_error *err)
{
	char name[256];
	size_t len = strcspn(spec, ":");
	int r;

	/* A record's file is named after its package: no other name reads. */
	if (len == 0 || len >= sizeof(name) || memchr(spec, '/', len) != NULL)
		return -ENOENT;
	memcpy(name, spec, len);
	name[len] = '\0';
	if ((r = recstore_load(s, name, out, NULL, err)) != 0 &&
	    r != -ENOENT)
		return r;
	if (r == 0 && query_spec_match(spec, *out, false))
		return 0;
	if (r == 0) {
		record_free(*out);
		*out = NULL;
	}
	/* Another instance of a Multi-Arch: same package (recstore.h). */
	if (spec[len] != ':')
		return -ENOENT;
	return recstore_load(s, spec, out, NULL, err);
}

int
query_list(struct recstore *s, char *const *patterns, size_t npatterns,
    bool *found, enum query_format fmt, FILE *fp, struct dbp_error *err)
{
	size_t nobj = 0, p;
	struct record *rec;
	char **names, a[256], b[256], c[64], shown[256];
	bool want;
	size_t i;
	int r;

	if ((r = recstore_names(s, &names, err)) != 0)
		return r;
	for (p = 0; p < npatterns; p++)
		found[p] = false;
	for (i = 0; names[i] != NULL; i++) {
		/* -ENOENT: gone since the listing, or dpkg's now. */
		if ((r = recstore_load(s, names[i], &rec, NULL, err)) ==
		    -ENOENT) {
			r = 0;
			continue;
		}
		if (r != 0)
			break;
		/* dpkg-query -l PATTERN...: the packages any of them names. */
		for (want = npatterns == 0, p = 0; p < npatterns; p++)
			if (query_spec_match(patterns[p], rec, true))
				want = found[p] = true;
		if (!want) {
			record_free(rec);
			continue;
		}
		if (fmt == QUERY_JSON) {
			fputs(nobj++ > 0 ? ",\n{\"package\": " :
			    "[{\"package\": ", fp);
			escape_put_json(fp, control_get(rec->ctl, "Package"));
			fputs(", \"version\": ", fp);
			escape_put_json(fp, control_get(rec->ctl, "Version"));
			fputs(", \"architecture\": ", fp);
			escape_put_json(fp, control_get(rec->ctl,
			    "Architecture"));
			fprintf(fp, ", \"state\": \"%s\"}",
			    record_config_files(rec) ? "config-files" :
			    "installed");
			record_free(rec);
			continue;
		}
		/* A removed package's conffiles: dpkg's "rc", a fourth column. */
		fprintf(fp, "%s\t%s\t%s%s\n",
		    escape_name(query_name(rec, shown, sizeof(shown)), a,
		    sizeof(a)),
		    escape_name(control_get(rec->ctl, "Version"), b, sizeof(b)),
		    escape_name(control_get(rec->ctl, "Architecture"), c,
		    sizeof(c)), record_config_files(rec) ? "\tconfig-files" :
		    "");
		record_free(rec);
	}
	recstore_names_free(names);
	if (fmt == QUERY_JSON && r == 0)
		fputs(nobj > 0 ? "]\n" : "[]\n", fp);
	if (r != 0)
		return r;
	for (p = 0; p < npatterns; p++)
		if (!found[p])
			return 1;
	return 0;
}

/*
 * Whether a package other than NAME is installed (not only its
 * conffiles left): dpkg keeps "/." in a removed package's list only when
 * none is.
 */
static int
query_others_installed(struct recstore *s, const char *name, bool *others,
    struct dbp_error *err)
{
	struct record *rec;
	char **names;
	size_t i;
	int r;

	*others = false;
	if ((r = recstore_names(s, &names, err)) != 0)
		return r;
	for (i = 0; !*others && names[i] != NULL; i++) {
		if (strcmp(names[i], name) == 0)
			continue;
		if ((r = recstore_load(s, names[i], &rec, NULL, err)) ==
		    -ENOENT) {
			r = 0;
			continue;
		}
		if (r != 0)
			break;
		*others = !record_config_files(rec);
		record_free(rec);
	}
	recstore_names_free(names);
	return r;
}

/* What query_files writes each path with. */
struct query_files_ctx {
	FILE *fp;
	const char *pkg;
	const struct dpkgdivert *divert;
};

/* One line of dpkg -L: the path, and where a diversion sends it. */
static int
query_files_line(const char *path, const struct record_entry *e, void *ctx)
{
	const struct query_files_ctx *c = ctx;
	const struct dpkgdivert_entry *d;
	char esc[PATH_MAX], who[256];

	(void)e;
	fprintf(c->fp, "%s\n", escape_name(path, esc, sizeof(esc)));
	if ((d = dpkgdivert_from(c->divert, path)) == NULL)
		return 0;
	if (d->pkg == NULL)
		fputs("locally diverted to: ", c->fp);
	else if (strcmp(d->pkg, c->pkg) == 0)
		fputs("package diverts others to: ", c->fp);
	else
		fprintf(c->fp, "diverted by %s to: ", escape_name(d->pkg, who,
		    sizeof(who)));
	fprintf(c->fp, "%s\n", escape_name(d->to, esc, sizeof(esc)));
	return 0;
}

int
query_diversions(const struct rootfs *rf, struct dpkgdivert **out,
    struct dbp_error *err)
{
	int dfd, r;

	*out = NULL;
	if ((dfd = rootfs_resolve(rf, "var/lib/dpkg", O_RDONLY |
	    O_DIRECTORY | O_CLOEXEC)) < 0)
		return dfd == -ENOENT || dfd == -ENOTDIR ? 0 :
		    dbp_err(err, -dfd, "var/lib/dpkg", "cannot open");
	r = dpkgdivert_read(out, dfd);
	close(dfd);
	return r == 0 ? 0 : dbp_err(err, -r, "var/lib/dpkg/diversions",
	    "cannot read");
}

int
query_files(struct recstore *s, const char *spec,
    const struct dpkgdivert *divert, FILE *fp, struct dbp_error *err)
{
	struct query_files_ctx c = { .fp = fp, .divert = divert };
	struct record *rec;
	bool others = false;
	int r;

	if ((r = query_load(s, spec, &rec, err)) == -ENOENT)
		return 1;
	if (r != 0)
		return r;
	c.pkg = control_get(rec->ctl, "Package");
	/* The list dpkg keeps of it: the one --dpkg-db writes. */
	if (!record_config_files(rec) ||
	    (r = query_others_installed(s, c.pkg, &others, err)) == 0)
		dpkgfmt_list_walk(rec, !others, query_files_line, &c);
	record_free(rec);
	return r;
}

/*
 * A path as the user typed it, made the records' form in OUT (N bytes):
 * "/a/b", with empty and "." components dropped and ".." taking the one
 * before it (no symlink is followed: this names a package's path, not
 * the root's file).  -ENAMETOOLONG if it does not fit.
 */
static int
query_normal_path(const char *in, char *out, size_t n)
{
	size_t len = 0, clen;
	const char *c;

	out[0] = '\0';
	for (c = in; *c != '\0'; c += clen) {
		while (*c == '/')
			c++;
		clen = strcspn(c, "/");
		if (clen == 0 || (clen == 1 && c[0] == '.'))
			continue;
		if (clen == 2 && c[0] == '.' && c[1] == '.') {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
			out[len] = '\0';
			continue;
		}
		if (len + 1 + clen + 1 > n)
			return -ENAMETOOLONG;
		out[len++] = '/';
		memcpy(out + len, c, clen);
		len += clen;
		out[len] = '\0';
	}
	if (len == 0) {
		if (n < 2)
			return -ENAMETOOLONG;
		memcpy(out, "/", 2);
	}
	return 0;
}

/* One path of one package that a pattern matched. */
struct query_hit {
	const char *path;
	const char *pkg;	/* NULL: a diversion's path */
	size_t rank;		/* the package's in dpkg's reading order */
};

static int
query_hit_cmp(const void *a, const void *b)
{
	const struct query_hit *x = a, *y = b;
	int r = strcmp(x->path, y->path);

	if (r != 0)
		return r;
	/* A diversion's path (no package) before its packages. */
	if ((x->pkg == NULL) != (y->pkg == NULL))
		return x->pkg == NULL ? -1 : 1;
	/* The list dpkg read last names its package first. */
	return x->rank > y->rank ? -1 : x->rank < y->rank;
}

/*
 * PATTERN as dpkg -S takes it: wrapped in "*...*" unless it starts with
 * one of "*[?/" (a pattern with a wildcard inside it, "bin/l*", is a
 * part of a path too); then a path when it has no *, ?, [ or \ ("" is
 * none, as dpkg finds it).
 */
static int
query_pattern(const char *pattern, char *out, size_t n, bool *glob)
{
	if (pattern[0] != '\0' && strchr("*[?/", pattern[0]) == NULL) {
		*glob = true;
		return snprintf(out, n, "*%s*", pattern) < (int)n ? 0 :
		    -ENAMETOOLONG;
	}
	*glob = strpbrk(pattern, "*?[\\") != NULL;
	if (!*glob)
		return query_normal_path(pattern, out, n);
	return snprintf(out, n, "%s", pattern) < (int)n ? 0 : -ENAMETOOLONG;
}

int
query_owner_missed(const char *pattern, struct dbp_error *err)
{
	char want[PATH_MAX + 3];
	bool glob;

	/* dpkg's words, with the pattern as it was searched for. */
	if (query_pattern(pattern, want, sizeof(want), &glob) != 0 || !glob)
		snprintf(want, sizeof(want), "%s", pattern);
	return dbp_err(err, 0, NULL, "no path found matching pattern '%s'",
	    want);
}

/* Add PATH of package PKG (NULL: a diversion's path), RANK, to *HITS. */
static int
query_hit_add(struct query_hit **hits, size_t *n, size_t *cap,
    const char *path, const char *pkg, size_t rank)
{
	struct query_hit *h;

	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		if ((h = realloc(*hits, *cap * sizeof(*h))) == NULL)
			return -ENOMEM;
		*hits = h;
	}
	(*hits)[*n].path = path;
	(*hits)[*n].rank = rank;
	(*hits)[(*n)++].pkg = pkg;
	return 0;
}

/*
 * dpkg -S's lines of one path, HITS[0..N) (sorted, a package's hit after
 * a diversion's): the diversion that names it, then its packages.
 */
static void
query_owner_path(FILE *fp, enum query_format fmt,
    const struct dpkgdivert *divert, const struct query_hit *hits, size_t n,
    size_t *nobj)
{
	const struct dpkgdivert_entry *d;
	char esc[PATH_MAX], pesc[256];
	size_t i, shown = 0;

	if ((d = dpkgdivert_from(divert, hits[0].path)) == NULL)
		d = dpkgdivert_to(divert, hits[0].path);
	if (fmt == QUERY_JSON) {
		fputs(*nobj > 0 ? ",\n{\"path\": " : "{\"path\": ", fp);
		escape_put_json(fp, hits[0].path);
		fputs(", \"packages\": [", fp);
		for (i = 0; i < n; i++)
			if (hits[i].pkg != NULL) {
				fputs(shown++ > 0 ? ", " : "", fp);
				escape_put_json(fp, hits[i].pkg);
			}
		fputs("]", fp);
		if (d != NULL) {
			fputs(", \"diversion\": {\"from\": ", fp);
			escape_put_json(fp, d->from);
			fputs(", \"to\": ", fp);
			escape_put_json(fp, d->to);
			fputs(", \"by\": ", fp);
			if (d->pkg != NULL)
				escape_put_json(fp, d->pkg);
			else
				fputs("null", fp);
			fputs("}", fp);
		}
		fputs("}", fp);
		++*nobj;
		return;
	}
	if (d != NULL && d->pkg != NULL) {
		fprintf(fp, "diversion by %s from: ", escape_name(d->pkg, pesc,
		    sizeof(pesc)));
		fprintf(fp, "%s\n", escape_name(d->from, esc, sizeof(esc)));
		fprintf(fp, "diversion by %s to: ", pesc);
		fprintf(fp, "%s\n", escape_name(d->to, esc, sizeof(esc)));
	} else if (d != NULL) {
		fprintf(fp, "local diversion from: %s\n", escape_name(d->from,
		    esc, sizeof(esc)));
		fprintf(fp, "local diversion to: %s\n", escape_name(d->to, esc,
		    sizeof(esc)));
	}
	for (i = 0; i < n; i++)
		if (hits[i].pkg != NULL)
			fprintf(fp, "%s%s", shown++ > 0 ? ", " : "",
			    escape_name(hits[i].pkg, pesc, sizeof(pesc)));
	if (shown > 0)
		fprintf(fp, ": %s\n", escape_name(hits[0].path, esc,
		    sizeof(esc)));
}

/* Whether PATH is what pattern WANT (GLOB: a shell pattern) names. */
static bool
query_owner_match(const char *want, bool glob, const char *path)
{
	return glob ? fnmatch(want, path, 0) == 0 : strcmp(want, path) == 0;
}

int
query_owner(struct recstore *s, const struct rootfs *rf,
    const struct dpkgdivert *divert,
    char *const *patterns, size_t npatterns, bool *found,
    enum query_format fmt, FILE *fp, struct dbp_error *err)
{
	size_t nobj = 0;
	char want[PATH_MAX + 3], name[256];
	const struct dpkgdivert_entry *d;
	struct record **recs = NULL;
	struct query_hit *hits = NULL;
	char **names, **shown = NULL;
	size_t *rank = NULL;
	size_t nrec = 0, nhits, cap = 0, i, k, p;
	bool glob;
	int r, missing = 0;

	if ((r = recstore_names(s, &names, err)) != 0)
		return r;
	for (i = 0; names[i] != NULL; i++)
		;
	if (i > 0 && ((recs = calloc(i, sizeof(*recs))) == NULL ||
	    (shown = calloc(i, sizeof(*shown))) == NULL ||
	    (rank = calloc(i, sizeof(*rank))) == NULL))
		r = dbp_err(err, ENOMEM, NULL, "cannot read records");
	for (i = 0; r == 0 && names[i] != NULL; i++)
		if ((r = recstore_load(s, names[i], &recs[nrec], NULL,
		    err)) == 0) {
			/* Each package as dpkg -S names it. */
			if ((shown[nrec] = strdup(query_name(recs[nrec], name,
			    sizeof(name)))) == NULL)
				r = dbp_err(err, ENOMEM, NULL,
				    "cannot read records");
			nrec++;
		} else if (r == -ENOENT)	/* gone since, or dpkg's now */
			r = 0;
	if (r == 0 && ownerorder_ranks(rf, recs, nrec, rank) != 0)
		r = dbp_err(err, ENOMEM, NULL, "cannot read records");
	if (fmt == QUERY_JSON && r == 0)
		fputs("[", fp);
	for (p = 0; r == 0 && p < npatterns; p++) {
		if ((r = query_pattern(patterns[p], want, sizeof(want),
		    &glob)) != 0) {
			r = dbp_err(err, -r, patterns[p], "path too long");
			break;
		}
		nhits = 0;
		for (i = 0; r == 0 && i < nrec; i++)
			for (k = 0; r == 0 && k < recs[i]->n; k++)
				/* By the name dpkg's file list has. */
				if (query_owner_match(want, glob,
				    record_entry_name(&recs[i]->v[k])))
					r = query_hit_add(&hits, &nhits, &cap,
					    record_entry_name(&recs[i]->v[k]),
					    shown[i], rank[i]);
		/* dpkg knows a diversion's two paths, owned or not. */
		for (i = 0; r == 0 && i < dpkgdivert_count(divert); i++) {
			d = dpkgdivert_nth(divert, i);
			if (query_owner_match(want, glob, d->from))
				r = query_hit_add(&hits, &nhits, &cap, d->from,
				    NULL, 0);
			if (r == 0 && query_owner_match(want, glob, d->to))
				r = query_hit_add(&hits, &nhits, &cap, d->to,
				    NULL, 0);
		}
		if (r != 0) {
			r = dbp_err(err, -r, NULL, "cannot search records");
			break;
		}
		found[p] = nhits > 0;
		missing += nhits == 0;
		/* dpkg -S's lines: each path once, its packages before it. */
		if (nhits > 1)
			qsort(hits, nhits, sizeof(*hits), query_hit_cmp);
		for (i = 0; i < nhits; i = k) {
			for (k = i + 1; k < nhits &&
			    strcmp(hits[k].path, hits[i].path) == 0; k++)
				;
			query_owner_path(fp, fmt, divert, hits + i, k - i,
			    &nobj);
		}
	}
	if (fmt == QUERY_JSON && r == 0)
		fputs("]\n", fp);
	free(hits);
	for (i = 0; i < nrec; i++) {
		record_free(recs[i]);
		free(shown[i]);
	}
	free(recs);
	free(shown);
	free(rank);
	recstore_names_free(names);
	if (r != 0)
		return r;
	return missing > 0;
}

static void
query_entry(struct archive_entry *ae, FILE *fp)
{
	char name[PATH_MAX], link[PATH_MAX], when[32], owner[64];
	const char *target;
	time_t t = archive_entry_mtime(ae);
	struct tm tm;
	const char *u = archive_entry_uname(ae), *g = archive_entry_gname(ae);

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm) == 0)
		strcpy(when, "?");
	if (u != NULL && g != NULL)
		snprintf(owner, sizeof(owner), "%s/%s", u, g);
	else
		snprintf(owner, sizeof(owner), "%lld/%lld",
		    (long long)archive_entry_uid(ae),
		    (long long)archive_entry_gid(ae));
	/* archive_entry_strmode ends with a space for the ACL marker. */
	fprintf(fp, "%.10s %s %9lld %s %s",
	    archive_entry_strmode(ae), escape_name(owner, link, sizeof(link)),
	    (long long)archive_entry_size(ae), when,
	    escape_name(archive_entry_pathname(ae) != NULL ?
	    archive_entry_pathname(ae) : "", name, sizeof(name)));
	if ((target = archive_entry_hardlink(ae)) != NULL)
		fprintf(fp, " link to %s", escape_name(target, link,
		    sizeof(link)));
	else if ((target = archive_entry_symlink(ae)) != NULL)
		fprintf(fp, " -> %s", escape_name(target, link, sizeof(link)));
	fputc('\n', fp);
}

/* An entry of the package being read; a non-zero return stops it. */
typedef int query_entry_fn(struct archive_entry *ae, void *ctx,
    struct dbp_error *err);

/*
 * Read package FILE through as an install reads it, writing nothing: its
 * container, control and every data entry (FN told of each), the data
 * through its compression's checks, and what follows the data member.
 */
static int
query_read(const char *file, query_entry_fn *fn, void *ctx,
    struct dbp_error *err)
{
	struct control *ctl = NULL;
	struct archive_entry *ae;
	struct archive *tar;
	struct deb *d;
	int r, fr = 0;

	if ((r = deb_open(&d, file, err)) != 0)
		return r;
	if ((r = deb_read_control(d, &ctl, err)) == 0 &&
	    (r = deb_data_open(d, &tar, err)) == 0) {
		while (fr == 0 &&
		    ((r = archive_read_next_header(tar, &ae)) == ARCHIVE_OK ||
		    r == ARCHIVE_WARN))
			fr = fn(ae, ctx, err);
		if (fr != 0)
			r = fr;
		else if (r != ARCHIVE_EOF)
			r = dbp_err(err, 0, "", "%s: %s", deb_data_member(d),
			    archive_error_string(tar) != NULL ?
			    archive_error_string(tar) : "read error");
		else
			r = deb_finish(d, err);
	}
	control_free(ctl);
	deb_close(d);
	return r;
}

static int
query_list_entry(struct archive_entry *ae, void *ctx, struct dbp_error *err)
{
	(void)err;
	query_entry(ae, ctx);
	return 0;
}

int
query_contents(const char *file, FILE *fp, struct dbp_error *err)
{
	return query_read(file, query_list_entry, fp, err);
}

/* An entry's name (and a hardlink's target) by the archive path rules. */
static int
query_sound_entry(struct archive_entry *ae, void *ctx, struct dbp_error *err)
{
	const char *name = archive_entry_pathname(ae);
	const char *target = archive_entry_hardlink(ae);
	char out[PATH_MAX];
	int r;

	(void)ctx;
	if ((r = names_path(name != NULL ? name : "", out, sizeof(out),
	    err)) != 0)
		return r;
	if (target != NULL && (r = names_path(target, out, sizeof(out),
	    err)) != 0)
		return r;
	return 0;
}

int
query_sound(const char *file, struct dbp_error *err)
{
	return query_read(file, query_sound_entry, NULL, err);
}
