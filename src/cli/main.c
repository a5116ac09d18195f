/* SPDX-License-Identifier: MIT */
/* debunpack: install .deb packages into a root, durably and fast. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>

#include "db/admin.h"
#include "deb/control.h"
#include "util/error.h"
#include "util/escape.h"
#include "run/install.h"
#include "manifest.h"
#include "cli/operands.h"
#include "cli/progress.h"
#include "run/query.h"
#include "durable/rootfs.h"
#include "cli/devstat.h"
#include "util/digest.h"
#include "deb/gunzip.h"
#include "util/stats.h"
#include "syncbatch.h"
#include "run/verify.h"
#include "db/version.h"
#include "deb/xz.h"

enum {
	OPT_STATS = 256, OPT_SKIP_DEVICES, OPT_SYNC_MODE, OPT_ROOT, OPT_ADMINDIR,
	OPT_LIST, OPT_OWNER, OPT_CONTENTS, OPT_FILES, OPT_FORCE_OVERWRITE,
	OPT_VERIFY,
	OPT_DRY_RUN, OPT_RECOVER, OPT_DPKG_DB, OPT_MERGED_USR, OPT_RUN_PREINST,
	OPT_STATUS_FD, OPT_NO_PROGRESS, OPT_REMOVE, OPT_PURGE, OPT_NO_SCRIPTS,
	OPT_FORCE_DEPENDS, OPT_FORCE_REMOVE_ESSENTIAL, OPT_JSON,
	OPT_VERIFY_FORMAT, OPT_DPKG_DIST
};

/* What a run does: install (the default) or answer a query. */
enum main_action {
	ACT_INSTALL, ACT_LIST, ACT_OWNER, ACT_CONTENTS, ACT_FILES, ACT_VERIFY,
	ACT_DRY_RUN,
	ACT_RECOVER
};

/* More threads than this only add memory: the reader is the limit. */
#define MAIN_JOBS_MAX	64
/*
 * The default, one thread a CPU up to this: the one thread that writes,
 * hashes and checks takes the bytes of about eight xz decoders (xz
 * decodes at 50-100 MB/s a core, the writer moves 500 MB/s and more), and
 * each thread adds up to 40 MiB of memory (install.c).
 */
#define MAIN_JOBS_DEFAULT_MAX	8

static const struct option main_options[] = {
	{ "admindir",		required_argument,	NULL, OPT_ADMINDIR },
	{ "contents",		no_argument,		NULL, OPT_CONTENTS },
	{ "files",		no_argument,		NULL, OPT_FILES },
	{ "dpkg-db",		no_argument,		NULL, OPT_DPKG_DB },
	{ "dpkg-dist",		no_argument,		NULL, OPT_DPKG_DIST },
	{ "dry-run",		no_argument,		NULL, OPT_DRY_RUN },
	{ "force-depends",	no_argument,		NULL, OPT_FORCE_DEPENDS },
	{ "force-overwrite",	no_argument,		NULL, OPT_FORCE_OVERWRITE },
	{ "force-remove-essential", no_argument,	NULL,
	    OPT_FORCE_REMOVE_ESSENTIAL },
	{ "help",		no_argument,		NULL, 'h' },
	{ "jobs",		required_argument,	NULL, 'j' },
	{ "json",		no_argument,		NULL, OPT_JSON },
	{ "list",		no_argument,		NULL, OPT_LIST },
	{ "merged-usr",		optional_argument,	NULL, OPT_MERGED_USR },
	{ "no-progress",	no_argument,		NULL, OPT_NO_PROGRESS },
	{ "no-scripts",		no_argument,		NULL, OPT_NO_SCRIPTS },
	/* Optional: a pattern after it is an operand, and so may an option be. */
	{ "owner",		optional_argument,	NULL, OPT_OWNER },
	{ "quiet",		no_argument,		NULL, 'q' },
	{ "recursive",		no_argument,		NULL, 'R' },
	{ "purge",		no_argument,		NULL, OPT_PURGE },
	{ "recover",		no_argument,		NULL, OPT_RECOVER },
	{ "remove",		no_argument,		NULL, OPT_REMOVE },
	{ "root",		required_argument,	NULL, OPT_ROOT },
	{ "run-preinst",	no_argument,		NULL, OPT_RUN_PREINST },
	{ "skip-devices",	no_argument,		NULL, OPT_SKIP_DEVICES },
	{ "stats",		optional_argument,	NULL, OPT_STATS },
	{ "status-fd",		required_argument,	NULL, OPT_STATUS_FD },
	{ "sync-mode",		required_argument,	NULL, OPT_SYNC_MODE },
	{ "verbose",		no_argument,		NULL, 'v' },
	{ "verify",		no_argument,		NULL, OPT_VERIFY },
	{ "verify-format",	required_argument,	NULL, OPT_VERIFY_FORMAT },
	{ "version",		no_argument,		NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

struct main_opts {
	enum main_action action;
	const char *owner;	/* --owner=PATTERN's, or NULL */
	int stats;		/* 0 none, 1 text, 2 json */
	int verbose;		/* -1 quiet, 0 normal, 1 verbose */
	int status_fd;		/* --status-fd, or -1 */
	bool no_progress;
	bool root_given;	/* --root was given, "/" or not */
	bool recursive;		/* -R: directories stand for their *.deb */
	enum query_format fmt;	/* --json, --verify-format=rpm */
	size_t nplan;		/* a JSON dry run's objects so far */
	struct progress *pg;	/* the progress line and status lines, or NULL */
	char **names;		/* the run's packages, for the status lines */
	const char **states;	/* the state each reaches (NULL: unpacked) */
	size_t nnames;
	const char *cur_file;	/* the package file the last name is of */
	struct install_opts in;	/* what an install (or a query) works on */
};

static volatile sig_atomic_t main_stop;

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: debunpack --root DIR [--admindir DIR] [--dry-run]\n"
	    "                 [--force-overwrite] [--skip-devices] [--stats[=json]]\n"
	    "                 [--sync-mode auto|syncfs|batched|perfile|none]\n"
	    "                 [--dpkg-db] [--dpkg-dist] [--merged-usr[=auto|yes|no]]\n"
	    "                 [--run-preinst] [--status-fd N] [--no-progress]\n"
	    "                 [-j N] [-q | -v] [-R] PKG.deb|DIR|-...\n"
	    "       debunpack --root DIR [--admindir DIR] [--dry-run] [--dpkg-db]\n"
	    "                 [--no-scripts] [--force-depends]\n"
	    "                 [--force-remove-essential] --remove|--purge PKGNAME...\n"
	    "       debunpack [--admindir DIR] [--root DIR] [--json] --list [PATTERN...]\n"
	    "       debunpack [--admindir DIR] [--root DIR] [--json] --owner PATTERN...\n"
	    "       debunpack [--admindir DIR] [--root DIR]\n"
	    "                 [--json | --verify-format=rpm] --verify [PKGNAME...]\n"
	    "       debunpack [--admindir DIR] [--root DIR] --files PKGNAME...\n"
	    "       debunpack --root DIR [--admindir DIR] --recover\n"
	    "       debunpack --contents PKG.deb...\n"
	    "       debunpack --help | --version\n"
	    "\n"
	    "      --admindir DIR    package records in DIR (default\n"
	    "                        ROOT/var/lib/debunpack)\n"
	    "      --contents        list the entries of package files\n"
	    "      --files           list the paths of installed packages\n"
	    "      --dpkg-db         keep dpkg's database (ROOT/var/lib/dpkg) too:\n"
	    "                        packages end up unpacked, for dpkg --configure\n"
	    "      --dpkg-dist       name a kept conffile's new version\n"
	    "                        NAME.dpkg-dist, as dpkg does (default:\n"
	    "                        NAME.debunpack-dist)\n"
	    "      --dry-run         say what an install would do, do nothing\n"
	    "      --force-depends   remove a package others depend on\n"
	    "      --force-overwrite take over paths of other packages\n"
	    "      --force-remove-essential  remove an essential or protected\n"
	    "                        package\n"
	    "  -h, --help            show this help and exit\n"
	    "      --json            --list, --owner, --verify and --dry-run write\n"
	    "                        a JSON array\n"
	    "  -j, --jobs N          decompress with N threads (default: the\n"
	    "                        online CPUs, at most 8; 1: in the main\n"
	    "                        thread)\n"
	    "      --list            list the installed packages (those the\n"
	    "                        patterns name, as dpkg-query -l)\n"
	    "      --merged-usr[=WHEN] make bin, sbin, lib... links to usr/ in a new\n"
	    "                        root: auto (default: for bookworm or later),\n"
	    "                        yes, no\n"
	    "      --no-progress     no progress line on a terminal\n"
	    "      --no-scripts      remove a package that has prerm or postrm\n"
	    "                        scripts without running them\n"
	    "      --owner PATTERN...  the installed paths that match, and their\n"
	    "                        packages, as dpkg -S (a path, a glob or a\n"
	    "                        part of a path)\n"
	    "      --purge           remove installed packages and their conffiles\n"
	    "  -q, --quiet           print errors only\n"
	    "  -R, --recursive       install the *.deb files under directories\n"
	    "      --recover         repair what an interrupted run left\n"
	    "      --remove          remove installed packages, keeping their\n"
	    "                        conffiles\n"
	    "      --root DIR        install under DIR (/ for the running system;\n"
	    "                        queries read / without it)\n"
	    "      --run-preinst     then run the preinsts in the root (chroot;\n"
	    "                        implies --dpkg-db)\n"
	    "      --skip-devices    when not root, skip device nodes with a"
	    " warning\n"
	    "      --stats[=json]    print counts, sync calls and phase times\n"
	    "      --status-fd N     machine-readable progress on descriptor N\n"
	    "      --sync-mode MODE  auto (default: syncfs on ext4, xfs, btrfs,\n"
	    "                        f2fs and tmpfs, batched elsewhere), syncfs,\n"
	    "                        batched, perfile or none\n"
	    "  -v, --verbose         name each package as it is unpacked\n"
	    "      --verify          compare the root with the package records\n"
	    "      --verify-format=FORMAT  text (default) or rpm: dpkg --verify's\n"
	    "                        lines (rpm -V's format)\n"
	    "  -V, --version         show the version and exit\n");
}

static void
main_on_signal(int sig)
{
	(void)sig;
	main_stop = 1;
}

/*
 * ERR as one line without the program's name: "PKG: 'PATH': MSG: ERRNO",
 * without "PKG: " unless WITH_PKG.
 */
static void
main_format_error(const struct dbp_error *err, bool with_pkg, char *buf,
    size_t size)
{
	char pkg[PATH_MAX], path[PATH_MAX], msg[1024];
	size_t n = 0;

	buf[0] = '\0';
	if (with_pkg && err->pkg[0] != '\0')
		n += (size_t)snprintf(buf + n, size - n, "%s: ",
		    escape_name(err->pkg, pkg, sizeof(pkg)));
	if (err->path[0] != '\0' && n < size)
		n += (size_t)snprintf(buf + n, size - n, "'%s': ",
		    escape_name(err->path, path, sizeof(path)));
	/* Messages quote archive strings too (member names, link targets). */
	if (n < size)
		n += (size_t)snprintf(buf + n, size - n, "%s",
		    err->msg[0] != '\0' ? escape_name(err->msg, msg,
		    sizeof(msg)) : "failed");
	if (err->errnum != 0 && n < size)
		snprintf(buf + n, size - n, ": %s", strerror(err->errnum));
}

static void
main_print_error(const struct dbp_error *err)
{
	char line[3 * PATH_MAX + 1200];

	main_format_error(err, true, line, sizeof(line));
	fprintf(stderr, "debunpack: %s\n", line);
}

/*
 * Keep NAME and the STATE it reaches (a static string; NULL: unpacked) for
 * the status lines of the commit; nothing lost but those.
 */
static void
main_keep_name(struct main_opts *o, const char *name, const char *state)
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
main_progress(struct main_opts *o, const struct install_note *n)
{
	static const enum progress_phase phases[] = {
		[INSTALL_SYNCING] = PROGRESS_SYNCING,
		[INSTALL_RENAMING] = PROGRESS_RENAMING,
		[INSTALL_PREINSTS] = PROGRESS_PREINST,
	};
	size_t i;

	switch (n->event) {
	case INSTALL_UNPACKING:
		main_keep_name(o, n->name, NULL);
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
		main_keep_name(o, n->name, strcmp(n->msg, "config-files") == 0 ?
		    "config-files" : "not-installed");
		progress_removing(o->pg, n->name, n->path);
		break;
	case INSTALL_PHASE:
		progress_phase(o->pg, phases[n->phase]);
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
static const char *const main_verdicts[] = {
	[PLAN_CREATE] = "create", [PLAN_REPLACE] = "replace",
	[PLAN_REMOVE] = "remove", [PLAN_CREATE_DIR] = "create",
	[PLAN_KEEP_CONFFILE] = "keep", [PLAN_KEEP_NOT_EMPTY] = "keep",
	[PLAN_KEEP_OWNED] = "keep",
};

/*
 * A dry run's verdict as a JSON object: the action, the path (a directory
 * ends in "/"), why it is kept, and the name the new conffile goes to or
 * the package that has the path.
 */
static void
main_plan_json(struct main_opts *o, const struct install_note *n)
{
	fputs(o->nplan++ > 0 ? ",\n{\"action\": " : "[{\"action\": ",
	    stdout);
	printf("\"%s\", \"path\": ", main_verdicts[n->verdict]);
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
		fputs(", \"reason\": \"changed\", \"new\": ", stdout);
		{
			char *p = NULL;

			if (asprintf(&p, "/%s", n->msg) >= 0) {
				escape_put_json(stdout, p);
				free(p);
			}
		}
		break;
	case PLAN_KEEP_NOT_EMPTY:
		fputs(", \"reason\": \"not empty\"", stdout);
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
main_plan(const struct install_note *n)
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
		printf("keep /%s: changed since it was installed, the new"
		    " version goes to /%s\n", path, detail);
		break;
	case PLAN_KEEP_NOT_EMPTY:
		printf("keep /%s: not empty\n", path);
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
main_unpacking(struct main_opts *o, const struct install_note *n)
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
main_superseded(const struct install_note *n)
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
static void
main_note(void *ctx, const struct install_note *n)
{
	struct main_opts *o = ctx;
	char pkg[PATH_MAX], path[PATH_MAX];
	const struct recover_result *res = n->repair;

	main_progress(o, n);
	/* A dry run's verdicts are its output, whatever -q says. */
	if (n->event == INSTALL_PLAN) {
		if (o->fmt == QUERY_JSON)
			main_plan_json(o, n);
		else
			main_plan(n);
		return;
	}
	if (o->verbose < 0)
		return;
	switch (n->event) {
	case INSTALL_UNPACKING:
		main_unpacking(o, n);
		break;
	case INSTALL_WARN_PATH:
		fprintf(stderr, "debunpack: warning: %s: '%s': %s\n",
		    escape_name(n->pkg != NULL ? n->pkg : "", pkg, sizeof(pkg)),
		    escape_name(n->path != NULL ? n->path : "", path,
		    sizeof(path)), n->msg);
		break;
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
		main_superseded(n);
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
	case INSTALL_EXTRACTED:
	case INSTALL_EXPECTED:
	case INSTALL_PHASE:
	case INSTALL_PLAN:
		break;
	}
}

static int
main_parse(int argc, char **argv, struct main_opts *o)
{
	const char *const *m;
	char *end;
	long n;
	int c;

	memset(o, 0, sizeof(*o));
	o->status_fd = -1;
	o->in.root = "/";
	o->in.mode = "auto";
	n = sysconf(_SC_NPROCESSORS_ONLN);
	o->in.jobs = n > 1 ? (n > MAIN_JOBS_DEFAULT_MAX ? MAIN_JOBS_DEFAULT_MAX :
	    (unsigned)n) : 1;
	while ((c = getopt_long(argc, argv, "hj:qRvV", main_options, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			/* Every library it links, as each names itself. */
			printf("debunpack %s\n%s\nliblzma %s\nzlib %s\n%s\n",
			    PACKAGE_VERSION, archive_version_details(),
			    xz_library(), gunzip_library(), digest_library());
			exit(0);
		case 'q':
			o->verbose = -1;
			break;
		case 'R':
			o->recursive = true;
			break;
		case OPT_JSON:
			o->fmt = QUERY_JSON;
			break;
		case OPT_VERIFY_FORMAT:
			if (strcmp(optarg, "rpm") == 0)
				o->fmt = QUERY_RPM;
			else if (strcmp(optarg, "text") != 0) {
				fprintf(stderr, "debunpack: --verify-format takes"
				    " text or rpm, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'v':
			o->verbose = 1;
			break;
		case OPT_ROOT:
			o->in.root = optarg;
			o->root_given = true;
			break;
		case OPT_ADMINDIR:
			o->in.admindir = optarg;
			break;
		case OPT_LIST:
		case OPT_OWNER:
		case OPT_CONTENTS:
		case OPT_FILES:
		case OPT_VERIFY:
		case OPT_DRY_RUN:
		case OPT_RECOVER:
			if (o->action != ACT_INSTALL) {
				fprintf(stderr, "debunpack: --list, --owner,"
				    " --contents, --files, --verify, --dry-run"
				    " and --recover exclude each other\n");
				return -1;
			}
			o->action = c == OPT_LIST ? ACT_LIST : c == OPT_OWNER ?
			    ACT_OWNER : c == OPT_CONTENTS ? ACT_CONTENTS :
			    c == OPT_FILES ? ACT_FILES :
			    c == OPT_VERIFY ? ACT_VERIFY : c == OPT_RECOVER ?
			    ACT_RECOVER : ACT_DRY_RUN;
			o->owner = optarg;
			break;
		case OPT_SKIP_DEVICES:
			o->in.skip_devices = true;
			break;
		case OPT_FORCE_OVERWRITE:
			o->in.force_overwrite = true;
			break;
		case OPT_REMOVE:
		case OPT_PURGE:
			o->in.remove = true;
			o->in.rm.purge = o->in.rm.purge || c == OPT_PURGE;
			break;
		case OPT_NO_SCRIPTS:
			o->in.rm.no_scripts = true;
			break;
		case OPT_FORCE_DEPENDS:
			o->in.rm.force_depends = true;
			break;
		case OPT_FORCE_REMOVE_ESSENTIAL:
			o->in.rm.force_essential = true;
			break;
		case OPT_DPKG_DB:
			o->in.dpkg_db = true;
			break;
		case OPT_DPKG_DIST:
			o->in.dpkg_dist = true;
			break;
		case OPT_RUN_PREINST:
			o->in.run_preinst = o->in.dpkg_db = true;
			break;
		case OPT_NO_PROGRESS:
			o->no_progress = true;
			break;
		case OPT_MERGED_USR:
			if (optarg == NULL || strcmp(optarg, "yes") == 0)
				o->in.usrmerge = USRMERGE_YES;
			else if (strcmp(optarg, "no") == 0)
				o->in.usrmerge = USRMERGE_NO;
			else if (strcmp(optarg, "auto") == 0)
				o->in.usrmerge = USRMERGE_AUTO;
			else {
				fprintf(stderr, "debunpack: --merged-usr takes"
				    " auto, yes or no, not '%s'\n", optarg);
				return -1;
			}
			break;
		case OPT_STATUS_FD:
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' || n < 0 ||
			    n > INT_MAX || fcntl((int)n, F_GETFL) < 0) {
				fprintf(stderr, "debunpack: --status-fd takes an"
				    " open file descriptor, not '%s'\n", optarg);
				return -1;
			}
			o->status_fd = (int)n;
			/*
			 * As dpkg: a daemon a script leaves running must not
			 * keep the front end's pipe open.
			 */
			(void)fcntl(o->status_fd, F_SETFD,
			    fcntl(o->status_fd, F_GETFD) | FD_CLOEXEC);
			break;
		case OPT_STATS:
			if (optarg == NULL || strcmp(optarg, "text") == 0)
				o->stats = 1;
			else if (strcmp(optarg, "json") == 0)
				o->stats = 2;
			else {
				fprintf(stderr, "debunpack: --stats takes 'json'"
				    " or nothing, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'j':
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' || n < 1 ||
			    n > MAIN_JOBS_MAX) {
				fprintf(stderr, "debunpack: --jobs takes a number"
				    " from 1 to %d, not '%s'\n", MAIN_JOBS_MAX,
				    optarg);
				return -1;
			}
			o->in.jobs = (unsigned)n;
			break;
		case OPT_SYNC_MODE:
			for (m = syncbatch_modes; *m != NULL; m++)
				if (strcmp(*m, optarg) == 0)
					break;
			if (*m == NULL) {
				fprintf(stderr, "debunpack: unknown sync mode"
				    " '%s' (auto, syncfs, batched, perfile or none)\n",
				    optarg);
				return -1;
			}
			o->in.mode = *m;
			break;
		default:
			return -1;
		}
	}
	if (o->fmt == QUERY_JSON && o->action != ACT_LIST &&
	    o->action != ACT_OWNER && o->action != ACT_VERIFY &&
	    o->action != ACT_DRY_RUN) {
		fprintf(stderr, "debunpack: --json goes with --list, --owner,"
		    " --verify and --dry-run\n");
		return -1;
	}
	if (o->fmt == QUERY_RPM && o->action != ACT_VERIFY) {
		fprintf(stderr, "debunpack: --verify-format goes with"
		    " --verify\n");
		return -1;
	}
	if (o->in.remove && ((o->action != ACT_INSTALL &&
	    o->action != ACT_DRY_RUN) || o->in.run_preinst)) {
		fprintf(stderr, "debunpack: --remove and --purge go with"
		    " --dry-run only, not with queries nor --run-preinst\n");
		return -1;
	}
	/* Removing makes no link of a merged /usr. */
	if (o->in.remove)
		o->in.usrmerge = USRMERGE_NO;
	if (o->action == ACT_RECOVER) {
		if (optind < argc) {
			fprintf(stderr, "debunpack: --recover takes no package"
			    " file\n");
			return -1;
		}
	} else if (o->action == ACT_OWNER && o->owner == NULL &&
	    optind >= argc) {
		fprintf(stderr, "debunpack: --owner needs at least one"
		    " pattern\n");
		return -1;
	} else if (optind >= argc && o->action != ACT_VERIFY &&
	    o->action != ACT_OWNER && o->action != ACT_LIST) {
		fprintf(stderr, "debunpack: no package given\n");
		return -1;
	}
	/*
	 * What writes needs --root, "/" included: a forgotten --root must not
	 * install over the running system's files (queries read "/").
	 */
	if (!o->root_given && (o->action == ACT_INSTALL ||
	    o->action == ACT_RECOVER)) {
		fprintf(stderr, "debunpack: --root is required to %s (--root /"
		    " for the running system)\n", o->in.remove ? (o->in.rm.purge ?
		    "purge" : "remove") : o->action == ACT_INSTALL ?
		    "install" : "repair");
		return -1;
	}
	/* The scripts run in a chroot, which only root may enter. */
	if (o->in.run_preinst && geteuid() != 0) {
		fprintf(stderr, "debunpack: --run-preinst needs root (it runs"
		    " the scripts with chroot)\n");
		return -1;
	}
	return optind;
}

/*
 * --owner [PATTERN...] and --list [PATTERN...]: the lines of what is
 * found, then one error line for each pattern that found nothing, as
 * dpkg -S and dpkg-query -l.  2 then.
 */
static int
main_owner(const struct main_opts *o, struct manifest *man,
    const struct rootfs *rf, int argc, char **argv, int first,
    struct dbp_error *err)
{
	size_t n = (size_t)(argc - first) + (o->owner != NULL), i;
	struct dpkgdivert *divert = NULL;
	char **patterns;
	bool *found;
	int r;

	/* dpkg-divert's diversions, which dpkg -S tells of. */
	if (man != NULL && o->action == ACT_OWNER &&
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
	/* No admin directory (MAN NULL): nothing is installed. */
	if (man != NULL)
		r = o->action == ACT_LIST ? query_list(man, patterns, n, found,
		    o->fmt, stdout, err) : query_owner(man, divert, patterns, n,
		    found, o->fmt, stdout, err);
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
			main_print_error(err);
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
 * (MAN NULL: none is), and 2 then.
 */
static int
main_files(struct manifest *man, const struct rootfs *rf, int argc,
    char **argv, int first, struct dbp_error *err)
{
	struct dpkgdivert *divert = NULL;
	bool missing = false;
	int i, r;

	/* dpkg-divert's diversions, which dpkg -L tells of. */
	if (man != NULL && (r = query_diversions(rf, &divert, err)) != 0)
		return r;
	for (i = first; i < argc; i++) {
		if (i > first)
			putchar('\n');
		r = man != NULL ? query_files(man, argv[i], divert, stdout,
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
			main_print_error(err);
			missing = true;
		}
	}
	dpkgdivert_free(divert);
	dbp_err_clear(err);
	return missing ? 2 : 0;
}

/*
 * --verify [PKGNAME...]: the problems found, then one error line for
 * each package not installed (MAN NULL: none is), whose neighbours are
 * verified all the same, as dpkg --verify does; 2 then.  The count of
 * problems in ERR, 3 under -q (the lines and the exit status say it).
 */
static int
main_verify(const struct main_opts *o, struct manifest *man,
    const struct rootfs *rf, int argc, char **argv, int first,
    struct dbp_error *err)
{
	bool *installed;
	int i, r = 0;

	if ((installed = calloc((size_t)(argc - first) + 1,
	    sizeof(*installed))) == NULL)
		return dbp_err(err, ENOMEM, NULL, "cannot verify");
	if (man != NULL)
		r = verify_packages(man, rf, argv + first, installed,
		    geteuid() == 0, o->fmt, stdout, err);
	else if (o->fmt == QUERY_JSON)
		puts("[]");
	if (r >= 0) {
		fflush(stdout);
		for (i = first; i < argc; i++) {
			if (installed[i - first])
				continue;
			dbp_err_clear(err);
			dbp_err(err, 0, NULL, "package '%s' is not installed",
			    argv[i]);
			main_print_error(err);
			r = r > 0 ? r : -1;
		}
		dbp_err_clear(err);
	}
	free(installed);
	if (r == -1)
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
static int
main_query(const struct main_opts *o, int argc, char **argv, int first)
{
	struct manifest *man = NULL;
	struct rootfs rf = { -1, false };
	struct admin_view view;
	struct dbp_error err;
	struct stats st;
	int fd = -1, i, r = 0;

	dbp_err_clear(&err);
	memset(&st, 0, sizeof(st));
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
	if ((r = rootfs_open(&rf, o->in.root, &err)) != 0)
		goto out;
	if (o->action == ACT_RECOVER) {
		r = install_recover(&o->in, &rf, true, &err);
		goto out;
	}
	/*
	 * Queries read, as dpkg-query does: no repair, no lock.  What dpkg
	 * changed since is not debunpack's, and what an interrupted run
	 * committed stands: both read as the view says.
	 */
	if ((r = manifest_new(&man)) != 0 ||
	    (r = admin_view_open(&view, o->in.admindir, &rf, &err)) != 0)
		goto out;
	if (view.pending.found)
		fprintf(stderr, "debunpack: warning: an interrupted run awaits"
		    " its repair ('debunpack --recover'): answering from %s\n",
		    view.pending.committed ? "its new records" :
		    "the records before it");
	manifest_set_stale(man, admin_view_stale, &view, false);
	if ((fd = admin_open(o->in.admindir, &rf)) < 0) {
		/* No admin directory yet: nothing is installed. */
		if (fd != -ENOENT)
			r = dbp_err(&err, -fd, admin_name(o->in.admindir),
			    "cannot open admin directory");
		else if (o->action == ACT_OWNER || o->action == ACT_LIST)
			r = main_owner(o, NULL, &rf, argc, argv, first, &err);
		else if (o->action == ACT_VERIFY)
			r = main_verify(o, NULL, &rf, argc, argv, first, &err);
		else
			r = main_files(NULL, &rf, argc, argv, first, &err);
		fd = -1;
	} else if ((r = manifest_admin(man, fd, admin_name(o->in.admindir),
	    rf.openat2, NULL, &st, &err)) == 0) {
		if (o->action == ACT_LIST || o->action == ACT_OWNER)
			r = main_owner(o, man, &rf, argc, argv, first, &err);
		else if (o->action == ACT_FILES)
			r = main_files(man, &rf, argc, argv, first, &err);
		else
			r = main_verify(o, man, &rf, argc, argv, first, &err);
	} else if (o->action == ACT_FILES)
		r = main_files(NULL, &rf, argc, argv, first, &err);
out:
	if (fd >= 0)
		close(fd);
	manifest_free(man);
	admin_view_close(&view);
	rootfs_close(&rf);
	if (fflush(stdout) != 0 && r == 0)
		r = dbp_err(&err, errno, NULL, "cannot write to standard output");
	/* Misses are told already; so is -q --verify's count. */
	if (r != 0 && r != 2 && r != 3)
		main_print_error(&err);
	return r != 0 ? 1 : 0;
}

int
main(int argc, char **argv)
{
	struct main_opts o;
	struct dbp_error err;
	struct sigaction sa;
	struct devstat ds = { .name = "" };
	struct stats st;
	char **files = NULL, **expanded = NULL;
	size_t i, nfiles = 0;
	int first, r;

	/* getopt's own messages name the program as ours do. */
	argv[0] = (char *)"debunpack";
	if ((first = main_parse(argc, argv, &o)) < 0) {
		/* The cause was said in one line; the help is one option away. */
		fprintf(stderr, "Try 'debunpack --help' for more information.\n");
		return 2;
	}
	/* --recover says what it repaired. */
	o.in.note = main_note;
	o.in.ctx = &o;
	if (o.action != ACT_INSTALL && o.action != ACT_DRY_RUN)
		return main_query(&o, argc, argv, first);
	o.in.dry_run = o.action == ACT_DRY_RUN;
	memset(&st, 0, sizeof(st));
	dbp_err_clear(&err);
	/* Package names for a removal; files, "-" and -R's directories else. */
	if (o.in.remove) {
		files = argv + first;
		nfiles = (size_t)(argc - first);
	} else if (operands_expand(argv + first, (size_t)(argc - first),
	    o.recursive, &expanded, &nfiles, &err) != 0) {
		main_print_error(&err);
		return 1;
	} else
		files = expanded;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = main_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	o.in.stop = &main_stop;
	/* A front end that stops reading must not kill the run. */
	if (o.status_fd >= 0)
		signal(SIGPIPE, SIG_IGN);
	if ((o.status_fd >= 0 || (!o.no_progress && o.verbose >= 0 &&
	    isatty(STDERR_FILENO))) && progress_new(&o.pg, !o.no_progress &&
	    o.verbose >= 0 && isatty(STDERR_FILENO) ? stderr : NULL,
	    o.status_fd, nfiles, NULL) != 0)
		o.pg = NULL;	/* no progress is no reason to fail */
	/* The disk's counters before and after: what the run cost it. */
	if (o.stats != 0 && devstat_open(&ds, o.in.root) != 0)
		ds.name[0] = '\0';
	r = install_run(&o.in, files, nfiles, &st, &err);
	if (o.fmt == QUERY_JSON && r == 0)
		puts(o.nplan > 0 ? "]" : "[]");
	if (r == 0 && ds.name[0] != '\0') {
		struct devstat before = ds;

		if (devstat_read(&ds) == 0) {
			snprintf(st.dev.name, sizeof(st.dev.name), "%s",
			    ds.name);
			st.dev.flushes = ds.flushes - before.flushes;
			st.dev.flush_ms = ds.flush_ms - before.flush_ms;
			st.dev.written = ds.written - before.written;
		}
	}
	if (r != 0 && o.pg != NULL) {
		char line[3 * PATH_MAX + 1200];

		/*
		 * As dpkg: the package by name when its control was read,
		 * else the package file.
		 */
		main_format_error(&err, false, line, sizeof(line));
		progress_error(o.pg, err.pkg[0] == '\0' ? NULL :
		    o.cur_file != NULL && o.nnames > 0 &&
		    strcmp(o.cur_file, err.pkg) == 0 ? o.names[o.nnames - 1] :
		    err.pkg, line);
	}
	else
		progress_phase(o.pg, PROGRESS_DONE);
	progress_free(o.pg);
	for (i = 0; i < o.nnames; i++)
		free(o.names[i]);
	free(o.names);
	free(o.states);
	/* Not before: the error line above may name the package by its file. */
	operands_free(expanded, expanded != NULL ? nfiles : 0);
	if (r != 0) {
		main_print_error(&err);
		return 1;
	}
	if (o.stats == 1)
		stats_write_text(stdout, &st);
	else if (o.stats == 2)
		stats_write_json(stdout, &st);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		dbp_err(&err, errno, NULL, "cannot write to standard output");
		main_print_error(&err);
		return 1;
	}
	return 0;
}
