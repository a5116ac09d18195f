/* SPDX-License-Identifier: MIT */
/* The dpkg for apt's decision: dpkg's call read as dpkg would, handed on or made debunpack's command line. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/options.h"
#include "cli/shimcall.h"
#include "run/unpackdeps.h"

/* dpkg runs it on each package when installed, unless --no-debsig. */
#define DPKGSHIM_DEBSIG		"/usr/bin/debsig-verify"

int
argvec_add(struct argvec *av, const char *s)
{
	char **v;

	if ((v = realloc(av->v, (av->n + 2) * sizeof(*v))) == NULL)
		return -ENOMEM;
	av->v = v;
	v[av->n++] = (char *)s;
	v[av->n] = NULL;
	return 0;
}

/* Add a string made from FMT, owned by AV. */
int
argvec_addf(struct argvec *av, const char *fmt, ...)
{
	char **o, *s;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	if ((o = realloc(av->owned, (av->nowned + 1) * sizeof(*o))) == NULL) {
		free(s);
		return -ENOMEM;
	}
	av->owned = o;
	o[av->nowned++] = s;
	return argvec_add(av, s);
}

void
argvec_free(struct argvec *av)
{
	size_t i;

	for (i = 0; i < av->nowned; i++)
		free(av->owned[i]);
	free(av->owned);
	free(av->v);
	memset(av, 0, sizeof(*av));
}

/* dpkg's trimming of a directory: trailing "/" and "/." go, "/" stays. */
static char *
shim_trim(const char *dir)
{
	char *d, *end;

	if ((d = strdup(dir)) == NULL || *d == '\0')
		return d;
	for (end = d + strlen(d) - 1; end > d; end--) {
		if (*end == '/' || (end[-1] == '/' && *end == '.'))
			*end = '\0';
		else
			break;
	}
	return d;
}

static char *
shim_admin_default(const char *instdir)
{
	const char *env = getenv("DPKG_ADMINDIR");
	char *d;

	if (env != NULL)
		return strdup(env);
	if (asprintf(&d, "%s/var/lib/dpkg", instdir) < 0)
		return NULL;
	return d;
}

/*
 * INSTDIR and ADMINDIR as dpkg ends up with them: DPKG_ROOT and
 * DPKG_ADMINDIR first, then --root (both), --instdir (the root alone,
 * after the database was placed by the root before it) and --admindir,
 * in the order given.  0 or -ENOMEM.
 */
static int
shim_dirs(struct shim *s)
{
	const char *env = getenv("DPKG_ROOT");
	size_t i;
	char *n;

	if ((s->instdir = env != NULL ? shim_trim(env) : strdup("")) == NULL)
		return -ENOMEM;
	for (i = 0; i < s->a.nuse; i++) {
		const struct dpkgargs_use *u = &s->a.use[i];

		switch (u->def->id) {
		case DPKGARGS_ID_ROOT:
			if ((n = shim_trim(u->value)) == NULL)
				return -ENOMEM;
			free(s->instdir);
			s->instdir = n;
			free(s->admindir);
			if (asprintf(&s->admindir, "%s/var/lib/dpkg",
			    s->instdir) < 0) {
				s->admindir = NULL;
				return -ENOMEM;
			}
			break;
		case DPKGARGS_ID_INSTDIR:
			if (s->admindir == NULL && (s->admindir =
			    shim_admin_default(s->instdir)) == NULL)
				return -ENOMEM;
			if ((n = shim_trim(u->value)) == NULL)
				return -ENOMEM;
			free(s->instdir);
			s->instdir = n;
			break;
		case DPKGARGS_ID_ADMINDIR:
			free(s->admindir);
			if ((s->admindir = strdup(u->value)) == NULL)
				return -ENOMEM;
			break;
		default:
			break;
		}
	}
	if (s->admindir == NULL &&
	    (s->admindir = shim_admin_default(s->instdir)) == NULL)
		return -ENOMEM;
	return 0;
}

/*
 * Whether debunpack's --help lists option OPT ("--x"): at the start of
 * one of its option lines ("      --x ..." or "  -x, --x ..."), not
 * named in the help of another.
 */
static bool
shim_has(const struct shim *s, const char *opt)
{
	size_t l = strlen(opt);
	const char *p, *q;
	char c;

	for (p = s->help; (p = strstr(p, opt)) != NULL; p += l) {
		c = p[l];
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-')
			continue;
		for (q = p; q > s->help && q[-1] == ' '; q--)
			;
		if (q >= s->help + 3 && q[-1] == ',' && q[-3] == '-')
			for (q -= 3; q > s->help && q[-1] == ' '; q--)
				;
		if (q == s->help || q[-1] == '\n')
			return true;
	}
	return false;
}

int
shim_output(char *const argv[], bool quiet, char **out, size_t *len)
{
	size_t cap = 0;
	char *buf = NULL, *nb;
	int fd[2], st;
	ssize_t n = -1;
	pid_t pid;

	if (pipe2(fd, O_CLOEXEC) != 0)
		return -errno;
	if ((pid = fork()) < 0) {
		close(fd[0]);
		close(fd[1]);
		return -errno;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (dup2(fd[1], 1) < 0 || (null >= 0 && (dup2(null, 0) < 0 ||
		    (quiet && dup2(null, 2) < 0))))
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	*len = 0;
	for (;;) {
		if (*len + 4096 + 1 > cap) {
			cap = cap * 2 + 8192;
			if ((nb = realloc(buf, cap)) == NULL)
				break;
			buf = nb;
		}
		if ((n = read(fd[0], buf + *len, cap - *len - 1)) < 0 &&
		    errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (n != 0 || buf == NULL || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		free(buf);
		return -ENOEXEC;
	}
	buf[*len] = '\0';
	*out = buf;
	return 0;
}

/*
 * debunpack's list of options, as its --help prints it.  The debunpack
 * installed with this program (no DEBUNPACK in the environment) has this
 * build's options table, linked in: its help is printed here, not asked
 * of one more program start in every call of apt's.  Any other is run.
 */
int
shim_ask_debunpack(struct shim *s)
{
	char *argv[] = { (char *)s->debunpack, (char *)"--help", NULL };
	size_t len = 0;
	char *buf = NULL;
	FILE *fp;

	if (getenv("DEBUNPACK") == NULL &&
	    strcmp(s->debunpack, DPKGSHIM_DEBUNPACK) == 0) {
		if ((fp = open_memstream(&buf, &len)) == NULL)
			return -errno;
		options_usage(fp);
		if (fclose(fp) != 0) {
			free(buf);
			return -ENOMEM;
		}
		s->help = buf;
		return 0;
	}
	return shim_output(argv, false, &s->help, &len);
}

static int
shim_namecmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* An ancestor on the walk, for dpkg's check of directory loops. */
struct walkdir {
	dev_t dev;
	ino_t ino;
	const struct walkdir *up;
};

/*
 * dpkg --recursive's walk (lib/dpkg/treewalk.c): depth first, each
 * directory's entries in strcmp order, links followed, a directory met
 * again below itself skipped; every regular file whose name ends in
 * ".deb" is a package, as the path "DIR/sub/name.deb".  -EINVAL for what
 * dpkg would fail on (the caller hands the call on).
 */
static int
shim_walk(struct shim *s, const char *dir, const struct walkdir *up)
{
	char **names = NULL, **nn, *path;
	size_t n = 0, i;
	struct dirent *e;
	struct stat st;
	struct walkdir me;
	const struct walkdir *w;
	int r = 0;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return -errno;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if ((nn = realloc(names, (n + 1) * sizeof(*nn))) == NULL ||
		    (nn[n] = strdup(e->d_name)) == NULL) {
			names = nn != NULL ? nn : names;
			r = -ENOMEM;
			break;
		}
		names = nn;
		n++;
	}
	closedir(d);
	if (r == 0 && n > 0)
		qsort(names, n, sizeof(*names), shim_namecmp);
	for (i = 0; r == 0 && i < n; i++) {
		if (asprintf(&path, "%s/%s", dir, names[i]) < 0) {
			r = -ENOMEM;
			break;
		}
		if (stat(path, &st) != 0)
			r = -errno;
		else if (S_ISDIR(st.st_mode)) {
			for (w = up; w != NULL; w = w->up)
				if (w->dev == st.st_dev && w->ino == st.st_ino)
					break;
			me.dev = st.st_dev;
			me.ino = st.st_ino;
			me.up = up;
			if (w == NULL)
				r = shim_walk(s, path, &me);
		} else if (S_ISREG(st.st_mode) && strlen(path) >= 4 &&
		    strcmp(path + strlen(path) - 4, ".deb") == 0)
			r = argvec_addf(&s->debs, "%s", path);
		free(path);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

/*
 * The package files of the call, in the order dpkg takes them; -EINVAL
 * for a call dpkg would refuse (the caller hands it on: dpkg says why).
 */
static int
shim_debs(struct shim *s)
{
	struct walkdir top;
	struct stat st;
	int i, r;

	if (s->a.noperands == 0)
		return -EINVAL;
	for (i = 0; i < s->a.noperands; i++) {
		const char *p = s->a.operands[i];

		if (dpkgargs_given(&s->a, DPKGARGS_ID_RECURSIVE)) {
			/* The top itself is not followed, as dpkg's lstat. */
			if (lstat(p, &st) != 0 || !S_ISDIR(st.st_mode))
				return -EINVAL;
			top.dev = st.st_dev;
			top.ino = st.st_ino;
			top.up = NULL;
			if ((r = shim_walk(s, p, &top)) != 0)
				return r;
			continue;
		}
		if (stat(p, &st) != 0 || !S_ISREG(st.st_mode))
			return -EINVAL;
		/* debunpack reads "-" from standard input; dpkg a file. */
		if ((r = strcmp(p, "-") == 0 ? argvec_add(&s->debs, "./-") :
		    argvec_add(&s->debs, p)) != 0)
			return r;
	}
	return s->debs.n > 0 ? 0 : -EINVAL;
}

/*
 * Whether debunpack is to be given dpkg's database (ADMIN, stat'ed) by
 * name: it finds it in ROOT/var/lib/dpkg, or --dpkg-admindir.  Sets
 * S->own_db; 0 or -ENOMEM.
 */
static int
shim_own_db(struct shim *s, const struct stat *admin)
{
	struct stat a;
	char *lib;

	if (asprintf(&lib, "%s/var/lib/dpkg", s->instdir) < 0)
		return -ENOMEM;
	s->own_db = !(stat(lib, &a) == 0 && a.st_dev == admin->st_dev &&
	    a.st_ino == admin->st_ino);
	free(lib);
	return 0;
}

/*
 * Whether debunpack can do the call as dpkg would: NULL, or why not.
 * Judged from dpkgargs_table's verdicts, option by option and force by
 * force, then what the verdict SHIM leaves to this file.
 */
const char *
shim_judge(struct shim *s, char *why, size_t n)
{
	const struct dpkgargs_def *d;
	struct stat b;
	const char *v;
	size_t i;
	int r;

	if (s->a.action == NULL || s->a.action->verdict != DPKGARGS_RUN)
		return "not an unpack";
	for (i = 0; i < s->a.nuse; i++) {
		d = s->a.use[i].def;
		if (d->verdict == DPKGARGS_HANDON) {
			if (d->name != NULL)
				snprintf(why, n, "option --%s%s%s", d->name,
				    s->a.use[i].origin != NULL ? " in " : "",
				    s->a.use[i].origin != NULL ?
				    s->a.use[i].origin : "");
			else
				snprintf(why, n, "option -%c", d->short_name);
			return why;
		}
		if (d->verdict == DPKGARGS_MAP && !shim_has(s, d->debunpack)) {
			snprintf(why, n, "debunpack lacks %s", d->debunpack);
			return why;
		}
		/* dpkg's usage error, in its words. */
		if (d->id == DPKGARGS_ID_IGNORE_DEPENDS &&
		    !unpackdeps_ignore_valid(s->a.use[i].value))
			return "a list --ignore-depends does not take";
	}
	for (d = dpkgargs_table; d->name != NULL || d->short_name != 0; d++) {
		if (d->kind != DPKGARGS_FORCE ||
		    s->a.force[d - dpkgargs_table] == d->force_on)
			continue;
		if (d->verdict == DPKGARGS_HANDON) {
			snprintf(why, n, "force %s %s", d->name,
			    d->force_on ? "off" : "on");
			return why;
		}
		if (d->verdict == DPKGARGS_MAP && !shim_has(s, d->debunpack)) {
			snprintf(why, n, "debunpack lacks %s", d->debunpack);
			return why;
		}
	}
	/* dpkg writes its status lines to every --status-fd, debunpack to one. */
	for (i = 0, r = 0; i < s->a.nuse; i++)
		if (s->a.use[i].def->id == DPKGARGS_ID_STATUS_FD)
			r++;
	if (r > 1)
		return "more than one --status-fd";
	/* dpkg -i would run the hooks once, the shim's two calls twice. */
	if (s->a.action->id == DPKGARGS_ID_INSTALL &&
	    (dpkgargs_given(&s->a, DPKGARGS_ID_PRE_INVOKE) ||
	    dpkgargs_given(&s->a, DPKGARGS_ID_POST_INVOKE)))
		return "hooks around an install";
	/* Without --force-not-root dpkg refuses whoever is not root. */
	d = dpkgargs_force("not-root", 8);
	if (geteuid() != 0 && !s->a.force[d - dpkgargs_table])
		return "not root";
	/* dpkg checks signatures with debsig-verify where it is installed. */
	if (!dpkgargs_given(&s->a, DPKGARGS_ID_NO_DEBSIG) &&
	    access(DPKGSHIM_DEBSIG, X_OK) == 0)
		return "debsig-verify checks signatures";
	/* Unpack, state, scripts and dpkg's words: what makes it dpkg's. */
	if (!shim_has(s, "--dpkg-db") || !shim_has(s, "--maintscripts") ||
	    !shim_has(s, "--dpkg-messages") || !shim_has(s, "--no-progress"))
		return "debunpack lacks --dpkg-db, --maintscripts or"
		    " --dpkg-messages";
	if (getenv("DEBUNPACK_SYNC_MODE") != NULL &&
	    !shim_has(s, "--sync-mode"))
		return "debunpack lacks --sync-mode";
	if (s->instdir == NULL && (r = shim_dirs(s)) != 0)
		return "out of memory";
	/* dpkg's own error for a missing database, in its words. */
	if (stat(s->admindir, &b) != 0 || !S_ISDIR(b.st_mode))
		return "the database directory is not there";
	if (shim_own_db(s, &b) != 0)
		return "out of memory";
	if (s->own_db && !shim_has(s, "--dpkg-admindir"))
		return "debunpack lacks --dpkg-admindir";
	/*
	 * dpkg runs scripts chrooted only with the database inside the
	 * root (by name), and fails the package otherwise, half done.
	 */
	d = dpkgargs_force("script-chrootless", 17);
	if (s->own_db && !s->a.force[d - dpkgargs_table] &&
	    strncmp(s->admindir, s->instdir, strlen(s->instdir)) != 0)
		return "the database is outside INSTDIR for chrooted scripts";
	if (shim_debs(s) != 0)
		return "the package files are not all there";
	/* dpkg stops after N failed packages, debunpack goes on. */
	if ((v = dpkgargs_value(&s->a, DPKGARGS_ID_ABORT_AFTER)) != NULL &&
	    (size_t)strtol(v, NULL, 0) < s->debs.n)
		return "--abort-after stops before the last package";
	return NULL;
}

/*
 * Actions that change what dpkg's database or the root hold, run for
 * real: after a power cut or a kill inside debunpack's batch, they must
 * not start on a root that debunpack's journal has yet to finish.
 */
static bool
shim_changes_root(const struct shim *s)
{
	static const char *const changes[] = { "install", "unpack",
	    "configure", "triggers-only", "remove", "purge", NULL };
	size_t i;
	bool hit = false;

	for (i = 0; s->a.action != NULL && changes[i] != NULL; i++)
		hit |= strcmp(s->a.action->name, changes[i]) == 0;
	for (i = 0; i < s->a.nuse; i++) {
		const char *n = s->a.use[i].def->name;

		if (n != NULL && (strcmp(n, "no-act") == 0 ||
		    strcmp(n, "dry-run") == 0 || strcmp(n, "simulate") == 0))
			return false;
	}
	return hit;
}

int
shim_where(struct shim *s)
{
	return s->instdir == NULL ? shim_dirs(s) : 0;
}

int
shim_emulated(struct shim *s, struct emulate *em)
{
	const char *emulator = getenv("DEBUNPACK_EMULATOR");
	struct dbp_error err;

	if (emulator == NULL || emulator[0] == '\0' || shim_where(s) != 0)
		return 0;
	dbp_err_clear(&err);
	if (emulate_judge(em, s->instdir[0] != '\0' ? s->instdir : "/", NULL,
	    emulator, &err) != 0)
		return 0;
	return em->own;
}

int
shim_recover_argv(struct shim *s, struct argvec *av)
{
	struct stat b;
	char *journal;
	int r = 0, here;

	if (!shim_changes_root(s))
		return 0;
	if (s->instdir == NULL && shim_dirs(s) != 0)
		return -ENOMEM;
	if (asprintf(&journal, "%s/var/lib/debunpack/journal",
	    s->instdir) < 0)
		return -ENOMEM;
	here = access(journal, F_OK) == 0;
	free(journal);
	if (!here)
		return 0;
	/* The journal names dpkg's database: --recover needs the same. */
	if (stat(s->admindir, &b) == 0 && shim_own_db(s, &b) != 0)
		return -ENOMEM;
	r |= argvec_add(av, s->debunpack);
	r |= argvec_add(av, "-q");
	r |= argvec_add(av, "--root");
	r |= argvec_add(av, s->instdir[0] != '\0' ? s->instdir : "/");
	if (s->own_db)
		r |= argvec_addf(av, "--dpkg-admindir=%s", s->admindir);
	r |= argvec_add(av, "--recover");
	return r != 0 ? -ENOMEM : 1;
}

/* debunpack's command line for the call. */
int
shim_unpack_argv(struct shim *s, struct argvec *av)
{
	const char *mode = getenv("DEBUNPACK_SYNC_MODE");
	const struct dpkgargs_def *d;
	size_t i;
	int r = 0;

	r |= argvec_add(av, s->debunpack);
	r |= argvec_add(av, "--root");
	/* dpkg's "" is the root directory. */
	r |= argvec_add(av, s->instdir[0] != '\0' ? s->instdir : "/");
	r |= argvec_add(av, "--dpkg-db");
	if (s->own_db)
		r |= argvec_addf(av, "--dpkg-admindir=%s", s->admindir);
	r |= argvec_add(av, "--maintscripts");
	/* dpkg's error lines name the action: --install's too. */
	r |= argvec_add(av, s->a.action->id == DPKGARGS_ID_INSTALL &&
	    strstr(s->help, "--dpkg-messages[=ACTION]") != NULL ?
	    "--dpkg-messages=install" : "--dpkg-messages");
	/* dpkg draws no progress line; apt draws its own. */
	r |= argvec_add(av, "--no-progress");
	if (mode != NULL)
		r |= argvec_addf(av, "--sync-mode=%s", mode);
	for (i = 0; i < s->a.nuse; i++) {
		d = s->a.use[i].def;
		if (d->verdict != DPKGARGS_MAP)
			continue;
		if (d->id == DPKGARGS_ID_STATUS_FD)
			r |= argvec_addf(av, "%s=%ld", d->debunpack,
			    dpkgargs_int(&s->a, d, s->a.use[i].value));
		else if (d->takes == 0)
			r |= argvec_add(av, d->debunpack);
		else
			r |= argvec_addf(av, "%s=%s", d->debunpack,
			    s->a.use[i].value);
	}
	for (d = dpkgargs_table; d->name != NULL || d->short_name != 0; d++)
		if (d->kind == DPKGARGS_FORCE && d->verdict == DPKGARGS_MAP &&
		    s->a.force[d - dpkgargs_table] != d->force_on)
			r |= argvec_add(av, d->debunpack);
	r |= argvec_add(av, "--");
	for (i = 0; i < s->debs.n; i++)
		r |= argvec_add(av, s->debs.v[i]);
	return r != 0 ? -ENOMEM : 0;
}
