/* SPDX-License-Identifier: MIT */
/* LIBEXECDIR/debunpack/dpkg: the dpkg apt runs; --unpack and --install through debunpack, everything else to the real dpkg. */
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
#include <time.h>
#include <unistd.h>

#include "cli/dpkgargs.h"
#include "db/dpkgstatus.h"
#include "deb/control.h"
#include "deb/deb.h"
#include "durable/fileat.h"
#include "util/error.h"

/*
 * The rule: a call is either done by debunpack as dpkg would do it, or
 * handed to the real dpkg with argv unchanged, before anything was
 * done.  Every doubt (an option not honoured, a debunpack without an
 * option the call needs, an argument dpkg would refuse, a directory
 * that cannot be walked) hands the call on: the real dpkg then does it,
 * or refuses it in its own words.
 */

#ifndef DPKGSHIM_DPKG
#define DPKGSHIM_DPKG		"/usr/bin/dpkg"
#endif
#ifndef DPKGSHIM_DEBUNPACK
#define DPKGSHIM_DEBUNPACK	"/usr/bin/debunpack"
#endif
#ifndef DPKGSHIM_CFGDIR
#define DPKGSHIM_CFGDIR		"/etc/dpkg"
#endif
/* dpkg runs it on each package when installed, unless --no-debsig. */
#define DPKGSHIM_DEBSIG		"/usr/bin/debsig-verify"

/* A growing argv. */
struct argvec {
	char **v;
	size_t n;
	char **owned;		/* strings made here */
	size_t nowned;
};

static int
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
static int
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

static void
argvec_free(struct argvec *av)
{
	size_t i;

	for (i = 0; i < av->nowned; i++)
		free(av->owned[i]);
	free(av->owned);
	free(av->v);
	memset(av, 0, sizeof(*av));
}

/* The state of one call. */
struct shim {
	int argc;
	char **argv;			/* as the shim was called */
	const char *dpkg;		/* the real dpkg */
	const char *debunpack;
	struct dpkgargs a;
	char *instdir, *admindir;	/* as dpkg would have them */
	struct argvec debs;		/* the package files, in dpkg's order */
	char *help;			/* debunpack --help */
	bool verbose;			/* DEBUNPACK_DPKG_DEBUG: say why */
};

/*
 * Hand the call to the real dpkg, argv unchanged.  WHY is said on
 * standard error only when DEBUNPACK_DPKG_DEBUG is set: apt users see
 * dpkg's output, nothing of the shim's.
 */
struct shimpkg;
static void shim_free(struct shim *s, struct shimpkg *pkgs);

static int
shim_handon(struct shim *s, const char *why, ...)
{
	va_list ap;
	int e;

	if (s->verbose) {
		fprintf(stderr, "debunpack-dpkg: handed to %s: ", s->dpkg);
		va_start(ap, why);
		vfprintf(stderr, why, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fflush(NULL);
	execv(s->dpkg, s->argv);
	e = errno;
	/* No dpkg to say it: the shim says what dpkg would have. */
	if (s->a.error[0] != '\0')
		fprintf(stderr, "dpkg: error: %s\n", s->a.error);
	fprintf(stderr, "dpkg: error: cannot execute '%s': %s\n", s->dpkg,
	    strerror(e));
	shim_free(s, NULL);
	return 2;
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

/* Run debunpack --help and keep what it prints: its list of options. */
static int
shim_ask_debunpack(struct shim *s)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *nb;
	int fd[2], st;
	ssize_t n;
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

		if (dup2(fd[1], 1) < 0 || (null >= 0 && dup2(null, 0) < 0))
			_exit(127);
		execl(s->debunpack, s->debunpack, "--help", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap * 2 + 8192;
			if ((nb = realloc(buf, cap)) == NULL)
				break;
			buf = nb;
		}
		if ((n = read(fd[0], buf + len, cap - len - 1)) < 0 &&
		    errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (buf == NULL || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		free(buf);
		return -ENOEXEC;
	}
	buf[len] = '\0';
	s->help = buf;
	return 0;
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
 * Whether debunpack can do the call as dpkg would: NULL, or why not.
 * Judged from dpkgargs_table's verdicts, option by option and force by
 * force, then what the verdict SHIM leaves to this file.
 */
static const char *
shim_judge(struct shim *s, char *why, size_t n)
{
	const struct dpkgargs_def *d;
	struct stat a, b;
	const char *v;
	char *lib;
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
	if ((r = shim_dirs(s)) != 0)
		return "out of memory";
	/* debunpack keeps dpkg's database in ROOT/var/lib/dpkg alone. */
	if (asprintf(&lib, "%s/var/lib/dpkg", s->instdir) < 0)
		return "out of memory";
	r = stat(lib, &a) == 0 && stat(s->admindir, &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	free(lib);
	if (!r)
		return "the database is not INSTDIR/var/lib/dpkg";
	if (shim_debs(s) != 0)
		return "the package files are not all there";
	/* dpkg stops after N failed packages, debunpack goes on. */
	if ((v = dpkgargs_value(&s->a, DPKGARGS_ID_ABORT_AFTER)) != NULL &&
	    (size_t)strtol(v, NULL, 0) < s->debs.n)
		return "--abort-after stops before the last package";
	return NULL;
}

/*
 * What dpkg sets for everything it runs, hooks and scripts: the
 * database, the root ("" for /) and the forces.  0 or -errno.
 */
static int
shim_setenv(struct shim *s, const char *instdir)
{
	char *force;
	int r = 0;

	if ((force = dpkgargs_force_string(&s->a)) == NULL)
		return -ENOMEM;
	if (setenv("DPKG_ADMINDIR", s->admindir, 1) != 0 ||
	    setenv("DPKG_ROOT", instdir, 1) != 0 ||
	    setenv("DPKG_FORCE", force, 1) != 0)
		r = -errno;
	free(force);
	return r;
}

/*
 * The --pre-invoke or --post-invoke commands (ID) in their order, each
 * through the shell with DPKG_HOOK_ACTION set, as dpkg runs them: one
 * failing is fatal, in dpkg's words.  0, or 2 for the exit status.
 */
static int
shim_hooks(struct shim *s, enum dpkgargs_id id)
{
	size_t i;
	int st;

	if (setenv("DPKG_HOOK_ACTION", s->a.action->name, 1) != 0)
		return 2;
	for (i = 0; i < s->a.nuse; i++) {
		if (s->a.use[i].def->id != id)
			continue;
		fflush(NULL);
		if ((st = system(s->a.use[i].value)) != 0) {
			/* dpkg says system()'s status as it is. */
			fprintf(stderr, "dpkg: error: error executing hook"
			    " '%s', exit code %d\n", s->a.use[i].value, st);
			return 2;
		}
	}
	unsetenv("DPKG_HOOK_ACTION");
	return 0;
}

/* Run ARGV (ARGV[0] is the program) and wait: its exit status, 2 when killed. */
static int
shim_run(const char *prog, char **argv)
{
	pid_t pid;
	int st;

	fflush(NULL);
	if ((pid = fork()) < 0) {
		fprintf(stderr, "dpkg: error: cannot fork: %s\n",
		    strerror(errno));
		return 2;
	}
	if (pid == 0) {
		execv(prog, argv);
		fprintf(stderr, "dpkg: error: cannot execute '%s': %s\n", prog,
		    strerror(errno));
		_exit(2);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 2;
	if (WIFEXITED(st))
		return WEXITSTATUS(st) <= 2 ? WEXITSTATUS(st) : 2;
	fprintf(stderr, "dpkg: error: '%s' was killed by signal %d\n", prog,
	    WTERMSIG(st));
	return 2;
}

/* debunpack's command line for the call. */
static int
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

/* The package a file holds, as the status file will name it. */
struct shimpkg {
	char *name, *arch, *ma, *version;
};

static void
shimpkg_free(struct shimpkg *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(p[i].name);
		free(p[i].arch);
		free(p[i].ma);
		free(p[i].version);
	}
	free(p);
}

static char *
shim_field(const struct control *c, const char *name)
{
	const char *v = control_get(c, name);

	return strdup(v != NULL ? v : "");
}

/* Read each package file's name, architecture, Multi-Arch and version. */
static int
shim_read_pkgs(struct shim *s, struct shimpkg **out)
{
	struct shimpkg *p;
	struct dbp_error err;
	struct control *c;
	struct deb *d;
	size_t i;
	int r = 0;

	if ((p = calloc(s->debs.n, sizeof(*p))) == NULL)
		return -ENOMEM;
	for (i = 0; r == 0 && i < s->debs.n; i++) {
		if ((r = deb_open(&d, s->debs.v[i], &err)) != 0)
			break;
		if ((r = deb_read_control(d, &c, &err)) == 0) {
			p[i].name = shim_field(c, "Package");
			p[i].arch = shim_field(c, "Architecture");
			p[i].ma = shim_field(c, "Multi-Arch");
			p[i].version = shim_field(c, "Version");
			if (p[i].name == NULL || p[i].arch == NULL ||
			    p[i].ma == NULL || p[i].version == NULL)
				r = -ENOMEM;
			control_free(c);
		}
		deb_close(d);
	}
	if (r != 0) {
		shimpkg_free(p, s->debs.n);
		return r;
	}
	*out = p;
	return 0;
}

/* dpkg's status file in ADMINDIR, empty when there is none yet. */
static int
shim_status(const struct shim *s, struct dpkgstatus *st)
{
	char *path, *text = NULL;
	size_t len;
	int r;

	if (asprintf(&path, "%s/status", s->admindir) < 0)
		return -ENOMEM;
	r = fileat_read(AT_FDCWD, path, &text, &len);
	free(path);
	if (r == -ENOENT)
		return 0;
	if (r == 0)
		r = dpkgstatus_parse(st, text, len);
	free(text);
	return r;
}

/* Whether package P is unpacked at its file's version in AFTER. */
static bool
shim_unpacked(struct dpkgstatus *after, const struct shimpkg *p)
{
	struct dpkgstatus_stanza *o;

	o = dpkgstatus_peek(after, p->name, p->arch, p->ma);
	return o != NULL && strcmp(dpkgstatus_state(o), "unpacked") == 0 &&
	    o->version != NULL && strcmp(o->version, p->version) == 0;
}

/* One line of dpkg.log: local time, then the words. */
static void
shim_logf(FILE *fp, const char *fmt, ...)
{
	char when[32];
	struct tm tm;
	time_t now;
	va_list ap;

	now = time(NULL);
	if (localtime_r(&now, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm) == 0)
		return;
	fprintf(fp, "%s ", when);
	va_start(ap, fmt);
	vfprintf(fp, fmt, ap);
	va_end(ap);
	fputc('\n', fp);
}

/*
 * dpkg.log's lines for the unpack, as dpkg writes them: "install" or
 * "upgrade" with the old and new versions for every package of the
 * call, then "status half-installed" and "status unpacked" for each one
 * it unpacked (the intermediate states of an upgrade's old version are
 * not told).  dpkg goes on without its log when it cannot open it: so
 * does the shim, with dpkg's notice.
 */
static void
shim_log(struct shim *s, const char *log, struct dpkgstatus *before,
    struct dpkgstatus *after, const struct shimpkg *p)
{
	struct dpkgstatus_stanza *o;
	const char *old, *state;
	FILE *fp;
	size_t i;

	if ((fp = fopen(log, "ae")) == NULL) {
		fprintf(stderr, "dpkg: notice: could not open log '%s': %s\n",
		    log, strerror(errno));
		return;
	}
	for (i = 0; i < s->debs.n; i++) {
		o = dpkgstatus_peek(before, p[i].name, p[i].arch, p[i].ma);
		state = o != NULL ? dpkgstatus_state(o) : "not-installed";
		old = o != NULL && o->version != NULL && *o->version != '\0' &&
		    strcmp(state, "not-installed") != 0 ? o->version : "<none>";
		shim_logf(fp, "%s %s:%s %s %s", strcmp(state, "not-installed")
		    == 0 || strcmp(state, "config-files") == 0 ? "install" :
		    "upgrade", p[i].name, o != NULL && o->arch != NULL &&
		    strcmp(state, "not-installed") != 0 && strcmp(state,
		    "config-files") != 0 ? o->arch : p[i].arch, old,
		    p[i].version);
		if (!shim_unpacked(after, &p[i]))
			continue;
		shim_logf(fp, "status half-installed %s:%s %s", p[i].name,
		    p[i].arch, p[i].version);
		shim_logf(fp, "status unpacked %s:%s %s", p[i].name, p[i].arch,
		    p[i].version);
	}
	if (fclose(fp) != 0)
		fprintf(stderr, "dpkg: notice: cannot write log '%s': %s\n",
		    log, strerror(errno));
}

/*
 * dpkg -i: the packages it unpacked are configured after the unpack, as
 * one --configure of the real dpkg with the caller's command-line
 * options (dpkg reads its configuration again).  A package is one this
 * call unpacked when AFTER has it unpacked at the file's version.
 */
static int
shim_configure(struct shim *s, struct dpkgstatus *after,
    const struct shimpkg *p)
{
	struct argvec av = { NULL, 0, NULL, 0 };
	const struct dpkgargs_use *u;
	size_t i, j, first;
	char buf[512];
	int r;

	r = argvec_add(&av, s->argv[0]);
	for (i = 0; i < s->a.nuse; i++) {
		u = &s->a.use[i];
		if (u->origin != NULL || u->def->id == DPKGARGS_ID_RECURSIVE)
			continue;
		if (u->def->name == NULL)
			r |= argvec_addf(&av, "-%c", u->def->short_name);
		else if (u->value == NULL)
			r |= argvec_addf(&av, "--%s", u->def->name);
		else
			r |= argvec_addf(&av, "--%s%c%s", u->def->name,
			    u->def->takes == 2 ? '-' : '=', u->value);
	}
	r |= argvec_add(&av, "--configure");
	first = av.n;
	for (i = 0; i < s->debs.n; i++) {
		if (!shim_unpacked(after, &p[i]))
			continue;
		dpkgstatus_name(p[i].name, p[i].arch, p[i].ma, buf,
		    sizeof(buf));
		/* A package given twice is configured once. */
		for (j = first; j < av.n; j++)
			if (strcmp(av.v[j], buf) == 0)
				break;
		if (j == av.n)
			r |= argvec_addf(&av, "%s", buf);
	}
	if (r != 0) {
		argvec_free(&av);
		fprintf(stderr, "dpkg: error: out of memory\n");
		return 2;
	}
	r = av.n > first ? shim_run(s->dpkg, av.v) : 0;
	argvec_free(&av);
	return r;
}

static void
shim_free(struct shim *s, struct shimpkg *pkgs)
{
	if (pkgs != NULL)
		shimpkg_free(pkgs, s->debs.n);
	argvec_free(&s->debs);
	free(s->help);
	free(s->instdir);
	free(s->admindir);
	dpkgargs_free(&s->a);
}

int
main(int argc, char **argv)
{
	struct dpkgstatus before = { NULL, 0 }, after = { NULL, 0 };
	struct argvec av = { NULL, 0, NULL, 0 };
	struct shimpkg *pkgs = NULL;
	const char *cfgdir, *why, *log;
	char whybuf[PATH_MAX + 64];
	struct shim s;
	FILE *fp;
	int r, rc;

	memset(&s, 0, sizeof(s));
	s.argc = argc;
	s.argv = argv;
	s.dpkg = getenv("DEBUNPACK_DPKG") != NULL ? getenv("DEBUNPACK_DPKG") :
	    DPKGSHIM_DPKG;
	s.debunpack = getenv("DEBUNPACK") != NULL ? getenv("DEBUNPACK") :
	    DPKGSHIM_DEBUNPACK;
	s.verbose = getenv("DEBUNPACK_DPKG_DEBUG") != NULL;
	cfgdir = getenv("DEBUNPACK_DPKG_CFGDIR") != NULL ?
	    getenv("DEBUNPACK_DPKG_CFGDIR") : DPKGSHIM_CFGDIR;

	/* dpkg's order: DPKG_FORCE, the configuration, the command line. */
	if ((r = dpkgargs_init(&s.a, getenv("DPKG_FORCE"))) != 0 ||
	    (r = dpkgargs_load_config(&s.a, cfgdir, getenv("HOME"))) != 0 ||
	    (r = dpkgargs_parse(&s.a, argc, argv)) != 0)
		return shim_handon(&s, "%s", s.a.error[0] != '\0' ? s.a.error :
		    strerror(-r));
	if (s.a.action == NULL)
		return shim_handon(&s, "no action");
	if (s.a.action->verdict != DPKGARGS_RUN)
		return shim_handon(&s, "action --%s", s.a.action->name);
	if (shim_ask_debunpack(&s) != 0)
		return shim_handon(&s, "'%s --help' failed", s.debunpack);
	if ((why = shim_judge(&s, whybuf, sizeof(whybuf))) != NULL)
		return shim_handon(&s, "%s", why);
	/* What dpkg would refuse to read is dpkg's to say. */
	if (shim_read_pkgs(&s, &pkgs) != 0)
		return shim_handon(&s, "a package file's control cannot be"
		    " read");
	if (shim_status(&s, &before) != 0) {
		shimpkg_free(pkgs, s.debs.n);
		return shim_handon(&s, "dpkg's status file cannot be read");
	}
	if (shim_unpack_argv(&s, &av) != 0) {
		fprintf(stderr, "dpkg: error: out of memory\n");
		shim_free(&s, pkgs);
		return 2;
	}

	/* From here on the call is debunpack's: no more handing on. */
	if (shim_setenv(&s, s.instdir) != 0) {
		fprintf(stderr, "dpkg: error: unable to setenv for"
		    " subprocesses\n");
		argvec_free(&av);
		dpkgstatus_clear(&before);
		shim_free(&s, pkgs);
		return 2;
	}
	if ((rc = shim_hooks(&s, DPKGARGS_ID_PRE_INVOKE)) != 0) {
		argvec_free(&av);
		dpkgstatus_clear(&before);
		shim_free(&s, pkgs);
		return rc;
	}
	if ((log = dpkgargs_value(&s.a, DPKGARGS_ID_LOG)) != NULL) {
		if ((fp = fopen(log, "ae")) != NULL) {
			shim_logf(fp, "startup archives %s", s.a.action->name);
			fclose(fp);
		}
	}
	rc = shim_run(s.debunpack, av.v);
	argvec_free(&av);
	if (rc <= 1 && (r = shim_status(&s, &after)) != 0) {
		fprintf(stderr, "dpkg: error: cannot read '%s/status' after"
		    " the unpack: %s\n", s.admindir, strerror(-r));
		rc = 2;
	} else if (rc <= 1) {
		if (log != NULL)
			shim_log(&s, log, &before, &after, pkgs);
		/* dpkg -i configures what unpacked, even when some did not. */
		if (s.a.action->id == DPKGARGS_ID_INSTALL) {
			r = shim_configure(&s, &after, pkgs);
			rc = r > rc ? r : rc;
		}
	}
	/* As dpkg: after an action that ran to its end, failed packages or not. */
	if (rc <= 1 && (r = shim_hooks(&s, DPKGARGS_ID_POST_INVOKE)) != 0)
		rc = r;
	dpkgstatus_clear(&before);
	dpkgstatus_clear(&after);
	shim_free(&s, pkgs);
	return rc;
}
