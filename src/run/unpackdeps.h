/* SPDX-License-Identifier: MIT */
/* unpackdeps: the relations dpkg checks before it unpacks a package. */
#ifndef DEBUNPACK_UNPACKDEPS_H
#define DEBUNPACK_UNPACKDEPS_H

#include <stdbool.h>

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
 * SHOWN is CTL's name as dpkg shows it.  The groups from *AT on (0: the
 * first) are checked, and *AT is left past the group that fails, so that
 * a caller that goes on past a problem (dpkg's --force-depends) checks
 * the next.  *IGNORED tells whether the failing group's first
 * alternative names a package of IGNORE (dpkg's --ignore-depends list,
 * or NULL), which makes dpkg go on too.
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
    const char *ignore, size_t *at, bool *ignored, char **why, char **trig);

/*
 * Whether package NAME of ARCH is in LIST, dpkg's --ignore-depends list
 * ("NAME[:ARCH],...", NULL: empty): an item without an arch names every
 * instance, and one with an arch any instance when ARCH is NULL (not
 * known).  dpkg goes on past a Pre-Depends or Breaks problem of such a
 * package, or with one, with its warning.
 */
bool unpackdeps_ignored(const char *list, const char *name,
    const char *arch);

/*
 * Whether LIST is one dpkg takes for --ignore-depends: package names,
 * each NAME or NAME:ARCH, separated by commas, none empty.
 */
bool unpackdeps_ignore_valid(const char *list);

/*
 * The Breaks of package CTL, about to be unpacked, against dpkg's status
 * ST, as dpkg's depisok decides them: a group is broken by a package
 * installed (triggers-pending or -awaited too) whose version and arch it
 * names, or which provides the name (dpkg's rules for a provided
 * version); unpacked and half-configured packages break nothing.  The
 * groups from *AT on (0: the first) are checked: UNPACKDEPS_OK when
 * none is broken, or UNPACKDEPS_PROBLEM with *AT past the broken group,
 * *WHY dpkg's explanation of it (" A breaks B (<< 1)\n  B (version 0) is
 * present and installed.\n", the caller's to free) and *FIX the
 * stanza in ST of the one package whose deconfiguration would mend it
 * (NULL when several, or none, would).  -ENOMEM, or -EINVAL when the field does
 * not parse.
 */
int unpackdeps_breaks(const struct dpkgstatus *st, const struct control *ctl,
    const char *shown, const char *native, size_t *at, char **why,
    const struct dpkgstatus_stanza **fix);

/*
 * The installed packages that removing stanza O of ST in favour of CTL
 * (about to be unpacked) would break, as dpkg's check_conflict finds
 * them: a package installed (or triggers-pending, -awaited) with a
 * Depends or Pre-Depends group, or one unpacked, half-configured or
 * half-installed with a Pre-Depends group, that names O, or a name O
 * provides, and that nothing else satisfies once O is gone (depisok:
 * an installed package, CTL itself, what they provide; no unconfigured
 * one).  From *AT on (0: the first; left past the one found), in dpkg's
 * order.  1 with *D the package, *WHY dpkg's explanation (" D depends on
 * O\n  O is to be removed.\n") and *VIA the provided name the group
 * names (NULL when O's own), both the caller's to free; 0 when there is
 * none left; -ENOMEM, or -EINVAL when a field does not parse.
 */
int unpackdeps_removal(const struct dpkgstatus *st, const struct control *ctl,
    const char *shown, const char *native, const struct dpkgstatus_stanza *o,
    size_t *at, const struct dpkgstatus_stanza **d, char **why, char **via);

struct seq;
struct seq_pkg;
struct dbp_error;

/*
 * --maintscripts' checks of package P before its scripts (unpackseq.c,
 * unpackseq_deps.c): its Pre-Depends and Breaks against dpkg's status
 * as dpkg would see it then (the packages of P's group before it
 * unpacked).  A Breaks that deconfiguring one package mends queues that
 * package on P with --auto-deconfigure (install_opts.auto_deconfigure).
 * 0 when P may go on; 1 when P failed (dpkg's notices and error told);
 * -errno with ERR when dpkg's status cannot be read.
 */
int unpackdeps_seq_check(struct seq *s, struct seq_pkg *p,
    struct dbp_error *err);

/*
 * After P's own prerm: each package queued on P deconfigured as dpkg
 * does it ("De-configuring X (V), to allow installation of P (NEWV)
 * ...", X half-configured, X's prerm deconfigure in-favour P NEWV).
 * 0, or 1 when a prerm failed: P failed and the deconfigured ones
 * unwound (unpackdeps_seq_undo); the caller unwinds P's prerm.  -errno.
 */
int unpackdeps_seq_deconfigure(struct seq *s, struct seq_pkg *p,
    struct dbp_error *err);

/*
 * Undo P's deconfigurations when P fails: in reverse order, X's postinst
 * abort-deconfigure in-favour P NEWV and X's stanza as it was (left
 * half-configured when that fails, as dpkg leaves it).  0 or -errno.
 */
int unpackdeps_seq_undo(struct seq *s, struct seq_pkg *p,
    struct dbp_error *err);

/*
 * Whether a package before P in the call deconfigured P's installed
 * version: dpkg then tells no new half-configured state for P's prerm.
 */
bool unpackdeps_seq_deconfigured(const struct seq *s,
    const struct seq_pkg *p);

/*
 * Stanza O of ST, which P is about to remove in favour: each installed
 * package the removal would break (unpackdeps_removal) taken as dpkg's
 * try_remove_can does: with --force-depends (or either package in
 * --ignore-depends) warned of; with --auto-deconfigure queued on P, to
 * be deconfigured "to allow removal of O" (its prerm deconfigure
 * in-favour P NEWV removing O OLDV), and marked so in ST; an Essential
 * or Protected one only when forced; else told.  0 when O may go, 1
 * when it may not (told: the conflict stands), -errno with ERR.
 */
int unpackdeps_seq_removal(struct seq *s, struct seq_pkg *p,
    struct dpkgstatus *st, const struct dpkgstatus_stanza *o,
    struct dbp_error *err);

/* P's queue freed. */
void unpackdeps_seq_free(struct seq_pkg *p);

#endif
