/* SPDX-License-Identifier: MIT */
/* plan: what a run does to each path, as it decides it; --dry-run prints it. */
#ifndef DEBUNPACK_PLAN_H
#define DEBUNPACK_PLAN_H

/*
 * One verdict per path, told by the code that decides it while the run
 * acts (unpack.c for the entries, obsolete.c for the old versions' paths),
 * so that a dry run, which is the run stopped before its commit and
 * undone, says exactly what the run would do.
 */
enum plan_verdict {
	PLAN_CREATE,		/* a new path */
	PLAN_CREATE_DIR,	/* a new directory */
	PLAN_REPLACE,		/* an existing path (or an empty directory) */
	PLAN_KEEP_CONFFILE,	/* a changed conffile kept; DETAIL: the new
				   version's path, or NULL: none beside it */
	PLAN_KEEP_DELETED,	/* a conffile the user deleted stays deleted;
				   DETAIL as above */
	PLAN_REMOVE,		/* a path of the old version, not in the new */
	PLAN_KEEP_NOT_EMPTY,	/* an old directory that still holds files */
	PLAN_KEEP_OWNED,	/* an old path that another package has;
				   DETAIL: its name */
	PLAN_KEEP_UNCHANGED,	/* a conffile as installed, whose new
				   version is the same: left as it is */
};

/* PATH is root-relative, without its leading slash. */
typedef void plan_fn(void *ctx, enum plan_verdict v, const char *path,
    const char *detail);

#endif
