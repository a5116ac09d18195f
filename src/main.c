/* debunpack: install .deb packages into a root, durably and fast. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>

#include "control.h"
#include "deb.h"
#include "dirs.h"
#include "error.h"
#include "escape.h"
#include "feed.h"
#include "manifest.h"
#include "journal.h"
#include "query.h"
#include "record.h"
#include "recover.h"
#include "rootfs.h"
#include "stats.h"
#include "syncbatch.h"
#include "unpack.h"
#include "users.h"

enum {
	OPT_STATS = 256, OPT_SKIP_DEVICES, OPT_SYNC_MODE, OPT_ROOT, OPT_ADMINDIR,
	OPT_LIST, OPT_OWNER, OPT_CONTENTS, OPT_FORCE_OVERWRITE, OPT_VERIFY,
	OPT_DRY_RUN, OPT_RECOVER
};

/* What a run does: install (the default) or answer a query. */
enum main_action {
	ACT_INSTALL, ACT_LIST, ACT_OWNER, ACT_CONTENTS, ACT_VERIFY, ACT_DRY_RUN,
	ACT_RECOVER
};

/* Where records go unless --admindir says otherwise, inside the root. */
#define MAIN_ADMINDIR	"var/lib/debunpack"
/* More threads than this only add memory: the reader is the limit. */
#define MAIN_JOBS_MAX	64
/* The default: past a few threads the one reader cannot keep up. */
#define MAIN_JOBS_DEFAULT_MAX	4
/*
 * Decompressed bytes queued ahead of the extraction, in all: enough for
 * most packages to be ready when their turn comes, small next to the
 * 64 MiB an install may take.
 */
#ifndef MAIN_FEED_BUDGET
#define MAIN_FEED_BUDGET	(8 * 1024 * 1024)
#endif

static const struct option main_options[] = {
	{ "admindir",		required_argument,	NULL, OPT_ADMINDIR },
	{ "contents",		no_argument,		NULL, OPT_CONTENTS },
	{ "dry-run",		no_argument,		NULL, OPT_DRY_RUN },
	{ "force-overwrite",	no_argument,		NULL, OPT_FORCE_OVERWRITE },
	{ "help",		no_argument,		NULL, 'h' },
	{ "jobs",		required_argument,	NULL, 'j' },
	{ "list",		no_argument,		NULL, OPT_LIST },
	{ "owner",		required_argument,	NULL, OPT_OWNER },
	{ "quiet",		no_argument,		NULL, 'q' },
	{ "recover",		no_argument,		NULL, OPT_RECOVER },
	{ "root",		required_argument,	NULL, OPT_ROOT },
	{ "skip-devices",	no_argument,		NULL, OPT_SKIP_DEVICES },
	{ "stats",		optional_argument,	NULL, OPT_STATS },
	{ "sync-mode",		required_argument,	NULL, OPT_SYNC_MODE },
	{ "verbose",		no_argument,		NULL, 'v' },
	{ "verify",		no_argument,		NULL, OPT_VERIFY },
	{ "version",		no_argument,		NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

struct main_opts {
	enum main_action action;
	const char *owner;	/* --owner PATH */
	const char *root;
	const char *admindir;	/* NULL: ROOT/var/lib/debunpack */
	const char *mode;
	int stats;		/* 0 none, 1 text, 2 json */
	unsigned jobs;		/* decompressing threads; 1: none */
	bool skip_devices;
	bool force_overwrite;
	int verbose;		/* -1 quiet, 0 normal, 1 verbose */
};

/* Where the run is, for warnings printed from library callbacks. */
struct main_ctx {
	const struct main_opts *opts;
	const char *pkg;
};

static volatile sig_atomic_t main_stop;

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: debunpack [--admindir DIR] [--dry-run] [--force-overwrite]\n"
	    "                 [--root DIR] [--skip-devices] [--stats[=json]]\n"
	    "                 [--sync-mode auto|syncfs|batched|perfile|none]\n"
	    "                 [-j N] [-q | -v] PKG.deb...\n"
	    "       debunpack [--admindir DIR] [--root DIR] --list | --owner PATH\n"
	    "       debunpack [--admindir DIR] [--root DIR] --verify [PKGNAME...]\n"
	    "       debunpack [--admindir DIR] [--root DIR] --recover\n"
	    "       debunpack --contents PKG.deb...\n"
	    "       debunpack --help | --version\n"
	    "\n"
	    "      --admindir DIR    package records in DIR (default\n"
	    "                        ROOT/var/lib/debunpack)\n"
	    "      --contents        list the entries of package files\n"
	    "      --dry-run         say what an install would do, do nothing\n"
	    "      --force-overwrite take over paths of other packages\n"
	    "  -h, --help            show this help and exit\n"
	    "  -j, --jobs N          decompress with N threads (default: the\n"
	    "                        online CPUs, at most 4; 1: in the main\n"
	    "                        thread)\n"
	    "      --list            list the installed packages\n"
	    "      --owner PATH      name the packages that installed PATH\n"
	    "  -q, --quiet           print errors only\n"
	    "      --recover         repair what an interrupted run left\n"
	    "      --root DIR        install under DIR (default /)\n"
	    "      --skip-devices    when not root, skip device nodes with a"
	    " warning\n"
	    "      --stats[=json]    print counts, sync calls and phase times\n"
	    "      --sync-mode MODE  auto (default: syncfs on ext4, xfs, btrfs,\n"
	    "                        f2fs and tmpfs, batched elsewhere), syncfs,\n"
	    "                        batched, perfile or none\n"
	    "  -v, --verbose         name each package as it is unpacked\n"
	    "      --verify          compare the root with the package records\n"
	    "  -V, --version         show the version and exit\n");
}

static void
main_on_signal(int sig)
{
	(void)sig;
	main_stop = 1;
}

static void
main_print_error(const struct dbp_error *err)
{
	char pkg[PATH_MAX], path[PATH_MAX], msg[1024];

	fprintf(stderr, "debunpack: ");
	if (err->pkg[0] != '\0')
		fprintf(stderr, "%s: ", escape_name(err->pkg, pkg, sizeof(pkg)));
	if (err->path[0] != '\0')
		fprintf(stderr, "'%s': ",
		    escape_name(err->path, path, sizeof(path)));
	/* Messages quote archive strings too (member names, link targets). */
	fprintf(stderr, "%s", err->msg[0] != '\0' ?
	    escape_name(err->msg, msg, sizeof(msg)) : "failed");
	if (err->errnum != 0)
		fprintf(stderr, ": %s", strerror(err->errnum));
	fputc('\n', stderr);
}

static void
main_warn(void *ctx, const char *path, const char *msg)
{
	struct main_ctx *mc = ctx;
	char pkg[PATH_MAX], p[PATH_MAX];

	if (mc->opts->verbose < 0)
		return;
	fprintf(stderr, "debunpack: warning: %s: '%s': %s\n",
	    escape_name(mc->pkg != NULL ? mc->pkg : "", pkg, sizeof(pkg)),
	    escape_name(path != NULL ? path : "", p, sizeof(p)), msg);
}

static int
main_parse(int argc, char **argv, struct main_opts *o)
{
	const char *const *m;
	char *end;
	long n;
	int c;

	memset(o, 0, sizeof(*o));
	o->root = "/";
	o->mode = "auto";
	n = sysconf(_SC_NPROCESSORS_ONLN);
	o->jobs = n > 1 ? (n > MAIN_JOBS_DEFAULT_MAX ? MAIN_JOBS_DEFAULT_MAX :
	    (unsigned)n) : 1;
	while ((c = getopt_long(argc, argv, "hj:qvV", main_options, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("debunpack %s\n%s\n", PACKAGE_VERSION,
			    archive_version_details());
			exit(0);
		case 'q':
			o->verbose = -1;
			break;
		case 'v':
			o->verbose = 1;
			break;
		case OPT_ROOT:
			o->root = optarg;
			break;
		case OPT_ADMINDIR:
			o->admindir = optarg;
			break;
		case OPT_LIST:
		case OPT_OWNER:
		case OPT_CONTENTS:
		case OPT_VERIFY:
		case OPT_DRY_RUN:
		case OPT_RECOVER:
			if (o->action != ACT_INSTALL) {
				fprintf(stderr, "debunpack: --list, --owner,"
				    " --contents, --verify, --dry-run and"
				    " --recover exclude each other\n");
				return -1;
			}
			o->action = c == OPT_LIST ? ACT_LIST : c == OPT_OWNER ?
			    ACT_OWNER : c == OPT_CONTENTS ? ACT_CONTENTS :
			    c == OPT_VERIFY ? ACT_VERIFY : c == OPT_RECOVER ?
			    ACT_RECOVER : ACT_DRY_RUN;
			o->owner = optarg;
			break;
		case OPT_SKIP_DEVICES:
			o->skip_devices = true;
			break;
		case OPT_FORCE_OVERWRITE:
			o->force_overwrite = true;
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
			o->jobs = (unsigned)n;
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
			o->mode = *m;
			break;
		default:
			return -1;
		}
	}
	if (o->action == ACT_LIST || o->action == ACT_OWNER ||
	    o->action == ACT_RECOVER) {
		if (optind < argc) {
			fprintf(stderr, "debunpack: --list, --owner and"
			    " --recover take no package file\n");
			return -1;
		}
	} else if (optind >= argc && o->action != ACT_VERIFY) {
		fprintf(stderr, "debunpack: no package given\n");
		return -1;
	}
	return optind;
}

/*
 * Descriptors a run may keep open: the soft limit less a reserve for the
 * package being read, the root, standard streams and the C library, and
 * no more than 2048 (past that, reopening costs less than the kernel
 * memory).  A quarter, up to 256, caches directories; the rest keeps
 * written files open until the commit.
 */
static void
main_fd_budget(size_t *files, size_t *dirs, unsigned jobs)
{
	struct rlimit rl;
	size_t n = 2048, keep = 16 + jobs;	/* each thread reads a package */

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < n + keep)
		n = rl.rlim_cur > keep + 16 ? (size_t)rl.rlim_cur - keep : 16;
	*dirs = n / 4 < 256 ? n / 4 : 256;
	if (*dirs < 4)
		*dirs = 4;
	*files = n - *dirs > 4 ? n - *dirs : 4;
}

/*
 * Threads only for what they can speed up: not more than the packages,
 * and none when a package is not a regular file (a pipe cannot be read
 * twice: a thread reads each package's data on its own descriptor).
 */
static void
main_jobs(struct main_opts *o, char **files, int n)
{
	struct stat st;
	int i;

	/* One package: one thread still decompresses while this one writes. */
	if (o->jobs > 2 && o->jobs > (unsigned)n)
		o->jobs = n > 2 ? (unsigned)n : 2;
	for (i = 0; i < n && o->jobs > 1; i++)
		if (stat(files[i], &st) != 0 || !S_ISREG(st.st_mode))
			o->jobs = 1;
}

/*
 * Extract one package into the batch and stage its record (written as a
 * temporary by manifest_prepare, renamed after the files).
 */
static int
main_unpack_one(struct unpack *u, struct manifest *man, struct feed *feed,
    const char *file, unsigned idx, const struct main_opts *o,
    struct stats *st, struct dbp_error *err)
{
	struct control *ctl = NULL;
	struct record *rec = NULL;
	struct archive *tar;
	struct deb *d;
	char esc[PATH_MAX];
	int r;

	if ((r = deb_open(&d, file, err)) != 0)
		return r;
	if ((r = deb_read_control(d, &ctl, err)) == 0 &&
	    manifest_in_run(man, control_get(ctl, "Package"))) {
		/* Before extracting it: one version of a package per run. */
		r = dbp_err(err, 0, "", "package '%s' is given twice",
		    control_get(ctl, "Package"));
		control_free(ctl);
	} else if (r == 0 && (r = record_new(&rec, ctl)) != 0) {
		control_free(ctl);
		r = dbp_err(err, -r, NULL, "cannot start record");
	} else if (r == 0) {
		if (o->verbose > 0) {
			char name[256], ver[256], arch[64];

			fprintf(stderr, "debunpack: unpacking %s %s (%s) from %s\n",
			    escape_name(control_get(ctl, "Package"), name,
			    sizeof(name)),
			    escape_name(control_get(ctl, "Version"), ver,
			    sizeof(ver)),
			    escape_name(control_get(ctl, "Architecture"), arch,
			    sizeof(arch)),
			    escape_name(file, esc, sizeof(esc)));
		}
		if ((r = unpack_set_conffiles(u, deb_conffiles(d), err)) == 0 &&
		    (r = feed != NULL ? deb_data_open_fed(d, &tar, feed_read,
		    feed_pkg(feed, idx, deb_fd(d)), err) : deb_data_open(d, &tar,
		    err)) == 0 &&
		    (r = unpack_archive(u, tar, idx, rec, err)) == 0 &&
		    (r = deb_finish(d, err)) == 0) {
			r = manifest_stage(man, rec, err);
			rec = NULL;	/* the manifest took it */
		}
	}
	if (r == 0)
		st->packages++;
	if (feed != NULL)
		feed_done(feed, idx);
	record_free(rec);
	deb_close(d);
	return r;
}

static int
main_journal_dir(void *ctx, enum dirs_log kind, const char *path,
    const struct timespec *times)
{
	if (kind == DIRS_LOG_ASIDE)
		return journal_aside(ctx, path);
	return journal_dir(ctx, path, kind == DIRS_LOG_FOUND ? times : NULL);
}

/*
 * Attach the admin directory: --admindir, which must exist, or
 * ROOT/var/lib/debunpack, created inside the root as part of the batch
 * (so that a failed run removes it again).
 */
static int
main_admindir(const struct main_opts *o, const struct rootfs *rf,
    struct dirs *dirs, struct syncbatch *sb, struct manifest *man,
    struct stats *st, struct dbp_error *err)
{
	size_t idx;
	int fd, r;

	if (o->admindir != NULL) {
		fd = open(o->admindir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return dbp_err(err, errno, o->admindir,
			    "cannot open admin directory");
		r = manifest_admin(man, fd, rf->openat2, sb, st, err);
		close(fd);
		return r;
	}
	if ((r = dirs_get(dirs, MAIN_ADMINDIR, true, 0755, &idx, err)) != 0)
		return r;
	if ((fd = dirs_fd(dirs, idx)) < 0)
		return dbp_err(err, -fd, MAIN_ADMINDIR,
		    "cannot open admin directory");
	return manifest_admin(man, fd, rf->openat2, sb, st, err);
}

/* A dry run's conflicts become its error; 2 means "already said". */
static int
main_dry_run(struct manifest *man, const struct rootfs *rf, char **files,
    struct dbp_error *err)
{
	int r = query_dry_run(man, rf, files, stdout, err);

	if (r > 0) {
		dbp_err(err, 0, NULL, "%d conflict%s", r, r == 1 ? "" : "s");
		return 2;
	}
	return r;
}

/*
 * Before anything else: if the admin directory holds the journal of an
 * interrupted run, repair the root as it says.  LOCK: the run needs the
 * admin directory to itself (an install); otherwise (a query) a run in
 * progress is left alone and the records are read as they are.
 */
static int
main_recover(const struct main_opts *o, const struct rootfs *rf, bool lock,
    struct dbp_error *err)
{
	struct recover_result res;
	int fd, r;

	if (o->admindir != NULL)
		fd = open(o->admindir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	else
		fd = rootfs_resolve(rf, MAIN_ADMINDIR, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		r = o->admindir != NULL ? errno : -fd;
		if (r == ENOENT)
			return 0;	/* nothing installed, nothing to repair */
		return dbp_err(err, r, o->admindir != NULL ? o->admindir :
		    MAIN_ADMINDIR, "cannot open admin directory");
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		r = errno;
		close(fd);
		if (!lock && r == EWOULDBLOCK)
			return 0;
		return dbp_err(err, r, o->admindir != NULL ? o->admindir :
		    MAIN_ADMINDIR, r == EWOULDBLOCK ? "in use by another run" :
		    "cannot lock admin directory");
	}
	r = recover_run(rf, fd, &res, err);
	close(fd);
	if (r == 0 && res.found && o->verbose >= 0)
		fprintf(stderr, "debunpack: repaired an interrupted run: %s"
		    " (%zu names %s, %zu leftovers removed%s)\n",
		    res.forward ? "finished it" : "undid it", res.items,
		    res.forward ? "committed" : "put back", res.removed,
		    res.forward ? ", old paths removed" : "");
	return r;
}

/* --list, --owner, --contents: read only, print on standard output. */
static int
main_query(const struct main_opts *o, int argc, char **argv, int first)
{
	struct manifest *man = NULL;
	struct rootfs rf = { -1, false };
	struct dbp_error err;
	struct stats st;
	int fd = -1, i, r = 0;

	dbp_err_clear(&err);
	memset(&st, 0, sizeof(st));
	if (o->action == ACT_CONTENTS) {
		for (i = first; r == 0 && i < argc; i++)
			if ((r = query_contents(argv[i], stdout, &err)) != 0)
				dbp_err_pkg(&err, argv[i]);
		goto out;
	}
	if ((r = rootfs_open(&rf, o->root, &err)) != 0 ||
	    (r = main_recover(o, &rf, o->action == ACT_RECOVER, &err)) != 0 ||
	    o->action == ACT_RECOVER)
		goto out;
	if ((r = manifest_new(&man)) != 0)
		goto out;
	if (o->admindir != NULL)
		fd = open(o->admindir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	else
		fd = rootfs_resolve(&rf, MAIN_ADMINDIR, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		int e = o->admindir != NULL ? errno : -fd;

		/* No admin directory yet: nothing is installed. */
		if (e != ENOENT)
			r = dbp_err(&err, e, o->admindir != NULL ?
			    o->admindir : MAIN_ADMINDIR,
			    "cannot open admin directory");
		else if (o->action == ACT_OWNER)
			r = 1;
		else if (o->action == ACT_DRY_RUN)
			r = main_dry_run(man, &rf, argv + first, &err);
		fd = -1;
	} else if ((r = manifest_admin(man, fd, rf.openat2, NULL, &st,
	    &err)) == 0) {
		if (o->action == ACT_LIST)
			r = query_list(man, stdout, &err);
		else if (o->action == ACT_OWNER)
			r = query_owner(man, o->owner, stdout, &err);
		else if (o->action == ACT_DRY_RUN) {
			if ((r = manifest_load_installed(man, &err)) == 0)
				r = main_dry_run(man, &rf, argv + first, &err);
		}
		else if ((r = query_verify(man, &rf, argv + first,
		    geteuid() == 0, stdout, &err)) > 0) {
			dbp_err(&err, 0, NULL, "%d problem%s found", r,
			    r == 1 ? "" : "s");
			r = 2;
		}
	}
	if (r == 1)
		dbp_err(&err, 0, o->owner, "no package owns this path");
out:
	if (fd >= 0)
		close(fd);
	manifest_free(man);
	rootfs_close(&rf);
	if (fflush(stdout) != 0 && r == 0)
		r = dbp_err(&err, errno, NULL, "cannot write to standard output");
	if (r != 0)
		main_print_error(&err);
	return r != 0 ? 1 : 0;
}

int
main(int argc, char **argv)
{
	struct main_opts o;
	struct main_ctx mc;
	struct unpack_opts uo;
	struct rootfs rf = { -1, false };
	struct users *users = NULL;
	struct dirs *dirs = NULL;
	struct syncbatch *sb = NULL;
	struct manifest *man = NULL;
	struct journal *j = NULL;
	struct unpack *u = NULL;
	struct feed *feed = NULL;
	struct stats st;
	struct dbp_error err, ign;
	struct sigaction sa;
	size_t maxfiles, maxdirs;
	double t0;
	int first, i, r, status = 1;

	if ((first = main_parse(argc, argv, &o)) < 0) {
		usage(stderr);
		return 2;
	}
	if (o.action != ACT_INSTALL)
		return main_query(&o, argc, argv, first);
	memset(&st, 0, sizeof(st));
	dbp_err_clear(&err);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = main_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	mc.opts = &o;
	mc.pkg = NULL;
	memset(&uo, 0, sizeof(uo));
	uo.chown = geteuid() == 0;
	uo.devices = geteuid() == 0;
	uo.skip_devices = o.skip_devices;
	uo.force_overwrite = o.force_overwrite;
	uo.stop = &main_stop;
	uo.warn = main_warn;
	uo.warn_ctx = &mc;

	if ((r = rootfs_open(&rf, o.root, &err)) != 0 ||
	    (r = main_recover(&o, &rf, true, &err)) != 0)
		goto out;
	if (uo.chown && (r = users_load(&users, &rf)) != 0) {
		dbp_err(&err, -r, "etc/passwd", "cannot read users");
		goto out;
	}
	/* The strategy follows the filesystem of the root (syncbatch.c). */
	if (strcmp(o.mode, "auto") == 0)
		o.mode = syncbatch_auto(rf.fd);
	main_jobs(&o, argv + first, argc - first);
	main_fd_budget(&maxfiles, &maxdirs, o.jobs);
	if ((r = dirs_new(&dirs, &rf, maxdirs)) != 0 ||
	    (r = journal_new(&j, strcmp(o.mode, "none") != 0, &st)) != 0 ||
	    (r = manifest_new(&man)) != 0 ||
	    (r = syncbatch_new(&sb, o.mode, dirs, &st, maxfiles)) != 0 ||
	    (r = unpack_new(&u, &uo, dirs, sb, man, users, &st)) != 0) {
		dbp_err(&err, -r, NULL, "cannot start");
		goto out;
	}
	/* Every directory the run touches is in the journal before it is. */
	dirs_set_log(dirs, main_journal_dir, j);
	syncbatch_set_journal(sb, j);
	if ((r = main_admindir(&o, &rf, dirs, sb, man, &st, &err)) != 0 ||
	    (r = manifest_lock(man, &err)) != 0 ||
	    (r = journal_open(j, manifest_admin_fd(man), &err)) != 0 ||
	    (r = manifest_load_installed(man, &err)) != 0)
		goto abort;

	t0 = stats_now();
	if (o.jobs > 1 && (r = feed_new(&feed, argv + first,
	    (size_t)(argc - first), o.jobs, MAIN_FEED_BUDGET)) != 0) {
		dbp_err(&err, -r, NULL, "cannot start threads");
		goto abort;
	}
	for (i = first; i < argc; i++) {
		mc.pkg = argv[i];
		if ((r = main_unpack_one(u, man, feed, argv[i],
		    (unsigned)(i - first), &o, &st, &err)) != 0) {
			dbp_err_pkg(&err, argv[i]);
			goto abort;
		}
	}
	mc.pkg = NULL;
	feed_free(feed);
	feed = NULL;
	st.phase[PH_EXTRACT] = stats_now() - t0;
	/* Past this point a signal no longer stops the run: commit finishes. */
	if (main_stop) {
		dbp_err(&err, EINTR, NULL, "interrupted");
		goto abort;
	}
	/*
	 * Every rename to come in the journal, synced with the directory
	 * lines, before any data is synced (else a power cut could keep
	 * names no durable journal lists); data durable before the first
	 * rename (syncbatch_rename).  Files first, then the
	 * records that describe them; then one barrier makes all the names
	 * durable (one syncfs, or the directories' fsyncs); then the commit
	 * point; only then what
	 * the old versions had and the new ones do not goes away, so that a
	 * crash never loses a file that a committed record still lists.  A
	 * crash before the commit point is undone by the next run, one after
	 * it finished (recover.c).
	 */
	if ((r = syncbatch_prepare(sb, j, JOURNAL_ROOT, &err)) != 0 ||
	    (r = manifest_prepare(man, j, &err)) != 0 ||
	    (r = journal_sync(j, &err)) != 0 ||
	    (r = syncbatch_rename(sb, &err)) != 0 ||
	    (r = manifest_commit(man, &err)) != 0 ||
	    (r = syncbatch_sync_dirs(sb, &err)) != 0 ||
	    (r = manifest_sync(man, &err)) != 0 ||
	    (r = manifest_plan_obsolete(man, dirs, j, &err)) != 0)
		goto abort;
	/*
	 * The commit line is in the journal even if its sync failed: a repair
	 * may finish the run, so it is not undone here; the next run repairs
	 * it one way or the other, from what reached the disk.
	 */
	if ((r = journal_commit(j, &err)) != 0)
		goto out;
	/* Past this point the run stands: the old versions' backups go. */
	if ((syncbatch_finish(sb) | manifest_finish(man) | dirs_finish(dirs)) != 0 &&
	    o.verbose >= 0)
		fprintf(stderr, "debunpack: warning: some backups"
		    " (*.debunpack-old) could not be removed\n");
	manifest_remove_obsolete(man, dirs, main_warn, &mc);
	/* The cleanup durable, the journal can go (a repair would redo it). */
	if ((r = syncbatch_sync_dirs(sb, &err)) != 0 ||
	    (r = journal_end(j, false, &err)) != 0)
		goto out;
	if (o.verbose > 0)
		fprintf(stderr, "debunpack: %zu paths committed (%s)\n",
		    manifest_count(man), o.mode);
	if (o.stats == 1)
		stats_write_text(stdout, &st);
	else if (o.stats == 2)
		stats_write_json(stdout, &st);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		dbp_err(&err, errno, NULL, "cannot write to standard output");
		goto out;
	}
	status = 0;
	goto out;
abort:
	/*
	 * Records first, then files, then the directories this run created
	 * (files moved aside for them come back); the journal goes only once
	 * all that is undone (else the next run finishes the undo), and last
	 * the directories that held it: the admin directory may be new.
	 */
	if ((manifest_abort(man) | syncbatch_abort(sb) |
	    syncbatch_abort_dirs(sb)) != 0 || journal_end(j, true, &ign) != 0) {
		if (o.verbose >= 0)
			fprintf(stderr, "debunpack: warning: cleanup after the"
			    " error was incomplete; the next run repairs it\n");
	} else
		/* Now empty: the directories that held the journal. */
		syncbatch_abort_dirs(sb);
out:
	if (status != 0)
		main_print_error(&err);
	feed_free(feed);
	unpack_free(u);
	syncbatch_free(sb);
	manifest_free(man);
	journal_free(j);
	dirs_free(dirs);
	users_free(users);
	rootfs_close(&rf);
	return status;
}
