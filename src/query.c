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
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "control.h"
#include "deb.h"
#include "digest.h"
#include "escape.h"
#include "query.h"
#include "record.h"
#include "names.h"

int
query_list(struct manifest *m, enum query_format fmt, FILE *fp,
    struct dbp_error *err)
{
	size_t nobj = 0;
	struct record *rec;
	char **names, a[256], b[256], c[64];
	size_t i;
	int r;

	if ((r = manifest_names(m, &names, err)) != 0)
		return r;
	for (i = 0; names[i] != NULL; i++) {
		/* -ENOENT: gone since the listing, or dpkg's now. */
		if ((r = manifest_load(m, names[i], &rec, err)) == -ENOENT) {
			r = 0;
			continue;
		}
		if (r != 0)
			break;
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
		    escape_name(control_get(rec->ctl, "Package"), a, sizeof(a)),
		    escape_name(control_get(rec->ctl, "Version"), b, sizeof(b)),
		    escape_name(control_get(rec->ctl, "Architecture"), c,
		    sizeof(c)), record_config_files(rec) ? "\tconfig-files" :
		    "");
		record_free(rec);
	}
	manifest_names_free(names);
	if (fmt == QUERY_JSON && r == 0)
		fputs(nobj > 0 ? "]\n" : "[]\n", fp);
	return r;
}

int
query_files(struct manifest *m, const char *name, FILE *fp,
    struct dbp_error *err)
{
	char esc[PATH_MAX];
	struct record *rec;
	size_t i;
	int r;

	/* A record's file is named after its package: no other name reads. */
	if (name[0] == '\0' || strchr(name, '/') != NULL ||
	    (r = manifest_load(m, name, &rec, err)) == -ENOENT)
		return 1;
	if (r != 0)
		return r;
	for (i = 0; i < rec->n; i++)
		fprintf(fp, "%s\n", escape_name(rec->v[i].path, esc,
		    sizeof(esc)));
	record_free(rec);
	return 0;
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
	const char *pkg;
};

static int
query_hit_cmp(const void *a, const void *b)
{
	const struct query_hit *x = a, *y = b;
	int r = strcmp(x->path, y->path);

	return r != 0 ? r : strcmp(x->pkg, y->pkg);
}

bool
query_pattern_is_path(const char *pattern)
{
	return pattern[0] == '/' && strpbrk(pattern, "*?[\\") == NULL;
}

/* What PATTERN is, as dpkg -S reads it (see query.h). */
static int
query_pattern(const char *pattern, char *out, size_t n, bool *glob)
{
	*glob = !query_pattern_is_path(pattern);
	if (strpbrk(pattern, "*?[\\") != NULL)
		return snprintf(out, n, "%s", pattern) < (int)n ? 0 :
		    -ENAMETOOLONG;
	if (!*glob)
		return query_normal_path(pattern, out, n);
	return snprintf(out, n, "*%s*", pattern) < (int)n ? 0 : -ENAMETOOLONG;
}

int
query_owner(struct manifest *m, char *const *patterns, size_t npatterns,
    bool *found, enum query_format fmt, FILE *fp, struct dbp_error *err)
{
	size_t nobj = 0;
	char want[PATH_MAX + 3], esc[PATH_MAX], pesc[256];
	struct record **recs = NULL;
	struct query_hit *hits = NULL, *h;
	char **names;
	size_t nrec = 0, nhits, cap = 0, i, k, p;
	bool glob;
	int r, missing = 0;

	if ((r = manifest_names(m, &names, err)) != 0)
		return r;
	for (i = 0; names[i] != NULL; i++)
		;
	if (i > 0 && (recs = calloc(i, sizeof(*recs))) == NULL)
		r = dbp_err(err, ENOMEM, NULL, "cannot read records");
	for (i = 0; r == 0 && names[i] != NULL; i++)
		if ((r = manifest_load(m, names[i], &recs[nrec], err)) == 0)
			nrec++;
		else if (r == -ENOENT)	/* gone since, or dpkg's now */
			r = 0;
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
			for (k = 0; k < recs[i]->n; k++) {
				const char *path = recs[i]->v[k].path;

				if (glob ? fnmatch(want, path, 0) != 0 :
				    strcmp(want, path) != 0)
					continue;
				if (nhits == cap) {
					cap = cap ? 2 * cap : 64;
					if ((h = realloc(hits, cap *
					    sizeof(*h))) == NULL) {
						r = dbp_err(err, ENOMEM, NULL,
						    "cannot search records");
						break;
					}
					hits = h;
				}
				hits[nhits].path = path;
				hits[nhits++].pkg = control_get(recs[i]->ctl,
				    "Package");
			}
		if (r != 0)
			break;
		found[p] = nhits > 0;
		missing += nhits == 0;
		/* dpkg -S's lines: each path once, its packages before it. */
		if (nhits > 1)
			qsort(hits, nhits, sizeof(*hits), query_hit_cmp);
		for (i = 0; i < nhits; i++) {
			bool first = i == 0 ||
			    strcmp(hits[i - 1].path, hits[i].path) != 0;
			bool last = i + 1 == nhits ||
			    strcmp(hits[i + 1].path, hits[i].path) != 0;

			if (fmt == QUERY_JSON) {
				/* {"path": P, "packages": [...]}, a path once. */
				if (first) {
					fputs(nobj++ > 0 ? ",\n{\"path\": " :
					    "{\"path\": ", fp);
					escape_put_json(fp, hits[i].path);
					fputs(", \"packages\": [", fp);
				} else
					fputs(", ", fp);
				escape_put_json(fp, hits[i].pkg);
				if (last)
					fputs("]}", fp);
				continue;
			}
			fprintf(fp, "%s%s", first ? "" : ", ",
			    escape_name(hits[i].pkg, pesc, sizeof(pesc)));
			if (last)
				fprintf(fp, ": %s\n", escape_name(hits[i].path,
				    esc, sizeof(esc)));
		}
	}
	if (fmt == QUERY_JSON && r == 0)
		fputs("]\n", fp);
	free(hits);
	for (i = 0; i < nrec; i++)
		record_free(recs[i]);
	free(recs);
	manifest_names_free(names);
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


/*
 * Open the directory of root-relative PATH, resolved inside the root (so
 * merged-/usr links are followed), and lstat PATH's last component there:
 * the directory's descriptor, which the caller closes, with *ST and *BASE;
 * or -errno.
 */
static int
query_lstat(const struct rootfs *rf, const char *path, struct stat *st,
    const char **base)
{
	const char *slash = strrchr(path, '/');
	char parent[PATH_MAX];
	int dfd, r;

	snprintf(parent, sizeof(parent), "%.*s",
	    slash != NULL ? (int)(slash - path) : 0, path);
	if ((dfd = rootfs_resolve(rf, parent, O_PATH | O_DIRECTORY)) < 0)
		return dfd;
	*base = slash != NULL ? slash + 1 : path;
	if (fstatat(dfd, *base, st, AT_SYMLINK_NOFOLLOW) != 0) {
		r = -errno;
		close(dfd);
		return r;
	}
	return dfd;
}

/* What --verify found of one recorded path. */
struct query_seen {
	const char *what[10];	/* the problems, in the words of the text */
	size_t n;
	/* rpm -V's attributes: S M 5 D L U G T P; '.' passed, '?' not checked */
	char attrs[10];
	bool missing;
};

/* Problem WHAT, at rpm attribute ATTR ('\0': none of them, or missing). */
static void
query_note(struct query_seen *q, const char *what, char attr)
{
	static const char order[] = "SM5DLUGTP";
	const char *at;

	if (q->n < sizeof(q->what) / sizeof(q->what[0]))
		q->what[q->n++] = what;
	if (attr != '\0' && (at = strchr(order, attr)) != NULL)
		q->attrs[at - order] = attr;
}

/*
 * Say what was seen of E (package PKG) on FP in format FMT, if anything
 * is wrong: the text's line per problem, rpm -V's line ("??5?????? c
 * /etc/x", as dpkg --verify prints it), or a JSON object.
 */
static void
query_report(FILE *fp, enum query_format fmt, const char *pkg,
    const struct record_entry *e, const struct query_seen *q, unsigned *count)
{
	char esc[PATH_MAX];
	size_t i;

	if (q->n == 0)
		return;
	switch (fmt) {
	case QUERY_TEXT:
		for (i = 0; i < q->n; i++)
			fprintf(fp, "%s: %s: %s%s\n", pkg, escape_name(e->path,
			    esc, sizeof(esc)), q->what[i], e->conffile ?
			    " (conffile)" : "");
		break;
	case QUERY_RPM:
		/* dpkg and rpm print the path as it is; names stay safe here. */
		fprintf(fp, "%-9s %c %s\n", q->missing ? "missing" : q->attrs,
		    e->conffile ? 'c' : ' ', escape_name(e->path, esc,
		    sizeof(esc)));
		break;
	case QUERY_JSON:
		fputs(*count > 0 ? ",\n" : "", fp);
		fputs("{\"package\": ", fp);
		escape_put_json(fp, pkg);
		fputs(", \"path\": ", fp);
		escape_put_json(fp, e->path);
		fprintf(fp, ", \"conffile\": %s, \"rpm\": \"%s\", \"problems\": [",
		    e->conffile ? "true" : "false", q->missing ? "missing" :
		    q->attrs);
		for (i = 0; i < q->n; i++) {
			fputs(i > 0 ? ", " : "", fp);
			escape_put_json(fp, q->what[i]);
		}
		fputs("]}", fp);
		break;
	}
	*count += (unsigned)q->n;
}

/*
 * Check one recorded path against the root.  Returns 0 (problems told
 * through query_report) or -errno when the check itself failed.
 */
static int
query_check(const struct rootfs *rf, struct digest *dg, const char *pkg,
    const struct record_entry *e, bool check_owner, enum query_format fmt,
    FILE *fp, unsigned *count)
{
	char link[PATH_MAX], what[2][96];
	uint8_t digest[DIGEST_LEN];
	struct query_seen q;
	const char *base;
	struct stat st;
	int dfd, fd = -1;
	ssize_t n;
	bool type_ok;

	if (strcmp(e->path, "/") == 0)
		return 0;
	memset(&q, 0, sizeof(q));
	/* Times and capabilities are not recorded; owners only as root. */
	snprintf(q.attrs, sizeof(q.attrs), ".....%s??", check_owner ? ".." :
	    "??");
	if ((dfd = query_lstat(rf, e->path + 1, &st, &base)) < 0) {
		if (dfd != -ENOENT && dfd != -ENOTDIR)
			return dfd;
		q.missing = true;
		query_note(&q, e->skipped ? "device node not made (skipped at"
		    " install)" : "missing", '\0');
		query_report(fp, fmt, pkg, e, &q, count);
		return 0;
	}
	switch (e->type) {
	case 'f': case 'h': type_ok = S_ISREG(st.st_mode); break;
	case 'd': type_ok = S_ISDIR(st.st_mode) ||
	    (S_ISLNK(st.st_mode) && (fd = openat(dfd, base, O_PATH |
	    O_DIRECTORY)) >= 0 && close(fd) == 0); break;
	case 'l': type_ok = S_ISLNK(st.st_mode); break;
	case 'c': type_ok = S_ISCHR(st.st_mode); break;
	case 'b': type_ok = S_ISBLK(st.st_mode); break;
	default: type_ok = S_ISFIFO(st.st_mode); break;
	}
	if (!type_ok) {
		query_note(&q, "changed type", 'M');
		query_report(fp, fmt, pkg, e, &q, count);
		close(dfd);
		return 0;
	}
	/* Directories are kept as they were found: only their presence counts. */
	if (e->type != 'd' && e->type != 'l' &&
	    (st.st_mode & 07777) != e->mode) {
		snprintf(what[0], sizeof(what[0]), "changed mode %04o (recorded"
		    " %04o)", (unsigned)(st.st_mode & 07777), (unsigned)e->mode);
		query_note(&q, what[0], 'M');
	}
	if (check_owner && e->type != 'd' &&
	    (st.st_uid != e->uid || st.st_gid != e->gid)) {
		snprintf(what[1], sizeof(what[1]), "changed owner %u:%u"
		    " (recorded %u:%u)", (unsigned)st.st_uid,
		    (unsigned)st.st_gid, (unsigned)e->uid, (unsigned)e->gid);
		query_note(&q, what[1], st.st_uid != e->uid ? 'U' : 'G');
		if (st.st_uid != e->uid && st.st_gid != e->gid)
			q.attrs[6] = 'G';
	}
	if (e->type == 'l') {
		n = readlinkat(dfd, base, link, sizeof(link) - 1);
		if (n < 0 || (link[n] = '\0', strcmp(link, e->target) != 0))
			query_note(&q, "changed link target", 'L');
	} else if ((e->type == 'c' || e->type == 'b') &&
	    (major(st.st_rdev) != e->major || minor(st.st_rdev) != e->minor))
		query_note(&q, "changed device numbers", 'D');
	else if (e->type == 'f' || e->type == 'h') {
		if ((uint64_t)st.st_size != e->size) {
			query_note(&q, "changed size", 'S');
			/* Another size is another content: rpm says both. */
			q.attrs[2] = '5';
		} else if (digest_file_at(dg, dfd, base, digest) != 0) {
			query_note(&q, "unreadable", '\0');
			q.attrs[2] = '?';
		} else if (memcmp(digest, e->sha256, sizeof(digest)) != 0)
			query_note(&q, "changed content", '5');
	}
	close(dfd);
	query_report(fp, fmt, pkg, e, &q, count);
	return 0;
}

int
query_verify(struct manifest *m, const struct rootfs *rf,
    char *const *names, bool check_owner, enum query_format fmt, FILE *fp,
    struct dbp_error *err)
{
	char **all = NULL;
	char *const *list = names;
	struct digest *dg;
	struct record *rec;
	unsigned count = 0;
	size_t i, j;
	int r = 0;

	/* One SHA-256 context for every file checked. */
	if (digest_new(&dg) != 0)
		return dbp_err(err, ENOMEM, "", "cannot verify");
	if (fmt == QUERY_JSON)
		fputs("[", fp);
	if (names == NULL || names[0] == NULL) {
		if ((r = manifest_names(m, &all, err)) != 0) {
			digest_free(dg);
			return r;
		}
		list = all;
	}
	for (i = 0; r == 0 && list[i] != NULL; i++) {
		if ((r = manifest_load(m, list[i], &rec, err)) == -ENOENT &&
		    list == all) {
			r = 0;	/* gone since the listing, or dpkg's now */
			continue;
		}
		if (r != 0) {
			if (r == -ENOENT)
				r = dbp_err(err, 0, list[i],
				    "package is not installed");
			break;
		}
		for (j = 0; r == 0 && j < rec->n; j++)
			if ((r = query_check(rf, dg, list[i], &rec->v[j],
			    check_owner, fmt, fp, &count)) != 0)
				r = dbp_err(err, -r, rec->v[j].path,
				    "cannot verify");
		record_free(rec);
	}
	manifest_names_free(all);
	digest_free(dg);
	if (fmt == QUERY_JSON && r == 0)
		fputs("]\n", fp);
	return r != 0 ? r : (int)count;
}
