/* SPDX-License-Identifier: MIT */
/* A run's packages looked up in the store (--cache) before the decoding threads start. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/installcache.h"

int
install_cache_open(struct install_cache *c, const char *dir,
    uint64_t max_size, bool verify, char *const *files,
    size_t n, store_note_fn *note, void *ctx)
{
	size_t i;
	int fd;

	memset(c, 0, sizeof(*c));
	c->fed = (char **)files;
	c->nfed = n;
	if (dir == NULL)
		return 0;
	if ((c->hit = calloc(n ? n : 1, sizeof(*c->hit))) == NULL ||
	    (c->key = calloc(n ? n : 1, sizeof(*c->key))) == NULL ||
	    (c->fidx = calloc(n ? n : 1, sizeof(*c->fidx))) == NULL ||
	    (c->st = calloc(n ? n : 1, sizeof(*c->st))) == NULL ||
	    (c->fed = calloc(n ? n : 1, sizeof(*c->fed))) == NULL) {
		free(c->hit);
		free(c->key);
		free(c->fidx);
		free(c->st);
		memset(c, 0, sizeof(*c));
		c->fed = (char **)files;
		c->nfed = n;
		return -ENOMEM;
	}
	store_open(&c->s, dir, max_size, verify, note, ctx);
	/*
	 * Before the threads start: a package from the store is never
	 * decoded, not even ahead of its turn.
	 */
	c->nfed = 0;
	for (i = 0; i < n; i++) {
		if (c->s != NULL && (fd = open(files[i], O_RDONLY |
		    O_CLOEXEC)) >= 0) {
			if (fstat(fd, &c->st[i]) == 0)
				store_lookup(c->s, fd, c->key[i], &c->hit[i]);
			close(fd);
		}
		c->fidx[i] = c->nfed;
		if (c->hit[i] == NULL)
			c->fed[c->nfed++] = files[i];
	}
	return 0;
}

bool
install_cache_same(const struct install_cache *c, size_t i, int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_dev == c->st[i].st_dev &&
	    st.st_ino == c->st[i].st_ino && st.st_size == c->st[i].st_size &&
	    st.st_mtim.tv_sec == c->st[i].st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == c->st[i].st_mtim.tv_nsec;
}

struct store *
install_cache_keep(struct install_cache *c)
{
	struct store *s = c->s;

	c->s = NULL;
	return s;
}

void
install_cache_close(struct install_cache *c, size_t n)
{
	size_t i;

	store_commit(c->s, false);
	for (i = 0; c->hit != NULL && i < n; i++)
		store_pkg_free(c->hit[i]);
	free(c->key);
	free(c->fidx);
	free(c->st);
	if (c->hit != NULL)
		free(c->fed);
	free(c->hit);
	store_close(c->s);
	memset(c, 0, sizeof(*c));
}
