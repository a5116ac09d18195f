/* SPDX-License-Identifier: MIT */
/* The front end's state: the command line as parsed, and what the run's events leave for the end. */
#ifndef DEBUNPACK_CLI_OPTS_H
#define DEBUNPACK_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "run/install.h"
#include "run/query.h"

/* What an invocation does: install (the default), plan it, or a query. */
enum cli_action {
	ACT_INSTALL, ACT_DRY_RUN, ACT_LIST, ACT_OWNER, ACT_FILES, ACT_VERIFY,
	ACT_CONTENTS, ACT_RECOVER, ACT_CACHE_INFO, ACT_CACHE_PRUNE
};

struct cli_opts {
	enum cli_action action;
	const struct cli_command *cmd;	/* the action's row (options.c) */
	const char *owner;	/* --owner=PATTERN's, or NULL */
	int stats;		/* 0 none, 1 text, 2 json */
	int verbose;		/* -1 quiet, 0 normal, 1 verbose */
	int status_fd;		/* --status-fd, or -1 */
	bool no_progress;
	bool maintscripts;	/* dpkg --unpack's scripts (unpackseq.h) */
	bool dpkg_messages;	/* dpkg's words on stdout and stderr */
	const char *dpkg_action;	/* --dpkg-messages=ACTION's: "unpack",
					   "install" (its error lines') */
	char **errors;		/* --dpkg-messages: the files that failed */
	size_t nerrors;
	bool root_given;	/* --root was given, "/" or not */
	bool recursive;		/* -R: directories stand for their *.deb */
	bool version;		/* --version: main.c prints it */
	enum query_format fmt;	/* --json, --verify-format=rpm */
	size_t nplan;		/* a JSON dry run's objects so far */
	struct progress *pg;	/* the progress line and status lines, or NULL */
	char **names;		/* the run's packages, for the status lines */
	const char **states;	/* the state each reaches (NULL: unpacked) */
	size_t nnames;
	const char *cur_file;	/* the package file the last name is of */
	struct install_opts in;	/* what an install (or a query) works on */
	struct pathfilter *filters;	/* --path-*'s, in.filters (main frees) */
	char *ignore_depends;	/* --ignore-depends's, joined (main frees) */
};

#endif
