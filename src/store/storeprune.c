/* SPDX-License-Identifier: MIT */
/* The store's size and hits (--cache-info), and its eviction, least recently used first (--cache-prune, --cache-max-size). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store_int.h"

struct store_obj {
	uint8_t sha[DIGEST_LEN];
	uint64_t bytes;
	unsigned long refs;
};

struct store_man {
	char name[2 * DIGEST_LEN + 1];
	struct timespec used;
	uint64_t bytes;
	struct store_ents es;
	bool bad;
};

struct store_scan {
	struct store_obj *obj;
	size_t nobj, capobj;
	struct store_man *man;
	size_t nman, capman;
};

static int
store_cmp_obj(const void *a, const void *b)
{
	return memcmp(((const struct store_obj *)a)->sha,
	    ((const struct store_obj *)b)->sha, DIGEST_LEN);
}

static int
store_cmp_used(const void *a, const void *b)
{
	const struct store_man *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void *
store_grow(void *v, size_t n, size_t *cap, size_t size)
{
	void *p;

	if (n < *cap)
		return v;
	if ((p = realloc(v, (*cap ? *cap * 2 : 256) * size)) != NULL)
		*cap = *cap ? *cap * 2 : 256;
	return p;
}

/* Every object under objects/, with what it takes on disk. */
static int
store_scan_objects(int dfd, struct store_scan *sc)
{
	char sub[16];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int i, fd;
	void *p;

	for (i = 0; i < 256; i++) {
		snprintf(sub, sizeof(sub), "objects/%02x", i);
		if ((fd = openat(dfd, sub, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) < 0) {
			if (errno == ENOENT)
				continue;
			return -errno;
		}
		if ((d = fdopendir(fd)) == NULL) {
			close(fd);
			return -errno;
		}
		while ((de = readdir(d)) != NULL) {
			struct store_obj *o;
			char want[76];

			if (de->d_name[0] == '.' || fstatat(fd, de->d_name,
			    &st, AT_SYMLINK_NOFOLLOW) != 0)
				continue;
			if ((p = store_grow(sc->obj, sc->nobj, &sc->capobj,
			    sizeof(*o))) == NULL) {
				closedir(d);
				return -ENOMEM;
			}
			sc->obj = p;
			o = &sc->obj[sc->nobj];
			memset(o, 0, sizeof(*o));
			o->bytes = (uint64_t)st.st_blocks * 512;
			/* A name that is no content's: never referenced. */
			if (strlen(de->d_name) == 2 * DIGEST_LEN) {
				unsigned v;
				int k;

				for (k = 0; k < DIGEST_LEN && sscanf(de->d_name
				    + 2 * k, "%2x", &v) == 1; k++)
					o->sha[k] = (uint8_t)v;
				store_object_name(o->sha, want);
				if (strcmp(want + 11, de->d_name) != 0 ||
				    strncmp(want + 8, sub + 8, 2) != 0)
					memset(o->sha, 0xff, DIGEST_LEN);
			} else
				memset(o->sha, 0xff, DIGEST_LEN);
			sc->nobj++;
		}
		closedir(d);
	}
	qsort(sc->obj, sc->nobj, sizeof(*sc->obj), store_cmp_obj);
	return 0;
}

static struct store_obj *
store_find(struct store_scan *sc, const uint8_t sha[DIGEST_LEN])
{
	struct store_obj key;

	memcpy(key.sha, sha, DIGEST_LEN);
	return bsearch(&key, sc->obj, sc->nobj, sizeof(*sc->obj),
	    store_cmp_obj);
}

/* Every manifest under entries/; read when objects are counted for it. */
static int
store_scan_entries(int dfd, struct store_scan *sc, bool read)
{
	struct dirent *de;
	struct stat st;
	const char *why;
	DIR *d;
	int fd, mfd;
	size_t i;
	void *p;

	if ((fd = openat(dfd, "entries", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : -errno;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d)) != NULL) {
		struct store_man *m;

		if (de->d_name[0] == '.' || strlen(de->d_name) != 2 *
		    DIGEST_LEN || fstatat(fd, de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if ((p = store_grow(sc->man, sc->nman, &sc->capman,
		    sizeof(*m))) == NULL) {
			closedir(d);
			return -ENOMEM;
		}
		sc->man = p;
		m = &sc->man[sc->nman++];
		memset(m, 0, sizeof(*m));
		memcpy(m->name, de->d_name, sizeof(m->name));
		m->used = st.st_mtim;
		m->bytes = (uint64_t)st.st_blocks * 512;
		if (!read)
			continue;
		if ((mfd = openat(fd, de->d_name, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC)) < 0 || store_manifest_read(mfd, &m->es,
		    &why) != 0)
			m->bad = true;
		if (mfd >= 0)
			close(mfd);
		for (i = 0; i < m->es.n; i++) {
			struct store_obj *o;

			if (m->es.v[i].type == 'f' && m->es.v[i].size > 0 &&
			    (o = store_find(sc, m->es.v[i].sha)) != NULL)
				o->refs++;
		}
	}
	closedir(d);
	return 0;
}

static void
store_hits(int dfd, struct store_info *info)
{
	char buf[65536];
	ssize_t n, i;
	int fd;

	if ((fd = openat(dfd, "hits", O_RDONLY | O_CLOEXEC)) < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i++) {
			info->hits += buf[i] == 'h';
			info->misses += buf[i] == 'm';
		}
	close(fd);
}

/*
 * Entries go oldest use first until the rest fits in MAX_SIZE; then
 * every content no entry names.  Nobody else uses the store (the
 * exclusive lock), so DIR/tmp's leftovers are an interrupted run's.
 */
static void
store_evict(int dfd, struct store_scan *sc, uint64_t max_size,
    uint64_t *total)
{
	char name[80];
	struct dirent *de;
	size_t i, k;
	DIR *d;
	int fd;

	qsort(sc->man, sc->nman, sizeof(*sc->man), store_cmp_used);
	for (i = 0; i < sc->nman; i++) {
		struct store_man *m = &sc->man[i];

		if (!m->bad && *total <= max_size && max_size != 0)
			continue;
		snprintf(name, sizeof(name), "entries/%s", m->name);
		if (unlinkat(dfd, name, 0) != 0)
			continue;
		*total -= m->bytes;
		for (k = 0; k < m->es.n; k++) {
			struct store_obj *o;

			if (m->es.v[k].type == 'f' && m->es.v[k].size > 0 &&
			    (o = store_find(sc, m->es.v[k].sha)) != NULL &&
			    --o->refs == 0)
				*total -= o->bytes;
		}
	}
	for (i = 0; i < sc->nobj; i++) {
		if (sc->obj[i].refs > 0)
			continue;
		store_object_name(sc->obj[i].sha, name);
		/* Names that are no content's were not counted by sha. */
		if (sc->obj[i].sha[0] == 0xff && sc->obj[i].sha[1] == 0xff)
			continue;
		(void)unlinkat(dfd, name, 0);
	}
	if ((fd = openat(dfd, "tmp", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) >= 0 && (d = fdopendir(fd)) != NULL) {
		while ((de = readdir(d)) != NULL)
			if (de->d_name[0] != '.')
				(void)unlinkat(fd, de->d_name, 0);
		closedir(d);
	} else if (fd >= 0)
		close(fd);
}

int
store_info_at(int dfd, bool prune, uint64_t max_size,
    struct store_info *info, struct dbp_error *err)
{
	struct store_scan sc = { 0 };
	uint64_t total = 0;
	size_t i;
	int r;

	memset(info, 0, sizeof(*info));
	if ((r = store_scan_objects(dfd, &sc)) == 0)
		r = store_scan_entries(dfd, &sc, prune);
	if (r != 0) {
		r = dbp_err(err, -r, "", "cannot read the cache");
		goto out;
	}
	for (i = 0; i < sc.nobj; i++)
		total += sc.obj[i].bytes;
	for (i = 0; i < sc.nman; i++)
		total += sc.man[i].bytes;
	if (prune)
		store_evict(dfd, &sc, max_size, &total);
	info->bytes = total;
	info->objects = 0;
	for (i = 0; i < sc.nobj; i++)
		info->objects += !prune || sc.obj[i].refs > 0;
	for (i = 0; i < sc.nman; i++) {
		char name[80];

		snprintf(name, sizeof(name), "entries/%s", sc.man[i].name);
		info->entries += !prune || faccessat(dfd, name, F_OK, 0) == 0;
	}
	store_hits(dfd, info);
out:
	for (i = 0; i < sc.nman; i++)
		store_ents_free(&sc.man[i].es);
	free(sc.man);
	free(sc.obj);
	return r;
}

int
store_info(const char *dir, bool prune, uint64_t max_size,
    struct store_info *info, struct dbp_error *err)
{
	int dfd, lfd, r;

	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return dbp_err(err, errno, dir, "cannot open the cache");
	lfd = openat(dfd, "lock", prune ? O_RDWR : O_RDONLY | O_CLOEXEC);
	if (lfd < 0 && (errno != ENOENT || prune)) {
		r = dbp_err(err, errno, dir, "cannot open the cache's lock");
		close(dfd);
		return r;
	}
	/* Pruning waits for the runs that use the store. */
	if (lfd >= 0 && flock(lfd, prune ? LOCK_EX : LOCK_SH) != 0)
		r = dbp_err(err, errno, dir, "cannot lock the cache");
	else
		r = store_info_at(dfd, prune, max_size, info, err);
	if (lfd >= 0)
		close(lfd);
	close(dfd);
	return r;
}
