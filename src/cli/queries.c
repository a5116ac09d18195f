/* SPDX-License-Identifier: MIT */
/* The queries' front end: --list, --owner, --files, --verify, --contents. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/queries.h"
#include "cli/render.h"
#include "db/admin.h"
#include "db/dpkgadopt.h"
#include "db/dpkgdivert.h"
#include "db/dpkgstale.h"
#include "db/recstore.h"
#include "durable/rootfs.h"
#include "run/query.h"
#include "run/verify.h"
#include "util/escape.h"

/*
 * --owner [PATTERN...] and --list [PATTERN...]: the lines of what is
 * found, then one error line for each pattern that found nothing, as
 * dpkg -S and dpkg-query -l.  2 then.
 */
static int
queries_owner(const struct cli_opts *o, struct recstore *store,
    const struct rootfs *rf, int argc, char **argv, int first,
    struct dbp_error *err)
{
	size_t n = (size_t)(argc - first) + (o->owner != NULL), i;
	struct dpkgdivert *divert = NULL;
	char **patterns;
	bool *found;
	int r;

	/* dpkg-divert's diversions, which dpkg -S tells of. */
	if (store != NULL && o->action == ACT_OWNER &&
	    (r = query_diversions(rf, &divert, err)) != 0)
		return r;
	patterns = calloc(n + 1, sizeof(*patterns));
	found = calloc(n + 1, sizeof(*found));
	if (patterns == NULL || found == NULL) {
		free(patterns);
		free(found);
		dpkgdivert_free(divert);
		return dbp_err(err, ENOMEM, NULL, "cannot search records");
	}
	/* --owner=PATTERN's first. */
	i = 0;
	if (o->owner != NULL)
		patterns[i++] = (char *)o->owner;
	for (; i < n; i++)
		patterns[i] = argv[first + (int)i - (o->owner != NULL)];
	/* No admin directory (STORE NULL): nothing is installed. */
	if (store != NULL)
		r = o->action == ACT_LIST ? query_list(store, patterns, n,
		    found, o->fmt, stdout, err) : query_owner(store, rf,
		    divert, patterns, n, found, o->fmt, stdout, err);
	else {
		r = n > 0;
		if (o->fmt == QUERY_JSON)
			puts("[]");
	}
	if (r == 1) {
		/* The lines found go first; the misses after them. */
		fflush(stdout);
		for (i = 0; i < n; i++) {
			if (found[i])
				continue;
			dbp_err_clear(err);
			if (o->action == ACT_LIST)
				dbp_err(err, 0, NULL, "no packages found"
				    " matching '%s'", patterns[i]);
			else
				query_owner_missed(patterns[i], err);
			render_error(err);
		}
		dbp_err_clear(err);
		r = 2;
	}
	free(patterns);
	free(found);
	dpkgdivert_free(divert);
	return r;
}

/*
 * --files PKG...: each installed package's paths, a blank line between
 * packages (as dpkg -L); one error line for each package not installed
 * (STORE NULL: none is), and 2 then.
 */
static int
queries_files(struct recstore *store, const struct rootfs *rf, int argc,
    char **argv, int first, struct dbp_error *err)
{
	struct dpkgdivert *divert = NULL;
	bool missing = false;
	int i, r;

	/* dpkg-divert's diversions, which dpkg -L tells of. */
	if (store != NULL && (r = query_diversions(rf, &divert, err)) != 0)
		return r;
	for (i = first; i < argc; i++) {
		if (i > first)
			putchar('\n');
		r = store != NULL ? query_files(store, argv[i], divert, stdout,
		    err) : 1;
		if (r < 0) {
			dpkgdivert_free(divert);
			return r;
		}
		if (r == 1) {
			fflush(stdout);
			dbp_err_clear(err);
			dbp_err(err, 0, NULL, "package '%s' is not installed",
			    argv[i]);
			render_error(err);
			missing = true;
		}
	}
	dpkgdivert_free(divert);
	dbp_err_clear(err);
	return missing ? 2 : 0;
}

/*
 * --verify [PKGNAME...]: the problems found, then one error line for
 * each package not installed (STORE NULL: none is), whose neighbours are
 * verified all the same, as dpkg --verify does; 2 then.  The count of
 * problems in ERR, 3 under -q (the lines and the exit status say it).
 */
static int
queries_verify(const struct cli_opts *o, struct recstore *store,
    const struct rootfs *rf, int argc, char **argv, int first,
    struct dbp_error *err)
{
	struct dpkgdivert *divert = NULL;
	bool *installed, missing = false;
	int i, r = 0;

	/* Files are checked where dpkg-divert's diversions put them now. */
	if (store != NULL && (r = query_diversions(rf, &divert, err)) != 0)
		return r;
	if ((installed = calloc((size_t)(argc - first) + 1,
	    sizeof(*installed))) == NULL) {
		dpkgdivert_free(divert);
		return dbp_err(err, ENOMEM, NULL, "cannot verify");
	}
	if (store != NULL) {
		recstore_set_divert(store, divert);
		r = verify_packages(store, rf, argv + first, installed,
		    geteuid() == 0, o->fmt, stdout, err);
		recstore_set_divert(store, NULL);
	} else if (o->fmt == QUERY_JSON)
		puts("[]");
	dpkgdivert_free(divert);
	if (r >= 0) {
		fflush(stdout);
		for (i = first; i < argc; i++) {
			if (installed[i - first])
				continue;
			dbp_err_clear(err);
			dbp_err(err, 0, NULL, "package '%s' is not installed",
			    argv[i]);
			render_error(err);
			missing = true;
		}
		dbp_err_clear(err);
	}
	free(installed);
	/* Problems are counted in the last line; misses alone are told. */
	if (r == 0 && missing)
		return 2;
	if (r > 0 && o->verbose < 0)
		return 3;
	if (r > 0) {
		dbp_err(err, 0, NULL, "%d problem%s found", r, r == 1 ? "" :
		    "s");
		return 1;
	}
	return r;
}

/* --list, --owner, --contents: read only, print on standard output. */
int
queries_run(const struct cli_opts *o, int argc, char **argv, int first)
{
	struct recstore *store = NULL;
	struct rootfs rf = { .fd = -1 };
	struct admin_view view;
	struct dbp_error err;
	int fd = -1, i, r = 0;

	dbp_err_clear(&err);
	memset(&view, 0, sizeof(view));
	if (o->action == ACT_CONTENTS) {
		/* Several packages: each listing under its file's name. */
		for (i = first; r == 0 && i < argc; i++) {
			char esc[PATH_MAX];

			if (argc - first > 1)
				printf("%s==> %s <==\n", i > first ? "\n" : "",
				    escape_name(argv[i], esc, sizeof(esc)));
			if ((r = query_contents(argv[i], stdout, &err)) != 0)
				dbp_err_pkg(&err, argv[i]);
		}
		goto out;
	}
	if ((r = rootfs_open(&rf, o->in.root, &err)) != 0 ||
	    (o->in.dpkg_admindir != NULL && (r = rootfs_open_dpkg(&rf,
	    o->in.dpkg_admindir, &err)) != 0))
		goto out;
	/*
	 * Queries read, as dpkg-query does: no repair, no lock.  What dpkg
	 * changed since is not debunpack's, and what an interrupted run
	 * committed stands: both read as the view says.
	 */
	if ((r = admin_view_open(&view, o->in.admindir, &rf, &err)) != 0)
		goto out;
	if (view.pending.found)
		fprintf(stderr, "debunpack: warning: an interrupted run awaits"
		    " its repair ('debunpack --recover'): answering from %s\n",
		    view.pending.committed ? "its new records" :
		    "the records before it");
	fd = admin_open(o->in.admindir, &rf);
	if (fd < 0 && (fd != -ENOENT || dpkgstale_status(view.stale) == NULL)) {
		/* No admin directory yet, nor dpkg's: nothing is installed. */
		if (fd != -ENOENT)
			r = dbp_err(&err, -fd, admin_name(o->in.admindir),
			    "cannot open admin directory");
		else if (o->action == ACT_OWNER || o->action == ACT_LIST)
			r = queries_owner(o, NULL, &rf, argc, argv, first, &err);
		else if (o->action == ACT_VERIFY)
			r = queries_verify(o, NULL, &rf, argc, argv, first, &err);
		else
			r = queries_files(NULL, &rf, argc, argv, first, &err);
		fd = -1;
	} else if ((r = recstore_open(&store, fd, admin_name(o->in.admindir),
	    &err)) == 0) {
		/*
		 * The records read as the view says: none of dpkg's since.
		 * dpkg's database is the authority on the rest: what dpkg
		 * installed is installed (no admin directory: only that).
		 */
		recstore_set_stale(store, admin_view_stale, &view);
		recstore_set_dpkg(store, &rf, dpkgstale_status(view.stale),
		    o->action == ACT_VERIFY ? 0 : o->action == ACT_LIST ?
		    DPKGADOPT_NO_PATHS : DPKGADOPT_UNTYPED);
		if (o->action == ACT_LIST || o->action == ACT_OWNER)
			r = queries_owner(o, store, &rf, argc, argv, first, &err);
		else if (o->action == ACT_FILES)
			r = queries_files(store, &rf, argc, argv, first, &err);
		else
			r = queries_verify(o, store, &rf, argc, argv, first,
			    &err);
	} else if (o->action == ACT_FILES)
		r = queries_files(NULL, &rf, argc, argv, first, &err);
out:
	if (fd >= 0)
		close(fd);
	recstore_free(store);
	admin_view_close(&view);
	rootfs_close(&rf);
	if (fflush(stdout) != 0 && r == 0)
		r = dbp_err(&err, errno, NULL, "cannot write to standard output");
	/* Misses are told already; so is -q --verify's count. */
	if (r != 0 && r != 2 && r != 3)
		render_error(&err);
	return r != 0 ? 1 : 0;
}
