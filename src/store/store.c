/* SPDX-License-Identifier: MIT */
/* The store of unpacked files: opened for a run, looked up, its contents cloned into the root. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/fs.h>

#include <archive_entry.h>

#include "durable/fileat.h"
#include "store/store_int.h"

struct store_pkg {
	struct store_ents es;
	struct archive_entry *ae;
};

void
store_note(struct store *s, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (s->note == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	s->note(s->ctx, buf);
}

void
store_hex(const uint8_t *d, size_t len, char *buf)
{
	static const char hx[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		buf[2 * i] = hx[d[i] >> 4];
		buf[2 * i + 1] = hx[d[i] & 15];
	}
	buf[2 * len] = '\0';
}

void
store_object_name(const uint8_t sha[DIGEST_LEN], char *buf)
{
	char hex[2 * DIGEST_LEN + 1];

	store_hex(sha, DIGEST_LEN, hex);
	snprintf(buf, 76, "objects/%.2s/%s", hex, hex);
}

/*
 * A stored content's mtime is set from its own hash, not from the clock:
 * any write through the filesystem moves it to the present, and a copy
 * of the store that keeps mtimes (tar, rsync -a: a CI cache) keeps it.
 */
time_t
store_stamp(const uint8_t sha[DIGEST_LEN])
{
	return (time_t)1000000000 + (time_t)(((uint32_t)sha[0] << 20 |
	    (uint32_t)sha[1] << 12 | (uint32_t)sha[2] << 4) & 0x0fffffff);
}

static int
store_object_st_ok(const struct stat *st, const struct store_ent *e)
{
	if (!S_ISREG(st->st_mode) || st->st_size != e->size ||
	    st->st_mtim.tv_sec != store_stamp(e->sha))
		return -EUCLEAN;
	return 0;
}

int
store_object_ok(int dfd, const char *name, const struct store_ent *e)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	return store_object_st_ok(&st, e);
}

static int
store_mkdirs(int dfd)
{
	char sub[16];
	int i;

	if ((mkdirat(dfd, "objects", 0755) != 0 && errno != EEXIST) ||
	    (mkdirat(dfd, "entries", 0755) != 0 && errno != EEXIST) ||
	    (mkdirat(dfd, "tmp", 0755) != 0 && errno != EEXIST))
		return -errno;
	for (i = 0; i < 256; i++) {
		snprintf(sub, sizeof(sub), "objects/%02x", i);
		if (mkdirat(dfd, sub, 0755) != 0 && errno != EEXIST)
			return -errno;
	}
	return 0;
}

void
store_open(struct store **out, const char *dir, uint64_t max_size,
    bool verify, store_note_fn *note, void *ctx)
{
	struct store *s;
	int r;

	*out = NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return;
	s->note = note;
	s->ctx = ctx;
	s->lockfd = -1;
	s->max_size = max_size;
	s->verify = verify;
	s->clone = s->sendfile = s->fill_clones = true;
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		store_note(s, "cache '%s' not used: %s", dir, strerror(errno));
		goto fail;
	}
	if ((s->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		store_note(s, "cache '%s' not used: %s", dir, strerror(errno));
		goto fail;
	}
	/* Read-only: still read; the lock file may exist already. */
	if ((r = store_mkdirs(s->dfd)) != 0 && r != -EROFS && r != -EACCES) {
		store_note(s, "cache '%s' not used: %s", dir, strerror(-r));
		goto fail;
	}
	s->lockfd = openat(s->dfd, "lock", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (s->lockfd < 0)
		s->lockfd = openat(s->dfd, "lock", O_RDONLY | O_CLOEXEC);
	if (s->lockfd < 0 || flock(s->lockfd, LOCK_SH) != 0) {
		store_note(s, "cache '%s' not used: cannot lock: %s", dir,
		    strerror(errno));
		goto fail;
	}
	if (digest_new(&s->sha) != 0 || digest_new_md5(&s->md5) != 0)
		goto fail;
	/*
	 * Another filesystem than the root's (or than a part of it):
	 * contents are copied, not cloned (FICLONE says so, file by file; a
	 * btrfs subvolume has a device of its own and still clones), which
	 * still spares the decoding.
	 */
	s->cfr = true;
	/*
	 * Under debunpack-nosync the syncfs that makes contents durable
	 * before their entries are named does nothing: an entry could then
	 * outlive, in a crash, the data it names.  Read, never filled.
	 */
	s->fill = getenv("DEBUNPACK_NOSYNC_ACTIVE") == NULL;
	if (!s->fill)
		store_note(s, "cache '%s' read but not filled: under"
		    " debunpack-nosync its sync would do nothing", dir);
	*out = s;
	return;
fail:
	store_close(s);
}

void
store_close(struct store *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->npending; i++) {
		(void)unlinkat(s->dfd, s->pending[i], 0);
		free(s->pending[i]);
	}
	free(s->pending);
	free(s->pending_key);
	digest_free(s->sha);
	digest_free(s->md5);
	if (s->lockfd >= 0)
		close(s->lockfd);
	if (s->dfd > 0)
		close(s->dfd);
	free(s);
}

/* One byte a lookup, appended: O_APPEND keeps concurrent runs' apart. */
static void
store_count(struct store *s, char c)
{
	int fd = openat(s->dfd, "hits", O_WRONLY | O_APPEND | O_CREAT |
	    O_CLOEXEC, 0644);

	if (fd >= 0) {
		(void)!write(fd, &c, 1);
		close(fd);
	}
}

static int
store_key(struct digest *sha, int fd, uint8_t key[DIGEST_LEN])
{
	uint8_t buf[1 << 16];
	off_t off = 0;
	ssize_t n;
	int r;

	if ((r = digest_start(sha)) != 0)
		return r;
	while ((n = pread(fd, buf, sizeof(buf), off)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		digest_add(sha, buf, (size_t)n);
		off += n;
	}
	return digest_end(sha, key);
}

/* --cache-verify: the object NAME's bytes hash to SHA.  0 or -errno. */
static int
store_object_hash(struct store *s, struct digest *d, const char *name,
    const uint8_t sha[DIGEST_LEN])
{
	uint8_t got[DIGEST_LEN];
	int fd, r;

	if ((fd = openat(s->dfd, name, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return -errno;
	r = digest_fd(d, fd, got);
	close(fd);
	if (r == 0 && memcmp(got, sha, DIGEST_LEN) != 0)
		r = -EUCLEAN;
	return r;
}

void
store_lookup(struct store *s, int fd, uint8_t key[DIGEST_LEN],
    struct store_pkg **out)
{
	char note[STORE_NOTE_MAX];

	store_lookup_quiet(s, fd, key, out, s->sha, note);
	store_tell(s, note);
}

void
store_tell(struct store *s, const char *note)
{
	if (note[0] != '\0')
		store_note(s, "%s", note);
}

void
store_lookup_quiet(struct store *s, int fd, uint8_t key[DIGEST_LEN],
    struct store_pkg **out, struct digest *sha, char note[STORE_NOTE_MAX])
{
	char name[8 + 2 * DIGEST_LEN + 1], obj[80];
	struct store_pkg *p;
	const char *why = NULL;
	size_t i;
	int mfd, r;

	*out = NULL;
	note[0] = '\0';
	if (store_key(sha, fd, key) != 0) {
		memset(key, 0, DIGEST_LEN);
		return;
	}
	memcpy(name, "entries/", 8);
	store_hex(key, DIGEST_LEN, name + 8);
	if ((mfd = openat(s->dfd, name, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0) {
		store_count(s, 'm');
		return;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		close(mfd);
		return;
	}
	if ((r = store_manifest_read(mfd, &p->es, &why)) == 0) {
		/* Every content there as stored, before any is used. */
		for (i = 0; i < p->es.n && r == 0; i++) {
			if (p->es.v[i].type != 'f' || p->es.v[i].size == 0)
				continue;
			store_object_name(p->es.v[i].sha, obj);
			if ((r = store_object_ok(s->dfd, obj, &p->es.v[i])) != 0)
				why = r == -ENOENT ? "a content is missing" :
				    "a content was changed";
			else if (s->verify && (r = store_object_hash(s, sha,
			    obj, p->es.v[i].sha)) != 0) {
				why = "a content does not match its hash";
				/* Its stamp is right: the fill would keep it. */
				if (r == -EUCLEAN)
					(void)unlinkat(s->dfd, obj, 0);
			}
		}
	} else if (why == NULL)
		why = strerror(-r);
	if (r != 0) {
		snprintf(note, STORE_NOTE_MAX, "cache entry '%s' not used: %s",
		    name, why);
		store_pkg_free(p);
		close(mfd);
		store_count(s, 'm');
		return;
	}
	/* Used now: what eviction keeps longest. */
	(void)futimens(mfd, NULL);
	close(mfd);
	store_count(s, 'h');
	*out = p;
}

void
store_pkg_free(struct store_pkg *p)
{
	if (p == NULL)
		return;
	store_ents_free(&p->es);
	if (p->ae != NULL)
		archive_entry_free(p->ae);
	free(p);
}

uint64_t
store_pkg_bytes(const struct store_pkg *p)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < p->es.n; i++)
		if (p->es.v[i].type == 'f')
			n += (uint64_t)p->es.v[i].size;
	return n;
}

size_t
store_pkg_count(const struct store_pkg *p)
{
	return p->es.n;
}

const char *
store_pkg_path(const struct store_pkg *p, size_t i, bool *dir)
{
	*dir = p->es.v[i].type == 'd';
	return p->es.v[i].path;
}

struct archive_entry *
store_pkg_entry(struct store_pkg *p, size_t i)
{
	const struct store_ent *e = &p->es.v[i];
	static const unsigned types[] = { ['f'] = AE_IFREG, ['d'] = AE_IFDIR,
	    ['l'] = AE_IFLNK, ['h'] = AE_IFREG, ['c'] = AE_IFCHR,
	    ['b'] = AE_IFBLK, ['p'] = AE_IFIFO };

	if (p->ae == NULL && (p->ae = archive_entry_new()) == NULL)
		return NULL;
	archive_entry_clear(p->ae);
	archive_entry_copy_pathname(p->ae, e->path);
	archive_entry_set_filetype(p->ae, types[(unsigned char)e->type]);
	archive_entry_set_perm(p->ae, e->perm);
	archive_entry_set_uid(p->ae, e->uid);
	archive_entry_set_gid(p->ae, e->gid);
	if (e->uname != NULL)
		archive_entry_copy_uname(p->ae, e->uname);
	if (e->gname != NULL)
		archive_entry_copy_gname(p->ae, e->gname);
	archive_entry_set_mtime(p->ae, e->mtime, e->nsec);
	archive_entry_set_size(p->ae, e->size);
	if (e->type == 'l')
		archive_entry_copy_symlink(p->ae, e->link);
	else if (e->type == 'h')
		archive_entry_copy_hardlink(p->ae, e->link);
	if (e->type == 'c' || e->type == 'b') {
		archive_entry_set_rdevmajor(p->ae, e->major);
		archive_entry_set_rdevminor(p->ae, e->minor);
	}
	return p->ae;
}

/*
 * SRC's SIZE bytes into the empty DST: cloned, copied by the filesystem
 * (copy_file_range), else by the kernel (sendfile, across filesystems
 * too), else read and written.  A way the kernel or the store's
 * filesystem lacks is not asked again this run; one refused for a pair
 * of filesystems (EXDEV) is asked again for the next file, which may be
 * on another of the root's.
 */
int
store_copy_fd(struct store *s, int dst, int src, uint64_t size,
    enum store_how *how)
{
	char buf[1 << 16];
	loff_t in = 0, out = 0;
	ssize_t n;

	if (size == 0) {
		*how = STORE_CLONED;
		return 0;
	}
	if (s->clone) {
		if (ioctl(dst, FICLONE, src) == 0) {
			*how = STORE_CLONED;
			return 0;
		}
		/* Not this filesystem's: stop asking for this run. */
		if (errno == EOPNOTSUPP || errno == ENOTTY || errno == EINVAL)
			s->clone = false;
		else if (errno != EXDEV)
			return -errno;
	}
	*how = STORE_COPIED;
	while (s->cfr && (uint64_t)in < size) {
		n = copy_file_range(src, &in, dst, &out, (size_t)(size -
		    (uint64_t)in), 0);
		if (n > 0)
			continue;
		if (n == 0)
			return -EIO;	/* shorter than stored */
		if (errno == EINTR)
			continue;
		if (in != 0 || (errno != EXDEV && errno != EINVAL &&
		    errno != EOPNOTSUPP && errno != ENOSYS))
			return -errno;
		if (errno == EOPNOTSUPP || errno == ENOSYS)
			s->cfr = false;
		break;
	}
	while (s->sendfile && (uint64_t)in < size) {
		/* sendfile writes at DST's offset: the same as OUT here. */
		n = sendfile(dst, src, &in, (size_t)(size - (uint64_t)in));
		if (n > 0) {
			out += n;
			continue;
		}
		if (n == 0)
			return -EIO;
		if (errno == EINTR)
			continue;
		if (in != 0 || (errno != EINVAL && errno != ENOSYS))
			return -errno;
		s->sendfile = false;
	}
	while ((uint64_t)in < size) {
		if ((n = pread(src, buf, sizeof(buf), in)) <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return n < 0 ? -errno : -EIO;
		}
		if (pwrite(dst, buf, (size_t)n, out) != n)
			return errno != 0 ? -errno : -EIO;
		in += n;
		out += n;
	}
	return 0;
}

int
store_pkg_write(struct store *s, struct store_pkg *p, size_t i, int fd,
    const char *path, uint8_t sha[DIGEST_LEN], uint8_t *md5,
    enum store_how *how, struct dbp_error *err)
{
	const struct store_ent *e = &p->es.v[i];
	uint8_t got[DIGEST_LEN];
	enum store_how h = STORE_CLONED;
	struct stat st;
	char obj[80];
	int ofd = -1, r = 0;

	memcpy(sha, e->sha, DIGEST_LEN);
	if (e->size > 0) {
		store_object_name(e->sha, obj);
		/* The object judged is the one opened (O_NOFOLLOW, fstat). */
		if ((ofd = openat(s->dfd, obj, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC)) < 0 || (r = fstat(ofd, &st) != 0 ? -errno :
		    store_object_st_ok(&st, e)) != 0) {
			if (ofd >= 0)
				close(ofd);
			return dbp_err(err, ofd < 0 ? errno : -r, path,
			    "cache content '%s' changed during the run", obj);
		}
	}
	if (md5 != NULL && e->has_md5)
		memcpy(md5, e->md5, DIGEST_MD5_LEN);
	else if (md5 != NULL && ofd < 0) {
		if ((r = digest_start(s->md5)) == 0)
			r = digest_end(s->md5, got);
		memcpy(md5, got, DIGEST_MD5_LEN);
	} else if (md5 != NULL && (lseek(ofd, 0, SEEK_SET) != 0 ||
	    (r = digest_fd(s->md5, ofd, got)) != 0)) {
		close(ofd);
		return dbp_err(err, r != 0 ? -r : errno, path,
		    "cannot read cache content '%s'", obj);
	} else if (md5 != NULL)
		memcpy(md5, got, DIGEST_MD5_LEN);
	if (ofd >= 0) {
		r = store_copy_fd(s, fd, ofd, (uint64_t)e->size, &h);
		close(ofd);
		if (r != 0)
			return dbp_err(err, -r, path, "cannot copy from the"
			    " cache");
	}
	if (h == STORE_COPIED)
		*how = STORE_COPIED;
	return 0;
}

int
store_dirfd(const struct store *s)
{
	return s->dfd;
}

bool
store_filled(const struct store *s)
{
	return s->npending > 0;
}

int
store_settle(struct store *s)
{
	size_t i;
	int fd, r;

	if (s == NULL || s->wrote)
		return -1;
	for (i = 0; i < s->npending; i++) {
		if ((fd = openat(s->dfd, s->pending[i], O_RDONLY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0)
			return -1;
		r = fileat_writeback_mapped(fd);
		close(fd);
		if (r != 0)
			return -1;
	}
	return 0;
}

void
store_commit(struct store *s, bool synced)
{
	char name[8 + 2 * DIGEST_LEN + 1];
	struct dbp_error err;
	struct store_info info;
	size_t i, filled;

	if (s == NULL)
		return;
	filled = s->npending;
	/* Every content a manifest names durable before the manifest's name. */
	if (s->npending > 0 && !synced && syncfs(s->dfd) != 0) {
		store_note(s, "cache not updated: cannot sync: %s",
		    strerror(errno));
		return;
	}
	memcpy(name, "entries/", 8);
	for (i = 0; i < s->npending; i++) {
		store_hex(s->pending_key[i], DIGEST_LEN, name + 8);
		if (renameat(s->dfd, s->pending[i], s->dfd, name) != 0)
			store_note(s, "cache entry '%s' not kept: %s", name,
			    strerror(errno));
		free(s->pending[i]);
	}
	/* Not synced: a name lost in a crash is a miss, no more. */
	s->npending = 0;
	/* Only a store that grew can have outgrown its limit. */
	if (s->max_size == 0 || filled == 0)
		return;
	/* Eviction needs the exclusive lock: the run gives its shared one. */
	(void)flock(s->lockfd, LOCK_UN);
	dbp_err_clear(&err);
	if (flock(s->lockfd, LOCK_EX | LOCK_NB) == 0 && store_info_at(s->dfd,
	    true, s->max_size, &info, &err) != 0)
		store_note(s, "cache not pruned: %s", err.msg);
	(void)flock(s->lockfd, LOCK_UN);
}
