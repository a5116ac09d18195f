/* SPDX-License-Identifier: MIT */
/* Control members decoded once per process: the same bytes give what they gave before. */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "deb/ctlcache.h"
#include "util/strhash.h"

struct ctlcache_ent {
	struct ctlcache_ent *next;
	size_t hash;		/* strhash_n of the member */
	void *member;
	size_t mlen;
	void *buf;
	size_t len;
};

static pthread_mutex_t ctlcache_mu = PTHREAD_MUTEX_INITIALIZER;
static struct ctlcache_ent *ctlcache_head;
static size_t ctlcache_bytes;

/* Under the lock. */
static struct ctlcache_ent *
ctlcache_lookup(const void *member, size_t mlen, size_t hash)
{
	struct ctlcache_ent *e;

	for (e = ctlcache_head; e != NULL; e = e->next)
		if (e->hash == hash && e->mlen == mlen &&
		    memcmp(e->member, member, mlen) == 0)
			return e;
	return NULL;
}

const void *
ctlcache_find(const void *member, size_t mlen, size_t *len)
{
	size_t hash = strhash_n(member, mlen);
	struct ctlcache_ent *e;
	const void *buf = NULL;

	pthread_mutex_lock(&ctlcache_mu);
	if ((e = ctlcache_lookup(member, mlen, hash)) != NULL) {
		buf = e->buf;
		*len = e->len;
	}
	pthread_mutex_unlock(&ctlcache_mu);
	return buf;
}

int
ctlcache_room(size_t len)
{
	int room;

	pthread_mutex_lock(&ctlcache_mu);
	room = len <= CTLCACHE_MAX - ctlcache_bytes;
	pthread_mutex_unlock(&ctlcache_mu);
	return room;
}

void
ctlcache_add(const void *member, size_t mlen, void *buf, size_t len)
{
	size_t hash = strhash_n(member, mlen);
	struct ctlcache_ent *e;

	if ((e = calloc(1, sizeof(*e))) == NULL ||
	    (e->member = malloc(mlen ? mlen : 1)) == NULL) {
		free(e);
		free(buf);
		return;
	}
	memcpy(e->member, member, mlen);
	e->mlen = mlen;
	e->hash = hash;
	e->buf = buf;
	e->len = len;
	pthread_mutex_lock(&ctlcache_mu);
	/* Two threads may have read it at once: the first one stays. */
	if (len > CTLCACHE_MAX - ctlcache_bytes ||
	    mlen > CTLCACHE_MAX - ctlcache_bytes - len ||
	    ctlcache_lookup(member, mlen, hash) != NULL) {
		pthread_mutex_unlock(&ctlcache_mu);
		free(e->member);
		free(e);
		free(buf);
		return;
	}
	e->next = ctlcache_head;
	ctlcache_head = e;
	ctlcache_bytes += len + mlen;
	pthread_mutex_unlock(&ctlcache_mu);
}

void
ctlcache_clear(void)
{
	struct ctlcache_ent *e;

	pthread_mutex_lock(&ctlcache_mu);
	while ((e = ctlcache_head) != NULL) {
		ctlcache_head = e->next;
		free(e->member);
		free(e->buf);
		free(e);
	}
	ctlcache_bytes = 0;
	pthread_mutex_unlock(&ctlcache_mu);
}
