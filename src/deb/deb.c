/* SPDX-License-Identifier: MIT */
/* Reading the .deb container: debian-binary, control.tar.*, data.tar.*. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "deb/ctlcache.h"
#include "deb/deb.h"
#include "deb/gunzip.h"
#include "deb/xz.h"

/* A control file larger than this is hostile, not a package. */
#define DEB_CONTROL_MAX	(1024 * 1024)

enum deb_state { DEB_AT_CONTROL, DEB_AT_DATA, DEB_FOUND_DATA, DEB_IN_DATA,
    DEB_DONE };

/* What the reader of a member parses. */
enum deb_read {
	DEB_TAR,	/* a tar, decompressed here */
	DEB_RAW,	/* nothing: the decompressed bytes (deb_data_read) */
	DEB_FED,	/* a tar, decompressed elsewhere (deb_data_open_fed) */
	DEB_REPLAY	/* a tar, given again from what ctlcache kept */
};

struct deb {
	int fd;			/* the package file */
	struct archive *ar;	/* the outer ar container */
	struct archive *tar;	/* reader of the current member, or NULL */
	struct gunzip *gz;	/* its gzip decompressor, or NULL */
	struct xz *xz;		/* its xz decompressor, or NULL */
	char *conffiles;	/* control.tar's conffiles, or NULL */
	bool keep_info;		/* deb_keep_info was called */
	struct deb_info *info;	/* what deb_take_info gives */
	size_t ninfo, infolen;
	deb_feed_fn *fed;	/* DEB_FED: where the decompressed bytes come */
	void *fed_ctx;
	enum deb_state state;
	bool drained;		/* deb_drain ran */
	bool src_failed;	/* the tar reader was told of a read error */
	char member[64];	/* name of the current member */
	char why[320];		/* deb_drain's message */
	off_t member_off;	/* where its bytes are in the file, or -1 */
	off_t member_size;
	/*
	 * The control member read whole before it is decoded (ctlcache.h):
	 * its bytes, and whether the container failed after them.
	 */
	char *mem;
	size_t memlen, memoff;
	bool mem_on, mem_failed;
	/* What the control member's tar reader took, kept in ctlcache. */
	archive_read_callback *inner;	/* what gives it */
	bool capture;		/* copy it into cap */
	char *cap;
	size_t caplen, capsize;
	const char *replay;	/* DEB_REPLAY: the kept copy */
	size_t replaylen;
};

static const struct {
	const char *suffix;
	int (*support)(struct archive *);
} deb_filters[] = {
	{ "",		NULL },
	{ ".gz",	NULL },		/* through gunzip.c, see there */
	{ ".xz",	NULL },		/* through xz.c, see there */
	{ ".zst",	archive_read_support_filter_zstd },
	{ ".bz2",	archive_read_support_filter_bzip2 },
	{ ".lzma",	archive_read_support_filter_lzma },
};

/* libarchive's own message says more than its errno, which is often -1. */
static int
deb_ar_err(struct archive *a, const char *what, struct dbp_error *err)
{
	const char *s = archive_error_string(a);

	return dbp_err(err, 0, "", "%s: %s", what,
	    s != NULL ? s : "unknown error");
}

/*
 * libarchive takes fewer bytes than a member header at the end for the
 * end of the container: a cut header, or trailing garbage, would pass
 * unseen.  Where the size is known, the end must be the end of the file.
 */
static int
deb_at_end(struct deb *d, struct dbp_error *err)
{
	la_int64_t pos = archive_filter_bytes(d->ar, 0);
	struct stat st;
	char c;

	if (fstat(d->fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    pos >= (la_int64_t)st.st_size)
		return 0;
	/* One newline, as a writer that pads every member leaves, is kept. */
	if (pos + 1 == (la_int64_t)st.st_size &&
	    pread(d->fd, &c, 1, (off_t)pos) == 1 && c == '\n')
		return 0;
	return dbp_err(err, 0, "", "bad ar container: truncated member header"
	    " or trailing garbage at offset %lld", (long long)pos);
}

/*
 * Next member that is not ignorable: returns 1 with its name in d->member,
 * 0 at the end of the container, or an error.
 */
static int
deb_next_member(struct deb *d, struct dbp_error *err)
{
	struct archive_entry *ae;
	const char *name;
	int r;

	for (;;) {
		r = archive_read_next_header(d->ar, &ae);
		if (r == ARCHIVE_EOF)
			return deb_at_end(d, err);
		if (r != ARCHIVE_OK)
			return deb_ar_err(d->ar, "bad ar container", err);
		name = archive_entry_pathname(ae);
		if (name == NULL)
			name = "";
		if (name[0] == '_')
			continue;
		if (strlen(name) >= sizeof(d->member))
			return dbp_err(err, 0, "",
			    "unexpected ar member with a long name");
		strcpy(d->member, name);
		/*
		 * An ar member's bytes follow its 60-byte header, unless the
		 * name is stored there too (BSD's "#1/N"): the xz magic at
		 * that offset is checked before the offset is trusted.
		 */
		d->member_off = archive_read_header_position(d->ar) + 60;
		d->member_size = archive_entry_size_is_set(ae) ?
		    archive_entry_size(ae) : -1;
		if (d->member_off < 60 || d->member_size < 0)
			d->member_off = -1;
		return 1;
	}
}

int
deb_open(struct deb **out, const char *filename, struct dbp_error *err)
{
	struct archive_entry *ae;
	struct stat st;
	struct deb *d;
	char buf[16];
	ssize_t n;
	int r;

	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return dbp_err(err, ENOMEM, "", "cannot open");
	d->fd = -1;
	if ((d->ar = archive_read_new()) == NULL) {
		free(d);
		return dbp_err(err, ENOMEM, "", "cannot open");
	}
	archive_read_support_format_ar(d->ar);
	/* "-": standard input, as dpkg-deb and tar read it. */
	d->fd = strcmp(filename, "-") == 0 ?
	    fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0) :
	    open(filename, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0) {
		r = dbp_err(err, errno, "", "cannot open");
		goto fail;
	}
	/* Said plainly, not as the reader's "Error reading fd N". */
	if (fstat(d->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		r = dbp_err(err, 0, "", "a directory, not a package file"
		    " (-R installs the packages under it)");
		goto fail;
	}
	if (archive_read_open_fd(d->ar, d->fd, 64 * 1024) != ARCHIVE_OK) {
		r = deb_ar_err(d->ar, "cannot read", err);
		goto fail;
	}
	r = archive_read_next_header(d->ar, &ae);
	if (r != ARCHIVE_OK) {
		r = r == ARCHIVE_EOF ?
		    dbp_err(err, 0, "", "empty ar container") :
		    deb_ar_err(d->ar, "not a debian package", err);
		goto fail;
	}
	if (archive_entry_pathname(ae) == NULL ||
	    strcmp(archive_entry_pathname(ae), "debian-binary") != 0) {
		r = dbp_err(err, 0, "",
		    "first member is not 'debian-binary'");
		goto fail;
	}
	n = archive_read_data(d->ar, buf, sizeof(buf) - 1);
	if (n < 0) {
		r = deb_ar_err(d->ar, "cannot read debian-binary", err);
		goto fail;
	}
	buf[n] = '\0';
	/* dpkg accepts any 2.x and a trailing newline; the major is what matters. */
	if (n < 4 || buf[0] != '2' || buf[1] != '.' ||
	    memchr(buf, '\n', (size_t)n) == NULL) {
		r = dbp_err(err, 0, "",
		    "unsupported format version in debian-binary");
		goto fail;
	}
	d->state = DEB_AT_CONTROL;
	*out = d;
	return 0;
fail:
	deb_close(d);
	return r;
}

/*
 * The next block of A's current entry (an ar member, or a decompressed
 * stream): its length, 0 at the end, -1 on error (left in A).  No copy:
 * libarchive hands out its own buffer and the reader consumes it before
 * asking for the next one.
 */
static ssize_t
deb_block(struct archive *a, const void **buf)
{
	size_t size;
	la_int64_t off;
	int r;

	r = archive_read_data_block(a, buf, &size, &off);
	if (r == ARCHIVE_EOF)
		return 0;
	return r == ARCHIVE_OK ? (ssize_t)size : -1;
}

/*
 * The current member's next block: from the container, or from the copy
 * deb_member_slurp made, which ends as the container did (at its end,
 * or with its error, still in d->ar).
 */
static ssize_t
deb_member_block(void *cookie, const void **buf)
{
	struct deb *d = cookie;
	size_t n;

	if (!d->mem_on)
		return deb_block(d->ar, buf);
	if ((n = d->memlen - d->memoff) == 0)
		return d->mem_failed ? -1 : 0;
	*buf = d->mem + d->memoff;
	d->memoff += n;
	return (ssize_t)n;
}

/*
 * Read the current member whole into d->mem, when its header gives a
 * size of at most CTLCACHE_MEMBER_MAX: 1, or 0 when it is left to be
 * read as a stream.  A failure of the container is kept for the reader
 * of the copy to meet where it would have met it.
 */
static int
deb_member_slurp(struct deb *d)
{
	const void *buf;
	ssize_t n;

	if (d->member_size < 0 || d->member_size > CTLCACHE_MEMBER_MAX)
		return 0;
	if ((d->mem = malloc((size_t)d->member_size + 1)) == NULL)
		return 0;
	d->memlen = d->memoff = 0;
	d->mem_failed = false;
	while ((n = deb_block(d->ar, &buf)) != 0) {
		if (n < 0) {
			d->mem_failed = true;
			break;
		}
		/* libarchive gives no more than the header says. */
		if ((size_t)n > (size_t)d->member_size - d->memlen) {
			d->mem_failed = true;
			archive_set_error(d->ar, EFBIG, "member longer than"
			    " its header says");
			break;
		}
		memcpy(d->mem + d->memlen, buf, (size_t)n);
		d->memlen += (size_t)n;
	}
	d->mem_on = true;
	return 1;
}

/*
 * Hand an error of the container, or the decompressor's CAUSE, to inner
 * reader A: a decompressor's names the member, wherever in the tar it
 * shows.
 */
static void
deb_inner_error(struct deb *d, struct archive *a, const char *cause)
{
	if (cause == NULL)
		archive_set_error(a, EILSEQ, "%s",
		    archive_error_string(d->ar) != NULL ?
		    archive_error_string(d->ar) : "read error");
	else
		archive_set_error(a, EILSEQ, "%s: %s", d->member, cause);
}

/*
 * Our decompressor of the member said WHY: tell reader A.  A source error
 * is the container's: say what it said.
 */
static void
deb_decoder_failed(struct deb *d, struct archive *a, const char *why)
{
	d->src_failed = true;
	deb_inner_error(d, a, strcmp(why, "source") == 0 ? NULL : why);
}

/* Read callback of an uncompressed member or one libarchive decompresses. */
static la_ssize_t
deb_member_read(struct archive *a, void *cookie, const void **buf)
{
	ssize_t n = deb_member_block(cookie, buf);

	if (n < 0) {
		((struct deb *)cookie)->src_failed = true;
		deb_inner_error(cookie, a, NULL);
	}
	return (la_ssize_t)n;
}

static la_ssize_t
deb_gz_read(struct archive *a, void *cookie, const void **buf)
{
	struct deb *d = cookie;
	ssize_t n;

	n = gunzip_read(d->gz, buf);
	if (n < 0)
		deb_decoder_failed(d, a, gunzip_error(d->gz));
	return (la_ssize_t)n;
}

static la_ssize_t
deb_xz_read(struct archive *a, void *cookie, const void **buf)
{
	struct deb *d = cookie;
	ssize_t n;

	n = xz_read(d->xz, buf);
	if (n < 0)
		deb_decoder_failed(d, a, xz_error(d->xz));
	return (la_ssize_t)n;
}

static la_ssize_t
deb_fed_read(struct archive *a, void *cookie, const void **buf)
{
	struct deb *d = cookie;
	const char *why = NULL;
	ssize_t n;

	n = d->fed(d->fed_ctx, buf, &why);
	/* The decompressor's own words, as if it ran here (feed.c). */
	if (n < 0) {
		d->src_failed = true;
		archive_set_error(a, EILSEQ, "%s", why != NULL ? why :
		    "read error");
	}
	return (la_ssize_t)n;
}

/* Read callback that copies what it gives the tar reader (d->capture). */
static la_ssize_t
deb_capture_read(struct archive *a, void *cookie, const void **buf)
{
	struct deb *d = cookie;
	la_ssize_t n = d->inner(a, cookie, buf);
	size_t want;
	char *v;

	if (n <= 0 || !d->capture)
		return n;
	want = d->caplen + (size_t)n;
	if (!ctlcache_room(want)) {
		d->capture = false;
		return n;
	}
	if (want > d->capsize) {
		size_t size = d->capsize ? d->capsize : 64 * 1024;

		while (size < want)
			size *= 2;
		if ((v = realloc(d->cap, size)) == NULL) {
			d->capture = false;
			return n;
		}
		d->cap = v;
		d->capsize = size;
	}
	memcpy(d->cap + d->caplen, *buf, (size_t)n);
	d->caplen = want;
	return n;
}

/* Read callback of DEB_REPLAY: the kept bytes, in one block. */
static la_ssize_t
deb_replay_read(struct archive *a, void *cookie, const void **buf)
{
	struct deb *d = cookie;
	size_t n = d->replaylen;

	(void)a;
	*buf = d->replay;
	d->replay += n;
	d->replaylen = 0;
	return (la_ssize_t)n;
}

/*
 * Open the member named PREFIX + a known compression suffix, read as HOW
 * says.  DEB_REPLAY is given what DEB_TAR's reader was given: the member
 * decompressed where gunzip.c or xz.c do it, as stored where libarchive
 * does (its filter runs again).
 */
static int
deb_member_open(struct deb *d, const char *prefix, enum deb_read how,
    struct dbp_error *err)
{
	archive_read_callback *fn;
	size_t plen = strlen(prefix), i;
	const char *suffix;

	if (strncmp(d->member, prefix, plen) != 0)
		return dbp_err(err, 0, "", "expected member '%s*', found"
		    " '%s'", prefix, d->member);
	suffix = d->member + plen;
	for (i = 0; i < sizeof(deb_filters) / sizeof(deb_filters[0]); i++)
		if (strcmp(suffix, deb_filters[i].suffix) == 0)
			break;
	if (i == sizeof(deb_filters) / sizeof(deb_filters[0]))
		return dbp_err(err, 0, "",
		    "unsupported compression in member '%s'", d->member);
	d->tar = archive_read_new();
	if (d->tar == NULL)
		return dbp_err(err, ENOMEM, "", "cannot read '%s'", d->member);
	/*
	 * Only the filter the name announces: a data.tar.xz that holds
	 * something else is as broken as dpkg says it is.
	 */
	if (how != DEB_FED && deb_filters[i].support != NULL &&
	    deb_filters[i].support(d->tar) != ARCHIVE_OK)
		return deb_ar_err(d->tar, d->member, err);
	if (how == DEB_RAW)
		archive_read_support_format_raw(d->tar);
	else
		archive_read_support_format_tar(d->tar);
	if ((how == DEB_TAR || how == DEB_RAW) && strcmp(suffix, ".gz") == 0 &&
	    gunzip_new(&d->gz, deb_member_block, d) != 0)
		return dbp_err(err, ENOMEM, "", "cannot read '%s'", d->member);
	if ((how == DEB_TAR || how == DEB_RAW) && strcmp(suffix, ".xz") == 0 &&
	    xz_new(&d->xz, deb_member_block, d) != 0)
		return dbp_err(err, ENOMEM, "", "cannot read '%s'", d->member);
	fn = how == DEB_FED ? deb_fed_read : how == DEB_REPLAY ?
	    deb_replay_read : d->gz != NULL ? deb_gz_read :
	    d->xz != NULL ? deb_xz_read : deb_member_read;
	if (d->capture) {
		d->inner = fn;
		fn = deb_capture_read;
	}
	if (archive_read_open(d->tar, d, NULL, fn, NULL) != ARCHIVE_OK) {
		const char *e = archive_error_string(d->tar);
		size_t n = strlen(d->member);

		/* Our decompressors' messages name the member already. */
		if (e != NULL && strncmp(e, d->member, n) == 0 &&
		    e[n] == ':')
			return dbp_err(err, 0, "", "%s", e);
		return deb_ar_err(d->tar, d->member, err);
	}
	return 0;
}

static void
deb_member_close(struct deb *d)
{
	if (d->tar != NULL)
		archive_read_free(d->tar);
	d->tar = NULL;
	gunzip_free(d->gz);
	d->gz = NULL;
	xz_free(d->xz);
	d->xz = NULL;
}

/* Read the current control.tar member into a new string (at most MAX). */
static int
deb_slurp(struct deb *d, struct archive_entry *ae, const char *name,
    char **out, size_t *len, struct dbp_error *err)
{
	la_int64_t size = archive_entry_size(ae);
	la_ssize_t n;
	char *text;

	if (*out != NULL)
		return dbp_err(err, 0, name, "appears twice in %s", d->member);
	if (size < 0 || size > DEB_CONTROL_MAX)
		return dbp_err(err, EFBIG, name, "too large");
	if ((text = malloc((size_t)size + 1)) == NULL)
		return dbp_err(err, ENOMEM, name, "cannot read");
	n = archive_read_data(d->tar, text, (size_t)size);
	if (n != size) {
		free(text);
		return n < 0 ? deb_ar_err(d->tar, d->member, err) :
		    dbp_err(err, 0, name, "truncated");
	}
	text[size] = '\0';
	*out = text;
	*len = (size_t)size;
	return 0;
}

void
deb_keep_info(struct deb *d)
{
	d->keep_info = true;
}

void
deb_take_info(struct deb *d, struct deb_info **info, size_t *n)
{
	*info = d->info;
	*n = d->ninfo;
	d->info = NULL;
	d->ninfo = 0;
}

bool
deb_has_info(const struct deb *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->ninfo; i++)
		if (strcmp(d->info[i].name, name) == 0)
			return true;
	return false;
}

void
deb_info_free(struct deb_info *info, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(info[i].name);
		free(info[i].data);
	}
	free(info);
}

/* Add info file NAME (TEXT, LEN bytes: taken, also on error). */
static int
deb_keep_add(struct deb *d, const char *name, mode_t mode, time_t mtime,
    char *text, size_t len, struct dbp_error *err)
{
	struct deb_info *v, *f;

	if (len > DEB_INFO_MAX - d->infolen) {
		free(text);
		return dbp_err(err, EFBIG, name, "control files too large");
	}
	if ((v = realloc(d->info, (d->ninfo + 1) * sizeof(*v))) == NULL) {
		free(text);
		return dbp_err(err, ENOMEM, name, "cannot read");
	}
	d->info = v;
	f = &v[d->ninfo];
	if ((f->name = strdup(name)) == NULL) {
		free(text);
		return dbp_err(err, ENOMEM, name, "cannot read");
	}
	f->mode = mode & 07777;
	f->mtime = mtime;
	f->data = text;
	f->len = len;
	d->ninfo++;
	d->infolen += len;
	return 0;
}

/*
 * Keep info file NAME for dpkg's database.  dpkg takes only plain names
 * (no '.', no '/', at most 100 bytes, not "list") and ignores the others.
 */
static int
deb_keep(struct deb *d, struct archive_entry *ae, const char *name,
    struct dbp_error *err)
{
	char *text = NULL;
	size_t len, i;
	int r;

	/* "list" is dpkg's own, which it warns about and ignores. */
	if (name[0] == '\0' || strlen(name) > 100 || strpbrk(name, "./") != NULL ||
	    strcmp(name, "list") == 0)
		return 0;
	for (i = 0; i < d->ninfo; i++)
		if (strcmp(d->info[i].name, name) == 0)
			return dbp_err(err, 0, name, "appears twice in %s",
			    d->member);
	if ((r = deb_slurp(d, ae, name, &text, &len, err)) != 0)
		return r;
	return deb_keep_add(d, name, archive_entry_perm(ae),
	    archive_entry_mtime(ae), text, len, err);
}

int
deb_read_control(struct deb *d, struct control **ctl, struct dbp_error *err)
{
	struct archive_entry *ae;
	char *text = NULL;
	size_t len = 0, clen;
	int r;

	if (d->state != DEB_AT_CONTROL)
		return dbp_err(err, 0, "", "control member already read");
	r = deb_next_member(d, err);
	if (r <= 0)
		return r < 0 ? r : dbp_err(err, 0, "",
		    "missing control member");
	/* Read before in this process: not decoded again (ctlcache.h). */
	if (deb_member_slurp(d) && !d->mem_failed)
		d->replay = ctlcache_find(d->mem, d->memlen, &d->replaylen);
	d->capture = d->mem_on && !d->mem_failed && d->replay == NULL;
	if ((r = deb_member_open(d, "control.tar", d->replay != NULL ?
	    DEB_REPLAY : DEB_TAR, err)) != 0)
		goto out;
	while ((r = archive_read_next_header(d->tar, &ae)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(ae);

		if (name != NULL && strncmp(name, "./", 2) == 0)
			name += 2;
		if (name == NULL || archive_entry_filetype(ae) != AE_IFREG)
			continue;
		if (strcmp(name, "control") == 0)
			r = deb_slurp(d, ae, "control", &text, &len, err);
		else if (strcmp(name, "conffiles") == 0) {
			r = deb_slurp(d, ae, "conffiles", &d->conffiles, &clen,
			    err);
			/* A second copy for dpkg: the data is read once. */
			if (r == 0 && d->keep_info) {
				char *copy = malloc(clen + 1);

				if (copy == NULL)
					r = dbp_err(err, ENOMEM, name,
					    "cannot read");
				else {
					memcpy(copy, d->conffiles, clen + 1);
					r = deb_keep_add(d, name,
					    archive_entry_perm(ae),
					    archive_entry_mtime(ae), copy, clen,
					    err);
				}
			}
		} else if (d->keep_info)
			r = deb_keep(d, ae, name, err);
		if (r != 0)
			goto out;
	}
	if (r != ARCHIVE_EOF) {
		r = deb_ar_err(d->tar, d->member, err);
		goto out;
	}
	r = text != NULL ? control_parse(text, len, ctl, err) :
	    dbp_err(err, 0, "", "%s has no control file", d->member);
	if (r == 0 && (r = control_check_syntax(*ctl, err)) != 0) {
		control_free(*ctl);
		*ctl = NULL;
	}
out:
	free(text);
	deb_member_close(d);
	if (r == 0 && d->capture) {
		ctlcache_add(d->mem, d->memlen, d->cap, d->caplen);
		d->cap = NULL;
	}
	free(d->cap);
	d->cap = NULL;
	free(d->mem);
	d->mem = NULL;
	d->mem_on = false;
	d->caplen = d->capsize = 0;
	d->capture = false;
	d->replay = NULL;
	d->state = DEB_AT_DATA;
	return r;
}

const char *
deb_conffiles(const struct deb *d)
{
	return d->conffiles;
}

/* Move to the data member, leaving it unread. */
static int
deb_data_next(struct deb *d, struct dbp_error *err)
{
	int r = deb_next_member(d, err);

	if (r <= 0)
		return r < 0 ? r : dbp_err(err, 0, "",
		    "missing data member");
	d->state = DEB_FOUND_DATA;
	return 0;
}

/* Move to the data member and open it as HOW says. */
static int
deb_data_member_open(struct deb *d, enum deb_read how, struct dbp_error *err)
{
	int r;

	if (d->state == DEB_AT_DATA && (r = deb_data_next(d, err)) != 0)
		return r;
	if (d->state != DEB_FOUND_DATA)
		return dbp_err(err, 0, "", "data member out of order");
	if ((r = deb_member_open(d, "data.tar", how, err)) != 0)
		return r;
	d->state = DEB_IN_DATA;
	return 0;
}

int
deb_data_open(struct deb *d, struct archive **tar, struct dbp_error *err)
{
	int r;

	if ((r = deb_data_member_open(d, DEB_TAR, err)) != 0)
		return r;
	*tar = d->tar;
	return 0;
}

int
deb_data_open_fed(struct deb *d, struct archive **tar, deb_feed_fn *fn,
    void *ctx, struct dbp_error *err)
{
	int r;

	d->fed = fn;
	d->fed_ctx = ctx;
	if ((r = deb_data_member_open(d, DEB_FED, err)) != 0)
		return r;
	*tar = d->tar;
	return 0;
}

/* Skip the control member: the consumer reads and checks it. */
static int
deb_skip_control(struct deb *d, struct dbp_error *err)
{
	int r;

	if (d->state != DEB_AT_CONTROL)
		return 0;
	if ((r = deb_next_member(d, err)) <= 0)
		return r < 0 ? r : dbp_err(err, 0, "",
		    "missing control member");
	d->state = DEB_AT_DATA;
	return 0;
}

int
deb_data_xz(struct deb *d, off_t *off, off_t *size, struct dbp_error *err)
{
	static const unsigned char magic[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	unsigned char buf[sizeof(magic)];
	struct stat st;
	int r;

	*off = *size = -1;
	if ((r = deb_skip_control(d, err)) != 0 ||
	    (d->state == DEB_AT_DATA && (r = deb_data_next(d, err)) != 0))
		return r;
	if (d->state != DEB_FOUND_DATA)
		return dbp_err(err, 0, "", "data member out of order");
	if (strcmp(d->member, "data.tar.xz") != 0 ||
	    d->member_off < 0 || fstat(d->fd, &st) != 0 ||
	    !S_ISREG(st.st_mode) || d->member_size > st.st_size ||
	    d->member_off > st.st_size - d->member_size ||
	    pread(d->fd, buf, sizeof(buf), d->member_off) !=
	    (ssize_t)sizeof(buf) || memcmp(buf, magic, sizeof(buf)) != 0)
		return 0;
	*off = d->member_off;
	*size = d->member_size;
	return 0;
}

int
deb_data_raw(struct deb *d, struct dbp_error *err)
{
	struct archive_entry *ae;
	int r;

	if ((r = deb_skip_control(d, err)) != 0)
		return r;
	/*
	 * A decompressor's complaint is passed on bare: the reader adds the
	 * member's name, as it does when it decompresses itself.
	 */
	if ((r = deb_data_member_open(d, DEB_RAW, err)) != 0 ||
	    archive_read_next_header(d->tar, &ae) != ARCHIVE_OK)
		return d->tar != NULL && archive_error_string(d->tar) != NULL ?
		    dbp_err(err, 0, "", "%s", archive_error_string(d->tar)) :
		    r != 0 ? r : dbp_err(err, 0, "", "read error");
	return 0;
}

ssize_t
deb_data_read(struct deb *d, const void **buf, const char **why)
{
	ssize_t n = deb_block(d->tar, buf);

	if (n < 0)
		*why = archive_error_string(d->tar) != NULL ?
		    archive_error_string(d->tar) : "read error";
	return n;
}

/*
 * Decompress what is left of the data member, past where the tar reader
 * stopped: 0 when it ends cleanly, -1 with the decompressor's message in
 * d->why (as the tar reader would have been told it).  Members that
 * libarchive decompresses itself are not drained: 0.
 */
static int
deb_drain(struct deb *d)
{
	const char *why = NULL;
	const void *buf;
	ssize_t n = 0;

	if (d->fed != NULL) {
		while ((n = d->fed(d->fed_ctx, &buf, &why)) > 0)
			;
		if (n < 0)
			snprintf(d->why, sizeof(d->why), "%s", why != NULL ?
			    why : "read error");
	} else if (d->xz != NULL || d->gz != NULL) {
		while ((n = d->xz != NULL ? xz_read(d->xz, &buf) :
		    gunzip_read(d->gz, &buf)) > 0)
			;
		why = d->xz != NULL ? xz_error(d->xz) : gunzip_error(d->gz);
		/* A source error is the container's: say what it said. */
		if (n < 0 && strcmp(why, "source") == 0)
			snprintf(d->why, sizeof(d->why), "%s",
			    archive_error_string(d->ar) != NULL ?
			    archive_error_string(d->ar) : "read error");
		else if (n < 0)
			snprintf(d->why, sizeof(d->why), "%s: %s", d->member,
			    why);
	}
	return n < 0 ? -1 : 0;
}

int
deb_data_check(struct deb *d, struct dbp_error *err)
{
	if (d->tar == NULL || archive_errno(d->tar) == 0 || d->drained ||
	    d->src_failed)
		return 0;
	d->drained = true;
	if (deb_drain(d) == 0)
		return 0;
	return dbp_err(err, 0, "", "%s", d->why);
}

int
deb_finish(struct deb *d, struct dbp_error *err)
{
	int r;

	/*
	 * The tar ends before the member does (its end blocks, then the
	 * stream's own end, its index and checks): like dpkg, read to the
	 * end, so that a damaged end of the stream is seen.
	 */
	if (!d->drained && deb_drain(d) != 0) {
		d->drained = true;
		return dbp_err(err, 0, "", "%s", d->why);
	}
	deb_member_close(d);
	d->state = DEB_DONE;
	r = deb_next_member(d, err);
	if (r > 0)
		return dbp_err(err, 0, "", "unexpected member '%s' after"
		    " the data member", d->member);
	return r;
}

int
deb_fd(const struct deb *d)
{
	return d->fd;
}

const char *
deb_data_member(const struct deb *d)
{
	return d->member;
}

void
deb_close(struct deb *d)
{
	if (d == NULL)
		return;
	deb_member_close(d);
	archive_read_free(d->ar);
	if (d->fd >= 0)
		close(d->fd);
	free(d->conffiles);
	free(d->mem);
	free(d->cap);
	deb_info_free(d->info, d->ninfo);
	free(d);
}
