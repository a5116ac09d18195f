/* SPDX-License-Identifier: MIT */
/* What the front end tells: the run's events, a dry run's verdicts, errors. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opts.h"
#include "cli/progress.h"
#include "cli/render.h"
#include "db/version.h"
#include "deb/control.h"
#include "durable/recover.h"
#include "util/escape.h"
#include "util/plan.h"

void
render_error(const struct dbp_error *err)
{
	char line[3 * PATH_MAX + 1200];

	dbp_err_format(err, true, line, sizeof(line));
	fprintf(stderr, "debunpack: %s\n", line);
}

/*
 * Keep NAME and the STATE it reaches (a static string; NULL: unpacked) for
 * the status lines of the commit; nothing lost but those.
 */
static void
render_keep_name(struct cli_opts *o, const char *name, const char *state)
{
	const char **sv;
	char **v, *copy;

	if (o->pg == NULL || (copy = strdup(name)) == NULL)
		return;
	if ((v = realloc(o->names, (o->nnames + 1) * sizeof(*v))) == NULL) {
		free(copy);
		return;
	}
	o->names = v;
	if ((sv = realloc(o->states, (o->nnames + 1) * sizeof(*sv))) == NULL) {
		free(copy);
		return;
	}
	o->states = sv;
	o->states[o->nnames] = state;
	o->names[o->nnames++] = copy;
}

/* The progress line and the status fd hear of everything. */
static void
render_progress(struct cli_opts *o, const struct install_note *n)
{
	static const enum progress_phase phases[] = {
		[INSTALL_SYNCING] = PROGRESS_SYNCING,
		[INSTALL_RENAMING] = PROGRESS_RENAMING,
		[INSTALL_PREINSTS] = PROGRESS_PREINST,
	};
	size_t i;

	switch (n->event) {
	case INSTALL_UNPACKING:
		render_keep_name(o, n->name, NULL);
		o->cur_file = n->pkg;
		progress_unpacking(o->pg, n->name, n->upgrade);
		break;
	case INSTALL_EXTRACTED:
		progress_extracted(o->pg, n->name, n->bytes);
		break;
	case INSTALL_EXPECTED:
		progress_expect(o->pg, n->bytes);
		break;
	case INSTALL_REMOVING:
		/* MSG is one of two static strings. */
		render_keep_name(o, n->name, strcmp(n->msg, "config-files") == 0 ?
		    "config-files" : "not-installed");
		progress_removing(o->pg, n->name, n->path);
		break;
	case INSTALL_PHASE:
		progress_phase(o->pg, phases[n->phase]);
		break;
	case INSTALL_SEQ:
		if (n->seq == UNPACKSEQ_PROCESSING)
			progress_processing(o->pg, n->upgrade ? "upgrade" :
			    "install", n->name);
		else if (n->seq == UNPACKSEQ_DISAPPEAR)
			progress_processing(o->pg, "disappear", n->name);
		else if (n->seq == UNPACKSEQ_STATUS)
			progress_state(o->pg, n->name, n->msg);
		else if (n->seq == UNPACKSEQ_FAILED)
			progress_error(o->pg, n->pkg, n->msg);
		else
			progress_clear(o->pg);
		break;
	case INSTALL_COMMITTED:
		for (i = 0; i < o->nnames; i++)
			progress_committed(o->pg, o->names[i],
			    o->states[i] != NULL ? o->states[i] : "unpacked");
		break;
	default:
		/* What follows is printed: the line makes room. */
		progress_clear(o->pg);
		break;
	}
}

/* One line of a dry run on standard output: "VERB /PATH[: why]". */
static const char *const render_verdicts[] = {
	[PLAN_CREATE] = "create", [PLAN_REPLACE] = "replace",
	[PLAN_REMOVE] = "remove", [PLAN_CREATE_DIR] = "create",
	[PLAN_KEEP_CONFFILE] = "keep", [PLAN_KEEP_DELETED] = "keep",
	[PLAN_KEEP_NOT_EMPTY] = "keep", [PLAN_KEEP_OWNED] = "keep",
	[PLAN_KEEP_UNCHANGED] = "keep",
};

/*
 * A dry run's verdict as a JSON object: the action, the path (a directory
 * ends in "/"), why it is kept, and the name the new conffile goes to or
 * the package that has the path.
 */
static void
render_plan_json(struct cli_opts *o, const struct install_note *n)
{
	fputs(o->nplan++ > 0 ? ",\n{\"action\": " : "[{\"action\": ",
	    stdout);
	printf("\"%s\", \"path\": ", render_verdicts[n->verdict]);
	{
		char *p = NULL;

		if (asprintf(&p, "/%s%s", n->path, n->verdict ==
		    PLAN_CREATE_DIR ? "/" : "") >= 0) {
			escape_put_json(stdout, p);
			free(p);
		}
	}
	switch (n->verdict) {
	case PLAN_KEEP_CONFFILE:
	case PLAN_KEEP_DELETED:
		fputs(n->verdict == PLAN_KEEP_CONFFILE ? ", \"reason\":"
		    " \"changed\"" : ", \"reason\": \"deleted\"", stdout);
		if (n->msg != NULL) {
			char *p = NULL;

			fputs(", \"new\": ", stdout);
			if (asprintf(&p, "/%s", n->msg) >= 0) {
				escape_put_json(stdout, p);
				free(p);
			}
		}
		break;
	case PLAN_KEEP_NOT_EMPTY:
		fputs(", \"reason\": \"not empty\"", stdout);
		break;
	case PLAN_KEEP_UNCHANGED:
		fputs(", \"reason\": \"unchanged\"", stdout);
		break;
	case PLAN_KEEP_OWNED:
		fputs(", \"reason\": \"owned\", \"package\": ", stdout);
		escape_put_json(stdout, n->msg);
		break;
	default:
		break;
	}
	putchar('}');
}

static void
render_plan(const struct install_note *n)
{
	char path[PATH_MAX], detail[PATH_MAX];

	escape_name(n->path, path, sizeof(path));
	if (n->msg != NULL)
		escape_name(n->msg, detail, sizeof(detail));
	switch (n->verdict) {
	case PLAN_CREATE:
		printf("create /%s\n", path);
		break;
	case PLAN_REPLACE:
		printf("replace /%s\n", path);
		break;
	case PLAN_REMOVE:
		printf("remove /%s\n", path);
		break;
	case PLAN_CREATE_DIR:
		printf("create /%s/\n", path);
		break;
	case PLAN_KEEP_CONFFILE:
	case PLAN_KEEP_DELETED:
		printf("keep /%s: %s since it was installed", path,
		    n->verdict == PLAN_KEEP_CONFFILE ? "changed" : "deleted");
		if (n->msg != NULL)
			printf(", the new version goes to /%s", detail);
		putchar('\n');
		break;
	case PLAN_KEEP_NOT_EMPTY:
		printf("keep /%s: not empty\n", path);
		break;
	case PLAN_KEEP_UNCHANGED:
		printf("keep /%s: unchanged conffile, the same in the new"
		    " version\n", path);
		break;
	case PLAN_KEEP_OWNED:
		printf("keep /%s: also in package '%s'\n", path, detail);
		break;
	}
}

/*
 * A package is about to be unpacked: with -v, which and over what; an
 * older version over a newer one is a warning, as dpkg's "downgrading".
 */
static void
render_unpacking(struct cli_opts *o, const struct install_note *n)
{
	char name[256], pkg[PATH_MAX], ver[256], old[256], arch[64];
	const char *verb;
	int cmp;

	escape_name(control_get(n->ctl, "Package"), name, sizeof(name));
	escape_name(control_get(n->ctl, "Version"), ver, sizeof(ver));
	escape_name(n->old_version != NULL ? n->old_version : "?", old,
	    sizeof(old));
	cmp = n->upgrade ? version_cmp(control_get(n->ctl, "Version"),
	    n->old_version) : 1;
	if (cmp < 0) {
		progress_clear(o->pg);
		fprintf(stderr, "debunpack: warning: downgrading %s from %s"
		    " to %s\n", name, old, ver);
	}
	if (o->verbose <= 0)
		return;
	progress_clear(o->pg);
	escape_name(n->pkg, pkg, sizeof(pkg));
	if (!n->upgrade) {
		fprintf(stderr, "debunpack: unpacking %s %s (%s) from %s\n",
		    name, ver, escape_name(control_get(n->ctl,
		    "Architecture"), arch, sizeof(arch)), pkg);
		return;
	}
	verb = cmp > 0 ? "upgrading" : cmp < 0 ? "downgrading" :
	    "reinstalling";
	fprintf(stderr, "debunpack: %s %s (%s -> %s) from %s\n", verb, name,
	    old, ver, pkg);
}

/* An earlier version of a package on the command line, left out. */
static void
render_superseded(const struct install_note *n)
{
	char name[256], ver[256], later[256], pkg[PATH_MAX], pkg2[PATH_MAX];

	fprintf(stderr, "debunpack: note: leaving out %s %s (%s): version %s"
	    " (%s) comes later on the command line\n",
	    escape_name(n->name, name, sizeof(name)),
	    escape_name(n->msg, ver, sizeof(ver)),
	    escape_name(n->pkg, pkg, sizeof(pkg)),
	    escape_name(n->old_version, later, sizeof(later)),
	    escape_name(n->path, pkg2, sizeof(pkg2)));
}

/* What the run tells: warnings unless -q, the rest with -v. */
/*
 * dpkg's name of package file FILE in its messages: as given, or its
 * tail after ".../" when long (dpkg's summarize_filename).
 */
static const char *
render_summarize(const char *file, char *buf, size_t n)
{
	const char *p = file;

	while (strlen(p) > 30 && strchr(p, '/') != NULL)
		p = strchr(p, '/') + 1;
	if (p == file || strlen(p) + sizeof(".../") > n)
		return file;
	memcpy(buf, ".../", 4);
	memcpy(buf + 4, p, strlen(p) + 1);
	return buf;
}

/* Keep FILE for the summary of errors at the end (render_errors). */
static void
render_keep_error(struct cli_opts *o, const char *file)
{
	char **v, *copy;

	if ((copy = strdup(file)) == NULL)
		return;
	if ((v = realloc(o->errors, (o->nerrors + 1) * sizeof(*v))) == NULL) {
		free(copy);
		return;
	}
	o->errors = v;
	o->errors[o->nerrors++] = copy;
}

/*
 * dpkg's "regarding FILE containing NAME:" and its reasons, a line each,
 * then an empty line, as dpkg's notice ends; one line of debunpack's.
 */
static void
render_regarding(struct cli_opts *o, const char *file, const char *name,
    const char *msg)
{
	char raw[1024], line[1024], short_name[PATH_MAX];
	const char *p, *nl;

	if (o->dpkg_messages)
		fprintf(stderr, "dpkg: regarding %s containing %s:\n",
		    render_summarize(file, short_name, sizeof(short_name)),
		    name);
	else
		fprintf(stderr, "debunpack: %s:", file);
	for (p = msg; *p != '\0'; p = *nl != '\0' ? nl + 1 : nl) {
		nl = p + strcspn(p, "\n");
		snprintf(raw, sizeof(raw), "%.*s", (int)(nl - p), p);
		escape_name(raw, line, sizeof(line));
		fprintf(stderr, o->dpkg_messages ? "%s\n" : " %s", line);
	}
	fprintf(stderr, "\n");
}

/* --maintscripts: each step, in dpkg's words or debunpack's. */
/* TEXT's lines to standard error, escaped one by one, the first after PREFIX. */
static void
render_lines(const char *text, const char *prefix)
{
	char line[1024], esc[1024];
	const char *nl;

	do {
		nl = strchr(text, '\n');
		snprintf(line, sizeof(line), "%.*s", nl != NULL ?
		    (int)(nl - text) : (int)strlen(text), text);
		fprintf(stderr, "%s%s\n", prefix, escape_name(line, esc,
		    sizeof(esc)));
		prefix = "";
		text = nl + 1;
	} while (nl != NULL);
}

static void
render_seq(struct cli_opts *o, const struct install_note *n)
{
	char file[PATH_MAX], name[256], msg[1024], short_name[PATH_MAX];

	escape_name(n->pkg != NULL ? n->pkg : "", file, sizeof(file));
	escape_name(n->name != NULL ? n->name : "", name, sizeof(name));
	escape_name(n->msg != NULL ? n->msg : "", msg, sizeof(msg));
	switch (n->seq) {
	case UNPACKSEQ_FAILED:
		render_keep_error(o, file);
		if (o->dpkg_messages) {
			/* dpkg's error may go on over lines of its own. */
			fprintf(stderr, "dpkg: error processing archive %s"
			    " (--%s):\n", file, o->dpkg_action != NULL ?
			    o->dpkg_action : "unpack");
			render_lines(n->msg != NULL ? n->msg : "", " ");
		} else
			fprintf(stderr, "debunpack: %s: %s\n", file, msg);
		return;
	case UNPACKSEQ_CLEANUP:
		if (o->dpkg_messages)
			fprintf(stderr, "dpkg: error while cleaning up:\n %s\n",
			    msg);
		else
			fprintf(stderr, "debunpack: %s: error while cleaning"
			    " up: %s\n", file, msg);
		return;
	case UNPACKSEQ_REGARDING:
		render_regarding(o, file, name, n->msg != NULL ? n->msg : "");
		return;
	case UNPACKSEQ_NOTICE:
		if (o->verbose >= 0)
			fprintf(stderr, "%s: %s\n", o->dpkg_messages ? "dpkg" :
			    "debunpack", msg);
		return;
	case UNPACKSEQ_DETAIL:
		if (o->verbose >= 0)
			fprintf(stderr, "%s\n", msg);
		return;
	default:
		break;
	}
	if (!o->dpkg_messages) {
		if (n->seq == UNPACKSEQ_UNPACKING && o->verbose > 0)
			fprintf(stderr, "debunpack: unpacking %s\n", name);
		return;
	}
	switch (n->seq) {
	case UNPACKSEQ_SELECTING:
		printf("Selecting previously unselected package %s.\n", name);
		break;
	case UNPACKSEQ_SAY:
		printf("%s\n", msg);
		break;
	case UNPACKSEQ_DATABASE:
		printf("(Reading database ... %zu %s currently installed.)\n",
		    n->count, n->count == 1 ? "file or directory" :
		    "files and directories");
		break;
	case UNPACKSEQ_PREPARING:
		printf("Preparing to unpack %s ...\n", render_summarize(file,
		    short_name, sizeof(short_name)));
		break;
	case UNPACKSEQ_UNPACKING:
		if (n->upgrade)
			printf("Unpacking %s (%s) over (%s) ...\n", name,
			    n->version, n->old_version != NULL ?
			    n->old_version : "");
		else
			printf("Unpacking %s (%s) ...\n", name, n->version);
		break;
	default:
		break;
	}
	fflush(stdout);
}

void
render_errors(struct cli_opts *o)
{
	size_t i;

	if (o->dpkg_messages && o->nerrors > 0) {
		fputs("Errors were encountered while processing:\n", stderr);
		for (i = 0; i < o->nerrors; i++)
			fprintf(stderr, " %s\n", o->errors[i]);
	}
	for (i = 0; i < o->nerrors; i++)
		free(o->errors[i]);
	free(o->errors);
	o->errors = NULL;
	o->nerrors = 0;
}

void
render_note(void *ctx, const struct install_note *n)
{
	struct cli_opts *o = ctx;
	char pkg[PATH_MAX], path[PATH_MAX];
	const struct recover_result *res = n->repair;

	render_progress(o, n);
	/* A dry run's verdicts are its output, whatever -q says. */
	if (n->event == INSTALL_PLAN) {
		if (o->fmt == QUERY_JSON)
			render_plan_json(o, n);
		else
			render_plan(n);
		return;
	}
	if (n->event == INSTALL_SEQ) {
		render_seq(o, n);
		return;
	}
	if (o->verbose < 0)
		return;
	switch (n->event) {
	case INSTALL_UNPACKING:
		if (o->maintscripts)
			break;	/* told by its INSTALL_SEQ steps */
		render_unpacking(o, n);
		break;
	case INSTALL_WARN_PATH:
		fprintf(stderr, "debunpack: warning: %s: '%s': %s\n",
		    escape_name(n->pkg != NULL ? n->pkg : "", pkg, sizeof(pkg)),
		    escape_name(n->path != NULL ? n->path : "", path,
		    sizeof(path)), n->msg);
		break;
	case INSTALL_DISAPPEARS:
		if (o->dpkg_messages)
			break;	/* told by its INSTALL_SEQ steps */
		/* FALLTHROUGH */
	case INSTALL_WARN:
		fprintf(stderr, "debunpack: warning: %s\n", n->msg);
		break;
	case INSTALL_REPAIRED:
		fprintf(stderr, "debunpack: repaired an interrupted run: %s"
		    " (%zu names %s, %zu leftovers removed%s)\n",
		    res->forward ? "finished it" : "undid it", res->items,
		    res->forward ? "committed" : "put back", res->removed,
		    res->forward ? ", old paths removed" : "");
		break;
	case INSTALL_COMMITTED:
		if (o->verbose > 0) {
			progress_clear(o->pg);
			if (o->in.remove)
				fprintf(stderr, "debunpack: removal committed"
				    " (%s)\n", n->mode);
			else
				fprintf(stderr, "debunpack: %zu paths committed"
				    " (%s)\n", n->count, n->mode);
		}
		break;
	case INSTALL_PREINST:
		if (o->verbose > 0)
			fprintf(stderr, "debunpack: running the preinst of %s\n",
			    escape_name(n->name, path, sizeof(path)));
		break;
	case INSTALL_SUPERSEDED:
		render_superseded(n);
		break;
	case INSTALL_REMOVING:
		if (o->verbose > 0) {
			char name[256], ver[256];

			progress_clear(o->pg);
			fprintf(stderr, "debunpack: %s %s (%s)%s\n",
			    strcmp(n->path, "purge") == 0 ? "purging" :
			    "removing", escape_name(n->name, name, sizeof(name)),
			    escape_name(n->old_version, ver, sizeof(ver)),
			    strcmp(n->msg, "config-files") == 0 ?
			    ", keeping its conffiles" : "");
		}
		break;
	case INSTALL_STALE:
		/*
		 * dpkg's database is the authority: a record it outdated
		 * going is housekeeping, told only when asked, and never in
		 * dpkg's output, where dpkg says nothing.
		 */
		if (o->verbose > 0 && !o->dpkg_messages) {
			progress_clear(o->pg);
			fprintf(stderr, "debunpack: dpkg changed '%s' since"
			    " debunpack installed it (%s): debunpack's record"
			    " of it is dropped\n", escape_name(n->name, pkg,
			    sizeof(pkg)), n->msg);
		}
		break;
	case INSTALL_EXTRACTED:
		/* --cache: how each package came, with -v. */
		if (o->verbose > 0 && n->msg != NULL && n->name != NULL) {
			char name[256];

			progress_clear(o->pg);
			fprintf(stderr, "debunpack: %s %s", escape_name(n->name,
			    name, sizeof(name)), n->msg);
			if (n->count > 0)
				fprintf(stderr, " (%zu bytes not decoded)",
				    n->count);
			fputc('\n', stderr);
		}
		break;
	case INSTALL_EXPECTED:
	case INSTALL_PHASE:
	case INSTALL_PLAN:
	case INSTALL_SEQ:
	case INSTALL_STANDS:
	case INSTALL_NAMING:
		break;
	}
}
