/* SPDX-License-Identifier: MIT */
/* Maintainer scripts of the run's packages, run in the root as dpkg runs them. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/maintscript.h"
#include "durable/users.h"

/*
 * Only preinsts: dpkg --configure runs the postinsts, but it never runs
 * a preinst of a package it did not unpack itself, and some are needed
 * before any postinst works (base-passwd's creates /etc/passwd).  They
 * run after every file is in place, where dpkg would run each before its
 * package's files: a preinst that looks for the old version's files
 * sees the new ones.
 */

/*
 * What a chroot needs in /dev for scripts to run, as debootstrap and
 * mmdebstrap make it: without it, the first ">/dev/null" of a script
 * makes a regular file there.  No package ships these.
 */
static const struct {
	const char *name;
	mode_t type;		/* S_IFCHR, S_IFLNK, S_IFDIR */
	unsigned major, minor;
	const char *target;
} maintscript_dev[] = {
	{ "console",	S_IFCHR, 5, 1, NULL },
	{ "fd",		S_IFLNK, 0, 0, "/proc/self/fd" },
	{ "full",	S_IFCHR, 1, 7, NULL },
	{ "null",	S_IFCHR, 1, 3, NULL },
	{ "ptmx",	S_IFCHR, 5, 2, NULL },
	{ "pts",	S_IFDIR, 0, 0, NULL },
	{ "random",	S_IFCHR, 1, 8, NULL },
	{ "shm",	S_IFDIR, 0, 0, NULL },
	{ "stderr",	S_IFLNK, 0, 0, "/proc/self/fd/2" },
	{ "stdin",	S_IFLNK, 0, 0, "/proc/self/fd/0" },
	{ "stdout",	S_IFLNK, 0, 0, "/proc/self/fd/1" },
	{ "tty",	S_IFCHR, 5, 0, NULL },
	{ "urandom",	S_IFCHR, 1, 9, NULL },
	{ "zero",	S_IFCHR, 1, 5, NULL },
};

int
maintscript_dev_setup(int rootfd, struct dbp_error *err)
{
	struct stat st;
	size_t i;
	int dfd, r = 0;

	if (mkdirat(rootfd, "dev", 0755) != 0 && errno != EEXIST)
		return dbp_err(err, errno, "dev", "cannot create directory");
	if ((dfd = openat(rootfd, "dev", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return dbp_err(err, errno, "dev", "cannot open directory");
	for (i = 0; r == 0 && i < sizeof(maintscript_dev) /
	    sizeof(maintscript_dev[0]); i++) {
		const char *name = maintscript_dev[i].name;

		/* Whatever is there stays: a bind mount, the user's nodes. */
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		if (maintscript_dev[i].type == S_IFLNK)
			r = symlinkat(maintscript_dev[i].target, dfd, name);
		else if (maintscript_dev[i].type == S_IFDIR)
			r = mkdirat(dfd, name, 0755);
		else if ((r = mknodat(dfd, name, S_IFCHR | 0666,
		    makedev(maintscript_dev[i].major,
		    maintscript_dev[i].minor))) == 0)
			r = fchmodat(dfd, name, 0666, 0);	/* past the umask */
		else if (errno == EPERM && !users_initial_ns()) {
			/*
			 * In a user namespace no node can be made: the
			 * scripts have what the caller bound there.
			 */
			r = 0;
			continue;
		}
		if (r != 0)
			r = dbp_err(err, errno, name, "cannot create in 'dev'");
	}
	if (r == 0 && (fsync(dfd) != 0 || fsync(rootfd) != 0))
		r = dbp_err(err, errno, "dev", "cannot sync directory");
	close(dfd);
	return r;
}

/* The variables dpkg sets for a script (its src/main/script.c), at most. */
#define MAINTSCRIPT_NVARS	11

/* Add NAME=VALUE to ENV (*N entries so far); 0 or -ENOMEM. */
static int
maintscript_var(char **env, size_t *n, const char *name, const char *value)
{
	size_t ln = strlen(name), lv = strlen(value);

	if ((env[*n] = malloc(ln + lv + 2)) == NULL)
		return -ENOMEM;
	memcpy(env[*n], name, ln);
	env[*n][ln] = '=';
	memcpy(env[*n] + ln + 1, value, lv + 1);
	(*n)++;
	return 0;
}

/* Whether environment entry V is variable NAME. */
static bool
maintscript_is(const char *v, const char *name)
{
	size_t n = strlen(name);

	return strncmp(v, name, n) == 0 && v[n] == '=';
}

/*
 * The script's environment, made before the fork: ours with dpkg's
 * variables (its src/main/script.c) in place of any of the same name.
 * The child only execs it: after a fork in a process whose other threads
 * may hold the allocator's lock (the decoding threads), the child must
 * not allocate, and setenv does.  *OUT is freed by maintscript_env_free.
 */
static int
maintscript_env(const struct maintscript_env *e, const char *admin,
    char ***out)
{
	extern char **environ;
	const char *names[MAINTSCRIPT_NVARS], *values[MAINTSCRIPT_NVARS];
	char count[16], **env;
	size_t n = 0, nv = 0, i, j;
	bool path = false;

	snprintf(count, sizeof(count), "%u", e->refcount > 0 ? e->refcount : 1);
#define MAINTSCRIPT_SET(k, v)	(names[nv] = (k), values[nv++] = (v))
	MAINTSCRIPT_SET("DPKG_MAINTSCRIPT_PACKAGE", e->pkg);
	MAINTSCRIPT_SET("DPKG_MAINTSCRIPT_PACKAGE_REFCOUNT", count);
	MAINTSCRIPT_SET("DPKG_MAINTSCRIPT_ARCH", e->arch != NULL ? e->arch : "");
	MAINTSCRIPT_SET("DPKG_MAINTSCRIPT_NAME", e->script);
	MAINTSCRIPT_SET("DPKG_MAINTSCRIPT_DEBUG", "0");
	if (e->debconf)
		MAINTSCRIPT_SET("DEBCONF_PACKAGE", e->pkg);
	if (e->running_version != NULL)
		MAINTSCRIPT_SET("DPKG_RUNNING_VERSION", e->running_version);
	if (e->force != NULL)
		MAINTSCRIPT_SET("DPKG_FORCE", e->force);
	/*
	 * Chrooted, the root is "/": dpkg's DPKG_ROOT is empty; chrootless,
	 * the scripts find the root and the database by these two.
	 */
	MAINTSCRIPT_SET("DPKG_ADMINDIR", admin);
	MAINTSCRIPT_SET("DPKG_ROOT", e->chrootless ? e->root : "");
#undef MAINTSCRIPT_SET
	for (i = 0; environ != NULL && environ[i] != NULL; i++)
		;
	if ((env = calloc(i + nv + 2, sizeof(*env))) == NULL)
		return -ENOMEM;
	for (i = 0; environ != NULL && environ[i] != NULL; i++) {
		for (j = 0; j < nv && !maintscript_is(environ[i], names[j]); j++)
			;
		if (j < nv)
			continue;
		path = path || maintscript_is(environ[i], "PATH");
		/* Shared with ours, not freed (maintscript_env_free). */
		env[n++] = environ[i];
	}
	env[n] = NULL;
	*out = env;
	for (j = 0; j < nv; j++)
		if (maintscript_var(env, &n, names[j], values[j]) != 0)
			return -ENOMEM;
	/* dpkg refuses to run without the sbin directories in PATH. */
	if (!path && maintscript_var(env, &n, "PATH", "/usr/local/sbin:"
	    "/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin") != 0)
		return -ENOMEM;
	return 0;
}

/* Free what maintscript_env made: the entries environ does not hold. */
static void
maintscript_env_free(char **env)
{
	extern char **environ;
	size_t i, j;

	for (i = 0; env != NULL && env[i] != NULL; i++) {
		for (j = 0; environ != NULL && environ[j] != NULL &&
		    environ[j] != env[i]; j++)
			;
		if (environ == NULL || environ[j] == NULL)
			free(env[i]);
	}
	free(env);
}

/*
 * In the child: enter the root (unless chrootless) and become the
 * script with the environment ENV.  What fails is told to the parent
 * through REPORT (close-on-exec: an exec closes it), as the step and its
 * errno; nothing below main.c prints.  No allocation here
 * (maintscript_env).
 */
static void
maintscript_exec(const struct maintscript_env *e, const char *path,
    char *const argv[], char *const env[], int report)
{
	int why[2];

	if (!e->chrootless && (chroot(e->root) != 0 || chdir("/") != 0)) {
		why[0] = 0;
		goto fail;
	}
	execve(path, argv, env);
	why[0] = 1;
fail:
	why[1] = errno;
	if (write(report, why, sizeof(why)) != (ssize_t)sizeof(why))
		_exit(127);
	_exit(126);
}

/*
 * The script PATH (as the root sees it) as it is run: FULL, and
 * DPKG_ADMINDIR for it: ADMIN, both PATH_MAX long, as dpkg makes them
 * (its script.c).  Chrooted, both are inside the root; chrootless, host
 * paths.  With E->admindir, PATH's /var/lib/dpkg/ is that directory,
 * which a chrooted script can reach only when it is inside the root:
 * dpkg refuses the others, and so does this.
 */
static int
maintscript_where(const struct maintscript_env *e, const char *path,
    char *full, char *admin, struct dbp_error *err)
{
	static const char dpkg[] = "/" DPKGDB_DIR;
	char adm[PATH_MAX], root[PATH_MAX];
	const char *in, *rest = path;
	size_t n;

	if (e->admindir == NULL) {
		snprintf(admin, PATH_MAX, "%s%s", e->chrootless ? e->root :
		    "", dpkg);
		snprintf(full, PATH_MAX, "%s%s", e->chrootless ? e->root : "",
		    path);
		return 0;
	}
	if (strncmp(path, dpkg, sizeof(dpkg) - 1) == 0 &&
	    path[sizeof(dpkg) - 1] == '/')
		rest = path + sizeof(dpkg) - 1;
	if (realpath(e->admindir, adm) == NULL)
		return dbp_err(err, errno, e->admindir, "cannot open dpkg's"
		    " database directory");
	in = adm;
	if (!e->chrootless) {
		if (realpath(e->root, root) == NULL)
			return dbp_err(err, errno, e->root, "cannot open root");
		n = strcmp(root, "/") == 0 ? 0 : strlen(root);
		if (strncmp(adm, root, n) != 0 ||
		    (adm[n] != '/' && adm[n] != '\0'))
			return dbp_err(err, 0, e->admindir, "package '%s':"
			    " cannot run its %s in the root: dpkg's database"
			    " is outside it (run scripts chrootless)", e->pkg,
			    e->script);
		in = adm[n] != '\0' ? adm + n : "/";
	}
	snprintf(admin, PATH_MAX, "%s", in);
	if (rest == path)
		snprintf(full, PATH_MAX, "%s%s", e->chrootless ? e->root : "",
		    path);
	else
		snprintf(full, PATH_MAX, "%s%s", strcmp(in, "/") == 0 ? "" :
		    in, rest);
	return 0;
}

int
maintscript_run(const struct maintscript_env *e, const char *path,
    char *const argv[], int *status, struct dbp_error *err)
{
	char full[PATH_MAX], admin[PATH_MAX], **env = NULL;
	struct emulate_left left;
	struct binfmtns ns;
	bool own = !e->chrootless && e->emu != NULL && e->emu->own;
	int report[2], why[2], e2;
	ssize_t got;
	pid_t pid;

	if ((e2 = maintscript_where(e, path, full, admin, err)) != 0)
		return e2;
	if (pipe2(report, O_CLOEXEC) != 0)
		return dbp_err(err, errno, "", "package '%s': cannot run %s",
		    e->pkg, e->script);
	if (own && (e2 = binfmtns_open(&ns)) != 0) {
		close(report[0]);
		close(report[1]);
		return dbp_err(err, -e2, "", "package '%s': cannot run %s",
		    e->pkg, e->script);
	}
	/* A foreign root's emulator where the kernel looks for it. */
	if (!e->chrootless && (e2 = emulate_enter(e->emu, e->root, &left,
	    err)) != 0) {
		close(report[0]);
		close(report[1]);
		if (own)
			binfmtns_close(&ns);
		return e2;
	}
	/* What the script prints goes where ours goes, in order. */
	fflush(stdout);
	fflush(stderr);
	if ((e2 = maintscript_env(e, admin, &env)) != 0 ||
	    (pid = fork()) < 0) {
		e2 = e2 != 0 ? -e2 : errno;
		maintscript_env_free(env);
		close(report[0]);
		close(report[1]);
		if (own)
			binfmtns_close(&ns);
		if (!e->chrootless)
			(void)emulate_leave(e->root, &left, NULL);
		return dbp_err(err, e2, "", "package '%s': cannot run %s",
		    e->pkg, e->script);
	}
	if (pid == 0) {
		close(report[0]);
		/* Its emulator's entry, in a namespace of the script's own. */
		if (own && (e2 = binfmtns_child(&ns, e->emu->line)) != 0) {
			why[0] = 2;
			why[1] = -e2;
			if (write(report[1], why, sizeof(why)) !=
			    (ssize_t)sizeof(why))
				_exit(127);
			_exit(126);
		}
		maintscript_exec(e, full, argv, env, report[1]);
	}
	maintscript_env_free(env);
	close(report[1]);
	/* A failure here is the child's too: it tells it through REPORT. */
	if (own) {
		(void)binfmtns_parent(&ns, pid);
		binfmtns_close(&ns);
	}
	while ((got = read(report[0], why, sizeof(why))) < 0 && errno == EINTR)
		;
	close(report[0]);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR) {
			e2 = dbp_err(err, errno, "", "package '%s': cannot"
			    " wait for %s", e->pkg, e->script);
			if (!e->chrootless)
				(void)emulate_leave(e->root, &left, NULL);
			return e2;
		}
	if (!e->chrootless && (e2 = emulate_leave(e->root, &left, err)) != 0)
		return e2;
	if (got == (ssize_t)sizeof(why) && why[0] == 2)
		return dbp_err(err, why[1], e->root, "cannot register the"
		    " emulator %s for the %s of '%s'", e->emu->source,
		    e->script, e->pkg);
	if (got == (ssize_t)sizeof(why))
		return why[0] == 0 ? dbp_err(err, why[1], e->root, "cannot"
		    " enter the root for the %s of '%s'", e->script, e->pkg) :
		    dbp_err(err, why[1], path, "package '%s': cannot run %s",
		    e->pkg, e->script);
	return 0;
}

void
maintscript_status_text(int status, char *buf, size_t n)
{
	if (WIFSIGNALED(status))
		snprintf(buf, n, "was killed by signal (%s)",
		    strsignal(WTERMSIG(status)));
	else
		snprintf(buf, n, "returned error exit status %d",
		    WIFEXITED(status) ? WEXITSTATUS(status) : 255);
}

static int
maintscript_one(const char *root, const char *admindir,
    const struct emulate *emu, const struct dpkgdb_pkg *p,
    struct dbp_error *err)
{
	struct maintscript_env e = { .root = root, .pkg = p->name,
	    .arch = p->arch, .script = "preinst", .debconf = true,
	    .admindir = admindir, .emu = emu };
	char path[PATH_MAX];
	char *argv[5];
	int status, r;

	snprintf(path, sizeof(path), "/" DPKGDB_DIR "/info/%s.preinst",
	    p->infoname);
	argv[0] = path;
	argv[1] = (char *)p->action;
	argv[2] = (char *)p->old_version;
	argv[3] = p->old_version != NULL ? (char *)p->version : NULL;
	argv[4] = NULL;
	if ((r = maintscript_run(&e, path, argv, &status, err)) != 0)
		return r;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status))
		return dbp_err(err, 0, "", "package '%s': preinst %s was"
		    " killed by signal %d", p->name, p->action,
		    WTERMSIG(status));
	return dbp_err(err, 0, "", "package '%s': preinst %s returned"
	    " error exit status %d", p->name, p->action, WEXITSTATUS(status));
}

int
maintscript_preinsts(const char *root, const char *admindir,
    const struct emulate *emu, const struct dpkgdb *db,
    void (*before)(void *ctx, const char *name), void *ctx,
    struct dbp_error *err)
{
	struct dpkgdb_pkg p;
	size_t i;
	int r;

	for (i = 0; i < dpkgdb_count(db); i++) {
		dpkgdb_pkg(db, i, &p);
		if (!p.has_preinst)
			continue;
		if (before != NULL)
			before(ctx, p.name);
		if ((r = maintscript_one(root, admindir, emu, &p, err)) != 0)
			return r;
	}
	return 0;
}
