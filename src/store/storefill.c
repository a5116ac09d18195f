/* SPDX-License-Identifier: MIT */
/* The store filled as a package is extracted: its entries noted, each content cloned from the file just written. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "deb/stream.h"
#include "store/store_int.h"

struct store_fill {
	struct store *s;
	uint8_t key[DIGEST_LEN];
	struct store_ents es;
	bool broken;		/* something could not be stored: no entry */
	bool pending;		/* the last entry's content is still to come */
	struct stream_tee tee;	/* the last entry's content as decoded, or fd -1 */
	/* Contents to clone, oldest first: their files' descriptors and entries. */
	int qfd[STORE_FILL_DELAY];
	size_t qent[STORE_FILL_DELAY];
	size_t qhead, qn;
};

struct store_fill *
store_fill_new(struct store *s, const uint8_t key[DIGEST_LEN])
{
	struct store_fill *f;
	static const uint8_t zero[DIGEST_LEN];

	if (s == NULL || !s->fill || memcmp(key, zero, DIGEST_LEN) == 0 ||
	    (f = calloc(1, sizeof(*f))) == NULL)
		return NULL;
	f->s = s;
	f->tee.fd = -1;
	memcpy(f->key, key, DIGEST_LEN);
	return f;
}

static int store_fill_object(struct store_fill *f, int src,
    struct archive *a, struct store_ent *e);
static void store_fill_broken(struct store_fill *f, const char *what,
    int errnum);

/* The oldest delayed content stored, or dropped (DROP). */
static void
store_fill_pop(struct store_fill *f, bool drop)
{
	int fd = f->qfd[f->qhead], r;
	struct store_ent *e = &f->es.v[f->qent[f->qhead]];

	f->qhead = (f->qhead + 1) % STORE_FILL_DELAY;
	f->qn--;
	if (!drop && !f->broken && (r = store_fill_object(f, fd, NULL, e)) != 0)
		store_fill_broken(f, e->path, -r);
	close(fd);
}

void
store_fill_free(struct store_fill *f)
{
	if (f == NULL)
		return;
	while (f->qn > 0)
		store_fill_pop(f, true);
	if (f->tee.fd >= 0)
		close(f->tee.fd);
	store_ents_free(&f->es);
	free(f);
}

/* A full disk, a read-only store: said once, then the entry is dropped. */
static void
store_fill_broken(struct store_fill *f, const char *what, int errnum)
{
	if (!f->broken)
		store_note(f->s, "cache not filled: %s: %s", what,
		    strerror(errnum));
	f->broken = true;
}

static char *
store_dup(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

void
store_fill_entry(struct store_fill *f, struct archive_entry *ae)
{
	struct store_ent *e;
	const char *link;

	if (f == NULL || f->broken)
		return;
	/* The one before lacks its content: store_fill_rest was not called. */
	if (f->pending || (e = store_ents_add(&f->es)) == NULL) {
		store_fill_broken(f, "entry", f->pending ? EINVAL : ENOMEM);
		return;
	}
	switch (archive_entry_filetype(ae)) {
	case AE_IFREG: e->type = 'f'; break;
	case AE_IFDIR: e->type = 'd'; break;
	case AE_IFLNK: e->type = 'l'; break;
	case AE_IFCHR: e->type = 'c'; break;
	case AE_IFBLK: e->type = 'b'; break;
	case AE_IFIFO: e->type = 'p'; break;
	default: e->type = '?'; break;
	}
	link = archive_entry_symlink(ae);
	if (archive_entry_hardlink(ae) != NULL) {
		e->type = 'h';
		link = archive_entry_hardlink(ae);
	}
	e->perm = (unsigned)archive_entry_perm(ae);
	e->uid = archive_entry_uid(ae);
	e->gid = archive_entry_gid(ae);
	e->mtime = archive_entry_mtime(ae);
	e->nsec = archive_entry_mtime_nsec(ae);
	e->size = e->type == 'f' ? archive_entry_size(ae) : 0;
	e->major = (unsigned)archive_entry_rdevmajor(ae);
	e->minor = (unsigned)archive_entry_rdevminor(ae);
	e->path = store_dup(archive_entry_pathname(ae));
	e->link = store_dup(link);
	e->uname = store_dup(archive_entry_uname(ae));
	e->gname = store_dup(archive_entry_gname(ae));
	if (e->type == '?' || e->path == NULL || (e->type == 'l' ||
	    e->type == 'h' ? e->link == NULL : false))
		store_fill_broken(f, "entry", e->type == '?' ? EINVAL : ENOMEM);
	f->pending = e->type == 'f';
}

/*
 * The unnamed file FD, holding E's whole content, named as its object
 * with the object's stamp.
 */
static int
store_fill_link(struct store *s, int fd, const struct store_ent *e)
{
	char obj[80], proc[32];
	struct timespec ts[2];
	int r = 0;

	store_object_name(e->sha, obj);
	ts[0].tv_sec = ts[1].tv_sec = store_stamp(e->sha);
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	if (futimens(fd, ts) != 0)
		return -errno;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, s->dfd, obj, AT_SYMLINK_FOLLOW) != 0) {
		r = -errno;
		/* One that does not hold what it says goes; a whole one stays. */
		if (r == -EEXIST && store_object_ok(s->dfd, obj, e) == 0)
			return 0;
		if (r == -EEXIST && unlinkat(s->dfd, obj, 0) == 0)
			r = linkat(AT_FDCWD, proc, s->dfd, obj,
			    AT_SYMLINK_FOLLOW) == 0 ? 0 : -errno;
	}
	return r;
}

/*
 * A new content SHA from SRC (or from A's current entry when SRC < 0)
 * linked as its object, unless one is there as stored.  Written under
 * no name (O_TMPFILE), then linked: a run killed meanwhile leaves
 * nothing, and two runs storing the same content both see a whole one.
 */
static int
store_fill_object(struct store_fill *f, int src, struct archive *a,
    struct store_ent *e)
{
	struct store *s = f->s;
	char obj[80];
	enum store_how how = STORE_COPIED;
	uint64_t bytes = 0;
	struct dbp_error err;
	int fd, r = 0;

	store_object_name(e->sha, obj);
	if (src >= 0 && (e->size == 0 || store_object_ok(s->dfd, obj, e) == 0))
		return 0;
	if ((fd = openat(s->dfd, "tmp", O_TMPFILE | O_RDWR | O_CLOEXEC,
	    0444)) < 0)
		return -errno;
	if (src >= 0) {
		r = store_copy_fd(s, fd, src, (uint64_t)e->size, &how);
		/* Copied: the next contents are copied as they are decoded. */
		if (how == STORE_COPIED) {
			s->wrote = true;
			if (r == 0)
				s->fill_clones = false;
		}
	} else {
		struct stream_to st = { .a = a, .fd = fd, .path = e->path,
		    .sha = s->sha, .bytes = &bytes };

		s->wrote = true;
		if (stream_entry(&st, e->size, e->sha, NULL, &err) != 0)
			r = err.errnum != 0 ? -err.errnum : -EIO;
		e->has_sha = r == 0;
		store_object_name(e->sha, obj);
		if (r == 0 && (e->size == 0 || store_object_ok(s->dfd, obj,
		    e) == 0)) {
			close(fd);
			return 0;
		}
	}
	if (r == 0)
		r = store_fill_link(s, fd, e);
	if (close(fd) != 0 && r == 0)
		r = -errno;
	return r;
}

struct stream_tee *
store_fill_tee(struct store_fill *f)
{
	const struct store_ent *e;

	if (f == NULL || f->broken || !f->pending || f->s->fill_clones)
		return NULL;
	e = &f->es.v[f->es.n - 1];
	if (e->size == 0)
		return NULL;
	if ((f->tee.fd = openat(f->s->dfd, "tmp", O_TMPFILE | O_RDWR |
	    O_CLOEXEC, 0444)) < 0) {
		store_fill_broken(f, e->path, errno);
		return NULL;
	}
	f->tee.errnum = 0;
	return &f->tee;
}

/* The content teed into the store for E (its digests noted) named, or dropped. */
static void
store_fill_teed(struct store_fill *f, struct store_ent *e)
{
	char obj[80];
	int fd = f->tee.fd, r = -f->tee.errnum;

	f->tee.fd = -1;
	store_object_name(e->sha, obj);
	/*
	 * Stored already: the copy is let go unnamed, never written back.
	 * A named one is written back by the run's sync, after the root's
	 * files: started earlier, between them (at once, or 64 MiB at a
	 * time), it made the first install no faster and the later ones,
	 * which read the store back, slower (bench/results/store-ext4.txt).
	 */
	if (r == 0 && store_object_ok(f->s->dfd, obj, e) != 0) {
		f->s->wrote = true;
		r = store_fill_link(f->s, fd, e);
	}
	if (close(fd) != 0 && r == 0)
		r = -errno;
	if (r != 0)
		store_fill_broken(f, e->path, -r);
}

void
store_fill_data(struct store_fill *f, int fd, uint64_t size,
    const uint8_t sha[DIGEST_LEN], const uint8_t *md5)
{
	struct store_ent *e;
	char obj[80];
	int dfd, r;

	if (f == NULL || f->broken || !f->pending)
		return;
	f->pending = false;
	e = &f->es.v[f->es.n - 1];
	if ((uint64_t)e->size != size) {
		store_fill_broken(f, e->path, EINVAL);
		return;
	}
	memcpy(e->sha, sha, DIGEST_LEN);
	e->has_sha = true;
	if (md5 != NULL) {
		memcpy(e->md5, md5, DIGEST_MD5_LEN);
		e->has_md5 = true;
	}
	if (f->tee.fd >= 0) {
		store_fill_teed(f, e);
		return;
	}
	/* Stored already (another package, an earlier run): nothing to clone. */
	store_object_name(e->sha, obj);
	if (e->size == 0 || store_object_ok(f->s->dfd, obj, e) == 0)
		return;
	if (f->qn == STORE_FILL_DELAY)
		store_fill_pop(f, false);
	/* Without a spare descriptor: now. */
	if ((dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		if ((r = store_fill_object(f, fd, NULL, e)) != 0)
			store_fill_broken(f, e->path, -r);
		return;
	}
	f->qfd[(f->qhead + f->qn) % STORE_FILL_DELAY] = dfd;
	f->qent[(f->qhead + f->qn) % STORE_FILL_DELAY] = f->es.n - 1;
	f->qn++;
}

void
store_fill_rest(struct store_fill *f, struct archive *a)
{
	int r;

	if (f == NULL || f->broken || !f->pending)
		return;
	f->pending = false;
	if ((r = store_fill_object(f, -1, a, &f->es.v[f->es.n - 1])) != 0)
		store_fill_broken(f, f->es.v[f->es.n - 1].path, -r);
}

bool
store_fill_end(struct store_fill *f)
{
	struct store *s;
	char *name, **pv;
	uint8_t (*kv)[DIGEST_LEN];
	bool kept = false;
	int r;

	if (f == NULL)
		return false;
	s = f->s;
	while (f->qn > 0)
		store_fill_pop(f, false);
	if (!f->broken && !f->pending) {
		if ((r = store_manifest_write(s, &f->es, &name)) != 0)
			store_fill_broken(f, "manifest", -r);
		else if ((pv = realloc(s->pending, (s->npending + 1) *
		    sizeof(*pv))) == NULL || (s->pending = pv,
		    kv = realloc(s->pending_key, (s->npending + 1) *
		    sizeof(*kv))) == NULL) {
			(void)unlinkat(s->dfd, name, 0);
			free(name);
		} else {
			s->pending_key = kv;
			memcpy(kv[s->npending], f->key, DIGEST_LEN);
			s->pending[s->npending++] = name;
			kept = true;
		}
	}
	store_fill_free(f);
	return kept;
}
