/* SPDX-License-Identifier: MIT */
/* The admin directory's records, read and never written: what a query opens, and what a run reads before it stages. */
#ifndef DEBUNPACK_RECSTORE_H
#define DEBUNPACK_RECSTORE_H

#include <stdbool.h>

#include "db/dpkgstatus.h"
#include "db/record.h"
#include "durable/rootfs.h"
#include "util/error.h"

/*
 * The admin directory holds one record per installed package,
 * NAME.record (see record.c for the format): the package's name and
 * this.
 */
#define RECSTORE_SUFFIX	".record"

struct recstore;

/*
 * Whether record R no longer stands (dpkg changed its package since:
 * dpkgstale.h), and how (*WHAT, a string the callback keeps); such a
 * record reads as none.
 */
typedef bool recstore_stale_fn(void *ctx, const struct record *r,
    const char **what);

/*
 * Open the records of the admin directory open as DIRFD (duplicated; the
 * caller keeps its own; -1: there is none, so no record of its own),
 * called NAME in errors (kept by reference).  The
 * store only reads: it creates, locks and writes nothing, so that it
 * answers the same on a read-only root.  0 with *OUT (recstore_free), or
 * -errno with ERR.
 */
int recstore_open(struct recstore **out, int dirfd, const char *name,
    struct dbp_error *err);
/* Close S's descriptor and free it; NULL is a no-op. */
void recstore_free(struct recstore *s);

/*
 * Each record read from now on has its paths where dpkg-divert's
 * diversions D (borrowed; NULL: none) send them (dpkgdivert_follow).
 */
struct dpkgdivert;
void recstore_set_divert(struct recstore *s, const struct dpkgdivert *d);

/* FN (with CTX) judges each record read from now on; NULL: none is stale. */
void recstore_set_stale(struct recstore *s, recstore_stale_fn *fn,
    void *ctx);

/*
 * Where dpkg's database is the authority (queries in a root that has
 * it): the packages STATUS (root RF's, both outliving S) says dpkg has
 * files of are installed too, read from dpkg's database (dpkgadopt.h)
 * where no record of S's stands: recstore_names lists them,
 * recstore_load reads them with dpkgadopt_one's FLAGS (DPKGADOPT_*:
 * what the query needs of them).  Of a Multi-Arch: same package dpkg
 * has several instances of, NAME stands for one (debunpack's record, or
 * the first in STATUS) and NAME:ARCH for each other one.
 */
void recstore_set_dpkg(struct recstore *s, const struct rootfs *rf,
    const struct dpkgstatus *status, unsigned flags);

/*
 * The admin directory's descriptor, S's own (valid until recstore_free),
 * for a writer that works beside the store in the same directory.
 */
int recstore_fd(const struct recstore *s);

/*
 * Whether NAME may name a package, and so a record file: only what dpkg
 * allows in package names, so that no name leaves the directory.
 */
bool recstore_valid_name(const char *name);

/*
 * Whether KEY may name a record (record_key): a package name, or NAME:ARCH
 * for a second Multi-Arch: same instance.
 */
bool recstore_valid_key(const char *key);

/*
 * Names of the recorded packages, sorted; *NAMES is a NULL-terminated
 * array the caller frees with recstore_names_free.  0 or -errno with ERR.
 */
int recstore_names(struct recstore *s, char ***names,
    struct dbp_error *err);
void recstore_names_free(char **names);

/*
 * Read the record of package NAME: 0 with *OUT (the caller's,
 * record_free); -ENOENT if there is none or the stale callback says it
 * no longer stands, which *STALE (when not NULL; NULL otherwise) then
 * says in the callback's words; another -errno with ERR filled if it
 * cannot be read or is malformed.
 */
int recstore_load(struct recstore *s, const char *name, struct record **out,
    const char **stale, struct dbp_error *err);

#endif
