/* SPDX-License-Identifier: MIT */
/* dpkg's command line and configuration files, parsed as dpkg parses them, each option with the shim's verdict. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/dpkgargs.h"

#define A(n, s, take, v, id)	{ n, s, DPKGARGS_ACTION, take, DPKGARGS_##v, \
				  DPKGARGS_ID_##id, false, NULL }
#define O(n, s, take, v, id, dbu) { n, s, DPKGARGS_OPTION, take, \
				  DPKGARGS_##v, DPKGARGS_ID_##id, false, dbu }
#define F(n, on, v, id, dbu)	{ n, 0, DPKGARGS_FORCE, 0, DPKGARGS_##v, \
				  DPKGARGS_ID_##id, on, dbu }

/*
 * dpkg 1.21's options (src/main/main.c's table, in its order: a short
 * name is looked up first to last), and what the shim does with each
 * when asked to --unpack or --install.  HANDON: the real dpkg does the
 * whole call, argv unchanged; SAME: the unpack does the same with or
 * without it; MAP: debunpack's option does it, and the call is handed
 * on when the debunpack at hand lacks that option; SHIM: dpkgshim.c does
 * it.  A force row's verdict applies when the force is not as dpkg sets
 * it by default.
 */
const struct dpkgargs_def dpkgargs_table[] = {
	/* The two actions that unpack: debunpack's job. */
	A("install", 'i', 0, RUN, INSTALL),
	A("unpack", 0, 0, RUN, UNPACK),
	/* Every other action is dpkg's, unchanged. */
	A("record-avail", 'A', 0, HANDON, NONE),
	A("configure", 0, 0, HANDON, NONE),
	A("remove", 'r', 0, HANDON, NONE),
	A("purge", 'P', 0, HANDON, NONE),
	A("triggers-only", 0, 0, HANDON, NONE),
	A("verify", 'V', 0, HANDON, NONE),
	A("listfiles", 'L', 0, HANDON, NONE),
	A("status", 's', 0, HANDON, NONE),
	A("get-selections", 0, 0, HANDON, NONE),
	A("set-selections", 0, 0, HANDON, NONE),
	A("clear-selections", 0, 0, HANDON, NONE),
	A("print-avail", 'p', 0, HANDON, NONE),
	A("update-avail", 0, 0, HANDON, NONE),
	A("merge-avail", 0, 0, HANDON, NONE),
	A("clear-avail", 0, 0, HANDON, NONE),
	A("forget-old-unavail", 0, 0, HANDON, NONE),
	A("audit", 'C', 0, HANDON, NONE),
	A("yet-to-unpack", 0, 0, HANDON, NONE),
	A("list", 'l', 0, HANDON, NONE),
	A("search", 'S', 0, HANDON, NONE),
	A("assert", 0, 2, HANDON, NONE),
	A("add-architecture", 0, 0, HANDON, NONE),
	A("remove-architecture", 0, 0, HANDON, NONE),
	A("print-architecture", 0, 0, HANDON, NONE),
	A("print-foreign-architectures", 0, 0, HANDON, NONE),
	A("predep-package", 0, 0, HANDON, NONE),
	A("validate-pkgname", 0, 0, HANDON, NONE),
	A("validate-trigname", 0, 0, HANDON, NONE),
	A("validate-archname", 0, 0, HANDON, NONE),
	A("validate-version", 0, 0, HANDON, NONE),
	A("compare-versions", 0, 0, HANDON, NONE),
	A("help", '?', 0, HANDON, NONE),
	A("version", 0, 0, HANDON, NONE),
	/*
	 * Commands run before and after the action, with dpkg's environment:
	 * the shim runs them around an unpack (an install is dpkg's: its
	 * --configure would run them a second time).
	 */
	O("pre-invoke", 0, 1, SHIM, PRE_INVOKE, NULL),
	O("post-invoke", 0, 1, SHIM, POST_INVOKE, NULL),
	/* The filters of dpkg.cfg.d/excludes: debunpack's, same semantics. */
	O("path-exclude", 0, 1, MAP, NONE, "--path-exclude"),
	O("path-include", 0, 1, MAP, NONE, "--path-include"),
	/* Read by --verify alone. */
	O("verify-format", 0, 1, SAME, NONE, NULL),
	/* A logger fed the status lines: dpkg starts it. */
	O("status-logger", 0, 1, HANDON, NONE, NULL),
	/*
	 * apt's progress: debunpack writes dpkg's lines there (to one
	 * descriptor: several are handed on).
	 */
	O("status-fd", 0, 1, MAP, STATUS_FD, "--status-fd"),
	/*
	 * dpkg.log (Debian's dpkg.cfg sets it): the shim writes the unpack's
	 * lines, from the status file before and after.
	 */
	O("log", 0, 1, SHIM, LOG, NULL),
	/* A package list of --configure and the like, not of an unpack. */
	O("pending", 'a', 0, HANDON, NONE, NULL),
	/* The shim walks the directories in dpkg's order. */
	O("recursive", 'R', 0, SHIM, RECURSIVE, NULL),
	/* debunpack's --dry-run says other things than dpkg's. */
	O("no-act", 0, 0, HANDON, NONE, NULL),
	O("dry-run", 0, 0, HANDON, NONE, NULL),
	O("simulate", 0, 0, HANDON, NONE, NULL),
	/* An unpack pages nothing. */
	O("no-pager", 0, 0, SAME, NONE, NULL),
	/* Without it dpkg runs debsig-verify when installed: the shim checks. */
	O("no-debsig", 0, 0, SHIM, NO_DEBSIG, NULL),
	/* --refuse-downgrade: dpkg then skips a downgrade, debunpack would not. */
	O(NULL, 'G', 0, SHIM, REFUSE_DOWNGRADE, NULL),
	/* dpkg then skips packages not selected for install. */
	O("selected-only", 'O', 0, HANDON, NONE, NULL),
	/*
	 * debunpack notes the activations (triggers-pending,
	 * triggers-awaited) as dpkg does; unless --no-triggers, the shim
	 * then has the real dpkg process the packages they triggered, as
	 * dpkg --unpack does at its end.
	 */
	O("triggers", 0, 0, SHIM, TRIGGERS, NULL),
	O("no-triggers", 0, 0, SHIM, NO_TRIGGERS, NULL),
	O("no-also-select", 'N', 0, HANDON, NONE, NULL),
	/* dpkg then skips a version already installed: debunpack reinstalls. */
	O("skip-same-version", 'E', 0, HANDON, NONE, NULL),
	/*
	 * apt gives it on every unpack call: a package that an unpacked one
	 * Breaks is deconfigured instead of failing the unpack, as
	 * debunpack's option of that name does.
	 */
	O("auto-deconfigure", 'B', 0, MAP, NONE, "--auto-deconfigure"),
	/* Changes the output of --version and of queries only. */
	O("robot", 0, 0, SAME, NONE, NULL),
	/* Root and database: the shim passes INSTDIR as debunpack's --root. */
	O("root", 0, 1, SHIM, ROOT, NULL),
	/* debunpack goes on after any number of failed packages. */
	O("abort-after", 0, 1, SHIM, ABORT_AFTER, NULL),
	O("admindir", 0, 1, SHIM, ADMINDIR, NULL),
	O("instdir", 0, 1, SHIM, INSTDIR, NULL),
	/* Pre-Depends and Breaks on or of them ignored, as dpkg does. */
	O("ignore-depends", 0, 1, MAP, IGNORE_DEPENDS, "--ignore-depends"),
	/* Judged force by force below. */
	O("force", 0, 2, SHIM, FORCE, NULL),
	O("refuse", 0, 2, SHIM, REFUSE, NULL),
	O("no-force", 0, 2, SHIM, REFUSE, NULL),
	/* dpkg's debugging output cannot be had from debunpack. */
	O("debug", 'D', 1, HANDON, NONE, NULL),
	/* dpkg-deb's actions, which dpkg execs. */
	A("build", 'b', 0, HANDON, NONE),
	A("contents", 'c', 0, HANDON, NONE),
	A("control", 'e', 0, HANDON, NONE),
	A("info", 'I', 0, HANDON, NONE),
	A("field", 'f', 0, HANDON, NONE),
	A("extract", 'x', 0, HANDON, NONE),
	A("vextract", 'X', 0, HANDON, NONE),
	A("ctrl-tarfile", 0, 0, HANDON, NONE),
	A("fsys-tarfile", 0, 0, HANDON, NONE),

	/* The forces (src/common/force.c), on or off. */
	/* Every force at once, overwrite-dir among them. */
	F("all", false, HANDON, NONE, NULL),
	/* Off: no SELinux labels, which debunpack never sets either. */
	F("security-mac", true, SAME, NONE, NULL),
	/* Off: dpkg skips a downgrade with a notice, debunpack would not. */
	F("downgrade", true, HANDON, FORCE_DOWNGRADE, NULL),
	/* --configure's. */
	F("configure-any", false, SAME, NONE, NULL),
	/* Holds matter to dependency processing, which an unpack has none of. */
	F("hold", false, SAME, NONE, NULL),
	/* Without it dpkg refuses a user who is not root: the shim checks. */
	F("not-root", false, SAME, FORCE_NOT_ROOT, NULL),
	/* dpkg's check of PATH for its helpers: debunpack runs none. */
	F("bad-path", false, SAME, NONE, NULL),
	/* debsig-verify's verdict: the shim hands on when debsig runs. */
	F("bad-verify", false, SAME, NONE, NULL),
	/* dpkg would take a version debunpack refuses. */
	F("bad-version", false, HANDON, NONE, NULL),
	/* dpkg-statoverride's. */
	F("statoverride-add", false, SAME, NONE, NULL),
	F("statoverride-remove", false, SAME, NONE, NULL),
	/* Taking another package's file: debunpack's --force-overwrite. */
	F("overwrite", false, MAP, NONE, "--force-overwrite"),
	/* debunpack has no such force: it would refuse what dpkg does. */
	F("overwrite-diverted", false, HANDON, NONE, NULL),
	F("overwrite-dir", false, HANDON, NONE, NULL),
	/*
	 * Leave to dpkg whether to sync; debunpack's durable modes cost a
	 * few flushes a call, so it syncs regardless (DEBUNPACK_SYNC_MODE
	 * chooses otherwise).
	 */
	F("unsafe-io", false, SAME, NONE, NULL),
	/* Scripts run outside the root's chroot, DPKG_ROOT set: debunpack's. */
	F("script-chrootless", false, MAP, NONE, "--force-script-chrootless"),
	/* Conffile questions are asked at --configure. */
	F("confnew", false, SAME, NONE, NULL),
	F("confold", false, SAME, NONE, NULL),
	F("confdef", false, SAME, NONE, NULL),
	F("confmiss", false, SAME, NONE, NULL),
	F("confask", false, SAME, NONE, NULL),
	/* A package of an architecture the root does not take, installed. */
	F("architecture", false, MAP, NONE, "--force-architecture"),
	/* Breaks are checked: debunpack reads the force in DPKG_FORCE. */
	F("breaks", false, SAME, NONE, NULL),
	/* Conflicts are checked: debunpack reads the force in DPKG_FORCE. */
	F("conflicts", false, SAME, NONE, NULL),
	/*
	 * Only a Pre-Depends problem is dpkg's to ignore at an unpack, with
	 * a warning: debunpack reads the force in DPKG_FORCE.
	 */
	F("depends", false, SAME, NONE, NULL),
	F("depends-version", false, SAME, NONE, NULL),
	/* Removal's. */
	F("remove-reinstreq", false, SAME, NONE, NULL),
	F("remove-protected", false, SAME, NONE, NULL),
	F("remove-essential", false, SAME, NONE, NULL),
	{ NULL, 0, 0, 0, 0, 0, false, NULL },
};

#define DPKGARGS_NROWS	(sizeof(dpkgargs_table) / sizeof(dpkgargs_table[0]) - 1)

static int
dpkgargs_fail(struct dpkgargs *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->error, sizeof(a->error), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

const struct dpkgargs_def *
dpkgargs_force(const char *name, size_t len)
{
	const struct dpkgargs_def *d;

	for (d = dpkgargs_table; d->name != NULL || d->short_name != 0; d++)
		if (d->kind == DPKGARGS_FORCE && d->name != NULL &&
		    strlen(d->name) == len && strncmp(d->name, name, len) == 0)
			return d;
	return NULL;
}

/* --force-LIST (ON) or --refuse-LIST: each name on or off, "all" all. */
static int
dpkgargs_forces(struct dpkgargs *a, const char *list, bool on)
{
	const struct dpkgargs_def *d;
	const char *comma;
	size_t i;

	for (;;) {
		comma = strchr(list, ',');
		if (comma == NULL)
			comma = list + strlen(list);
		if ((d = dpkgargs_force(list, (size_t)(comma - list))) == NULL)
			return dpkgargs_fail(a, "unknown force/refuse option"
			    " '%.*s'", (int)(comma - list > 250 ? 250 :
			    comma - list), list);
		if (strcmp(d->name, "all") == 0) {
			for (i = 0; i < DPKGARGS_NROWS; i++)
				if (dpkgargs_table[i].kind == DPKGARGS_FORCE)
					a->force[i] = on;
		} else
			a->force[d - dpkgargs_table] = on;
		if (*comma == '\0')
			return 0;
		list = comma + 1;
	}
}

int
dpkgargs_init(struct dpkgargs *a, const char *force_env)
{
	size_t i;

	memset(a, 0, sizeof(*a));
	if ((a->force = calloc(DPKGARGS_NROWS, sizeof(*a->force))) == NULL)
		return -ENOMEM;
	/* As dpkg: DPKG_FORCE, set, replaces the defaults. */
	if (force_env != NULL)
		return force_env[0] != '\0' ? dpkgargs_forces(a, force_env,
		    true) : 0;
	for (i = 0; i < DPKGARGS_NROWS; i++)
		a->force[i] = dpkgargs_table[i].force_on;
	return 0;
}

long
dpkgargs_int(struct dpkgargs *a, const struct dpkgargs_def *def,
    const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (end == s || *end != '\0' || v < 0 || v > INT_MAX || errno != 0) {
		if (def->name != NULL)
			dpkgargs_fail(a, "invalid integer for --%s: '%.250s'",
			    def->name, s);
		else
			dpkgargs_fail(a, "invalid integer for -%c: '%.250s'",
			    def->short_name, s);
		return -1;
	}
	return v;
}

static char
dpkgargs_short(const struct dpkgargs_def *d)
{
	/* dpkg prints '\b' for an action without a short name. */
	return d->short_name != 0 ? d->short_name : '\b';
}

/* Apply option D with VALUE from ORIGIN: what dpkg's setters check. */
static int
dpkgargs_apply(struct dpkgargs *a, const struct dpkgargs_def *d,
    const char *value, const char *origin)
{
	struct dpkgargs_use *u;

	if (d->kind == DPKGARGS_ACTION) {
		if (a->action != NULL)
			return dpkgargs_fail(a, "conflicting actions -%c (--%s)"
			    " and -%c (--%s)", dpkgargs_short(d), d->name,
			    dpkgargs_short(a->action), a->action->name);
		a->action = d;
		a->action_value = value;
		return 0;
	}
	switch (d->id) {
	case DPKGARGS_ID_FORCE:
		if (dpkgargs_forces(a, value, true) != 0)
			return -EINVAL;
		break;
	case DPKGARGS_ID_REFUSE:
		if (dpkgargs_forces(a, value, false) != 0)
			return -EINVAL;
		break;
	case DPKGARGS_ID_REFUSE_DOWNGRADE:
		a->force[dpkgargs_force("downgrade", 9) - dpkgargs_table] =
		    false;
		break;
	case DPKGARGS_ID_STATUS_FD:
	case DPKGARGS_ID_ABORT_AFTER:
		if (dpkgargs_int(a, d, value) < 0)
			return -EINVAL;
		break;
	default:
		break;
	}
	if ((u = realloc(a->use, (a->nuse + 1) * sizeof(*u))) == NULL)
		return -ENOMEM;
	a->use = u;
	u[a->nuse].def = d;
	u[a->nuse].value = value;
	u[a->nuse].origin = origin;
	a->nuse++;
	return 0;
}

static char *
dpkgargs_own(struct dpkgargs *a, const char *s)
{
	char **o, *c;

	if ((c = strdup(s)) == NULL)
		return NULL;
	if ((o = realloc(a->owned, (a->nowned + 1) * sizeof(*o))) == NULL) {
		free(c);
		return NULL;
	}
	a->owned = o;
	o[a->nowned++] = c;
	return c;
}

/* One line of a configuration file, as dpkg reads it. */
static int
dpkgargs_cfg_line(struct dpkgargs *a, char *line, const char *fn, int lno,
    const char *origin)
{
	const struct dpkgargs_def *d;
	char *opt, *end;
	size_t l;

	end = line + strlen(line);
	while (end > line && isspace((unsigned char)end[-1]))
		*--end = '\0';
	if (line[0] == '#' || line[0] == '\0')
		return 0;
	for (opt = line; isalnum((unsigned char)*opt) || *opt == '-'; opt++)
		;
	if (*opt == '\0')
		opt = NULL;
	else {
		*opt++ = '\0';
		if (*opt == '=')
			opt++;
		while (isspace((unsigned char)*opt))
			opt++;
		if (*opt == '"' || *opt == '\'') {
			l = strlen(opt);
			if (opt[l - 1] != opt[0])
				return dpkgargs_fail(a, "configuration error:"
				    " %s:%d: unbalanced quotes in '%s'", fn,
				    lno, line);
			opt[l - 1] = '\0';
			opt++;
		}
	}
	for (d = dpkgargs_table; d->name != NULL || d->short_name != 0; d++) {
		if (d->name == NULL || d->kind == DPKGARGS_FORCE)
			continue;
		if (strcmp(d->name, line) == 0)
			break;
		l = strlen(d->name);
		/* The prefix first: LINE may be shorter than the name. */
		if (d->takes == 2 && opt == NULL &&
		    strncmp(line, d->name, l) == 0 && line[l] == '-') {
			opt = line + l + 1;
			break;
		}
	}
	if (d->name == NULL)
		return dpkgargs_fail(a, "configuration error: %s:%d: unknown"
		    " option '%s'", fn, lno, line);
	if (d->takes != 0 && opt == NULL)
		return dpkgargs_fail(a, "configuration error: %s:%d: '%s'"
		    " needs a value", fn, lno, line);
	if (d->takes == 0 && opt != NULL)
		return dpkgargs_fail(a, "configuration error: %s:%d: '%s'"
		    " does not take a value", fn, lno, line);
	if (opt != NULL && (opt = dpkgargs_own(a, opt)) == NULL)
		return -ENOMEM;
	return dpkgargs_apply(a, d, opt, origin);
}

/* dpkg's longest configuration line; a longer one is read in pieces, as dpkg's fgets does. */
#define DPKGARGS_LINE	1024

static int
dpkgargs_cfg_file(struct dpkgargs *a, const char *fn)
{
	char line[DPKGARGS_LINE];
	const char *origin;
	int lno = 0, r = 0;
	FILE *fp;

	if ((fp = fopen(fn, "r")) == NULL)
		return errno == ENOENT ? 0 : -errno;
	if ((origin = dpkgargs_own(a, fn)) == NULL) {
		fclose(fp);
		return -ENOMEM;
	}
	while (r == 0 && fgets(line, sizeof(line), fp) != NULL)
		r = dpkgargs_cfg_line(a, line, fn, ++lno, origin);
	if (r == 0 && ferror(fp))
		r = -EIO;
	fclose(fp);
	return r;
}

/* dpkg.cfg.d's names: no dot first, letters, digits, '_' and '-' only. */
static int
dpkgargs_cfg_name(const struct dirent *e)
{
	const char *c;

	if (e->d_name[0] == '.')
		return 0;
	for (c = e->d_name; *c != '\0'; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
			return 0;
	return 1;
}

/* strcmp order, as dpkg's alphasort in the C locale it reads in. */
static int
dpkgargs_cfg_cmp(const struct dirent **x, const struct dirent **y)
{
	return strcmp((*x)->d_name, (*y)->d_name);
}

int
dpkgargs_load_config(struct dpkgargs *a, const char *cfgdir,
    const char *home)
{
	struct dirent **list;
	char path[PATH_MAX];
	int i, n, r = 0;

	if (snprintf(path, sizeof(path), "%s/dpkg.cfg.d", cfgdir) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	if ((n = scandir(path, &list, dpkgargs_cfg_name, dpkgargs_cfg_cmp)) <
	    0) {
		if (errno != ENOENT)
			return -errno;
		n = 0;
		list = NULL;
	}
	for (i = 0; i < n; i++) {
		if (r == 0) {
			if (snprintf(path, sizeof(path), "%s/dpkg.cfg.d/%s",
			    cfgdir, list[i]->d_name) >= (int)sizeof(path))
				r = -ENAMETOOLONG;
			else
				r = dpkgargs_cfg_file(a, path);
		}
		free(list[i]);
	}
	free(list);
	if (r != 0)
		return r;
	if (snprintf(path, sizeof(path), "%s/dpkg.cfg", cfgdir) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	if ((r = dpkgargs_cfg_file(a, path)) != 0 || home == NULL)
		return r;
	if (snprintf(path, sizeof(path), "%s/.dpkg.cfg", home) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	return dpkgargs_cfg_file(a, path);
}

/* One --long option at P ("--" skipped); *ARGV moves past its value. */
static int
dpkgargs_long(struct dpkgargs *a, const char *p, char *const **argv)
{
	const struct dpkgargs_def *d;
	const char *value = NULL;
	size_t l;

	for (d = dpkgargs_table; d->name != NULL || d->short_name != 0; d++) {
		if (d->name == NULL || d->kind == DPKGARGS_FORCE)
			continue;
		if (strcmp(p, d->name) == 0)
			break;
		l = strlen(d->name);
		if (strncmp(p, d->name, l) == 0 &&
		    p[l] == (d->takes == 2 ? '-' : '=')) {
			value = p + l + 1;
			break;
		}
	}
	if (d->name == NULL)
		return dpkgargs_fail(a, "unknown option --%s", p);
	if (d->takes != 0) {
		if (value == NULL && (value = *(*argv)++) == NULL)
			return dpkgargs_fail(a, "--%s option takes a value",
			    d->name);
	} else if (value != NULL)
		return dpkgargs_fail(a, "--%s option does not take a value",
		    d->name);
	return dpkgargs_apply(a, d, value, NULL);
}

/* A cluster of short options at P ("-" skipped). */
static int
dpkgargs_shorts(struct dpkgargs *a, const char *p, char *const **argv)
{
	const struct dpkgargs_def *d;
	const char *value;
	int r;

	while (*p != '\0') {
		for (d = dpkgargs_table; d->name != NULL || d->short_name != 0;
		    d++)
			if (d->short_name == *p)
				break;
		if (d->short_name == 0)
			return dpkgargs_fail(a, "unknown option -%c", *p);
		p++;
		value = NULL;
		if (d->takes != 0) {
			if (*p == '\0') {
				if ((value = *(*argv)++) == NULL)
					return dpkgargs_fail(a, "-%c option"
					    " takes a value", d->short_name);
			} else {
				value = *p == '=' ? p + 1 : p;
				p = "";
			}
		} else if (*p == '=')
			return dpkgargs_fail(a, "-%c option does not take a"
			    " value", d->short_name);
		if ((r = dpkgargs_apply(a, d, value, NULL)) != 0)
			return r;
	}
	return 0;
}

int
dpkgargs_parse(struct dpkgargs *a, int argc, char *const *argv)
{
	char *const *av = argv + 1;
	const char *p;
	int r;

	if (argc < 1 || argv[0] == NULL)
		return dpkgargs_fail(a, "missing program name in argv[0]");
	while ((p = *av) != NULL && p[0] == '-' && p[1] != '\0') {
		av++;
		if (strcmp(p, "--") == 0)
			break;
		if (p[1] == '-')
			r = dpkgargs_long(a, p + 2, &av);
		else
			r = dpkgargs_shorts(a, p + 1, &av);
		if (r != 0)
			return r;
	}
	a->operands = av;
	a->noperands = (int)(argc - (av - argv));
	return 0;
}

char *
dpkgargs_force_string(const struct dpkgargs *a)
{
	size_t i, len = 0;
	char *s;

	for (i = 0; i < DPKGARGS_NROWS; i++)
		if (dpkgargs_table[i].kind == DPKGARGS_FORCE && a->force[i])
			len += strlen(dpkgargs_table[i].name) + 1;
	if ((s = malloc(len + 1)) == NULL)
		return NULL;
	s[0] = '\0';
	/* "all" is no force of its own: the others it set are named. */
	for (i = 0; i < DPKGARGS_NROWS; i++)
		if (dpkgargs_table[i].kind == DPKGARGS_FORCE && a->force[i] &&
		    strcmp(dpkgargs_table[i].name, "all") != 0) {
			if (s[0] != '\0')
				strcat(s, ",");
			strcat(s, dpkgargs_table[i].name);
		}
	return s;
}

const char *
dpkgargs_value(const struct dpkgargs *a, enum dpkgargs_id id)
{
	size_t i;

	for (i = a->nuse; i-- > 0;)
		if (a->use[i].def->id == id)
			return a->use[i].value;
	return NULL;
}

bool
dpkgargs_given(const struct dpkgargs *a, enum dpkgargs_id id)
{
	size_t i;

	for (i = 0; i < a->nuse; i++)
		if (a->use[i].def->id == id)
			return true;
	return false;
}

void
dpkgargs_free(struct dpkgargs *a)
{
	size_t i;

	for (i = 0; i < a->nowned; i++)
		free(a->owned[i]);
	free(a->owned);
	free(a->use);
	free(a->force);
	memset(a, 0, sizeof(*a));
}
