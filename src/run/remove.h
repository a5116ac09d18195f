/* SPDX-License-Identifier: MIT */
/* remove: the packages a run removes or purges, staged in its batch. */
#ifndef DEBUNPACK_REMOVE_H
#define DEBUNPACK_REMOVE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

/*
 * Declared only: install.h carries struct remove_opts to the front end,
 * which has no use for the run's records.
 */
struct dpkgdb;
struct manifest;
struct obsolete;

struct remove_opts {
	bool purge;		/* conffiles go too, and the record */
	bool no_scripts;	/* remove even with prerm/postrm, not running them */
	bool force_depends;	/* even if another package depends on it */
	bool force_essential;	/* even Essential: yes or Protected: yes */
	/* a package named that has nothing to remove: told, not an error */
	void (*warn)(void *ctx, const char *name, const char *msg);
	void *ctx;
};

/*
 * Stage the removal of the N packages NAMES in the run: MAN (installed
 * records loaded) gets each one's new record, the conffiles it keeps as
 * dpkg's "config-files" state (RECORD_CONFIG_FILES), or its record to go
 * (purge, or no conffile); OB, with the paths they lose planned by
 * obsolete_plan, gets a purge's conffile leftovers (NAME.dpkg-old...,
 * those that exist under root descriptor ROOTFD); DB (NULL without
 * --dpkg-db) gets dpkg's side.  Refused, before anything changes: a
 * package dpkg installed itself, an essential one, one with maintainer
 * scripts in dpkg's database, one that a package left installed depends
 * on.  0 or -errno with ERR.
 */
int remove_stage(const struct remove_opts *ro, struct manifest *man,
    struct obsolete *ob, struct dpkgdb *db, int rootfd, char *const *names,
    size_t n, struct dbp_error *err);

#endif
