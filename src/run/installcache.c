/* SPDX-License-Identifier: MIT */
/* A run's packages looked up in the store (--cache) before the decoding threads start. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/installcache.h"

/*
 * Looking a package up reads all of it (its key) and stats each of its
 * contents in the store: on a cold cache, waits for the disk more than
 * work.  A few threads overlap those waits; each takes the next package
 * and keeps its note, told afterwards in the packages' order.
 */
#define INSTALL_CACHE_THREADS	4

struct install_lookups {
	struct install_cache *c;
	char *const *files;
	size_t n, next;
	char (*notes)[STORE_NOTE_MAX];
	pthread_mutex_t mu;
};

/*
 * Look package FILE (the run's I-th) up, hashing with SHA, its note left
 * in NOTE; without SHA, by store_lookup, its note told.  A package that
 * is not a regular file is decoded: a FIFO cannot be read twice, and
 * opening one would release its writer to a reader that goes away.
 */
static void
install_cache_look(struct install_cache *c, const char *file, size_t i,
    struct digest *sha, char *note)
{
	struct stat st;
	int fd;

	if (stat(file, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return;
	if (fstat(fd, &c->st[i]) == 0 && S_ISREG(c->st[i].st_mode)) {
		if (sha != NULL)
			store_lookup_quiet(c->s, fd, c->key[i], &c->hit[i],
			    sha, note);
		else
			store_lookup(c->s, fd, c->key[i], &c->hit[i]);
	}
	close(fd);
}

static void *
install_cache_lookups(void *arg)
{
	struct install_lookups *l = arg;
	struct digest *sha;
	size_t i;

	if (digest_new(&sha) != 0)
		return NULL;
	for (;;) {
		pthread_mutex_lock(&l->mu);
		i = l->next < l->n ? l->next++ : l->n;
		pthread_mutex_unlock(&l->mu);
		if (i == l->n)
			break;
		install_cache_look(l->c, l->files[i], i, sha, l->notes[i]);
	}
	digest_free(sha);
	return NULL;
}

/*
 * Look FILES[0..N-1] up, on threads where there are several; a package
 * the threads did not get to (one could not start) is looked up here.
 */
static void
install_cache_lookup_all(struct install_cache *c, char *const *files,
    size_t n)
{
	struct install_lookups l = { .c = c, .files = files, .n = n };
	pthread_t t[INSTALL_CACHE_THREADS];
	size_t i, nt = 0;

	if (n > 1 && (l.notes = calloc(n, sizeof(*l.notes))) != NULL &&
	    pthread_mutex_init(&l.mu, NULL) == 0) {
		for (nt = 0; nt < INSTALL_CACHE_THREADS && nt < n; nt++)
			if (pthread_create(&t[nt], NULL, install_cache_lookups,
			    &l) != 0)
				break;
		for (i = 0; i < nt; i++)
			pthread_join(t[i], NULL);
		pthread_mutex_destroy(&l.mu);
	}
	for (i = 0; i < n; i++)
		if (i >= l.next || nt == 0)
			install_cache_look(c, files[i], i, NULL, NULL);
		else
			store_tell(c->s, l.notes[i]);
	free(l.notes);
}

int
install_cache_open(struct install_cache *c, const char *dir,
    uint64_t max_size, bool verify, char *const *files,
    size_t n, store_note_fn *note, void *ctx)
{
	size_t i;

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
	if (c->s != NULL)
		install_cache_lookup_all(c, files, n);
	for (i = 0; i < n; i++) {
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
