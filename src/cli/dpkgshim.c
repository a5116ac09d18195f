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
#include "cli/shimconf.h"
#include "cli/shimtrig.h"
#include "cli/shimcall.h"
#include "db/dpkgstatus.h"
#include "deb/control.h"
#include "deb/debctl.h"
#include "durable/fileat.h"
#include "run/binfmtns.h"
#include "run/unpackdeps.h"
#include "util/error.h"

/*
 * The rule: a call is either done by debunpack as dpkg would do it, or
 * handed to the real dpkg with argv unchanged, before anything was
 * done.  Every doubt (an option not honoured, a debunpack without an
 * option the call needs, an argument dpkg would refuse, a directory
 * that cannot be walked) hands the call on: the real dpkg then does it,
 * or refuses it in its own words.  The decision and debunpack's command
 * line are shimcall.c's; running them, dpkg's log, hooks and the
 * --configure of an install are this file's.
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

/*
 * Hand the call to the real dpkg, argv unchanged.  WHY is said on
 * standard error only when DEBUNPACK_DPKG_DEBUG is set: apt users see
 * dpkg's output, nothing of the shim's.
 */
struct shimpkg;
static void shim_free(struct shim *s, struct shimpkg *pkgs);

/*
 * The real dpkg, argv unchanged, in a user namespace whose binfmt_misc
 * runs the root's programs (shim_emulated): its exit status, as if it
 * had been executed in place.
 */
static int
shim_handon_emulated(struct shim *s, const struct emulate *em)
{
	struct binfmtns ns;
	pid_t pid;
	int r, st;

	if ((r = binfmtns_open(&ns)) != 0 || (pid = fork()) < 0) {
		fprintf(stderr, "dpkg: error: cannot fork: %s\n",
		    strerror(r != 0 ? -r : errno));
		shim_free(s, NULL);
		return 2;
	}
	if (pid == 0) {
		binfmtns_child_or_exit(&ns, em->line, "dpkg: error: ",
		    em->source, 2);
		execv(s->dpkg, s->argv);
		fprintf(stderr, "dpkg: error: cannot execute '%s': %s\n",
		    s->dpkg, strerror(errno));
		_exit(2);
	}
	/* A failure here is the child's too: it says so and exits. */
	(void)binfmtns_parent(&ns, pid);
	binfmtns_close(&ns);
	shim_free(s, NULL);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int
shim_handon(struct shim *s, const char *why, ...)
{
	struct emulate em;
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
	if (shim_emulated(s, &em))
		return shim_handon_emulated(s, &em);
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

/*
 * Finish what an interrupted debunpack run left, before dpkg or debunpack
 * starts on the root: dpkg would take its half-committed batch for the
 * root's state.  0, or dpkg's exit status for an error.
 */
static int
shim_finish_journal(struct shim *s)
{
	struct argvec av = { NULL, 0, NULL, 0 };
	int r;

	if ((r = shim_recover_argv(s, &av)) <= 0) {
		argvec_free(&av);
		if (r == 0)
			return 0;
		fprintf(stderr, "dpkg: error: out of memory\n");
		return 2;
	}
	if (s->verbose)
		fprintf(stderr, "debunpack-dpkg: finishing an interrupted"
		    " debunpack run in '%s'\n", s->instdir);
	r = shim_run(s->debunpack, av.v);
	argvec_free(&av);
	if (r != 0)
		fprintf(stderr, "dpkg: error: '%s' holds an interrupted"
		    " debunpack run that could not be finished: run"
		    " 'debunpack --root %s --recover'\n", s->instdir[0] != '\0' ?
		    s->instdir : "/", s->instdir[0] != '\0' ? s->instdir : "/");
	return r != 0 ? 2 : 0;
}

/* The package a file holds, as the status file will name it. */
struct shimpkg {
	char *name, *arch, *ma, *version;
	struct control *ctl;
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
		control_free(p[i].ctl);
	}
	free(p);
}

static char *
shim_field(const struct control *c, const char *name)
{
	const char *v = control_get(c, name);

	return strdup(v != NULL ? v : "");
}

/*
 * The control file of package FILE as dpkg-deb --field prints it, for
 * the forms debctl.c leaves (control.tar.zst, say): 0, or -1 when
 * dpkg-deb cannot read it either (the call is then dpkg's).
 */
static int
shim_dpkg_deb_field(const struct shim *s, const char *file, char **text,
    size_t *len)
{
	char dpkgdeb[PATH_MAX], *slash;
	char *argv[] = { dpkgdeb, (char *)"--field", (char *)file, NULL };

	/* The dpkg-deb beside the real dpkg, else the one in PATH. */
	snprintf(dpkgdeb, sizeof(dpkgdeb), "%s", s->dpkg);
	if ((slash = strrchr(dpkgdeb, '/')) != NULL &&
	    (size_t)(slash + 1 - dpkgdeb) + sizeof("dpkg-deb") <=
	    sizeof(dpkgdeb)) {
		strcpy(slash + 1, "dpkg-deb");
		if (access(dpkgdeb, X_OK) != 0)
			strcpy(dpkgdeb, "dpkg-deb");
	} else
		strcpy(dpkgdeb, "dpkg-deb");
	return shim_output(argv, true, text, len) == 0 ? 0 : -1;
}

/*
 * Read each package file's name, architecture, Multi-Arch and version:
 * the control file through debctl.c (no libarchive to load: this runs in
 * every call of apt's), or dpkg-deb for a form it leaves; parsed and
 * checked as debunpack's reader checks it.
 */
static int
shim_read_pkgs(struct shim *s, struct shimpkg **out)
{
	struct shimpkg *p;
	struct dbp_error err;
	struct control *c;
	char *text;
	size_t i, len;
	int r = 0;

	if ((p = calloc(s->debs.n, sizeof(*p))) == NULL)
		return -ENOMEM;
	for (i = 0; r == 0 && i < s->debs.n; i++) {
		text = NULL;
		if ((r = debctl_read(s->debs.v[i], &text, &len)) == 1)
			r = shim_dpkg_deb_field(s, s->debs.v[i], &text, &len);
		if (r != 0)
			break;
		r = control_parse(text, len, &c, &err);
		free(text);
		if (r != 0)
			break;
		if ((r = control_check_syntax(c, &err)) != 0) {
			control_free(c);
			break;
		}
		p[i].name = shim_field(c, "Package");
		p[i].arch = shim_field(c, "Architecture");
		p[i].ma = shim_field(c, "Multi-Arch");
		p[i].version = shim_field(c, "Version");
		p[i].ctl = c;
		if (p[i].name == NULL || p[i].arch == NULL ||
		    p[i].ma == NULL || p[i].version == NULL)
			r = -ENOMEM;
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
 * call unpacked when AFTER has it unpacked at the file's version; one
 * it deconfigured (a package of the call Breaks it, -B) is installed in
 * BEFORE and half-configured in AFTER, and dpkg -i configures it too.
 */
/* The real dpkg's command line: the caller's options, from the command line. */
static int
shim_dpkg_options(struct shim *s, struct argvec *av)
{
	const struct dpkgargs_use *u;
	size_t i;
	int r;

	r = argvec_add(av, s->argv[0]);
	for (i = 0; i < s->a.nuse; i++) {
		u = &s->a.use[i];
		if (u->origin != NULL || u->def->id == DPKGARGS_ID_RECURSIVE)
			continue;
		if (u->def->name == NULL)
			r |= argvec_addf(av, "-%c", u->def->short_name);
		else if (u->value == NULL)
			r |= argvec_addf(av, "--%s", u->def->name);
		else
			r |= argvec_addf(av, "--%s%c%s", u->def->name,
			    u->def->takes == 2 ? '-' : '=', u->value);
	}
	return r;
}

/*
 * ARGV, the real dpkg's --configure or --triggers-only (ACTION) that
 * ends a call of the shim's own, as a call of apt's of that action
 * would run (shimconf.h): batched, with a barrier, or dpkg's own syncs.
 */
static int
shim_dpkg_after(struct shim *s, const char *action, char **argv)
{
	char why[PATH_MAX + 64];
	enum shimconf_how how;

	how = shimconf_how(s, action, why, sizeof(why));
	if (how == SHIMCONF_EXEC)
		return shim_run(s->dpkg, argv);
	shimconf_say(s, action, " after the unpack", how, why);
	return shimconf_run(s, argv, how);
}

static int
shim_configure(struct shim *s, struct dpkgstatus *before,
    struct dpkgstatus *after, const struct shimpkg *p)
{
	struct argvec av = { NULL, 0, NULL, 0 };
	size_t i, j, first;
	char buf[512];
	int r;

	r = shim_dpkg_options(s, &av);
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
	for (i = 0; av.n > first && i < after->n; i++) {
		const struct dpkgstatus_stanza *a = &after->v[i], *b;
		const char *was;

		if (strcmp(dpkgstatus_state(a), "half-configured") != 0 ||
		    (b = dpkgstatus_peek(before, a->name, a->arch, a->ma)) ==
		    NULL)
			continue;
		was = dpkgstatus_state(b);
		if (strcmp(was, "installed") != 0 &&
		    strncmp(was, "triggers-", 9) != 0)
			continue;
		/* One of the call's own, failed, is left as it is. */
		for (j = 0; j < s->debs.n; j++)
			if (strcmp(p[j].name, a->name) == 0 &&
			    strcmp(p[j].arch, a->arch != NULL ? a->arch : "") ==
			    0)
				break;
		if (j < s->debs.n)
			continue;
		dpkgstatus_name(a->name, a->arch, a->ma, buf, sizeof(buf));
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
	r = av.n > first ? shim_dpkg_after(s, "configure", av.v) : 0;
	argvec_free(&av);
	return r;
}

/* Whether the call processes triggers: dpkg's --no-triggers, the last word. */
static bool
shim_runs_triggers(const struct shim *s)
{
	bool on = true;
	size_t i;

	for (i = 0; i < s->a.nuse; i++)
		if (s->a.use[i].def->id == DPKGARGS_ID_TRIGGERS ||
		    s->a.use[i].def->id == DPKGARGS_ID_NO_TRIGGERS)
			on = s->a.use[i].def->id == DPKGARGS_ID_TRIGGERS;
	return on;
}

/* One --triggers-only of the real dpkg for NAMES (N), with the caller's options and EXTRA (or NULL). */
static int
shim_triggers_only(struct shim *s, const char *extra, char **names, size_t n)
{
	struct argvec av = { NULL, 0, NULL, 0 };
	size_t i;
	int r;

	if (n == 0)
		return 0;
	r = shim_dpkg_options(s, &av);
	if (extra != NULL)
		r |= argvec_add(&av, extra);
	r |= argvec_add(&av, "--triggers-only");
	for (i = 0; i < n; i++)
		r |= argvec_addf(&av, "%s", names[i]);
	if (r == 0)
		r = shim_dpkg_after(s, "triggers-only", av.v);
	else {
		fprintf(stderr, "dpkg: error: out of memory\n");
		r = 2;
	}
	argvec_free(&av);
	return r;
}

/*
 * dpkg --unpack without --no-triggers: at its end dpkg processes the
 * triggers its unpack activated (shimtrig.h says which); one
 * --triggers-only of the real dpkg processes them (--triggers: what
 * their processing activates is processed too, as in dpkg's run).
 */
static int
shim_triggers(struct shim *s, struct dpkgstatus *before,
    struct dpkgstatus *after)
{
	char **names = NULL;
	size_t n = 0;
	int r;

	if ((r = shimtrig_pending(before, after, &names, &n)) != 0) {
		fprintf(stderr, "dpkg: error: out of memory\n");
		return 2;
	}
	r = shim_triggers_only(s, "--triggers", names, n);
	shimtrig_free(names, n);
	return r;
}

/*
 * Before the unpack: the triggers dpkg processes first, even under
 * --no-triggers, for a Pre-Depends that a triggers-awaited package
 * would satisfy once they are (shimtrig_required).
 */
static int
shim_required_triggers(struct shim *s, struct dpkgstatus *before,
    const struct shimpkg *p)
{
	const char *pre;
	char **names = NULL;
	size_t i, n = 0;
	int r = 0;

	for (i = 0; r == 0 && i < s->debs.n; i++)
		if ((pre = control_get(p[i].ctl, "Pre-Depends")) != NULL &&
		    pre[0] != '\0')
			r = shimtrig_required(before, pre, &names, &n);
	if (r != 0) {
		shimtrig_free(names, n);
		fprintf(stderr, "dpkg: error: out of memory\n");
		return 2;
	}
	r = shim_triggers_only(s, NULL, names, n);
	shimtrig_free(names, n);
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
	enum shimconf_how how;
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
	if ((rc = shim_finish_journal(&s)) != 0) {
		shim_free(&s, NULL);
		return rc;
	}
	if (s.a.action->verdict != DPKGARGS_RUN) {
		/* dpkg's call still, with one barrier after (shimconf.c). */
		how = shim_where(&s) != 0 ? SHIMCONF_EXEC : shimconf_how(&s,
		    s.a.action->name, whybuf, sizeof(whybuf));
		if (how == SHIMCONF_EXEC)
			return shim_handon(&s, "action --%s", s.a.action->name);
		shimconf_say(&s, s.a.action->name, "", how, whybuf);
		r = argvec_add(&av, s.dpkg);
		for (int i = 1; r == 0 && i < argc; i++)
			r = argvec_add(&av, argv[i]);
		if (r != 0) {
			fprintf(stderr, "dpkg: error: out of memory\n");
			rc = 2;
		} else
			rc = shimconf_run(&s, av.v, how);
		argvec_free(&av);
		shim_free(&s, NULL);
		return rc;
	}
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
	/* Its failure fails nothing else, as a package's in dpkg's run. */
	r = shim_required_triggers(&s, &before, pkgs);
	rc = shim_run(s.debunpack, av.v);
	rc = r > rc ? r : rc;
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
			r = shim_configure(&s, &before, &after, pkgs);
			rc = r > rc ? r : rc;
		} else if (shim_runs_triggers(&s)) {
			r = shim_triggers(&s, &before, &after);
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
