/* SPDX-License-Identifier: MIT */
/* The packages dpkg installed, read from its database as installed records. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "db/dpkgadopt.h"
#include "db/dpkgfmt.h"
#include "db/record_int.h"
#include "durable/fileat.h"
#include "util/strhash.h"

/*
 * Where dpkg's database is the authority, what it installed is installed
 * as much as what debunpack did: upgraded, replaced, removed by the same
 * rules.  Its database knows less (paths without types, MD5 where
 * debunpack keeps SHA-256), so the record says what was never known
 * (sha256_unknown) and every reader of an installed entry asks.
 */

bool
dpkgadopt_has_files(const struct dpkgstatus_stanza *o)
{
	return dpkgstatus_installed(o) ||
	    strcmp(dpkgstatus_state(o), "config-files") == 0;
}

/*
 * A list line dpkgadopt_one makes an entry of, if the entry's rules take
 * it: a path, but not the root ("/." as dpkg lists it).
 */
static bool
dpkgadopt_line_path(const char *p)
{
	return p[0] == '/' && strcmp(p, "/.") != 0 && strcmp(p, "/") != 0;
}

/* The directory a run of paths is in, kept open: .list files go in order. */
struct dpkgadopt_dir {
	char path[PATH_MAX];
	int fd;
};

/* The directory of "/a/b" ABSPATH, open, or -errno. */
static int
dpkgadopt_parent(const struct rootfs *rf, struct dpkgadopt_dir *d,
    const char *abspath)
{
	const char *slash = strrchr(abspath, '/');
	size_t len = (size_t)(slash - abspath);

	if (len == 0)
		return rf->fd;
	if (len >= sizeof(d->path))
		return -ENAMETOOLONG;
	if (d->fd >= 0 && strncmp(d->path, abspath + 1, len - 1) == 0 &&
	    d->path[len - 1] == '\0')
		return d->fd;
	if (d->fd >= 0)
		close(d->fd);
	memcpy(d->path, abspath + 1, len - 1);
	d->path[len - 1] = '\0';
	d->fd = rootfs_resolve(rf, d->path, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	if (d->fd < 0) {
		int r = d->fd;

		d->fd = -1;
		return r;
	}
	return d->fd;
}

/*
 * Entry E (its path set) typed as it is in the root.  dpkg lists a
 * directory its package has, and merged /usr makes some of them symlinks
 * to directories: those are directories to every rule here, so that
 * none removes a link another package's files go through.
 */
static int
dpkgadopt_stat(const struct rootfs *rf, struct dpkgadopt_dir *d,
    struct record_entry *e, char *target, size_t tsize)
{
	const char *base = strrchr(e->path, '/') + 1;
	struct stat st;
	ssize_t n;
	int fd, pfd;

	e->type = 'f';
	e->mode = 0644;
	e->uid = 0;
	e->gid = 0;
	e->target = NULL;
	if ((pfd = dpkgadopt_parent(rf, d, e->path)) < 0)
		return pfd == -ENOENT || pfd == -ENOTDIR ? 0 : pfd;
	if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	e->mode = st.st_mode & 07777;
	e->uid = st.st_uid;
	e->gid = st.st_gid;
	if (S_ISDIR(st.st_mode))
		e->type = 'd';
	else if (S_ISLNK(st.st_mode)) {
		if ((fd = rootfs_resolve(rf, e->path + 1, O_PATH | O_DIRECTORY |
		    O_CLOEXEC)) >= 0) {
			close(fd);
			e->type = 'd';
			e->mode = 0755;
			return 0;
		}
		n = readlinkat(pfd, base, target, tsize - 1);
		if (n <= 0)
			return n == 0 ? 0 : -errno;
		target[n] = '\0';
		e->type = 'l';
		e->target = target;
	} else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
		e->type = S_ISCHR(st.st_mode) ? 'c' : 'b';
		e->major = major(st.st_rdev);
		e->minor = minor(st.st_rdev);
	} else if (S_ISFIFO(st.st_mode))
		e->type = 'p';
	else if (S_ISREG(st.st_mode))
		e->size = (uint64_t)st.st_size;
	return 0;
}

/* Path ABSPATH of the package, typed in the root, into REC. */
static int
dpkgadopt_path(const struct rootfs *rf, struct dpkgadopt_dir *d,
    struct record *rec, const char *abspath, bool conffile)
{
	struct record_entry e;
	char target[PATH_MAX];
	int r;

	memset(&e, 0, sizeof(e));
	e.path = (char *)abspath;
	e.sha256_unknown = true;
	e.type = 'f';
	e.mode = 0644;
	/* RF NULL: untyped (DPKGADOPT_UNTYPED). */
	if (rf != NULL &&
	    (r = dpkgadopt_stat(rf, d, &e, target, sizeof(target))) != 0)
		return r;
	/* A conffile is a file to dpkg whatever the user made of it. */
	if (conffile) {
		e.type = 'f';
		e.target = NULL;
		e.major = e.minor = 0;
		e.conffile = true;
	}
	return record_add(rec, &e);
}

/* What dpkgadopt_conffile works on. */
struct dpkgadopt_conf {
	const struct rootfs *rf;
	struct dpkgadopt_dir *d;
	struct record *rec;
	int r;
};

static int
dpkgadopt_conffile(const struct dpkgfmt_conffile *c, void *ctx)
{
	struct dpkgadopt_conf *q = ctx;
	struct record_entry *e;
	size_t i;

	if (c->path[0] != '/' || record_find(q->rec, c->path) == NULL) {
		if (c->path[0] != '/')
			return 0;
		/* An obsolete conffile may be out of the list. */
		if ((q->r = dpkgadopt_path(q->rf, q->d, q->rec, c->path,
		    true)) != 0)
			return q->r == -EINVAL ? (q->r = 0) : q->r;
	}
	for (i = 0; i < q->rec->n; i++) {
		e = &q->rec->v[i];
		if (strcmp(e->path, c->path) != 0)
			continue;
		if (e->type != 'f') {
			e->type = 'f';
			free(e->target);
			e->target = NULL;
			e->major = e->minor = 0;
		}
		e->conffile = true;
		e->obsolete = (c->flags & DPKGFMT_CONFF_OBSOLETE) != 0;
		/* Without a hash ("newconffile") the field holds nothing. */
		e->has_md5 = c->has_md5;
		if (c->has_md5)
			memcpy(e->md5, c->md5, sizeof(e->md5));
		else
			memset(e->md5, 0, sizeof(e->md5));
	}
	return 0;
}

/* The MD5s of info/INFO.md5sums onto REC's regular files. */
static int
dpkgadopt_md5sums(int dfd, const char *info, struct record *rec)
{
	char file[NAME_MAX + 1], abspath[PATH_MAX + 1], *text, *p, *nl, *q;
	unsigned char md5[16];
	const struct record_entry *f;
	struct record_entry *e;
	size_t len;
	int r;

	if (snprintf(file, sizeof(file), "info/%s.md5sums", info) >=
	    (int)sizeof(file))
		return 0;
	if ((r = fileat_read(dfd, file, &text, &len)) != 0)
		return r == -ENOENT || r == -EINVAL ? 0 : r;
	for (p = text; *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			nl = p + strlen(p) - 1;
		else
			*nl = '\0';
		/* "HASH  PATH" (or "HASH *PATH"), the path without its "/". */
		if (strlen(p) < 35 || !dpkgfmt_hex_md5(p, 32, md5) ||
		    p[32] != ' ')
			continue;
		q = p + 34;
		if (snprintf(abspath, sizeof(abspath), "%s%s", *q == '/' ?
		    "" : "/", q) >= (int)sizeof(abspath))
			continue;
		if ((f = record_find(rec, abspath)) == NULL)
			continue;
		e = &rec->v[f - rec->v];
		if (e->type == 'f' && !e->conffile) {
			e->has_md5 = true;
			memcpy(e->md5, md5, sizeof(md5));
		}
	}
	free(text);
	return 0;
}

/* What dpkgadopt_ctl_field copies a stanza into. */
struct dpkgadopt_ctl {
	FILE *fp;
	bool conffiles_only;
};

/* What dpkg keeps of a package's state, not of the package: no record's. */
static const char *const dpkgadopt_state_fields[] = {
	"Status", "Conffiles", "Config-Version", "Triggers-Pending",
	"Triggers-Awaited",
};

static int
dpkgadopt_ctl_field(const struct dpkgfmt_field *f, void *ctx)
{
	struct dpkgadopt_ctl *c = ctx;
	size_t i;

	for (i = 0; f->name != NULL && i < sizeof(dpkgadopt_state_fields) /
	    sizeof(dpkgadopt_state_fields[0]); i++)
		if (dpkgfmt_field_is(f, dpkgadopt_state_fields[i]))
			return 0;
	fwrite(f->text, 1, f->textlen, c->fp);
	return 0;
}

/*
 * Stanza O's fields as a record's control; a config-files package's
 * Status as debunpack's records spell that state.  -EINVAL when the
 * stanza cannot be a record's (no Version, say).
 */
static int
dpkgadopt_ctl(const struct dpkgstatus_stanza *o, struct control **out)
{
	struct dpkgadopt_ctl c = { .conffiles_only = !dpkgstatus_installed(o) };
	struct dbp_error perr;
	char *text;
	size_t len;
	int r;

	if ((c.fp = open_memstream(&text, &len)) == NULL)
		return -ENOMEM;
	dpkgfmt_fields(o->text, o->len, dpkgadopt_ctl_field, &c);
	if (c.conffiles_only)
		fputs("Status: " RECORD_CONFIG_FILES "\n", c.fp);
	if (fclose(c.fp) != 0)
		return -ENOMEM;
	r = control_parse(text, len, out, &perr);
	free(text);
	return r;
}

/* The conffiles of an unlisted record, sorted and each once. */
struct dpkgadopt_cset {
	char **v;
	size_t n, cap;
	int r;
};

static int
dpkgadopt_cset_add(const struct dpkgfmt_conffile *c, void *ctx)
{
	struct dpkgadopt_cset *s = ctx;
	char **nv;

	if (c->path[0] != '/' || record_path_problem(c->path) != NULL)
		return 0;
	if (s->n == s->cap) {
		s->cap = s->cap != 0 ? 2 * s->cap : 16;
		if ((nv = reallocarray(s->v, s->cap, sizeof(*nv))) == NULL)
			return s->r = -ENOMEM;
		s->v = nv;
	}
	if ((s->v[s->n] = strdup(c->path)) == NULL)
		return s->r = -ENOMEM;
	s->n++;
	return 0;
}

static int
dpkgadopt_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
dpkgadopt_cset_free(struct dpkgadopt_cset *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

/* The conffiles of Conffiles field TEXT (LEN bytes) into S: 0 or -ENOMEM. */
static int
dpkgadopt_cset_make(struct dpkgadopt_cset *s, const char *text, size_t len)
{
	size_t i, k;

	memset(s, 0, sizeof(*s));
	if (text == NULL)
		return 0;
	dpkgfmt_conffiles(text, len, dpkgadopt_cset_add, s);
	if (s->r != 0) {
		dpkgadopt_cset_free(s);
		return -ENOMEM;
	}
	qsort(s->v, s->n, sizeof(*s->v), dpkgadopt_strcmp);
	for (i = k = 0; i < s->n; i++)
		if (k > 0 && strcmp(s->v[i], s->v[k - 1]) == 0)
			free(s->v[i]);
		else
			s->v[k++] = s->v[i];
	s->n = k;
	return 0;
}

/* The index of PATH in S, or S->N. */
static size_t
dpkgadopt_cset_find(const struct dpkgadopt_cset *s, const char *path)
{
	char **hit;

	if (s->n == 0)
		return s->n;
	hit = bsearch(&path, s->v, s->n, sizeof(*s->v), dpkgadopt_strcmp);
	return hit != NULL ? (size_t)(hit - s->v) : s->n;
}

/* A list line that becomes an entry: an absolute path an entry may have. */
static bool
dpkgadopt_line_ok(const char *p)
{
	return dpkgadopt_line_path(p) && record_path_problem(p) == NULL;
}

/* What dpkgadopt_lone_add appends the conffiles a list lacks to. */
struct dpkgadopt_lone {
	struct record *rec;
	const struct dpkgadopt_cset *cs;
	bool *seen;		/* by CS's index: in the list, or added */
	int r;
};

static int
dpkgadopt_lone_add(const struct dpkgfmt_conffile *c, void *ctx)
{
	struct dpkgadopt_lone *l = ctx;
	size_t k = dpkgadopt_cset_find(l->cs, c->path), n;
	char *nt;

	if (k == l->cs->n || l->seen[k])
		return 0;
	n = strlen(c->path) + 1;
	if ((nt = realloc(l->rec->list, l->rec->listlen + n)) == NULL)
		return l->r = -ENOMEM;
	memcpy(nt + l->rec->listlen, c->path, n);
	l->rec->list = nt;
	l->rec->listlen += n;
	l->seen[k] = true;
	return 0;
}

/*
 * REC unlisted (DPKGADOPT_DEFER): the list TEXT of LEN bytes, which it
 * takes, its lines ended by NULs; each conffile of O the list lacks
 * (dpkgadopt_one adds an entry of it after the list's) appended as a
 * line; and a copy of O's Conffiles field.
 */
static int
dpkgadopt_defer(struct record *rec, const struct dpkgstatus_stanza *o,
    char *text, size_t len)
{
	struct dpkgadopt_lone lone;
	struct dpkgadopt_cset cs;
	const char *p;
	bool *seen = NULL;
	size_t i, k;
	int r;

	/* No list: no paths. */
	if (text == NULL) {
		if ((text = strdup("")) == NULL)
			return -ENOMEM;
		len = 0;
	}
	/* dpkgadopt_one's reading ends at a NUL byte: so does this. */
	len = strlen(text);
	for (i = 0; i < len; i++)
		if (text[i] == '\n')
			text[i] = '\0';
	/* A last line without its newline ends at the text's own NUL. */
	if (len > 0 && text[len - 1] != '\0')
		len++;
	rec->list = text;
	rec->listlen = len;
	if (o->conffiles == NULL)
		goto done;
	if ((rec->conffiles = malloc(o->conffiles_len + 1)) == NULL)
		return -ENOMEM;
	memcpy(rec->conffiles, o->conffiles, o->conffiles_len);
	rec->conffiles[o->conffiles_len] = '\0';
	rec->conffiles_len = o->conffiles_len;
	if ((r = dpkgadopt_cset_make(&cs, rec->conffiles,
	    rec->conffiles_len)) != 0)
		return r;
	if (cs.n > 0 && (seen = calloc(cs.n, sizeof(*seen))) == NULL) {
		dpkgadopt_cset_free(&cs);
		return -ENOMEM;
	}
	for (p = rec->list; cs.n > 0 && p < rec->list + rec->listlen;
	    p += strlen(p) + 1)
		if ((k = dpkgadopt_cset_find(&cs, p)) < cs.n)
			seen[k] = true;
	/* In the field's order, as dpkgadopt_conffile adds them. */
	lone = (struct dpkgadopt_lone){ .rec = rec, .cs = &cs, .seen = seen };
	dpkgfmt_conffiles(rec->conffiles, rec->conffiles_len,
	    dpkgadopt_lone_add, &lone);
	free(seen);
	dpkgadopt_cset_free(&cs);
	if (lone.r != 0)
		return lone.r;
done:
	rec->unlisted = true;
	return 0;
}

int
dpkgadopt_list(struct record *rec)
{
	struct dpkgadopt_conf q;
	struct dpkgadopt_dir d = { .fd = -1 };
	const char *p, *end;
	int r = 0;

	if (!rec->unlisted)
		return 0;
	end = rec->list + rec->listlen;
	for (p = rec->list; r == 0 && p < end; p += strlen(p) + 1)
		if (dpkgadopt_line_path(p) &&
		    (r = dpkgadopt_path(NULL, &d, rec, p, false)) == -EINVAL)
			r = 0;
	if (r == 0 && rec->conffiles != NULL) {
		q = (struct dpkgadopt_conf){ .rf = NULL, .d = &d, .rec = rec };
		dpkgfmt_conffiles(rec->conffiles, rec->conffiles_len,
		    dpkgadopt_conffile, &q);
		r = q.r;
	}
	if (r != 0) {
		/* Back to no entries: the next asker tries again. */
		while (rec->n > 0)
			record_entry_clear(&rec->v[--rec->n]);
		return r;
	}
	rec->unlisted = false;
	return 0;
}

int
dpkgadopt_paths(const struct record *rec, dpkgadopt_path_fn *fn,
    void *ctx)
{
	struct dpkgadopt_cset cs;
	const char *p, *end = rec->list + rec->listlen;
	int r;

	if ((r = dpkgadopt_cset_make(&cs, rec->conffiles,
	    rec->conffiles_len)) != 0)
		return r;
	/* A conffile is a file to dpkg whatever the user made of it. */
	for (p = rec->list; r == 0 && p < end; p += strlen(p) + 1)
		if (dpkgadopt_line_ok(p))
			r = fn(ctx, p, dpkgadopt_cset_find(&cs, p) < cs.n ?
			    'f' : '?');
	dpkgadopt_cset_free(&cs);
	return r;
}

int
dpkgadopt_one(const struct rootfs *rf, int dfd,
    const struct dpkgstatus_stanza *o, unsigned flags, struct record **out,
    struct dbp_error *err)
{
	struct dpkgadopt_dir d = { .fd = -1 };
	struct dpkgadopt_conf q;
	struct control *ctl;
	struct record *rec;
	char file[NAME_MAX + 1], *info, *text = NULL, *p, *nl;
	size_t len;
	int r;

	*out = NULL;
	if (flags & (DPKGADOPT_UNTYPED | DPKGADOPT_LAZY))
		rf = NULL;
	if ((r = dpkgadopt_ctl(o, &ctl)) != 0)
		return r == -EINVAL ? 0 : dbp_err(err, -r, "var/lib/dpkg/status",
		    "cannot read");
	if ((r = record_new(&rec, ctl)) != 0) {
		control_free(ctl);
		return dbp_err(err, -r, "var/lib/dpkg/status", "cannot read");
	}
	rec->adopted = rec->dpkg_db = true;
	if ((info = dpkgstatus_infoname(o->name, o->arch, o->ma)) == NULL) {
		record_free(rec);
		return dbp_err(err, ENOMEM, "var/lib/dpkg/info", "cannot read");
	}
	snprintf(file, sizeof(file), "info/%s.list", info);
	if (flags & DPKGADOPT_NO_PATHS) {
		free(info);
		*out = rec;
		return 0;
	}
	if ((r = fileat_read(dfd, file, &text, &len)) == -ENOENT)
		r = 0;
	if (r == 0 && (flags & DPKGADOPT_LAZY) && (flags & DPKGADOPT_DEFER)) {
		r = dpkgadopt_defer(rec, o, text, len);
		text = NULL;
		if (r == 0) {
			rec->untyped = true;
			rec->info = info;
			*out = rec;
			return 0;
		}
		record_free(rec);
		free(info);
		return dbp_err(err, -r, "var/lib/dpkg/", "cannot read %s",
		    file);
	}
	for (p = text; r == 0 && p != NULL && *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			nl = p + strlen(p) - 1;
		else
			*nl = '\0';
		if (!dpkgadopt_line_path(p))
			continue;
		/* A path dpkg would not have written: not a record's. */
		if ((r = dpkgadopt_path(rf, &d, rec, p, false)) == -EINVAL)
			r = 0;
	}
	free(text);
	if (r == 0 && o->conffiles != NULL) {
		q = (struct dpkgadopt_conf){ .rf = rf, .d = &d, .rec = rec };
		dpkgfmt_conffiles(o->conffiles, o->conffiles_len,
		    dpkgadopt_conffile, &q);
		r = q.r;
	}
	/* The MD5s are of regular files: known once the paths are typed. */
	if (r == 0 && (flags & DPKGADOPT_LAZY)) {
		rec->untyped = true;
		rec->info = info;
		info = NULL;
	} else if (r == 0)
		r = dpkgadopt_md5sums(dfd, info, rec);
	if (d.fd >= 0)
		close(d.fd);
	if (r != 0) {
		r = dbp_err(err, -r, "var/lib/dpkg/", "cannot read %s", file);
		record_free(rec);
	} else
		*out = rec;
	free(info);
	return r;
}

int
dpkgadopt_type(const struct rootfs *rf, struct record *rec)
{
	struct dpkgadopt_dir d = { .fd = -1 };
	struct record_entry t, *e;
	char target[PATH_MAX];
	size_t i;
	int dfd, r = 0;

	if (!rec->untyped)
		return 0;
	for (i = 0; r == 0 && i < rec->n; i++) {
		e = &rec->v[i];
		t = *e;
		if ((r = dpkgadopt_stat(rf, &d, &t, target,
		    sizeof(target))) != 0)
			break;
		/* A conffile is a file to dpkg whatever the user made of it. */
		if (e->conffile) {
			t.type = 'f';
			t.target = NULL;
			t.major = t.minor = 0;
		}
		if (t.target != NULL && (t.target = strdup(target)) == NULL) {
			r = -ENOMEM;
			break;
		}
		*e = t;
	}
	if (d.fd >= 0)
		close(d.fd);
	if (r != 0)
		return r;
	if ((dfd = rootfs_resolve(rf, "var/lib/dpkg", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return dfd == -ENOENT || dfd == -ENOTDIR ? 0 : dfd;
	r = dpkgadopt_md5sums(dfd, rec->info, rec);
	close(dfd);
	if (r == 0)
		rec->untyped = false;
	return r;
}

char
dpkgadopt_path_type(const struct rootfs *rf, const char *abspath, int *err)
{
	struct dpkgadopt_dir d = { .fd = -1 };
	struct record_entry e;
	char target[PATH_MAX];
	int r;

	memset(&e, 0, sizeof(e));
	e.path = (char *)abspath;
	r = dpkgadopt_stat(rf, &d, &e, target, sizeof(target));
	if (d.fd >= 0)
		close(d.fd);
	if (r != 0 && *err == 0)
		*err = r;
	return e.type;
}

int
dpkgadopt_all(const struct rootfs *rf, const struct dpkgstatus *status,
    unsigned flags, dpkgadopt_known_fn *known, void *ctx,
    struct record ***out, size_t *nout, struct dbp_error *err)
{
	struct record **v = NULL, **nv, *rec;
	const char **seen;
	size_t i, h, size = 16, n = 0;
	int dfd, r = 0;

	*out = NULL;
	*nout = 0;
	if (status == NULL || status->n == 0)
		return 0;
	/*
	 * The names adopted so far, in a table of twice as many slots (open
	 * addressing): the first instance of a name is its record, and a
	 * search of the records for each stanza cost a square of the root's
	 * packages in every call.
	 */
	while (size < 2 * status->n)
		size *= 2;
	if ((seen = calloc(size, sizeof(*seen))) == NULL)
		return dbp_err(err, ENOMEM, "var/lib/dpkg", "cannot read");
	if ((dfd = rootfs_resolve(rf, "var/lib/dpkg", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0) {
		free(seen);
		return dfd == -ENOENT || dfd == -ENOTDIR ? 0 :
		    dbp_err(err, -dfd, "var/lib/dpkg", "cannot open");
	}
	for (i = 0; r == 0 && i < status->n; i++) {
		const struct dpkgstatus_stanza *o = &status->v[i];

		if (!dpkgadopt_has_files(o) || known(ctx, o->name))
			continue;
		for (h = strhash(o->name) & (size - 1); seen[h] != NULL &&
		    strcmp(seen[h], o->name) != 0; h = (h + 1) & (size - 1))
			continue;
		if (seen[h] != NULL)
			continue;
		if ((r = dpkgadopt_one(rf, dfd, o, flags, &rec, err)) != 0 ||
		    rec == NULL)
			continue;
		seen[h] = o->name;
		if ((nv = realloc(v, (n + 1) * sizeof(*v))) == NULL) {
			record_free(rec);
			r = dbp_err(err, ENOMEM, "var/lib/dpkg", "cannot read");
			break;
		}
		v = nv;
		v[n++] = rec;
	}
	close(dfd);
	free(seen);
	if (r != 0) {
		while (n > 0)
			record_free(v[--n]);
		free(v);
		return r;
	}
	*out = v;
	*nout = n;
	return 0;
}
