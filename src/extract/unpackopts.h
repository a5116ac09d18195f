/* SPDX-License-Identifier: MIT */
/* What the unpacker is told to do: the options a run gives it. */
#ifndef DEBUNPACK_EXTRACT_UNPACKOPTS_H
#define DEBUNPACK_EXTRACT_UNPACKOPTS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/plan.h"

struct unpack_opts {
	bool chown;		/* apply owners (the caller runs as root) */
	bool devices;		/* may create character and block devices */
	bool skip_devices;	/* when !devices, skip them with a warning */
	bool force_overwrite;	/* a path of another package: take it, warn */
	/*
	 * Say a path of another package as dpkg says it ("trying to
	 * overwrite '/x', which is also in package P V"): --dpkg-db, where
	 * front ends read dpkg's words.
	 */
	bool dpkg_words;
	/* set from a signal handler: stop at the next entry or block */
	const volatile sig_atomic_t *stop;
	/* a warning for the user (PATH may be NULL); may be NULL */
	void (*warn)(void *ctx, const char *path, const char *msg);
	void *warn_ctx;
	/* each entry's verdict, as decided, told to WARN_CTX; may be NULL */
	plan_fn *plan;
	/*
	 * A dry run: nothing is made nor changed under the root (the
	 * directory table plans, dirs_set_plan); every entry's data is read
	 * and checked all the same, and its verdict told to PLAN.
	 */
	bool nowrite;
	bool dpkg_dist;		/* a kept conffile's new one: NAME.dpkg-dist */
	/*
	 * Installed packages removed in favour of the run's after it
	 * (Conflicts): their paths are taken without a word, as dpkg
	 * takes a conflictor's.
	 */
	char *const *removing;
	size_t nremoving;
	/*
	 * dpkg --unpack's conffiles (--maintscripts): every conffile's new
	 * version goes to NAME.dpkg-new, NAME left as it is, for dpkg's
	 * --configure to decide.
	 */
	bool dpkg_new;
};

#endif
