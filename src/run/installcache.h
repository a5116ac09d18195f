/* SPDX-License-Identifier: MIT */
/* A run's packages looked up in the store (--cache): which are cloned, which are decoded and by which thread. */
#ifndef DEBUNPACK_INSTALLCACHE_H
#define DEBUNPACK_INSTALLCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "store/store.h"

struct install_cache {
	struct store *s;		/* NULL: no store this run */
	struct store_pkg **hit;		/* [i]: package i from the store, or NULL */
	uint8_t (*key)[DIGEST_LEN];	/* [i]: package i's key */
	size_t *fidx;			/* [i]: its index among FED */
	struct stat *st;		/* [i]: the file hashed */
	char **fed;			/* the packages the threads decode */
	size_t nfed;
};

/*
 * Open the store DIR (store_open's MAX_SIZE, VERIFY, NOTE, CTX) and
 * look each of FILES[0..N-1] up.  Without a store
 * (DIR NULL, or it cannot be used) every package is decoded: C->s is
 * NULL and C->fed is FILES.  0, or -ENOMEM.
 */
int install_cache_open(struct install_cache *c, const char *dir,
    uint64_t max_size, bool verify, char *const *files,
    size_t n, store_note_fn *note, void *ctx);

/*
 * Whether FD, package I opened again, is the file that was hashed for
 * its key (a path may be replaced meanwhile).
 */
bool install_cache_same(const struct install_cache *c, size_t i, int fd);

/*
 * The store taken out of C, for the caller to commit and close later;
 * install_cache_close then frees the rest.
 */
struct store *install_cache_keep(struct install_cache *c);

/* The entries filled made visible (store_commit), and everything freed. */
void install_cache_close(struct install_cache *c, size_t n);

#endif
