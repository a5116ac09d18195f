/* SPDX-License-Identifier: MIT */
/* The real dpkg's calls with its syncs suppressed and one barrier after, where that is sound. */
#ifndef DEBUNPACK_CLI_SHIMCONF_H
#define DEBUNPACK_CLI_SHIMCONF_H

#include <stdbool.h>

#include "cli/shimcall.h"

/* How a call handed to the real dpkg runs (shimconf_how). */
enum shimconf_how {
	SHIMCONF_EXEC,		/* dpkg itself, as it is: exec */
	SHIMCONF_BARRIER,	/* dpkg with its own syncs, one barrier after */
	SHIMCONF_BATCHED,	/* dpkg under debunpack-nosync, one barrier */
	SHIMCONF_GUARDED,	/* dpkg's syncs of its database only, each
				   a syncfs (shimsync.h); one barrier */
};

/*
 * How the call S hands to dpkg (ACTION: "configure" or "triggers-only",
 * else SHIMCONF_EXEC) runs.  Batched where the root's and the database's
 * filesystems keep their changes in order (fskind_orders_replacements);
 * guarded where they keep at least their metadata in order
 * (fskind_orders_metadata: xfs, btrfs) and
 * are one filesystem; elsewhere dpkg's own syncs, and the barrier after them makes what dpkg
 * does not sync durable by the time the call returns (its conffiles'
 * renames, the maintainer scripts' files).  Not under --no-act, nor when
 * DEBUNPACK_DPKG_CONFIGURE is "dpkg" ("barrier": never batched,
 * "guarded": never more than guarded).  WHY (N bytes) says why it is not
 * batched.
 */
enum shimconf_how shimconf_how(const struct shim *s, const char *action,
    char *why, size_t n);

/*
 * With DEBUNPACK_DPKG_DEBUG (S->verbose), say on standard error how the
 * call --ACTION (WHERE: "" or words after it) runs: HOW, and WHY when
 * not batched.
 */
void shimconf_say(const struct shim *s, const char *action,
    const char *where, enum shimconf_how how, const char *why);

/*
 * Run ARGV (the real dpkg, its arguments, NULL) for the call S as HOW
 * says (not SHIMCONF_EXEC): under debunpack-nosync if batched
 * (DEBUNPACK_NOSYNC, or the one installed beside the shim), under the
 * shim's own filter if guarded; dpkg with its own syncs where neither
 * can filter.  Wait for it, and make every filesystem of S's root
 * durable: dpkg's exit status (2 when the barrier fails, said on
 * standard error).
 */
int shimconf_run(struct shim *s, char *const *argv,
    enum shimconf_how how);

#endif
