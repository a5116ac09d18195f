/* SPDX-License-Identifier: MIT */
/* obsolete: the paths the old versions of a run's packages had and the new ones lack. */
#ifndef DEBUNPACK_OBSOLETE_H
#define DEBUNPACK_OBSOLETE_H

#include "durable/dirs.h"
#include "util/error.h"
#include "util/plan.h"

struct journal;
struct manifest;
struct obsolete;

int obsolete_new(struct obsolete **out);
void obsolete_free(struct obsolete *ob);

/*
 * Before the commit point: list in OB what the old versions of the run's
 * packages (M's staged records) had and the new ones do not, unless
 * another package has it or the run put something at that place (merged
 * /usr aliases are resolved through D, the run's directory table), and
 * tell journal J (NULL: none), so that a repair after a crash removes the
 * same; what another package has is listed as kept.  The lists point into
 * M's records.
 */
int obsolete_plan(struct obsolete *ob, struct manifest *m, struct dirs *d,
    struct journal *j, struct dbp_error *err);

/*
 * Also remove regular file ABSPATH ("/etc/x"), which no old version of the
 * run's packages has: a conffile flagged remove-on-upgrade that a package
 * no longer lists, once its content is kept aside (unpack.c).
 * obsolete_plan plans it as the old versions' paths.  -ENOMEM.
 */
int obsolete_add(struct obsolete *ob, const char *abspath);

/*
 * A dry run's verdicts on what obsolete_plan listed: each path removed,
 * or kept as obsolete_remove would keep it (a directory that still holds
 * something), and the old paths another package has, kept; told to FN
 * with CTX.
 */
void obsolete_verdicts(const struct obsolete *ob, struct dirs *d,
    plan_fn *fn, void *ctx);

/*
 * After the commit point: remove what obsolete_plan listed, directories
 * only when empty.  Parents are marked in D for the directory sync that
 * follows.  Failures are warnings: the new versions are in place.
 */
void obsolete_remove(const struct obsolete *ob, struct dirs *d,
    void (*warn)(void *, const char *, const char *), void *ctx);


#endif
