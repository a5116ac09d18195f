/* SPDX-License-Identifier: MIT */
/* unpackconflict: Conflicts at unpack, refused or the conflictor removed in favour, as dpkg does. */
#ifndef DEBUNPACK_UNPACKCONFLICT_H
#define DEBUNPACK_UNPACKCONFLICT_H

#include <stdbool.h>
#include <stddef.h>

#include "run/unpackseq_int.h"
#include "util/error.h"

/*
 * P's Conflicts (real names, Provides, versions, architectures) against
 * dpkg's status, and the installed packages' Conflicts against P and
 * what it provides, judged as dpkg's check_conflict judges them: an
 * installed package P Replaces (or one not wanted) goes in favour of P
 * (kept in P->cf, told), any other stops P.  0 when P may go on, 1 when
 * it is refused (failed, told in dpkg's words, its stanza as dpkg leaves
 * it), or -errno with ERR.
 */
int unpackconflict_check(struct seq *s, struct seq_pkg *p,
    struct dbp_error *err);

/*
 * The prerm remove in-favour P NEWVER of each conflictor of P that is
 * installed, each half-configured then half-installed.  0, -1 when one
 * failed (MSG: dpkg's words; the caller fails P and unwinds it, which
 * unpackconflict_unwind undoes), or -errno with ERR.
 */
int unpackconflict_prerms(struct seq *s, struct seq_pkg *p, char *msg,
    size_t msglen, struct dbp_error *err);

/*
 * P failed after its conflictors' prerms: each gets its postinst
 * abort-remove in-favour P NEWVER and is installed again.  0 or -errno.
 */
int unpackconflict_unwind(struct seq *s, struct seq_pkg *p,
    struct dbp_error *err);

/*
 * After the group [FROM, TO)'s batch: the conflictors of its committed
 * packages removed in one batch of their own (what the new packages took
 * is theirs already), then each one's postrm remove, its stanza left as
 * dpkg leaves it (config-files when it has a postrm or conffiles).
 * 0 or -errno with ERR.
 */
int unpackconflict_remove(struct seq *s, size_t from, size_t to,
    struct dbp_error *err);

/*
 * The names of the conflictors of the group [FROM, TO)'s ready packages
 * (its batch takes their paths, install_opts.removing), in *NAMES (N):
 * the caller frees the array, not the names.  0 or -ENOMEM.
 */
int unpackconflict_removing(const struct seq *s, size_t from, size_t to,
    char ***names, size_t *n);

/*
 * Whether package I of the call must end its group: it and a later
 * package of the call conflict, one way or the other.  dpkg checks the
 * later one against I unpacked; the next group sees it so.
 */
/*
 * Whether force WHAT is in the run's DPKG_FORCE list (--dpkg-force's,
 * else the environment's); "all" forces everything.
 */
bool unpackconflict_forced(const struct seq *s, const char *what);

bool unpackconflict_ends_group(const struct seq *s, size_t i);

/* Whether STATE is a configured one, where dpkg runs a prerm. */
bool unpackconflict_configured(const char *state);

/* P's conflictors freed. */
void unpackconflict_free(struct seq_pkg *p);

#endif
