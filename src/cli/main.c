/* SPDX-License-Identifier: MIT */
/* debunpack: install .deb packages into a root, durably and fast. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>

#include "cli/devstat.h"
#include "cli/operands.h"
#include "cli/options.h"
#include "store/store.h"
#include "cli/progress.h"
#include "cli/queries.h"
#include "cli/render.h"
#include "deb/ctlcache.h"
#include "deb/gunzip.h"
#include "deb/xz.h"
#include "extract/pathfilter.h"
#include "durable/rootfs.h"
#include "run/install.h"
#include "run/unpackseq.h"
#include "util/digest.h"
#include "util/error.h"
#include "util/stats.h"

static volatile sig_atomic_t main_stop;

static void
main_on_signal(int sig)
{
	(void)sig;
	main_stop = 1;
}

/*
 * --recover: the repair and nothing else, told as a run tells it; apart
 * from queries_run, which never repairs and so links no run.
 */
static int
main_recover(const struct cli_opts *o)
{
	struct rootfs rf = { .fd = -1 };
	struct dbp_error err;
	int r;

	dbp_err_clear(&err);
	if ((r = rootfs_open(&rf, o->in.root, &err)) == 0 &&
	    (o->in.dpkg_admindir == NULL || (r = rootfs_open_dpkg(&rf,
	    o->in.dpkg_admindir, &err)) == 0))
		r = install_recover(&o->in, &rf, true, &err);
	rootfs_close(&rf);
	if (fflush(stdout) != 0 && r == 0)
		r = dbp_err(&err, errno, NULL, "cannot write to standard output");
	if (r != 0) {
		render_error(&err);
		return 1;
	}
	return 0;
}

/* The whole invocation but the last release: main frees O's options. */
/* The disk's counters since DS was opened, into ST (what the run cost). */
static void
main_devstat(struct devstat *ds, struct stats *st)
{
	struct devstat before = *ds;

	if (ds->name[0] == '\0' || devstat_read(ds) != 0)
		return;
	snprintf(st->dev.name, sizeof(st->dev.name), "%s", ds->name);
	st->dev.flushes = ds->flushes - before.flushes;
	st->dev.flush_ms = ds->flush_ms - before.flush_ms;
	st->dev.written = ds->written - before.written;
}

/* --cache-info and --cache-prune: the store's numbers, after a prune. */
static int
main_cache(const struct cli_opts *op)
{
	struct store_info info;
	struct dbp_error err;
	unsigned long looked;

	dbp_err_clear(&err);
	if (store_info(op->in.cache, op->action == ACT_CACHE_PRUNE,
	    op->in.cache_max_size, &info, &err) != 0) {
		render_error(&err);
		return 1;
	}
	looked = info.hits + info.misses;
	printf("cache:    %s\nbytes:    %llu\nentries:  %lu\ncontents: %lu\n"
	    "hits:     %lu of %lu lookups (%.1f %%)\n", op->in.cache,
	    (unsigned long long)info.bytes, info.entries, info.objects,
	    info.hits, looked, looked > 0 ? 100.0 * (double)info.hits /
	    (double)looked : 0.0);
	return fflush(stdout) != 0 || ferror(stdout) ? 1 : 0;
}

static int
main_run(int argc, char **argv, struct cli_opts *op)
{
	struct dbp_error err;
	struct sigaction sa;
	struct devstat ds = { .name = "" };
	struct stats st;
	char **files = NULL, **expanded = NULL;
	size_t i, nfiles = 0;
	unsigned failed = 0;	/* --maintscripts: packages that failed */
	int first, r, fatal;

	/* getopt's own messages name the program as ours do. */
	argv[0] = (char *)"debunpack";
	if ((first = options_parse(argc, argv, op)) == -2) {
		/* Every library it links, as each names itself. */
		if (op->version)
			printf("debunpack %s\n%s\nliblzma %s\nzlib %s\n%s\n",
			    PACKAGE_VERSION, archive_version_details(),
			    xz_library(), gunzip_library(), digest_library());
		return fflush(stdout) != 0 || ferror(stdout) ? 1 : 0;
	}
	if (first < 0) {
		/* The cause was said in one line; the help is one option away. */
		fprintf(stderr, "Try 'debunpack --help' for more information.\n");
		return 2;
	}
	/* --recover says what it repaired. */
	op->in.note = render_note;
	op->in.ctx = op;
	if (op->cmd->flags & CMD_REPAIR)
		return main_recover(op);
	if (op->cmd->flags & CMD_QUERY)
		return queries_run(op, argc, argv, first);
	if (op->cmd->flags & CMD_CACHE)
		return main_cache(op);
	op->in.dry_run = op->action == ACT_DRY_RUN;
	memset(&st, 0, sizeof(st));
	dbp_err_clear(&err);
	/* Package names for a removal; files, "-" and -R's directories else. */
	if (op->in.remove) {
		files = argv + first;
		nfiles = (size_t)(argc - first);
	} else if (operands_expand(argv + first, (size_t)(argc - first),
	    op->recursive, &expanded, &nfiles, &err) != 0) {
		render_error(&err);
		return 1;
	} else
		files = expanded;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = main_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	op->in.stop = &main_stop;
	/* A front end that stops reading must not kill the run. */
	if (op->status_fd >= 0)
		signal(SIGPIPE, SIG_IGN);
	if ((op->status_fd >= 0 || (!op->no_progress && op->verbose >= 0 &&
	    isatty(STDERR_FILENO))) && progress_new(&op->pg, !op->no_progress &&
	    op->verbose >= 0 && isatty(STDERR_FILENO) ? stderr : NULL,
	    op->status_fd, nfiles, NULL) != 0)
		op->pg = NULL;	/* no progress is no reason to fail */
	/* The disk's counters before and after: what the run cost it. */
	if (op->stats != 0 && devstat_open(&ds, op->in.root) != 0)
		ds.name[0] = '\0';
	if (op->maintscripts) {
		/* dpkg's: 1 when a package failed, 2 when the call could not go on. */
		progress_set_seq(op->pg);
		r = unpackseq_run(&op->in, files, nfiles, &st, &failed, &err);
		progress_phase(op->pg, PROGRESS_DONE);
		render_errors(op);
		fatal = 2;
	} else {
		r = install_run(&op->in, files, nfiles, &st, &err);
		/* A failure after some verdicts still ends the array it began. */
		if (op->fmt == QUERY_JSON && (r == 0 || op->nplan > 0))
			puts(op->nplan > 0 ? "]" : "[]");
		if (r != 0 && op->pg != NULL) {
			char line[3 * PATH_MAX + 1200];

			/*
			 * As dpkg: the package by name when its control was
			 * read, else the package file.
			 */
			dbp_err_format(&err, false, line, sizeof(line));
			progress_error(op->pg, err.pkg[0] == '\0' ? NULL :
			    op->cur_file != NULL && op->nnames > 0 &&
			    strcmp(op->cur_file, err.pkg) == 0 ?
			    op->names[op->nnames - 1] : err.pkg, line);
		} else
			progress_phase(op->pg, PROGRESS_DONE);
		fatal = 1;
	}
	if (r == 0)
		main_devstat(&ds, &st);
	progress_free(op->pg);
	for (i = 0; i < op->nnames; i++)
		free(op->names[i]);
	free(op->names);
	free(op->states);
	/* Not before: the error line above may name the package by its file. */
	operands_free(expanded, expanded != NULL ? nfiles : 0);
	if (r != 0) {
		stats_free(&st);
		render_error(&err);
		return fatal;
	}
	if (op->stats == 1)
		stats_write_text(stdout, &st);
	else if (op->stats == 2)
		stats_write_json(stdout, &st);
	stats_free(&st);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		dbp_err(&err, errno, NULL, "cannot write to standard output");
		render_error(&err);
		return fatal;
	}
	return failed > 0 ? 1 : 0;
}

int
main(int argc, char **argv)
{
	struct cli_opts o;
	int r;

	memset(&o, 0, sizeof(o));
	r = main_run(argc, argv, &o);
	pathfilter_free(o.filters);
	free(o.ignore_depends);
	ctlcache_clear();
	return r;
}
