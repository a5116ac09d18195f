/* SPDX-License-Identifier: MIT */
/* unpackseq: dpkg's relation checks before a package, Breaks' deconfiguration. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "db/dpkgfmt.h"
#include "db/dpkgstatus.h"
#include "db/version.h"
#include "durable/fileat.h"
#include "run/maintscript.h"
#include "run/unpackdeps.h"
#include "run/unpackconflict.h"
#include "run/unpackseq_int.h"

/*
 * A package that a package of the call Breaks, deconfigured with
 * --auto-deconfigure (dpkg's deconfigure queue): as a seq_pkg so that
 * its status is told and written as the others' are.
 */
struct unpackdeps_deconf {
	struct seq_pkg p;	/* name, arch, ma, version, infoname, shown,
				   old_text: its stanza before */
	char *name, *arch, *ma, *version;	/* P's, owned */
	char *state;		/* its state before */
	bool ran;		/* its prerm deconfigure ran */
	bool instance;		/* another Multi-Arch: same instance, out of
				   step (not broken) */
	unsigned refcount;	/* its name's installed instances */
	char *removing;		/* deconfigured to allow the removal of this
				   package ("NAME VERSION"), or NULL */
};

/*
 * dpkg's status as package P's checks see it: as the file is, with the
 * packages of P's group before it unpacked (dpkg unpacks them first;
 * the earlier groups are in the file already).
 */
static int
deps_status(struct seq *s, const struct seq_pkg *p, struct dpkgstatus *st,
    struct dbp_error *err)
{
	struct dpkgstatus_stanza *d;
	char *text = NULL;
	size_t len = 0, i;
	int r;

	if ((r = fileat_read(s->adfd, "status", &text, &len)) != 0 &&
	    r != -ENOENT)
		return dbp_err(err, -r, SEQ_ADMIN "/status", "cannot read");
	r = dpkgstatus_parse(st, text != NULL ? text : "", len);
	free(text);
	if (r != 0)
		return dbp_err(err, -r, SEQ_ADMIN "/status", "cannot parse");
	for (i = 0; &s->v[i] != p; i++) {
		const struct seq_pkg *q = &s->v[i];

		if ((q->state != SEQ_TODO && q->state != SEQ_READY) ||
		    q->ctl == NULL || (d = dpkgstatus_peek(st, q->name,
		    q->arch, q->ma)) == NULL)
			continue;
		free(d->status);
		free(d->version);
		d->status = strdup("install ok unpacked");
		d->version = strdup(q->version);
		if (d->status == NULL || d->version == NULL) {
			dpkgstatus_clear(st);
			return dbp_err(err, ENOMEM, NULL, "cannot check");
		}
	}
	return 0;
}

/*
 * Package file FILE as dpkg names it in its notices: its tail after
 * ".../" when long (dpkg's summarize_filename, as render.c shows it).
 */
static void
deps_summarize(const char *file, char *buf, size_t n)
{
	const char *p = file;

	while (strlen(p) > 30 && strchr(p, '/') != NULL)
		p = strchr(p, '/') + 1;
	snprintf(buf, n, "%s%s", p == file ? "" : ".../", p);
}

/* WHY's lines told after NOTICE, as dpkg's notice prints them. */
static void
deps_notice(struct seq *s, struct seq_pkg *p, const char *notice, char *why)
{
	char *line, *nl;

	seq_say(s, UNPACKSEQ_NOTICE, p, notice);
	for (line = why; line != NULL && *line != '\0'; line = nl + 1) {
		if ((nl = strchr(line, '\n')) == NULL)
			break;
		*nl = '\0';
		seq_say(s, UNPACKSEQ_DETAIL, p, line);
	}
	seq_say(s, UNPACKSEQ_DETAIL, p, "");
}

/*
 * Pre-Depends: 0 satisfied, or a problem forced or ignored as dpkg does
 * (told, group by group); 1 P failed (told), -errno.
 */
static int
deps_predepends(struct seq *s, struct seq_pkg *p, struct dpkgstatus *st,
    const char *native, struct dbp_error *err)
{
	char *why, *trig, msg[2 * PATH_MAX], file[PATH_MAX + 8];
	size_t at = 0;
	bool ignored;
	int r;

	for (;;) {
		r = unpackdeps_predepends(st, p->ctl, p->shown, native,
		    s->o->ignore_depends, &at, &ignored, &why, &trig);
		if (r < 0 && r != -EINVAL)
			return dbp_err(err, -r, p->file,
			    "cannot check Pre-Depends");
		if (r == UNPACKDEPS_OK)
			return 0;
		if (r == -EINVAL)
			seq_fail(s, p, "cannot parse its Pre-Depends field");
		else if (r == UNPACKDEPS_TRIGGERS) {
			/* dpkg would process them first: debunpack none. */
			snprintf(msg, sizeof(msg), "pre-dependency problem -"
			    " not installing %s: %s awaits trigger processing"
			    " (dpkg --triggers-only %s first)", p->shown,
			    trig, trig);
			seq_fail(s, p, msg);
		} else {
			deps_summarize(p->file, file, sizeof(file));
			snprintf(msg, sizeof(msg), "regarding %s containing"
			    " %s, pre-dependency problem:", file, p->shown);
			deps_notice(s, p, msg, why);
			/* Forced, or one to ignore: dpkg goes on. */
			if (ignored || unpackconflict_forced(s, "depends") ||
			    unpackdeps_ignored(s->o->ignore_depends, p->name,
			    p->arch)) {
				seq_say(s, UNPACKSEQ_NOTICE, p, "warning:"
				    " ignoring pre-dependency problem!");
				free(why);
				free(trig);
				continue;
			}
			snprintf(msg, sizeof(msg), "pre-dependency problem -"
			    " not installing %s", p->shown);
			seq_fail(s, p, msg);
		}
		free(why);
		free(trig);
		return 1;
	}
}

/* Stanza D of ST queued for deconfiguration by P; -ENOMEM. */
static int
deps_enqueue(struct seq_pkg *p, const struct dpkgstatus *st,
    const struct dpkgstatus_stanza *d)
{
	struct unpackdeps_deconf *v, *x;
	size_t i;

	for (i = 0; i < p->ndeconf; i++)
		if (strcmp(p->deconf[i].name, d->name) == 0 &&
		    strcmp(p->deconf[i].arch != NULL ? p->deconf[i].arch : "",
		    d->arch != NULL ? d->arch : "") == 0)
			return 0;
	if ((v = realloc(p->deconf, (p->ndeconf + 1) * sizeof(*v))) == NULL)
		return -ENOMEM;
	p->deconf = v;
	x = &v[p->ndeconf];
	memset(x, 0, sizeof(*x));
	x->name = strdup(d->name);
	x->arch = d->arch != NULL ? strdup(d->arch) : NULL;
	x->ma = d->ma != NULL ? strdup(d->ma) : NULL;
	x->version = strdup(d->version != NULL ? d->version : "");
	x->p.old_text = strndup(d->text, d->len);
	x->p.infoname = dpkgstatus_infoname(d->name, d->arch, d->ma);
	x->state = strdup(dpkgstatus_state(d));
	x->refcount = seq_instances(st, d->name, NULL);
	p->ndeconf++;
	if (x->name == NULL || (d->arch != NULL && x->arch == NULL) ||
	    (d->ma != NULL && x->ma == NULL) || x->version == NULL ||
	    x->p.old_text == NULL || x->p.infoname == NULL || x->state == NULL)
		return -ENOMEM;
	x->p.file = p->file;
	x->p.name = x->name;
	x->p.arch = x->arch;
	x->p.ma = x->ma;
	x->p.version = x->version;
	x->p.state = SEQ_DONE;
	dpkgstatus_name(d->name, d->arch, d->ma, x->p.shown,
	    sizeof(x->p.shown));
	return 0;
}

/* Breaks: 0 satisfied or deconfiguration queued, 1 P failed, -errno. */
static int
deps_breaks(struct seq *s, struct seq_pkg *p, struct dpkgstatus *st,
    const char *native, struct dbp_error *err)
{
	struct dpkgstatus_stanza *d;
	const struct dpkgstatus_stanza *fix;
	char *why, msg[2 * PATH_MAX], fixshown[512], file[PATH_MAX + 8];
	size_t at = 0;
	int r;

	for (;;) {
		r = unpackdeps_breaks(st, p->ctl, p->shown, native, &at, &why,
		    &fix);
		if (r == UNPACKDEPS_OK)
			return 0;
		if (r == -EINVAL) {
			seq_fail(s, p, "cannot parse its Breaks field");
			return 1;
		}
		if (r < 0)
			return dbp_err(err, -r, p->file, "cannot check Breaks");
		if (fix != NULL)
			dpkgstatus_name(fix->name, fix->arch, fix->ma, fixshown,
			    sizeof(fixshown));
		if (fix != NULL && s->o->auto_deconfigure) {
			free(why);
			snprintf(msg, sizeof(msg), "considering deconfiguration"
			    " of %s, which would be broken by installation of"
			    " %s ...", fixshown, p->shown);
			seq_say(s, UNPACKSEQ_NOTICE, p, msg);
			if (deps_enqueue(p, st, fix) != 0)
				return dbp_err(err, ENOMEM, NULL,
				    "cannot check Breaks");
			snprintf(msg, sizeof(msg), "yes, will deconfigure %s"
			    " (broken by %s)", fixshown, p->shown);
			seq_say(s, UNPACKSEQ_NOTICE, p, msg);
			/* dpkg's "to be deconfigured": it breaks no more. */
			d = (struct dpkgstatus_stanza *)fix;
			free(d->status);
			if ((d->status = strdup("install ok half-configured"))
			    == NULL)
				return dbp_err(err, ENOMEM, NULL,
				    "cannot check Breaks");
			continue;
		}
		deps_summarize(p->file, file, sizeof(file));
		snprintf(msg, sizeof(msg), "regarding %s containing %s:",
		    file, p->shown);
		deps_notice(s, p, msg, why);
		free(why);
		/*
		 * Forced, or either package one to ignore (dpkg's
		 * force_breaks: the breaker's or the broken one's).
		 */
		if (unpackconflict_forced(s, "breaks") ||
		    unpackdeps_ignored(s->o->ignore_depends, p->name,
		    p->arch) || (fix != NULL && unpackdeps_ignored(
		    s->o->ignore_depends, fix->name, fix->arch))) {
			seq_say(s, UNPACKSEQ_NOTICE, p, "warning: ignoring"
			    " breakage, may proceed anyway!");
			continue;
		}
		if (fix != NULL)
			snprintf(msg, sizeof(msg), "installing %s would break"
			    " %s, and\n deconfiguration is not permitted"
			    " (--auto-deconfigure might help)", p->shown,
			    fixshown);
		else
			snprintf(msg, sizeof(msg), "installing %s would break"
			    " existing software", p->shown);
		seq_fail(s, p, msg);
		return 1;
	}
}

/*
 * D, broken by the removal of O (OSHOWN) in favour of P (WHY dpkg's
 * explanation), as dpkg's try_remove_can takes it: 2 forced, 1 queued
 * for deconfiguration, 0 not possible (told), -ENOMEM.
 */
static int
deps_remove_can(struct seq *s, struct seq_pkg *p, struct dpkgstatus *st,
    const struct dpkgstatus_stanza *d, const struct dpkgstatus_stanza *o,
    const char *oshown, char *why)
{
	char dshown[512], msg[2048], *t;
	struct unpackdeps_deconf *x;
	bool ess, prot;

	dpkgstatus_name(d->name, d->arch, d->ma, dshown, sizeof(dshown));
	/* dpkg's force_depends: forced, or either package to ignore. */
	if (unpackconflict_forced(s, "depends") ||
	    unpackdeps_ignored(s->o->ignore_depends, o->name, o->arch) ||
	    unpackdeps_ignored(s->o->ignore_depends, d->name, d->arch)) {
		snprintf(msg, sizeof(msg), "warning: ignoring dependency"
		    " problem with removal of %s:", oshown);
		deps_notice(s, p, msg, why);
		return 2;
	}
	if (!s->o->auto_deconfigure) {
		snprintf(msg, sizeof(msg), "no, cannot proceed with removal of"
		    " %s (--auto-deconfigure will help):", oshown);
		deps_notice(s, p, msg, why);
		return 0;
	}
	if ((t = strndup(d->text, d->len)) == NULL)
		return -ENOMEM;
	ess = strstr(t, "\nEssential: yes\n") != NULL;
	prot = strstr(t, "\nProtected: yes\n") != NULL;
	free(t);
	if (ess || prot) {
		const char *what = ess ? "essential" : "protected";

		if (!unpackconflict_forced(s, ess ? "remove-essential" :
		    "remove-protected")) {
			snprintf(msg, sizeof(msg), "no, %s is %s, will not"
			    " deconfigure", dshown, what);
			seq_say(s, UNPACKSEQ_NOTICE, p, msg);
			snprintf(msg, sizeof(msg), " it in order to enable"
			    " removal of %s", oshown);
			seq_say(s, UNPACKSEQ_DETAIL, p, msg);
			return 0;
		}
		snprintf(msg, sizeof(msg), "warning: considering"
		    " deconfiguration of %s", what);
		seq_say(s, UNPACKSEQ_NOTICE, p, msg);
		snprintf(msg, sizeof(msg), " package %s, to enable removal of"
		    " %s", dshown, oshown);
		seq_say(s, UNPACKSEQ_DETAIL, p, msg);
	}
	if (deps_enqueue(p, st, d) != 0)
		return -ENOMEM;
	x = &p->deconf[p->ndeconf - 1];
	if (x->removing == NULL && asprintf(&x->removing, "%s %s", oshown,
	    dpkgfmt_version(o->version != NULL ? o->version : "")) < 0) {
		x->removing = NULL;
		return -ENOMEM;
	}
	return 1;
}

int
unpackdeps_seq_removal(struct seq *s, struct seq_pkg *p,
    struct dpkgstatus *st, const struct dpkgstatus_stanza *o,
    struct dbp_error *err)
{
	const struct dpkgstatus_stanza *d;
	char oshown[512], msg[2048], *why, *via;
	const char *native = NULL;
	size_t at = 0;
	int r;

	if ((d = dpkgstatus_peek(st, "dpkg", NULL, NULL)) != NULL)
		native = d->arch;

	dpkgstatus_name(o->name, o->arch, o->ma, oshown, sizeof(oshown));
	for (;;) {
		r = unpackdeps_removal(st, p->ctl, p->shown, native, o, &at,
		    &d, &why, &via);
		if (r == 0)
			return 0;
		if (r == -EINVAL)
			return 1;
		if (r < 0)
			return dbp_err(err, -r, p->file, "cannot check the"
			    " dependencies on %s", oshown);
		if (via != NULL) {
			snprintf(msg, sizeof(msg), "may have trouble removing"
			    " %s, as it provides %s ...", oshown, via);
			seq_say(s, UNPACKSEQ_NOTICE, p, msg);
		}
		r = deps_remove_can(s, p, st, d, o, oshown, why);
		free(why);
		free(via);
		if (r < 0)
			return dbp_err(err, -r, NULL, "cannot check the"
			    " dependencies on %s", oshown);
		if (r == 0)
			return 1;
		if (r == 1) {
			/* dpkg's "to be deconfigured": it breaks no more. */
			struct dpkgstatus_stanza *w =
			    (struct dpkgstatus_stanza *)d;

			free(w->status);
			if ((w->status = strdup("install ok half-configured"))
			    == NULL)
				return dbp_err(err, ENOMEM, NULL,
				    "cannot check the dependencies");
		}
	}
}

/*
 * P refused before anything was done: dpkg keeps the selection it made
 * (want install) of a package it did not know, and writes it.
 */
static int
deps_selected(struct seq *s, struct seq_pkg *p, struct dbp_error *err)
{
	const char *pri = control_get(p->ctl, "Priority");
	const char *sec = control_get(p->ctl, "Section");
	const char *st;
	char *t = NULL;
	int n;

	if (p->old_text == NULL)
		n = asprintf(&t, "Package: %s\nStatus: install ok not-installed"
		    "\n%s%s%s%s%s%sArchitecture: %s\n", p->name, pri != NULL ?
		    "Priority: " : "", pri != NULL ? pri : "", pri != NULL ?
		    "\n" : "", sec != NULL ? "Section: " : "", sec != NULL ?
		    sec : "", sec != NULL ? "\n" : "", p->arch != NULL ?
		    p->arch : "");
	else if (strstr(p->old_text, "\nStatus: install ") != NULL ||
	    strstr(p->old_text, "\nStatus: hold ") != NULL ||
	    (st = strstr(p->old_text, "\nStatus: ")) == NULL)
		return 0;
	else
		n = asprintf(&t, "%.*sinstall%s", (int)(st + 9 - p->old_text),
		    p->old_text, st + 9 + strcspn(st + 9, " \n"));
	return seq_status_one(s, p, n < 0 ? NULL : t, err);
}

/*
 * The other Multi-Arch: same instances of P's name in ST that are
 * configured at another version than P's: deconfigured before P is
 * unpacked, as dpkg keeps a name's instances in step (its unpack.c, before
 * it checks the relations).  0 or -ENOMEM.
 */
static int
deps_instances(struct seq_pkg *p, const struct dpkgstatus *st)
{
	const struct dpkgstatus_stanza *d;
	size_t i;

	if (!dpkgstatus_ma_same(p->ma) || p->arch == NULL)
		return 0;
	for (i = 0; i < st->n; i++) {
		d = &st->v[i];
		if (strcmp(d->name, p->name) != 0 || d->arch == NULL ||
		    strcmp(d->arch, p->arch) == 0 || d->version == NULL ||
		    version_cmp(d->version, p->version) == 0 ||
		    (strcmp(dpkgstatus_state(d), "installed") != 0 &&
		    strncmp(dpkgstatus_state(d), "triggers-", 9) != 0))
			continue;
		if (deps_enqueue(p, st, d) != 0)
			return -ENOMEM;
		p->deconf[p->ndeconf - 1].instance = true;
	}
	return 0;
}

/*
 * Whether P, Multi-Arch: same, has another instance of its name: in
 * dpkg's status as the call found it, or earlier in the call.  Only then
 * is the status read for it (a call of many libraries on a big root).
 */
static bool
deps_has_pair(const struct seq *s, const struct seq_pkg *p)
{
	size_t i;

	if (!dpkgstatus_ma_same(p->ma))
		return false;
	if (p->others > 0)
		return true;
	for (i = 0; &s->v[i] != p; i++)
		if (s->v[i].ctl != NULL && strcmp(s->v[i].name, p->name) == 0)
			return true;
	return false;
}

int
unpackdeps_seq_check(struct seq *s, struct seq_pkg *p, struct dbp_error *err)
{
	struct dpkgstatus st = { NULL, 0 };
	const struct dpkgstatus_stanza *d;
	char *native = NULL;
	int r;

	if (control_get(p->ctl, "Pre-Depends") == NULL &&
	    control_get(p->ctl, "Breaks") == NULL && !deps_has_pair(s, p))
		return 0;
	if ((r = deps_status(s, p, &st, err)) != 0)
		return r;
	/* As the earlier groups left them, for its scripts (REFCOUNT). */
	seq_count_others(p, &st);
	if (deps_instances(p, &st) != 0)
		r = dbp_err(err, ENOMEM, NULL, "cannot check");
	if (r == 0 && (d = dpkgstatus_peek(&st, "dpkg", NULL, NULL)) != NULL &&
	    d->arch != NULL && (native = strdup(d->arch)) == NULL)
		r = dbp_err(err, ENOMEM, NULL, "cannot check");
	/* dpkg checks the fields in the order it keeps them. */
	if (r == 0)
		r = deps_predepends(s, p, &st, native, err);
	if (r == 0)
		r = deps_breaks(s, p, &st, native, err);
	free(native);
	dpkgstatus_clear(&st);
	if (r == 1 && (r = deps_selected(s, p, err)) == 0)
		r = 1;
	return r;
}

/*
 * Script SCRIPT of X, from info/, with dpkg's "in-favour P NEWVER" after
 * ACTION: 1 not there, 0 succeeded, -1 failed (MSG), -errno.
 */
static int
deps_script(struct seq *s, struct unpackdeps_deconf *x, struct seq_pkg *p,
    const char *script, const char *action, char *msg, size_t msglen,
    struct dbp_error *err)
{
	struct maintscript_env e = { .root = s->root,
	    .chrootless = s->o->script_chrootless, .pkg = x->name,
	    .arch = x->arch, .script = script,
	    .running_version = s->running, .force = s->o->dpkg_force,
	    .debconf = false, .emu = &s->emu, .refcount = x->refcount };
	char path[PATH_MAX], why[128], rm[512] = "";
	char *argv[] = { path, (char *)action, "in-favour", p->shown,
	    (char *)dpkgfmt_version(p->version), NULL, NULL, NULL, NULL };

	/* dpkg's "removing CONFLICTOR VERSION" for a removal's sake. */
	if (x->removing != NULL) {
		snprintf(rm, sizeof(rm), "%s", x->removing);
		argv[5] = "removing";
		argv[6] = rm;
		argv[7] = strchr(rm, ' ') != NULL ? strchr(rm, ' ') + 1 : rm;
		if (strchr(rm, ' ') != NULL)
			*strchr(rm, ' ') = '\0';
	}
	struct stat sb;
	int status, r;

	snprintf(path, sizeof(path), "/" SEQ_ADMIN "/info/%s.%s",
	    x->p.infoname, script);
	if (fstatat(s->adfd, path + sizeof(SEQ_ADMIN) + 1, &sb, 0) != 0)
		return errno == ENOENT ? 1 : dbp_err(err, errno, path + 1,
		    "cannot find script");
	if ((r = seq_settle(s, false, err)) != 0)
		return r;
	s->scripts++;
	if ((r = maintscript_run(&e, path, argv, &status, err)) != 0)
		return r;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	maintscript_status_text(status, why, sizeof(why));
	snprintf(msg, msglen, "installed %s package %s script subprocess %s",
	    x->p.shown, strcmp(script, "prerm") == 0 ? "pre-removal" :
	    "post-installation", why);
	return -1;
}

/*
 * X's stanza before the call, its state now STATE (Status' last word);
 * the configured version becomes Config-Version, which dpkg writes for
 * a package no longer installed.
 */
static char *
deps_stanza(const struct unpackdeps_deconf *x, const char *state)
{
	const char *line, *end;
	bool cv = strstr(x->p.old_text, "\nConfig-Version: ") != NULL;
	char *t = NULL;
	size_t len;
	FILE *fp;

	if ((fp = open_memstream(&t, &len)) == NULL)
		return NULL;
	for (line = x->p.old_text; *line != '\0'; line = end) {
		end = strchr(line, '\n');
		end = end != NULL ? end + 1 : line + strlen(line);
		if (strncmp(line, "Status: ", 8) == 0) {
			const char *last = end - 1;

			while (last > line && last[-1] != ' ')
				last--;
			fprintf(fp, "%.*s%s\n", (int)(last - line), line, state);
			continue;
		}
		fwrite(line, 1, (size_t)(end - line), fp);
		if (strncmp(line, "Version: ", 9) == 0 && !cv &&
		    strcmp(x->state, "installed") == 0)
			fprintf(fp, "Config-Version: %s\n",
			    dpkgfmt_version(x->version));
	}
	if (fclose(fp) != 0) {
		free(t);
		return NULL;
	}
	return t;
}

int
unpackdeps_seq_deconfigure(struct seq *s, struct seq_pkg *p,
    struct dbp_error *err)
{
	char msg[1024];
	size_t i;
	int r;

	for (i = 0; i < p->ndeconf; i++) {
		struct unpackdeps_deconf *x = &p->deconf[i];

		if (x->removing != NULL)
			snprintf(msg, sizeof(msg), "De-configuring %s (%s),"
			    " to allow removal of %.*s (%s) ...", x->p.shown,
			    dpkgfmt_version(x->version),
			    (int)strcspn(x->removing, " "), x->removing,
			    strchr(x->removing, ' ') + 1);
		else
			snprintf(msg, sizeof(msg), "De-configuring %s (%s), to"
			    " allow %s of %s (%s) ...", x->p.shown,
			    dpkgfmt_version(x->version), x->instance ?
			    "configuration" : "installation", p->shown,
			    dpkgfmt_version(p->version));
		seq_say(s, UNPACKSEQ_SAY, p, msg);
		seq_status(s, &x->p, "half-configured");
		if ((r = seq_status_one(s, &x->p, deps_stanza(x,
		    "half-configured"), err)) != 0)
			return r;
		x->ran = true;
		r = deps_script(s, x, p, "prerm", "deconfigure", msg,
		    sizeof(msg), err);
		if (r < -1)
			return r;
		if (r == -1) {
			seq_fail(s, p, msg);
			if ((r = unpackdeps_seq_undo(s, p, err)) == 0 &&
			    !p->prerm_ran)
				r = deps_selected(s, p, err);
			return r != 0 ? r : 1;
		}
	}
	return 0;
}

int
unpackdeps_seq_undo(struct seq *s, struct seq_pkg *p, struct dbp_error *err)
{
	char msg[1024];
	size_t i;
	int r;

	for (i = p->ndeconf; i-- > 0;) {
		struct unpackdeps_deconf *x = &p->deconf[i];

		if (!x->ran)
			continue;
		x->ran = false;
		r = deps_script(s, x, p, "postinst", "abort-deconfigure", msg,
		    sizeof(msg), err);
		if (r < -1)
			return r;
		if (r == -1) {
			/* dpkg leaves it half-configured, to be configured. */
			seq_say(s, UNPACKSEQ_CLEANUP, p, msg);
			continue;
		}
		seq_status(s, &x->p, x->state);
		if ((r = seq_status_one(s, &x->p, strdup(x->p.old_text),
		    err)) != 0)
			return r;
	}
	return 0;
}

bool
unpackdeps_seq_deconfigured(const struct seq *s, const struct seq_pkg *p)
{
	size_t i, j;

	for (i = 0; &s->v[i] != p; i++)
		for (j = 0; j < s->v[i].ndeconf; j++) {
			const struct unpackdeps_deconf *x = &s->v[i].deconf[j];

			if (x->ran && strcmp(x->name, p->name) == 0 &&
			    strcmp(x->arch != NULL ? x->arch : "",
			    p->arch != NULL ? p->arch : "") == 0)
				return true;
		}
	return false;
}

void
unpackdeps_seq_free(struct seq_pkg *p)
{
	size_t i;

	for (i = 0; i < p->ndeconf; i++) {
		struct unpackdeps_deconf *x = &p->deconf[i];

		free(x->name);
		free(x->arch);
		free(x->ma);
		free(x->version);
		free(x->state);
		free(x->p.old_text);
		free(x->p.infoname);
		free(x->removing);
	}
	free(p->deconf);
	p->deconf = NULL;
	p->ndeconf = 0;
}
