/* SPDX-License-Identifier: MIT */
/* The command line: every option defined once (name, argument, help, check), and each action with what it needs. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/options.h"
#include "deb/control.h"
#include "extract/pathfilter.h"
#include "run/unpackdeps.h"
#include "syncbatch.h"

/* More threads than this only add memory: the reader is the limit. */
#define OPTIONS_JOBS_MAX	64
/*
 * The default, one thread a CPU up to this: the one thread that writes,
 * hashes and checks takes the bytes of about eight xz decoders (xz
 * decodes at 50-100 MB/s a core, the writer moves 500 MB/s and more), and
 * each thread adds up to 40 MiB of memory (install.c).
 */
#define OPTIONS_JOBS_DEFAULT_MAX	8
/* --cache default, for root (the FHS's place for a program's cache). */
#define OPTIONS_CACHE_ROOT	"/var/cache/debunpack"

/*
 * The actions, each with what it needs and allows: the checks between
 * options are made from these rows, not written out one by one.
 */
static const struct cli_command options_commands[] = {
	{ ACT_INSTALL, NULL, CMD_ROOT | CMD_REMOVE | CMD_OPERANDS, "install" },
	{ ACT_DRY_RUN, "dry-run", CMD_JSON | CMD_REMOVE | CMD_OPERANDS, NULL },
	{ ACT_LIST, "list", CMD_QUERY | CMD_JSON, NULL },
	{ ACT_OWNER, "owner", CMD_QUERY | CMD_JSON, NULL },
	{ ACT_FILES, "files", CMD_QUERY | CMD_OPERANDS, NULL },
	{ ACT_VERIFY, "verify", CMD_QUERY | CMD_JSON | CMD_RPM, NULL },
	{ ACT_CONTENTS, "contents", CMD_QUERY | CMD_OPERANDS, NULL },
	{ ACT_RECOVER, "recover", CMD_REPAIR | CMD_ROOT | CMD_NO_OPERANDS,
	    "repair" },
	{ ACT_CACHE_INFO, "cache-info", CMD_CACHE | CMD_NO_OPERANDS, NULL },
	{ ACT_CACHE_PRUNE, "cache-prune", CMD_CACHE | CMD_NO_OPERANDS, NULL },
};
#define OPTIONS_NCOMMANDS \
	(sizeof(options_commands) / sizeof(options_commands[0]))

struct cli_option;
typedef int options_set_fn(struct cli_opts *, const struct cli_option *,
    const char *);

/* One option: its names, its argument, its help, and what it sets. */
struct cli_option {
	const char *name;
	int short_name;		/* or 0 */
	int has_arg;		/* getopt_long's */
	const char *arg;	/* its argument as the help shows it, or "" */
	const char *help;	/* lines, '\n' between them */
	options_set_fn *set;	/* sets O, or says in one line what is wrong */
	size_t flag;		/* options_flag: the bool's offset in O */
};

/* A value that OPT does not take: "--NAME takes WHAT, not 'ARG'". */
static int
options_fail(const struct cli_option *opt, const char *what, const char *arg)
{
	fprintf(stderr, "debunpack: --%s takes %s, not '%s'\n", opt->name,
	    what, arg);
	return -1;
}

static int
options_flag(struct cli_opts *o, const struct cli_option *opt, const char *arg)
{
	(void)arg;
	*(bool *)((char *)o + opt->flag) = true;
	return 0;
}

/*
 * The options of the actions whose flags have FLAG (0: every action's),
 * as a list: " --a, --b and --c".
 */
static void
options_actions(FILE *fp, unsigned flag)
{
	size_t i, n = 0, k = 0;

	for (i = 0; i < OPTIONS_NCOMMANDS; i++)
		if (options_commands[i].option != NULL &&
		    (options_commands[i].flags & flag) == flag)
			n++;
	for (i = 0; i < OPTIONS_NCOMMANDS; i++)
		if (options_commands[i].option != NULL &&
		    (options_commands[i].flags & flag) == flag)
			fprintf(fp, "%s --%s", k++ == 0 ? "" : k == n ?
			    " and" : ",", options_commands[i].option);
}

static int
options_action(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	size_t i;

	if (o->cmd->option != NULL) {
		fprintf(stderr, "debunpack:");
		options_actions(stderr, 0);
		fprintf(stderr, " exclude each other\n");
		return -1;
	}
	for (i = 0; i < OPTIONS_NCOMMANDS; i++)
		if (options_commands[i].option != NULL &&
		    strcmp(options_commands[i].option, opt->name) == 0)
			o->cmd = &options_commands[i];
	o->action = o->cmd->action;
	o->owner = arg;
	return 0;
}

static int
options_help(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	(void)o, (void)opt, (void)arg;
	options_usage(stdout);
	return -2;
}

static int
options_version(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	(void)opt, (void)arg;
	/*
	 * main.c names the libraries: the table is linked into the dpkg for
	 * apt too (its --help), which links neither libarchive nor Nettle.
	 */
	o->version = true;
	return -2;
}

static int
options_quiet(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	(void)arg;
	o->verbose = opt->short_name == 'q' ? -1 : 1;
	return 0;
}

static int
options_json(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	(void)opt, (void)arg;
	o->fmt = QUERY_JSON;
	return 0;
}

static int
options_verify_format(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	if (strcmp(arg, "rpm") == 0)
		o->fmt = QUERY_RPM;
	else if (strcmp(arg, "text") != 0)
		return options_fail(opt, "text or rpm", arg);
	return 0;
}

static int
options_root(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	(void)opt;
	o->in.root = arg;
	o->root_given = true;
	return 0;
}

static int
options_admindir(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	(void)opt;
	o->in.admindir = arg;
	return 0;
}

/* A static qemu-user for a foreign root (emulate.h): copied, or registered. */
static int
options_emulator(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	if (arg[0] == '\0')
		return options_fail(opt, "an emulator's path", arg);
	o->in.emulator = arg;
	return 0;
}

static int
options_dpkg_admindir(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	if (arg[0] == '\0')
		return options_fail(opt, "a directory", arg);
	o->in.dpkg_admindir = arg;
	return 0;
}

static int
options_remove(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	(void)arg;
	o->in.remove = true;
	o->in.rm.purge = o->in.rm.purge || strcmp(opt->name, "purge") == 0;
	return 0;
}

static int
options_run_preinst(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	(void)opt, (void)arg;
	o->in.run_preinst = o->in.dpkg_db = true;
	return 0;
}

static int
options_maintscripts(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	(void)opt, (void)arg;
	/* dpkg --unpack leaves every conffile's choice to --configure. */
	o->in.dpkg_db = o->maintscripts = o->in.dpkg_new = true;
	return 0;
}

static int
options_merged_usr(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	if (arg == NULL || strcmp(arg, "yes") == 0)
		o->in.usrmerge = USRMERGE_YES;
	else if (strcmp(arg, "no") == 0)
		o->in.usrmerge = USRMERGE_NO;
	else if (strcmp(arg, "auto") == 0)
		o->in.usrmerge = USRMERGE_AUTO;
	else
		return options_fail(opt, "auto, yes or no", arg);
	return 0;
}

static int
options_status_fd(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || n < 0 || n > INT_MAX ||
	    fcntl((int)n, F_GETFL) < 0)
		return options_fail(opt, "an open file descriptor", arg);
	o->status_fd = (int)n;
	/*
	 * As dpkg: a daemon a script leaves running must not keep the front
	 * end's pipe open.
	 */
	(void)fcntl(o->status_fd, F_SETFD, fcntl(o->status_fd, F_GETFD) |
	    FD_CLOEXEC);
	return 0;
}

/* --path-exclude, --path-include: one more rule, after those given. */
static int
options_path_filter(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	/*
	 * As dpkg, any pattern: one that does not start with "/" matches
	 * no path, which a front end passing dpkg.cfg's lines relies on.
	 */
	if (pathfilter_add(&o->filters, arg, strcmp(opt->name,
	    "path-include") == 0) != 0) {
		fprintf(stderr, "debunpack: --%s: out of memory\n", opt->name);
		return -1;
	}
	o->in.filters = o->filters;
	return 0;
}

/*
 * --ignore-depends=LIST: dpkg's comma-separated package names, each
 * NAME or NAME:ARCH, joined to those of earlier ones (dpkg adds them up).
 */
static int
options_ignore_depends(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	size_t old;
	char *v;

	if (!unpackdeps_ignore_valid(arg))
		return options_fail(opt, "package names separated by commas",
		    arg);
	old = o->ignore_depends != NULL ? strlen(o->ignore_depends) : 0;
	if ((v = realloc(o->ignore_depends, old + strlen(arg) + 2)) == NULL) {
		fprintf(stderr, "debunpack: --%s: out of memory\n", opt->name);
		return -1;
	}
	if (old > 0)
		v[old++] = ',';
	strcpy(v + old, arg);
	o->ignore_depends = v;
	o->in.ignore_depends = v;
	return 0;
}

/* A Debian architecture name, as dpkg --print-architecture prints one. */
static int
options_architecture(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	if (!control_valid_arch(arg) || strcmp(arg, "all") == 0 ||
	    strcmp(arg, "any") == 0)
		return options_fail(opt, "an architecture name", arg);
	o->in.architecture = arg;
	return 0;
}

static int
options_dpkg_force(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	(void)opt;
	o->in.dpkg_force = arg;
	return 0;
}

/* dpkg's action, named in its error lines: "unpack" unless "install". */
static int
options_dpkg_messages(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	o->dpkg_messages = true;
	if (arg != NULL && strcmp(arg, "unpack") != 0 &&
	    strcmp(arg, "install") != 0)
		return options_fail(opt, "'unpack', 'install' or nothing", arg);
	o->dpkg_action = arg;
	return 0;
}

static int
options_stats(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	if (arg == NULL || strcmp(arg, "text") == 0)
		o->stats = 1;
	else if (strcmp(arg, "json") == 0)
		o->stats = 2;
	else
		return options_fail(opt, "'json' or nothing", arg);
	return 0;
}

static int
options_jobs(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || n < 1 ||
	    n > OPTIONS_JOBS_MAX) {
		fprintf(stderr, "debunpack: --%s takes a number from 1 to %d,"
		    " not '%s'\n", opt->name, OPTIONS_JOBS_MAX, arg);
		return -1;
	}
	o->in.jobs = (unsigned)n;
	return 0;
}

static int
options_sync_mode(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	const char *const *m;

	(void)opt;
	for (m = syncbatch_modes; *m != NULL; m++)
		if (strcmp(*m, arg) == 0)
			break;
	if (*m == NULL) {
		fprintf(stderr, "debunpack: unknown sync mode '%s' (auto,"
		    " syncfs, batched, perfile or none)\n", arg);
		return -1;
	}
	o->in.mode = *m;
	return 0;
}

/*
 * --cache's DIR, where "default" is the documented place: the system's
 * cache for root, the user's own otherwise (XDG's cache directory).
 */
static int
options_cache(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	static char dir[PATH_MAX];
	const char *base;

	(void)opt;
	o->in.cache = arg[0] != '\0' ? arg : NULL;
	if (strcmp(arg, "default") != 0)
		return 0;
	if (geteuid() == 0)
		o->in.cache = OPTIONS_CACHE_ROOT;
	else if ((base = getenv("XDG_CACHE_HOME")) != NULL && base[0] == '/')
		snprintf(dir, sizeof(dir), "%s/debunpack", base);
	else if ((base = getenv("HOME")) != NULL && base[0] == '/')
		snprintf(dir, sizeof(dir), "%s/.cache/debunpack", base);
	else {
		fprintf(stderr, "debunpack: --cache default: neither"
		    " XDG_CACHE_HOME nor HOME is set\n");
		return -1;
	}
	if (geteuid() != 0)
		o->in.cache = dir;
	return 0;
}

#define OPTIONS_SIZE_WHAT	"a size (bytes, or with K, M, G or T)"

/* ARG as a size in bytes, with K, M, G or T (powers of 1024) after it. */
static int
options_size(const char *arg, unsigned long long *out)
{
	unsigned long long n;
	char *end;
	int shift = 0;

	errno = 0;
	n = strtoull(arg, &end, 10);
	if (*end != '\0' && end[1] == '\0')
		shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ?
		    30 : *end == 'T' ? 40 : -1;
	if (errno != 0 || end == arg || arg[0] == '-' || shift < 0 ||
	    (*end != '\0' && end[1] != '\0') || n > (~0ULL >> shift))
		return -1;
	*out = n << shift;
	return 0;
}

static int
options_cache_max_size(struct cli_opts *o, const struct cli_option *opt,
    const char *arg)
{
	if (options_size(arg, &o->in.cache_max_size) != 0)
		return options_fail(opt, OPTIONS_SIZE_WHAT, arg);
	return 0;
}

#define FLAG(field)	options_flag, offsetof(struct cli_opts, field)

/* Sorted by name: --help lists them in this order. */
static const struct cli_option options_table[] = {
	{ "admindir", 0, required_argument, " DIR",
	    "package records in DIR (default\nROOT/var/lib/debunpack)",
	    options_admindir, 0 },
	{ "architecture", 0, required_argument, "=ARCH", "the root's native"
	    " architecture (default:\nthe one the host's dpkg is built for)",
	    options_architecture, 0 },
	{ "auto-deconfigure", 0, no_argument, "", "deconfigure an installed"
	    " package that\none unpacked Breaks, as dpkg's -B does\n"
	    "(--maintscripts)", FLAG(in.auto_deconfigure) },
	{ "cache", 0, required_argument, " DIR", "keep the unpacked files in"
	    " the store DIR and\nclone them from it instead of decoding\n"
	    "(\"default\": " OPTIONS_CACHE_ROOT " for root,\n"
	    "~/.cache/debunpack otherwise; also\nDEBUNPACK_CACHE)",
	    options_cache, 0 },
	{ "cache-info", 0, no_argument, "", "print the store's size, entries"
	    " and hits", options_action, 0 },
	{ "cache-max-size", 0, required_argument, " SIZE", "evict the store's"
	    " least recently used\nentries past SIZE bytes (K, M, G, T;"
	    " also\nDEBUNPACK_CACHE_MAX_SIZE)",
	    options_cache_max_size, 0 },
	{ "cache-prune", 0, no_argument, "", "evict entries down to"
	    " --cache-max-size\n(without it: all), and unused contents",
	    options_action, 0 },
	{ "cache-verify", 0, no_argument, "", "check each content's SHA-256"
	    " before it is\ncloned from the store", FLAG(in.cache_verify) },
	{ "contents", 0, no_argument, "", "list the entries of package files",
	    options_action, 0 },
	{ "dpkg-admindir", 0, required_argument, "=DIR", "dpkg's database is"
	    " DIR, not ROOT/var/lib/dpkg\n(dpkg's --admindir)",
	    options_dpkg_admindir, 0 },
	{ "dpkg-db", 0, no_argument, "", "keep dpkg's database"
	    " (ROOT/var/lib/dpkg) too:\npackages end up unpacked, for dpkg"
	    " --configure", FLAG(in.dpkg_db) },
	{ "dpkg-dist", 0, no_argument, "", "name a kept conffile's new"
	    " version\nNAME.dpkg-dist, as dpkg does (default:\n"
	    "NAME.debunpack-dist)", FLAG(in.dpkg_dist) },
	{ "dpkg-force", 0, required_argument, "=LIST", "DPKG_FORCE for the"
	    " maintainer scripts\n(--maintscripts; dpkg's force list)",
	    options_dpkg_force, 0 },
	{ "dpkg-messages", 0, optional_argument, "[=ACTION]", "print dpkg's"
	    " messages and errors, not\ndebunpack's (--maintscripts), as"
	    " dpkg's\n--ACTION: unpack (default) or install",
	    options_dpkg_messages, 0 },
	{ "dry-run", 0, no_argument, "", "say what an install would do,"
	    " write nothing", options_action, 0 },
	{ "emulator", 0, required_argument, "=PATH", "a static qemu-user for"
	    " a foreign root's\nscripts, where binfmt_misc's entry lacks\n"
	    "the F flag or it has none (default:\n$DEBUNPACK_EMULATOR)",
	    options_emulator, 0 },
	{ "files", 0, no_argument, "", "list the paths of installed packages",
	    options_action, 0 },
	{ "force-architecture", 0, no_argument, "", "install a package of an"
	    " architecture\nthe root does not take", FLAG(in.force_architecture) },
	{ "force-depends", 0, no_argument, "", "remove a package others"
	    " depend on", FLAG(in.rm.force_depends) },
	{ "force-overwrite", 0, no_argument, "", "take over paths of other"
	    " packages", FLAG(in.force_overwrite) },
	{ "force-remove-essential", 0, no_argument, "", "remove an essential"
	    " or protected\npackage", FLAG(in.rm.force_essential) },
	{ "force-script-chrootless", 0, no_argument, "", "run the maintainer"
	    " scripts without chroot,\nDPKG_ROOT set (--maintscripts)",
	    FLAG(in.script_chrootless) },
	{ "help", 'h', no_argument, "", "show this help and exit",
	    options_help, 0 },
	{ "jobs", 'j', required_argument, " N", "decompress with N threads"
	    " (default: the\nonline CPUs, at most 8; 1: in the main\nthread)",
	    options_jobs, 0 },
	{ "ignore-depends", 0, required_argument, "=LIST", "take a"
	    " pre-dependency on a package of LIST\nas satisfied, and ignore"
	    " Pre-Depends and\nBreaks problems of its own or with it, as"
	    "\ndpkg's option (--maintscripts)", options_ignore_depends, 0 },
	{ "json", 0, no_argument, "", "--list, --owner, --verify and"
	    " --dry-run write\na JSON array", options_json, 0 },
	{ "list", 0, no_argument, "", "list the installed packages (those"
	    " the\npatterns name, as dpkg-query -l)", options_action, 0 },
	{ "maintscripts", 0, no_argument, "", "run prerm, preinst and postrm"
	    " as dpkg --unpack\nruns them (implies --dpkg-db)",
	    options_maintscripts, 0 },
	{ "merged-usr", 0, optional_argument, "[=WHEN]", "make bin, sbin,"
	    " lib... links to usr/ in a new\nroot: auto (default: for bookworm"
	    " or later),\nyes, no", options_merged_usr, 0 },
	{ "no-progress", 0, no_argument, "", "no progress line on a terminal",
	    FLAG(no_progress) },
	{ "no-scripts", 0, no_argument, "", "remove a package that has prerm"
	    " or postrm\nscripts without running them", FLAG(in.rm.no_scripts) },
	/* Optional: a pattern after it is an operand, and so may an option be. */
	{ "owner", 0, optional_argument, " PATTERN...", "the installed paths"
	    " that match, and their\npackages, as dpkg -S (a path, a glob or"
	    " a\npart of a path)", options_action, 0 },
	{ "path-exclude", 0, required_argument, "=GLOB", "leave out the"
	    " paths GLOB matches, as dpkg\n(\"/usr/share/doc/*\"; the last"
	    " --path-*\noption that matches a path decides)",
	    options_path_filter, 0 },
	{ "path-include", 0, required_argument, "=GLOB", "keep the paths GLOB"
	    " matches, an earlier\n--path-exclude notwithstanding",
	    options_path_filter, 0 },
	{ "purge", 0, no_argument, "", "remove installed packages and their"
	    " conffiles", options_remove, 0 },
	{ "quiet", 'q', no_argument, "", "print errors only", options_quiet,
	    0 },
	{ "recover", 0, no_argument, "", "repair what an interrupted run left",
	    options_action, 0 },
	{ "recursive", 'R', no_argument, "", "install the *.deb files under"
	    " directories", FLAG(recursive) },
	{ "remove", 0, no_argument, "", "remove installed packages, keeping"
	    " their\nconffiles", options_remove, 0 },
	{ "root", 0, required_argument, " DIR", "install under DIR (/ for the"
	    " running system;\nqueries read / without it)", options_root, 0 },
	{ "run-preinst", 0, no_argument, "", "then run the preinsts in the"
	    " root (chroot;\nimplies --dpkg-db)", options_run_preinst, 0 },
	{ "skip-devices", 0, no_argument, "", "when not root, skip device"
	    " nodes with a warning", FLAG(in.skip_devices) },
	{ "stats", 0, optional_argument, "[=json]", "print counts, sync calls"
	    " and phase times", options_stats, 0 },
	{ "status-fd", 0, required_argument, " N", "machine-readable progress"
	    " on descriptor N", options_status_fd, 0 },
	{ "sync-mode", 0, required_argument, " MODE", "auto (default: syncfs"
	    " on ext4, xfs, btrfs,\nf2fs and tmpfs, batched elsewhere),"
	    " syncfs,\nbatched, perfile or none", options_sync_mode, 0 },
	{ "verbose", 'v', no_argument, "", "name each package as it is"
	    " unpacked", options_quiet, 0 },
	{ "verify", 0, no_argument, "", "compare the root with the package"
	    " records", options_action, 0 },
	{ "verify-format", 0, required_argument, "=FORMAT", "text (default)"
	    " or rpm: dpkg --verify's\nlines (rpm -V's format)",
	    options_verify_format, 0 },
	{ "version", 'V', no_argument, "", "show the version and exit",
	    options_version, 0 },
};
#define OPTIONS_N	(sizeof(options_table) / sizeof(options_table[0]))

void
options_usage(FILE *fp)
{
	const struct cli_option *opt;
	const char *line, *nl;
	int w;

	fputs("usage: debunpack --root DIR [--admindir DIR] [--dry-run]\n"
	    "                 [--force-overwrite] [--skip-devices] [--stats[=json]]\n"
	    "                 [--architecture=ARCH] [--force-architecture]\n"
	    "                 [--sync-mode auto|syncfs|batched|perfile|none]\n"
	    "                 [--dpkg-db] [--dpkg-admindir=DIR] [--dpkg-dist]\n"
	    "                 [--merged-usr[=auto|yes|no]]\n"
	    "                 [--path-exclude=GLOB] [--path-include=GLOB]\n"
	    "                 [--run-preinst] [--emulator=PATH] [--status-fd N] [--no-progress]\n"
	    "                 [--maintscripts [--dpkg-messages[=ACTION]] [--dpkg-force=LIST]\n"
	    "                 [--force-script-chrootless] [--auto-deconfigure]\n"
	    "                  [--ignore-depends=LIST]]\n"
	    "                 [--cache DIR [--cache-max-size SIZE] [--cache-verify]]\n"
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
	    "       debunpack --cache DIR [--cache-max-size SIZE]\n"
	    "                 --cache-info|--cache-prune\n"
	    "       debunpack --help | --version\n\n", fp);
	/* The names to column 24, the help beside them, its lines below. */
	for (opt = options_table; opt < options_table + OPTIONS_N; opt++) {
		if (opt->short_name != 0)
			w = fprintf(fp, "  -%c, --%s%s", opt->short_name,
			    opt->name, opt->arg);
		else
			w = fprintf(fp, "      --%s%s", opt->name, opt->arg);
		for (line = opt->help; line != NULL; line = nl != NULL ?
		    nl + 1 : NULL) {
			nl = strchr(line, '\n');
			fprintf(fp, "%*s%.*s\n", w < 22 ? 24 - w : 2, "",
			    nl != NULL ? (int)(nl - line) : (int)strlen(line),
			    line);
			w = 0;
		}
	}
}

/* The checks between options, made from the action's row. */
static int
options_check(int argc, struct cli_opts *o)
{
	unsigned f = o->cmd->flags;

	if (o->fmt == QUERY_JSON && !(f & CMD_JSON)) {
		fprintf(stderr, "debunpack: --json goes with");
		options_actions(stderr, CMD_JSON);
		fputc('\n', stderr);
		return -1;
	}
	if (o->fmt == QUERY_RPM && !(f & CMD_RPM)) {
		fprintf(stderr, "debunpack: --verify-format goes with"
		    " --verify\n");
		return -1;
	}
	if (o->in.remove && (!(f & CMD_REMOVE) || o->in.run_preinst)) {
		fprintf(stderr, "debunpack: --remove and --purge go with"
		    " --dry-run only, not with queries nor --run-preinst\n");
		return -1;
	}
	/* Removing makes no link of a merged /usr. */
	if (o->in.remove)
		o->in.usrmerge = USRMERGE_NO;
	if ((f & CMD_NO_OPERANDS) && optind < argc) {
		fprintf(stderr, "debunpack: --%s takes no package file\n",
		    o->cmd->option);
		return -1;
	}
	if (o->action == ACT_OWNER && o->owner == NULL && optind >= argc) {
		fprintf(stderr, "debunpack: --owner needs at least one"
		    " pattern\n");
		return -1;
	}
	if ((f & CMD_CACHE) && o->in.cache == NULL) {
		fprintf(stderr, "debunpack: --%s needs --cache DIR (or"
		    " DEBUNPACK_CACHE)\n", o->cmd->option);
		return -1;
	}
	if ((f & CMD_OPERANDS) && optind >= argc) {
		fprintf(stderr, "debunpack: no package given\n");
		return -1;
	}
	/*
	 * What writes needs --root, "/" included: a forgotten --root must not
	 * install over the running system's files (queries read "/").
	 */
	if ((f & CMD_ROOT) && !o->root_given) {
		fprintf(stderr, "debunpack: --root is required to %s (--root /"
		    " for the running system)\n", o->in.remove ? (o->in.rm.purge ?
		    "purge" : "remove") : o->cmd->verb);
		return -1;
	}
	if (o->maintscripts && (o->in.remove || o->in.run_preinst ||
	    o->action != ACT_INSTALL)) {
		fprintf(stderr, "debunpack: --maintscripts goes with an install"
		    " only, not with --remove, --purge, --dry-run,\n"
		    "--run-preinst nor queries\n");
		return -1;
	}
	if ((o->dpkg_messages || o->in.script_chrootless ||
	    o->in.dpkg_force != NULL || o->in.auto_deconfigure ||
	    o->in.ignore_depends != NULL) && !o->maintscripts) {
		fprintf(stderr, "debunpack: --dpkg-messages, --dpkg-force,"
		    " --auto-deconfigure,\n--ignore-depends and"
		    " --force-script-chrootless go with --maintscripts\n");
		return -1;
	}
	if (o->maintscripts && !o->in.script_chrootless && geteuid() != 0) {
		fprintf(stderr, "debunpack: --maintscripts needs root (it runs"
		    " the scripts with chroot) or --force-script-chrootless\n");
		return -1;
	}
	/* The scripts run in a chroot, which only root may enter. */
	if (o->in.run_preinst && geteuid() != 0) {
		fprintf(stderr, "debunpack: --run-preinst needs root (it runs"
		    " the scripts with chroot)\n");
		return -1;
	}
	return 0;
}

int
options_parse(int argc, char **argv, struct cli_opts *o)
{
	struct option longs[OPTIONS_N + 1];
	char shorts[2 * OPTIONS_N + 1], *s = shorts;
	const char *env;
	size_t i;
	long ncpu;
	int c, r;

	memset(o, 0, sizeof(*o));
	o->cmd = &options_commands[0];
	o->status_fd = -1;
	o->in.root = "/";
	o->in.mode = "auto";
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	o->in.jobs = ncpu > 1 ? (ncpu > OPTIONS_JOBS_DEFAULT_MAX ?
	    OPTIONS_JOBS_DEFAULT_MAX : (unsigned)ncpu) : 1;
	/* The environment's store, which --cache overrides. */
	if ((env = getenv("DEBUNPACK_CACHE")) != NULL && options_cache(o,
	    NULL, env) != 0)
		return -1;
	/*
	 * Its size limit, which --cache-max-size overrides: where debunpack
	 * is run by another program (the dpkg for apt, debunpack-bootstrap)
	 * the environment is the one way to bound the store.
	 */
	if ((env = getenv("DEBUNPACK_CACHE_MAX_SIZE")) != NULL &&
	    env[0] != '\0' && options_size(env, &o->in.cache_max_size) != 0) {
		fprintf(stderr, "debunpack: DEBUNPACK_CACHE_MAX_SIZE takes "
		    OPTIONS_SIZE_WHAT ", not '%s'\n", env);
		return -1;
	}
	/* The environment's emulator, which --emulator overrides. */
	if ((env = getenv("DEBUNPACK_EMULATOR")) != NULL && env[0] != '\0')
		o->in.emulator = env;
	/* getopt_long's tables, from the one above: VAL is the row. */
	memset(longs, 0, sizeof(longs));
	for (i = 0; i < OPTIONS_N; i++) {
		longs[i].name = options_table[i].name;
		longs[i].has_arg = options_table[i].has_arg;
		longs[i].val = 256 + (int)i;
		if (options_table[i].short_name != 0) {
			*s++ = (char)options_table[i].short_name;
			if (options_table[i].has_arg == required_argument)
				*s++ = ':';
		}
	}
	*s = '\0';
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		if (c < 256) {
			for (i = 0; i < OPTIONS_N; i++)
				if (options_table[i].short_name == c)
					break;
			if (i == OPTIONS_N)
				return -1;	/* getopt said why */
		} else
			i = (size_t)(c - 256);
		if ((r = options_table[i].set(o, &options_table[i],
		    optarg)) != 0)
			return r;
	}
	return options_check(argc, o) != 0 ? -1 : optind;
}
