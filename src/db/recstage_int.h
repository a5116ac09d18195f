/* SPDX-License-Identifier: MIT */
/*
 * Inside the run's records: what recstage.c (the admin directory,
 * staging, the commit) and recowners.c (the installed records and who
 * owns a path) share.  Not for other modules.
 */
#ifndef DEBUNPACK_RECSTAGE_INT_H
#define DEBUNPACK_RECSTAGE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "db/record.h"
#include "db/recstore.h"
#include "durable/dirs.h"
#include "durable/rootfs.h"

struct syncbatch;

/*
 * One path of an installed record, in the index of all of them: owner
 * lookups are one hash table probe, not one search per installed
 * package.
 */
struct recstage_owned {
	const char *path;	/* the record's own string */
	size_t inst;		/* the record: rs->inst[inst] */
	size_t next;		/* the next of its bucket, + 1; 0: none */
	char type;
};

/* A record dpkg made stale, dropped after the commit (no path goes). */
struct recstage_forgotten {
	char *name;
	char *what;
};

struct recstage {
	/* the admin directory, when attached, and what errors call it */
	const char *admname;
	struct recstore *store;	/* reads the records; owns the descriptor */
	struct rootfs arf;	/* the store's descriptor, for adirs */
	struct dirs *adirs;
	struct syncbatch *asb;
	size_t aroot;		/* its index in adirs */
	/* records installed before the run (read by recowners_load) */
	struct record **inst;
	size_t ninst;
	bool *disowned;		/* inst[i] gave up paths: restage it */
	bool *lost;		/* inst[i] lost paths to the run's packages */
	/*
	 * every installed path, by record; NULL: search each record.  Each
	 * bucket (the path's hash) chains its paths, + 1 (0: none), in that
	 * order: a path's owners come in the records' order.
	 */
	struct recstage_owned *owned;
	size_t nowned;
	size_t *bucket;
	size_t nbucket;		/* a power of two */
	/* the records this run stages, by package index of the run */
	struct record **staged;
	size_t nstaged;
	/* packages the run removes whole: their records go after the commit */
	struct record **dropped;
	size_t ndropped;
	/* dropped, and staged down to conffiles: recowners.c's "leaving" */
	size_t nleaving;
	/* which records dpkg made stale, and whether the run drops them */
	recstore_stale_fn *stale;
	void *stale_ctx;
	bool forget;
	bool dpkg_db;		/* the run keeps dpkg's database too */
	recstage_adopt_fn *adopt;	/* recstage_set_adopt's */
	void *adopt_ctx;
	const struct rootfs *rf;	/* where adopted paths are typed */
	int type_err;		/* the first failure to type one (-errno) */
	const struct dpkgdivert *divert;	/* recstage_set_divert's */
	struct recstage_forgotten *forgotten;
	size_t nforgotten;
};

/*
 * Note stale record NAME (WHAT dpkg did) for the run to drop after its
 * commit point, once.  0 or -ENOMEM.
 */
int recstage_forget(struct recstage *rs, const char *name, const char *what);

#endif
