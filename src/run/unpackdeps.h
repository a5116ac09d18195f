/* SPDX-License-Identifier: MIT */
/* unpackdeps: the relations dpkg checks before it unpacks a package. */
#ifndef DEBUNPACK_UNPACKDEPS_H
#define DEBUNPACK_UNPACKDEPS_H

#include "db/dpkgstatus.h"
#include "deb/control.h"

enum unpackdeps_verdict {
	UNPACKDEPS_OK,		/* every group satisfied */
	UNPACKDEPS_TRIGGERS,	/* satisfied once a package's awaited
				   triggers are processed: *TRIG names it */
	UNPACKDEPS_PROBLEM,	/* a group is not: *WHY says why */
};

/*
 * Whether the Pre-Depends of package CTL, about to be unpacked, are
 * satisfied in dpkg's status ST, as dpkg decides it before an unpack
 * (src/main/depcon.c's depisok, unconfigured packages allowed when
 * their configured version would do): by a package installed (or
 * triggers-pending), by one unpacked or half-configured whose unpacked
 * and last configured versions both satisfy it, by a Provides of an
 * installed package (versioned ones with "="), or by CTL itself (its
 * own name or Provides).  Arch qualifiers are honoured as dpkg does
 * (":any" takes Multi-Arch: allowed, an implicit arch takes Multi-Arch:
 * foreign), NATIVE being dpkg's architecture (NULL: "all" matches any).
 * SHOWN is CTL's name as dpkg shows it.
 *
 * Returns the verdict (>= 0), or -ENOMEM, -EINVAL when the field does
 * not parse.  For UNPACKDEPS_PROBLEM, *WHY is dpkg's explanation of the
 * first group not satisfied, lines ending in '\n' (" A pre-depends on
 * B\n  B is not installed.\n"); for UNPACKDEPS_TRIGGERS, *TRIG is the
 * name of the package whose triggers dpkg would process first.  Both
 * are the caller's to free (NULL otherwise).
 */
int unpackdeps_predepends(const struct dpkgstatus *st,
    const struct control *ctl, const char *shown, const char *native,
    char **why, char **trig);

struct seq;
struct seq_pkg;
struct dbp_error;
/*
 * --maintscripts' check of package P before its scripts (unpackseq.c):
 * its Pre-Depends against dpkg's status as it is then.  0 when P may go
 * on; 1 when P failed (dpkg's notice and error told, as dpkg words
 * them); -errno with ERR when dpkg's status cannot be read.
 */
int unpackdeps_seq_check(struct seq *s, struct seq_pkg *p,
    struct dbp_error *err);

#endif
