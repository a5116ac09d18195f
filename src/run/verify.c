/* SPDX-License-Identifier: MIT */
/* --verify: the root against the package records, in the text's words or as dpkg --verify prints it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "deb/control.h"
#include "durable/names.h"
#include "util/digest.h"
#include "db/dpkgfmt.h"
#include "db/dpkgstatus.h"
#include "util/escape.h"
#include "db/record.h"
#include "run/verify.h"

/*
 * Open the directory of root-relative PATH, resolved inside the root (so
 * merged-/usr links are followed), and lstat PATH's last component there:
 * the directory's descriptor, which the caller closes, with *ST and *BASE;
 * or -errno.
 */
static int
verify_lstat(const struct rootfs *rf, const char *path, struct stat *st,
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
struct verify_seen {
	const char *what[10];	/* the problems, in the words of the text */
	size_t n;
	/*
	 * dpkg --verify's line: its nine columns of rpm -V's attributes
	 * (only M, a file no longer one, and 5, its content, are checked;
	 * '?' for the rest and for M passed), or "" when dpkg sees nothing
	 * wrong with the path.
	 */
	char dpkg[10];
	int gone;		/* missing: the errno that said so, else 0 */
};

/* Problem WHAT, in the text's words. */
static void
verify_note(struct verify_seen *q, const char *what)
{
	if (q->n < sizeof(q->what) / sizeof(q->what[0]))
		q->what[q->n++] = what;
}

/*
 * Say what was seen of E (package PKG) on FP in format FMT, if anything
 * is wrong: the text's line per problem, dpkg --verify's line ("??5??????
 * c /etc/x"), or a JSON object.  COUNT grows by the problems told.
 */
static void
verify_report(FILE *fp, enum query_format fmt, const char *pkg,
    const struct record_entry *e, const struct verify_seen *q, unsigned *count)
{
	char esc[PATH_MAX];
	size_t i;

	switch (fmt) {
	case QUERY_TEXT:
		for (i = 0; i < q->n; i++)
			fprintf(fp, "%s: %s: %s%s\n", pkg, escape_name(e->path,
			    esc, sizeof(esc)), q->what[i], e->conffile ?
			    " (conffile)" : "");
		*count += (unsigned)q->n;
		break;
	case QUERY_RPM:
		/* Only what dpkg --verify checks, as it prints it. */
		if (q->dpkg[0] == '\0')
			break;
		/* dpkg prints the path as it is; names stay safe here. */
		fprintf(fp, "%.9s %c %s", q->gone ? "missing  " : q->dpkg,
		    e->conffile ? 'c' : ' ', escape_name(e->path, esc,
		    sizeof(esc)));
		if (q->gone != 0 && q->gone != ENOENT)
			fprintf(fp, " (%s)", strerror(q->gone));
		fputc('\n', fp);
		*count += 1;
		break;
	case QUERY_JSON:
		if (q->n == 0)
			break;
		fputs(*count > 0 ? ",\n" : "", fp);
		fputs("{\"package\": ", fp);
		escape_put_json(fp, pkg);
		fputs(", \"path\": ", fp);
		escape_put_json(fp, e->path);
		fprintf(fp, ", \"conffile\": %s, \"rpm\": ", e->conffile ?
		    "true" : "false");
		if (q->dpkg[0] == '\0')
			fputs("null", fp);
		else
			fprintf(fp, "\"%s\"", q->gone ? "missing" : q->dpkg);
		fputs(", \"problems\": [", fp);
		for (i = 0; i < q->n; i++) {
			fputs(i > 0 ? ", " : "", fp);
			escape_put_json(fp, q->what[i]);
		}
		fputs("]}", fp);
		*count += (unsigned)q->n;
		break;
	}
}

/* What a regular file's content is, against its record. */
enum verify_content {
	QC_SAME,
	QC_SIZE,	/* another size, so another content */
	QC_CONTENT,	/* the same size, another digest */
	QC_UNREADABLE	/* not read (not a file there, or an error) */
};

/*
 * A file of a package dpkg installed (its record read from dpkg's
 * database): the MD5 dpkg keeps is all there is to compare, as dpkg
 * --verify compares it; without one, nothing.
 */
static enum verify_content
verify_content_md5(int fd, const struct record_entry *e)
{
	uint8_t digest[DIGEST_LEN];
	struct digest *md5;
	int r;

	if (!e->has_md5)
		return QC_SAME;
	if (digest_new_md5(&md5) != 0)
		return QC_UNREADABLE;
	r = digest_fd(md5, fd, digest);
	digest_free(md5);
	if (r != 0)
		return QC_UNREADABLE;
	return memcmp(digest, e->md5, sizeof(e->md5)) == 0 ? QC_SAME :
	    QC_CONTENT;
}

static enum verify_content
verify_content_fd(struct digest *dg, int fd, const struct record_entry *e)
{
	uint8_t digest[DIGEST_LEN];
	struct stat st;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return QC_UNREADABLE;
	if (e->sha256_unknown)
		return verify_content_md5(fd, e);
	if ((uint64_t)st.st_size != e->size)
		return QC_SIZE;
	if (digest_fd(dg, fd, digest) != 0)
		return QC_UNREADABLE;
	return memcmp(digest, e->sha256, sizeof(digest)) == 0 ? QC_SAME :
	    QC_CONTENT;
}

/*
 * The content of recorded file E, found as ST: at BASE in DFD when it is
 * a regular file; otherwise, as dpkg --verify opens it, through a
 * symlink (resolved inside the root) when that leads to one.
 */
static enum verify_content
verify_content(const struct rootfs *rf, struct digest *dg, int dfd,
    const char *base, const struct stat *st, const struct record_entry *e)
{
	enum verify_content c;
	struct stat lst;
	int fd;

	if (S_ISREG(st->st_mode)) {
		if ((uint64_t)st->st_size != e->size)
			return QC_SIZE;
		fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	} else if (S_ISLNK(st->st_mode)) {
		/* Looked at first: opening a fifo or a device is not harmless. */
		if ((fd = rootfs_resolve(rf, e->path + 1, O_PATH |
		    O_CLOEXEC)) < 0)
			return QC_UNREADABLE;
		c = fstat(fd, &lst) == 0 && S_ISREG(lst.st_mode) ? QC_SAME :
		    QC_UNREADABLE;
		close(fd);
		if (c == QC_UNREADABLE)
			return c;
		fd = rootfs_resolve(rf, e->path + 1, O_RDONLY | O_NONBLOCK |
		    O_CLOEXEC);
	} else
		return QC_UNREADABLE;
	if (fd < 0)
		return QC_UNREADABLE;
	c = verify_content_fd(dg, fd, e);
	close(fd);
	return c;
}

/*
 * Whether a conffile's new version unpacked as dpkg unpacks it waits at
 * NAME.dpkg-new for dpkg's --configure (--maintscripts) with E's
 * recorded content: NAME is then still the version before, or absent
 * for a new one, and that is no change.
 */
static bool
verify_dpkg_new(const struct rootfs *rf, struct digest *dg,
    const struct record_entry *e)
{
	char path[PATH_MAX];
	const char *base;
	struct stat st;
	bool same;
	int dfd;

	if (!e->conffile || (size_t)snprintf(path, sizeof(path), "%s%s",
	    e->path + 1, NAMES_DPKG_NEW_SUFFIX) >= sizeof(path) ||
	    (dfd = verify_lstat(rf, path, &st, &base)) < 0)
		return false;
	same = S_ISREG(st.st_mode) &&
	    verify_content(rf, dg, dfd, base, &st, e) == QC_SAME;
	close(dfd);
	return same;
}

/*
 * Check one recorded path against the root.  Returns 0 (problems told
 * through verify_report) or -errno when the check itself failed.
 */
static int
verify_check(const struct rootfs *rf, struct digest *dg, const char *pkg,
    const struct record_entry *e, bool check_owner, enum query_format fmt,
    FILE *fp, unsigned *count)
{
	char link[PATH_MAX], what[3][96];
	enum verify_content content;
	struct verify_seen q;
	const char *base;
	struct stat st;
	int dfd, fd = -1;
	ssize_t n;
	bool type_ok;

	if (strcmp(e->path, "/") == 0)
		return 0;
	memset(&q, 0, sizeof(q));
	if ((dfd = verify_lstat(rf, e->path + 1, &st, &base)) < 0) {
		/* What dpkg takes for missing: whatever lstat could not see. */
		if (dfd != -ENOENT && dfd != -ENOTDIR && dfd != -EACCES &&
		    dfd != -ELOOP && dfd != -ENAMETOOLONG)
			return dfd;
		if (dfd == -ENOENT && verify_dpkg_new(rf, dg, e))
			return 0;
		q.gone = -dfd;
		memcpy(q.dpkg, "missing", sizeof("missing"));
		if (e->skipped)
			verify_note(&q, "device node not made (skipped at"
			    " install)");
		else if (q.gone == ENOENT)
			verify_note(&q, "missing");
		else {
			snprintf(what[0], sizeof(what[0]), "missing (%s)",
			    strerror(q.gone));
			verify_note(&q, what[0]);
		}
		verify_report(fp, fmt, pkg, e, &q, count);
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
	/*
	 * dpkg knows the digest of regular files only, and checks nothing
	 * else of any path but that it is there: a file is still one, and
	 * its content (read through a symlink in its place, as open(2) does).
	 */
	if (e->type == 'f' || e->type == 'h') {
		content = verify_content(rf, dg, dfd, base, &st, e);
		/* Or it waits at NAME.dpkg-new for dpkg's configure. */
		if ((content == QC_SIZE || content == QC_CONTENT) &&
		    verify_dpkg_new(rf, dg, e))
			content = QC_SAME;
		/* dpkg marks the type only when it fails ('?' else). */
		if (!S_ISREG(st.st_mode) || content != QC_SAME)
			snprintf(q.dpkg, sizeof(q.dpkg), "?%c%c??????",
			    S_ISREG(st.st_mode) ? '?' : 'M', content ==
			    QC_SAME ? '.' : content == QC_UNREADABLE ? '?' :
			    '5');
	} else
		content = QC_SAME;
	if (!type_ok) {
		verify_note(&q, "changed type");
		verify_report(fp, fmt, pkg, e, &q, count);
		close(dfd);
		return 0;
	}
	/* Directories are kept as they were found: only their presence counts. */
	if (e->type != 'd' && e->type != 'l' &&
	    (st.st_mode & 07777) != e->mode) {
		snprintf(what[1], sizeof(what[1]), "changed mode %04o (recorded"
		    " %04o)", (unsigned)(st.st_mode & 07777), (unsigned)e->mode);
		verify_note(&q, what[1]);
	}
	if (check_owner && e->type != 'd' &&
	    (st.st_uid != e->uid || st.st_gid != e->gid)) {
		snprintf(what[2], sizeof(what[2]), "changed owner %u:%u"
		    " (recorded %u:%u)", (unsigned)st.st_uid,
		    (unsigned)st.st_gid, (unsigned)e->uid, (unsigned)e->gid);
		verify_note(&q, what[2]);
	}
	if (e->type == 'l') {
		n = readlinkat(dfd, base, link, sizeof(link) - 1);
		if (n < 0 || (link[n] = '\0', strcmp(link, e->target) != 0))
			verify_note(&q, "changed link target");
	} else if ((e->type == 'c' || e->type == 'b') &&
	    (major(st.st_rdev) != e->major || minor(st.st_rdev) != e->minor))
		verify_note(&q, "changed device numbers");
	else if (content == QC_SIZE)
		verify_note(&q, "changed size");
	else if (content == QC_CONTENT)
		verify_note(&q, "changed content");
	else if (content == QC_UNREADABLE)
		verify_note(&q, "unreadable");
	close(dfd);
	verify_report(fp, fmt, pkg, e, &q, count);
	return 0;
}

/* What query_verify checks each path with. */
struct verify_ctx {
	const struct rootfs *rf;
	struct digest *dg;
	const char *pkg;
	bool check_owner;
	enum query_format fmt;
	FILE *fp;
	unsigned count;
	const char *failed;	/* the path whose check failed */
};

static int
verify_path(const char *path, const struct record_entry *e, void *ctx)
{
	struct verify_ctx *c = ctx;
	int r;

	if ((r = verify_check(c->rf, c->dg, c->pkg, e, c->check_owner, c->fmt,
	    c->fp, &c->count)) != 0)
		c->failed = path;
	return r;
}

int
verify_packages(struct recstore *s, const struct rootfs *rf,
    char *const *specs, bool *installed, bool check_owner,
    enum query_format fmt, FILE *fp, struct dbp_error *err)
{
	struct verify_ctx c = { .rf = rf, .check_owner = check_owner,
	    .fmt = fmt, .fp = fp };
	char **all = NULL, name[256];
	char *const *list = specs;
	struct record *rec;
	size_t i;
	int r = 0;

	/* One SHA-256 context for every file checked. */
	if (digest_new(&c.dg) != 0)
		return dbp_err(err, ENOMEM, "", "cannot verify");
	if (fmt == QUERY_JSON)
		fputs("[", fp);
	if (specs == NULL || specs[0] == NULL) {
		if ((r = recstore_names(s, &all, err)) != 0) {
			digest_free(c.dg);
			return r;
		}
		list = all;
	}
	for (i = 0; r == 0 && list[i] != NULL; i++) {
		r = list == all ? recstore_load(s, list[i], &rec, NULL, err) :
		    query_load(s, list[i], &rec, err);
		if (list != all)
			installed[i] = r != -ENOENT;
		/*
		 * Not installed: said by the caller, and the others are
		 * verified all the same, as dpkg --verify does.  Gone since
		 * the listing, or dpkg's now: not ours to verify.
		 */
		if (r == -ENOENT) {
			r = 0;
			continue;
		}
		if (r != 0)
			break;
		c.pkg = dpkgstatus_name(control_get(rec->ctl, "Package"),
		    control_get(rec->ctl, "Architecture"),
		    control_get(rec->ctl, "Multi-Arch"), name, sizeof(name));
		/* In the order of dpkg's list, which dpkg --verify follows. */
		if ((r = dpkgfmt_list_walk(rec, false, verify_path,
		    &c)) != 0)
			r = dbp_err(err, -r, c.failed, "cannot verify");
		record_free(rec);
	}
	recstore_names_free(all);
	digest_free(c.dg);
	if (fmt == QUERY_JSON && r == 0)
		fputs("]\n", fp);
	return r != 0 ? r : (int)c.count;
}
