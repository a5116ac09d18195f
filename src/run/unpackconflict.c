/* SPDX-License-Identifier: MIT */
/* unpackconflict: Conflicts at unpack, refused or the conflictor removed in favour, as dpkg does. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/dpkgfmt.h"
#include "db/dpkgstatus.h"
#include "db/replaces.h"
#include "db/version.h"
#include "durable/fileat.h"
#include "run/unpackconflict.h"
#include "run/unpackdeps.h"


/* One clause of a dependency field: "name[:arch] [(op version)]". */
struct cf_clause {
	char name[256], arch[64], op[3], version[256];
};

/* The next clause of *P (alternatives are clauses too); false at the end. */
static bool
cf_next(const char **p, struct cf_clause *c)
{
	const char *s = *p, *e;
	size_t len;

	memset(c, 0, sizeof(*c));
	s += strspn(s, " \t\n,|");
	if (*s == '\0')
		return false;
	len = strcspn(s, " \t\n(:,|[");
	snprintf(c->name, sizeof(c->name), "%.*s", (int)len, s);
	s += len;
	if (*s == ':') {
		len = strcspn(++s, " \t\n(,|[");
		snprintf(c->arch, sizeof(c->arch), "%.*s", (int)len, s);
		s += len;
	}
	s += strspn(s, " \t\n");
	if (*s == '(') {
		s += 1 + strspn(s + 1, " \t\n");
		len = strspn(s, "<=>");
		snprintf(c->op, sizeof(c->op), "%.*s", (int)len, s);
		s += len;
		s += strspn(s, " \t\n");
		len = strcspn(s, " \t\n)");
		snprintf(c->version, sizeof(c->version), "%.*s", (int)len, s);
		s += len;
	}
	e = s + strcspn(s, ",|");
	*p = e;
	return true;
}

/* Whether clause C's architecture admits ARCH (Conflicts: any by default). */
static bool
cf_arch_ok(const struct cf_clause *c, const char *arch)
{
	return c->arch[0] == '\0' || strcmp(c->arch, "any") == 0 ||
	    (arch != NULL && strcmp(c->arch, arch) == 0);
}

/* C as dpkg prints a dependency: "name[:arch] (op version)". */
static void
cf_describe(const struct cf_clause *c, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s%s%s%s%s%s", c->name, c->arch[0] != '\0' ?
	    ":" : "", c->arch, c->op[0] != '\0' ? " (" : "", c->op,
	    c->op[0] != '\0' ? " " : "", c->version, c->op[0] != '\0' ? ")" :
	    "");
}

/* Whether Provides field PROV meets clause C (a version only by "="). */
static bool
cf_provides(const struct cf_clause *c, const char *prov)
{
	struct cf_clause pc;
	const char *q = prov;

	while (q != NULL && cf_next(&q, &pc))
		if (strcmp(pc.name, c->name) == 0 && (c->op[0] == '\0' ||
		    (strcmp(pc.op, "=") == 0 && version_satisfies(pc.version,
		    c->op, c->version))))
			return true;
	return false;
}
/* dpkg's words for an installed package's state, after "present and". */
static const char *
cf_state_words(const char *state)
{
	return strcmp(state, "half-installed") == 0 ? "present and broken"
	    " due to failed removal or installation" : strcmp(state,
	    "unpacked") == 0 ? "present and unpacked but not configured" :
	    strcmp(state, "half-configured") == 0 ? "present and broken due"
	    " to postinst failure" : strcmp(state, "triggers-awaited") == 0 ?
	    "present and awaiting trigger processing by another package" :
	    strcmp(state, "triggers-pending") == 0 ? "present and triggered" :
	    "present and installed";
}

bool
unpackconflict_configured(const char *state)
{
	return strcmp(state, "installed") == 0 ||
	    strcmp(state, "half-configured") == 0 ||
	    strncmp(state, "triggers-", 9) == 0;
}

/*
 * Whether force WHAT is in the run's DPKG_FORCE list: --dpkg-force's,
 * else the environment's, which the scripts get too (dpkg's for apt
 * sets it from dpkg's command line).
 */
bool
unpackconflict_forced(const struct seq *s, const char *what)
{
	const char *f = s->o->dpkg_force != NULL ? s->o->dpkg_force :
	    getenv("DPKG_FORCE");
	size_t len = strlen(what);

	for (; f != NULL && *f != '\0'; f += strcspn(f, ","),
	    f += *f == ',')
		if ((strncmp(f, what, len) == 0 && (f[len] == ',' ||
		    f[len] == '\0')) || strncmp(f, "all", 3) == 0)
			return true;
	return false;
}

/* Whether stanza O's package is wanted (its Status' first word). */
static bool
cf_wanted(const struct dpkgstatus_stanza *o)
{
	return o->status != NULL && (strncmp(o->status, "install ", 8) == 0 ||
	    strncmp(o->status, "hold ", 5) == 0);
}

/* Add stanza O of STATUS to P's conflictors, once.  0 or -ENOMEM. */
static int
cf_add(struct seq_pkg *p, struct dpkgstatus *status,
    const struct dpkgstatus_stanza *o)
{
	struct seq_pkg *v, *c;
	struct dbp_error perr;
	size_t i;

	for (i = 0; i < p->ncf; i++)
		if (strcmp(p->cf[i].name, o->name) == 0 &&
		    strcmp(p->cf[i].arch != NULL ? p->cf[i].arch : "",
		    o->arch != NULL ? o->arch : "") == 0)
			return 0;
	if ((v = realloc(p->cf, (p->ncf + 1) * sizeof(*v))) == NULL)
		return -ENOMEM;
	p->cf = v;
	c = memset(&v[p->ncf], 0, sizeof(*c));
	if (control_parse(o->text, o->len, &c->ctl, &perr) != 0)
		return -ENOMEM;
	p->ncf++;
	c->name = control_get(c->ctl, "Package");
	c->arch = control_get(c->ctl, "Architecture");
	c->ma = control_get(c->ctl, "Multi-Arch");
	c->version = control_get(c->ctl, "Version");
	if (c->name == NULL || c->version == NULL)
		return -EINVAL;
	dpkgstatus_name(c->name, c->arch, c->ma, c->shown, sizeof(c->shown));
	if ((c->infoname = dpkgstatus_infoname(c->name, c->arch, c->ma)) ==
	    NULL)
		return -ENOMEM;
	return seq_old(c, status);
}

/*
 * Whether installed package O of STATUS may go in favour of P, as
 * check_conflict decides it: 1, 0, or -errno.  The packages that depend
 * on O are weighed as dpkg weighs them (unpackdeps_seq_removal): with
 * --auto-deconfigure, those it would break are queued on P for
 * deconfiguration.  Its notices told.
 */
static int
cf_removable(struct seq *s, struct seq_pkg *p, struct dpkgstatus *status,
    const struct dpkgstatus_stanza *o, const struct control *octl)
{
	struct dbp_error lerr;
	int r;

	const char *e = control_get(octl, "Essential");
	const char *pr = control_get(octl, "Protected");
	bool oess = e != NULL && strcmp(e, "yes") == 0;
	bool oprot = pr != NULL && strcmp(pr, "yes") == 0;
	const char *pp = control_get(p->ctl, "Protected");
	bool pess = p->essential || (pp != NULL && strcmp(pp, "yes") == 0);
	char shown[256], line[600];

	if (!((pess && (oess || oprot)) || ((!cf_wanted(o) ||
	    replaces_pkg(p->ctl, o->name, o->version)) &&
	    (!oess || unpackconflict_forced(s, "remove-essential") || !oprot ||
	    unpackconflict_forced(s, "remove-protected")))))
		return 0;
	dpkgstatus_name(o->name, o->arch, o->ma, shown, sizeof(shown));
	snprintf(line, sizeof(line), "considering removing %s in favour of"
	    " %s ...", shown, p->shown);
	seq_say(s, UNPACKSEQ_NOTICE, p, line);
	if (!unpackconflict_configured(dpkgstatus_state(o))) {
		snprintf(line, sizeof(line), "%s is not properly installed;"
		    " ignoring any dependencies on it", shown);
		seq_say(s, UNPACKSEQ_NOTICE, p, line);
	} else if ((r = unpackdeps_seq_removal(s, p, status, o, &lerr)) != 0)
		return r < 0 ? r : 0;
	if (o->status != NULL && strstr(o->status, " reinstreq ") != NULL) {
		if (!unpackconflict_forced(s, "remove-reinstreq")) {
			snprintf(line, sizeof(line), "package %s requires"
			    " reinstallation, will not remove", shown);
			seq_say(s, UNPACKSEQ_NOTICE, p, line);
			return 0;
		}
		snprintf(line, sizeof(line), "package %s requires"
		    " reinstallation, but will remove anyway as you"
		    " requested", shown);
		seq_say(s, UNPACKSEQ_NOTICE, p, line);
	}
	return 1;
}

/*
 * One conflict of P with installed stanza O: HEAD ("p conflicts with
 * x") and WHY (dpkg's reason line).  0 when it is resolved (O goes, or
 * forced), 1 when it refuses P, or -errno.
 */
static int
cf_one(struct seq *s, struct seq_pkg *p, struct dpkgstatus *status,
    const struct dpkgstatus_stanza *o, const struct control *octl,
    const char *head, const char *why)
{
	char text[3000];

	int r;

	if (o != NULL && (r = cf_removable(s, p, status, o, octl)) < 0)
		return r;
	if (o != NULL && r == 1) {
		char shown[256], line[600];

		if ((r = cf_add(p, status, o)) != 0)
			return r;
		dpkgstatus_name(o->name, o->arch, o->ma, shown, sizeof(shown));
		snprintf(line, sizeof(line), "yes, will remove %s in favour of"
		    " %s", shown, p->shown);
		seq_say(s, UNPACKSEQ_NOTICE, p, line);
		return 0;
	}
	snprintf(text, sizeof(text), "%s\n%s", head, why);
	seq_say(s, UNPACKSEQ_REGARDING, p, text);
	if (unpackconflict_forced(s, "conflicts")) {
		seq_say(s, UNPACKSEQ_NOTICE, p, "warning: ignoring conflict,"
		    " may proceed anyway!");
		return 0;
	}
	return 1;
}

/* Whether PK removes stanza O in favour. */
static bool
cf_has(const struct seq_pkg *pk, const struct dpkgstatus_stanza *o)
{
	size_t i;

	for (i = 0; i < pk->ncf; i++)
		if (strcmp(pk->cf[i].name, o->name) == 0 &&
		    strcmp(pk->cf[i].arch != NULL ? pk->cf[i].arch : "",
		    o->arch != NULL ? o->arch : "") == 0)
			return true;
	return false;
}

/*
 * Whether stanza O goes in favour of P or of another package of the call
 * that has not failed (dpkg's istobe remove: dpkg would have removed it
 * by the time it checks P): no conflict of P's then.
 */
static bool
cf_chosen(const struct seq *s, const struct seq_pkg *p,
    const struct dpkgstatus_stanza *o)
{
	size_t i;

	if (cf_has(p, o))
		return true;
	for (i = 0; i < s->n; i++)
		if (&s->v[i] != p && s->v[i].state != SEQ_FAILED &&
		    cf_has(&s->v[i], o))
			return true;
	return false;
}

/* Whether Provides field PROV names NAME, whatever its version. */
static bool
cf_names(const char *prov, const char *name)
{
	struct cf_clause pc;
	const char *q = prov;

	while (q != NULL && cf_next(&q, &pc))
		if (strcmp(pc.name, name) == 0)
			return true;
	return false;
}

/* Field NAME of stanza O into BUF (continuations folded), or NULL. */
static const char *
cf_field(const struct dpkgstatus_stanza *o, const char *name, char *buf,
    size_t n)
{
	const char *t = o->text, *e = o->text + o->len, *l, *v;
	size_t len = strlen(name), k = 0;

	for (l = t; l < e; l = memchr(l, '\n', (size_t)(e - l)) + 1) {
		if ((size_t)(e - l) > len + 1 && strncmp(l, name, len) == 0 &&
		    l[len] == ':') {
			/* Continuation lines folded in. */
			for (v = l + len + 1; v < e && k + 1 < n; v++) {
				if (*v == '\n' && (v + 1 >= e || (v[1] != ' ' &&
				    v[1] != '\t')))
					break;
				buf[k++] = *v == '\n' ? ' ' : *v;
			}
			buf[k] = '\0';
			return buf;
		}
		if (memchr(l, '\n', (size_t)(e - l)) == NULL)
			break;
	}
	return NULL;
}

/* A match of a Conflicts clause, as dpkg's depisok counts them. */
struct cf_count {
	unsigned n;
	bool unfixable;		/* the new package provides it */
	const struct dpkgstatus_stanza *fix;	/* NULL: the new package */
	char why[1500];
};

static void
cf_why(struct cf_count *k, const char *line)
{
	size_t len = strlen(k->why);

	snprintf(k->why + len, sizeof(k->why) - len, "%s\n", line);
}

/*
 * Everything clause C of package SELF's Conflicts meets: the new
 * package P (its name, then what it provides) and the installed
 * packages (their names, then what they provide), SELF and what P
 * removes already aside, each with dpkg's reason line.
 */
static void
cf_count(const struct seq *s, const struct seq_pkg *p,
    const struct dpkgstatus *status,
    const struct cf_clause *c, const char *self, struct cf_count *k)
{
	char line[800], prov[2048], nm[256];
	const char *pv;
	size_t i;

	memset(k, 0, sizeof(*k));
	if (strcmp(c->name, self) != 0) {
		if (strcmp(c->name, p->name) == 0 && cf_arch_ok(c, p->arch) &&
		    (c->op[0] == '\0' || version_satisfies(p->version, c->op,
		    c->version))) {
			snprintf(line, sizeof(line), "  %s (version %s) is to"
			    " be installed.", p->shown,
			    dpkgfmt_version(p->version));
			cf_why(k, line);
			k->n++;
			k->fix = NULL;
		}
		for (i = 0; strcmp(c->name, p->name) != 0 && i < status->n;
		    i++) {
			const struct dpkgstatus_stanza *o = &status->v[i];

			if (strcmp(o->name, c->name) != 0 ||
			    !dpkgstatus_installed(o) || o->version == NULL ||
			    cf_chosen(s, p, o) || !cf_arch_ok(c, o->arch) ||
			    (c->op[0] != '\0' && !version_satisfies(o->version,
			    c->op, c->version)))
				continue;
			dpkgstatus_name(o->name, o->arch, o->ma, nm,
			    sizeof(nm));
			snprintf(line, sizeof(line), "  %s (version %s) is %s.",
			    nm, dpkgfmt_version(o->version),
			    cf_state_words(dpkgstatus_state(o)));
			cf_why(k, line);
			k->n++;
			k->fix = o;
		}
	}
	/* dpkg cannot remove the package it is about to install. */
	if (strcmp(p->name, self) != 0 && cf_provides(c,
	    control_get(p->ctl, "Provides"))) {
		snprintf(line, sizeof(line), "  %s provides %s and is to be"
		    " installed.", p->shown, c->name);
		cf_why(k, line);
		k->n++;
		k->unfixable = true;
		return;
	}
	for (i = 0; i < status->n; i++) {
		const struct dpkgstatus_stanza *o = &status->v[i];

		if (strcmp(o->name, self) == 0 || strcmp(o->name, p->name) ==
		    0 || !dpkgstatus_installed(o) || cf_chosen(s, p, o) ||
		    (pv = cf_field(o, "Provides", prov, sizeof(prov))) ==
		    NULL || !cf_provides(c, pv))
			continue;
		dpkgstatus_name(o->name, o->arch, o->ma, nm, sizeof(nm));
		snprintf(line, sizeof(line), "  %s provides %s and is %s.",
		    nm, c->name, cf_state_words(dpkgstatus_state(o)));
		cf_why(k, line);
		k->n++;
		k->fix = o;
	}
	if (k->n > 1)
		k->unfixable = true;
}

/*
 * One conflict of P, clause C of SELF's Conflicts (stanza SELFO, or NULL
 * for P): removal of what it names in favour of P, or a refusal.  0 when
 * resolved, 1 when it refuses P, or -errno.
 */
static int
cf_clause(struct seq *s, struct seq_pkg *p, struct dpkgstatus *status,
    const struct cf_clause *c, const char *self,
    const struct dpkgstatus_stanza *selfo)
{
	const struct dpkgstatus_stanza *o;
	struct control *octl;
	struct dbp_error perr;
	struct cf_count k;
	char head[1200], cl[700], shown[256];
	int r;

	cf_count(s, p, status, c, self, &k);
	if (k.n == 0)
		return 0;
	cf_describe(c, cl, sizeof(cl));
	if (selfo != NULL)
		dpkgstatus_name(selfo->name, selfo->arch, selfo->ma, shown,
		    sizeof(shown));
	snprintf(head, sizeof(head), " %s conflicts with %s", selfo != NULL ?
	    shown : p->shown, cl);
	/* A conflict with the new package is fixed by removing its owner. */
	o = k.unfixable ? NULL : k.fix != NULL ? k.fix : selfo;
	if (o == NULL)
		octl = NULL;
	else if (control_parse(o->text, o->len, &octl, &perr) != 0)
		return -ENOMEM;
	r = cf_one(s, p, status, o, octl, head, k.why);
	control_free(octl);
	return r;
}

int
unpackconflict_check(struct seq *s, struct seq_pkg *p, struct dbp_error *err)
{
	struct dpkgstatus status = { NULL, 0 };
	const char *pconf = control_get(p->ctl, "Conflicts");
	const char *pprov = control_get(p->ctl, "Provides");
	char *text = NULL, line[600], conf[2048];
	struct cf_clause c;
	const char *q;
	size_t len = 0, i;
	int r = 0;

	if ((r = fileat_read(s->adfd, "status", &text, &len)) != 0 &&
	    r != -ENOENT)
		return dbp_err(err, -r, SEQ_ADMIN "/status", "cannot read");
	r = dpkgstatus_parse(&status, text != NULL ? text : "", len);
	free(text);
	if (r != 0)
		return dbp_err(err, -r, SEQ_ADMIN "/status", "cannot parse");
	/* What P conflicts with, clause by clause, as dpkg checks them. */
	for (q = pconf; r == 0 && q != NULL && cf_next(&q, &c);)
		r = cf_clause(s, p, &status, &c, p->name, NULL);
	/* What is installed conflicting with P, or with what it provides. */
	for (i = 0; r == 0 && i < status.n; i++) {
		const struct dpkgstatus_stanza *o = &status.v[i];

		if (!dpkgstatus_installed(o) || strcmp(o->name, p->name) == 0 ||
		    cf_chosen(s, p, o))
			continue;
		for (q = cf_field(o, "Conflicts", conf, sizeof(conf));
		    r == 0 && q != NULL && !cf_chosen(s, p, o) &&
		    cf_next(&q, &c);)
			if (strcmp(c.name, p->name) == 0 ||
			    cf_names(pprov, c.name))
				r = cf_clause(s, p, &status, &c, o->name, o);
	}
	dpkgstatus_clear(&status);
	if (r < 0)
		return dbp_err(err, -r, NULL, "cannot read status");
	if (r == 0)
		return 0;
	unpackconflict_free(p);
	snprintf(line, sizeof(line), "conflicting packages - not installing %s",
	    p->shown);
	seq_fail(s, p, line);
	/* dpkg selected it before the check: its want is install. */
	if (p->old_text == NULL && (r = seq_status_one(s, p,
	    seq_not_installed(p, false), err)) != 0)
		return r;
	return 1;
}

/* Whether package A's Conflicts meet package B (its name or Provides). */
static bool
cf_pkgs(const struct seq_pkg *a, const struct seq_pkg *b)
{
	struct cf_clause c;
	const char *q = control_get(a->ctl, "Conflicts");

	while (q != NULL && cf_next(&q, &c)) {
		if (strcmp(c.name, a->name) == 0)
			continue;
		if ((strcmp(c.name, b->name) == 0 && cf_arch_ok(&c, b->arch) &&
		    (c.op[0] == '\0' || version_satisfies(b->version, c.op,
		    c.version))) || cf_provides(&c, control_get(b->ctl,
		    "Provides")))
			return true;
	}
	return false;
}

bool
unpackconflict_ends_group(const struct seq *s, size_t i)
{
	const struct seq_pkg *p = &s->v[i];
	size_t j;

	for (j = i + 1; p->ctl != NULL && j < s->n; j++)
		if (s->v[j].ctl != NULL && strcmp(s->v[j].name, p->name) != 0 &&
		    (cf_pkgs(p, &s->v[j]) || cf_pkgs(&s->v[j], p)))
			return true;
	return false;
}

int
unpackconflict_removing(const struct seq *s, size_t from, size_t to,
    char ***names, size_t *n)
{
	size_t i, k, all = 0;

	*names = NULL;
	*n = 0;
	for (i = from; i < to; i++)
		if (s->v[i].state == SEQ_READY)
			all += s->v[i].ncf;
	if (all == 0)
		return 0;
	if ((*names = calloc(all, sizeof(**names))) == NULL)
		return -ENOMEM;
	for (i = from; i < to; i++)
		for (k = 0; s->v[i].state == SEQ_READY && k < s->v[i].ncf; k++)
			(*names)[(*n)++] = (char *)s->v[i].cf[k].name;
	return 0;
}

void
unpackconflict_free(struct seq_pkg *p)
{
	size_t i;

	for (i = 0; i < p->ncf; i++) {
		struct seq_pkg *c = &p->cf[i];

		control_free(c->ctl);
		free(c->infoname);
		free(c->old_text);
		free(c->old_version);
		free(c->old_cversion);
	}
	free(p->cf);
	p->cf = NULL;
	p->ncf = 0;
}
