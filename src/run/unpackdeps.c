/* SPDX-License-Identifier: MIT */
/* unpackdeps: the relations dpkg checks before it unpacks a package. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/dpkgfmt.h"
#include "db/dpkgstatus.h"
#include "db/recstore.h"
#include "db/version.h"
#include "run/unpackdeps.h"

/* One alternative of a group: NAME[:ARCH] [(OP VERSION)]. */
struct dep_alt {
	char name[256], arch[64], op[3], version[256];
};

/* What a group's check needs to know of the package being unpacked. */
struct dep_new {
	const struct control *ctl;
	const char *name, *arch, *ma, *version, *shown, *native;
};

bool
unpackdeps_ignore_valid(const char *list)
{
	const char *item = list;
	size_t len;
	char name[512];

	/* Each one names a package as a record key does: NAME[:ARCH]. */
	for (;; item += len + 1) {
		len = strcspn(item, ",");
		if (len == 0 || len >= sizeof(name))
			return false;
		memcpy(name, item, len);
		name[len] = '\0';
		if (!recstore_valid_key(name))
			return false;
		if (item[len] == '\0')
			return true;
	}
}

bool
unpackdeps_ignored(const char *list, const char *name, const char *arch)
{
	size_t n = strlen(name), len;
	const char *item, *colon;

	for (item = list; item != NULL && *item != '\0'; item += len,
	    item += *item == ',') {
		len = strcspn(item, ",");
		if (len < n || strncmp(item, name, n) != 0)
			continue;
		if (len == n)
			return true;
		/* NAME:ARCH names one instance; an arch not known, any. */
		colon = item + n;
		if (*colon == ':' && (arch == NULL || (strlen(arch) ==
		    len - n - 1 && strncmp(colon + 1, arch, len - n - 1) == 0)))
			return true;
	}
	return false;
}

/* dpkg's words for a state (src/main/help.c's statusstrings). */
static const char *
deps_state_words(const char *state)
{
	static const char *const w[][2] = {
		{ "not-installed", "not installed" },
		{ "config-files", "not installed but configs remain" },
		{ "half-installed",
		    "broken due to failed removal or installation" },
		{ "unpacked", "unpacked but not configured" },
		{ "half-configured", "broken due to postinst failure" },
		{ "triggers-awaited",
		    "awaiting trigger processing by another package" },
		{ "triggers-pending", "triggered" },
		{ "installed", "installed" },
	};
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (strcmp(state, w[i][0]) == 0)
			return w[i][1];
	return state;
}

/* Copy the LEN bytes at S into BUF (N bytes); false when they do not fit. */
static bool
deps_copy(char *buf, size_t n, const char *s, size_t len)
{
	if (len == 0 || len >= n)
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return true;
}

/*
 * Parse the alternatives of group TEXT (LEN bytes, between commas) into
 * V (at most MAX); their number, or -EINVAL.
 */
static int
deps_group(const char *text, size_t len, struct dep_alt *v, size_t max)
{
	const char *p = text, *end = text + len, *s;
	size_t n = 0;

	for (;;) {
		struct dep_alt *a;

		if (n == max)
			return -EINVAL;
		a = &v[n++];
		memset(a, 0, sizeof(*a));
		while (p < end && isspace((unsigned char)*p))
			p++;
		for (s = p; p < end && !isspace((unsigned char)*p) &&
		    *p != '(' && *p != '|' && *p != ':'; p++)
			;
		if (!deps_copy(a->name, sizeof(a->name), s, (size_t)(p - s)))
			return -EINVAL;
		if (p < end && *p == ':') {
			for (s = ++p; p < end && !isspace((unsigned char)*p) &&
			    *p != '(' && *p != '|'; p++)
				;
			if (!deps_copy(a->arch, sizeof(a->arch), s,
			    (size_t)(p - s)))
				return -EINVAL;
		}
		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p < end && *p == '(') {
			for (s = ++p; p < end && strchr("<=>", *p) != NULL; p++)
				;
			if (!deps_copy(a->op, sizeof(a->op), s,
			    (size_t)(p - s)))
				return -EINVAL;
			while (p < end && isspace((unsigned char)*p))
				p++;
			for (s = p; p < end && !isspace((unsigned char)*p) &&
			    *p != ')'; p++)
				;
			if (!deps_copy(a->version, sizeof(a->version), s,
			    (size_t)(p - s)))
				return -EINVAL;
			while (p < end && isspace((unsigned char)*p))
				p++;
			if (p == end || *p++ != ')')
				return -EINVAL;
			while (p < end && isspace((unsigned char)*p))
				p++;
		}
		if (p == end)
			return (int)n;
		if (*p++ != '|')
			return -EINVAL;
	}
}

/* VERSION against A's relation (none: any version). */
static bool
deps_version_ok(const char *version, const struct dep_alt *a)
{
	if (a->op[0] == '\0')
		return true;
	return version != NULL && version_satisfies(version, a->op,
	    a->version);
}

/* A package of ARCH (Multi-Arch MA) against A's arch (deparchsatisfied). */
static bool
deps_arch_ok(const char *arch, const char *ma, const struct dep_alt *a,
    const struct dep_new *nw)
{
	const char *want = a->arch;

	if (want[0] == '\0' && ma != NULL && strcmp(ma, "foreign") == 0)
		return true;
	if (strcmp(want, "any") == 0)
		return ma != NULL && strcmp(ma, "allowed") == 0;
	/* An implicit arch is the depending package's. */
	if (want[0] == '\0')
		want = nw->arch != NULL ? nw->arch : "all";
	if (strcmp(want, "all") == 0)
		want = nw->native;
	if (arch == NULL || strcmp(arch, "all") == 0)
		arch = nw->native;
	if (want == NULL || arch == NULL)
		return want == arch;
	return strcmp(want, arch) == 0;
}

/* A package's field NAME in stanza TEXT: its value found, copied. */
struct deps_field {
	const char *name;
	char *value;
};

static int
deps_field_fn(const struct dpkgfmt_field *f, void *ctx)
{
	struct deps_field *df = ctx;

	if (f->name == NULL || !dpkgfmt_field_is(f, df->name))
		return 0;
	if ((df->value = strndup(f->value, f->len)) == NULL)
		return -ENOMEM;
	return 1;
}

/*
 * Whether PROVIDES (a Provides value, may be NULL) satisfies A, as
 * dpkg's pkg_virtual_deppossi_satisfied: a provided version only with
 * "=", and a versioned relation only by a provided version.
 */
static bool
deps_provides(const char *provides, const struct dep_alt *a)
{
	struct dep_alt alt;
	const char *p = provides, *comma;

	while (p != NULL && *p != '\0') {
		comma = strchr(p, ',');
		if (deps_group(p, comma != NULL ? (size_t)(comma - p) :
		    strlen(p), &alt, 1) == 1 && strcmp(alt.name, a->name) == 0) {
			if (alt.op[0] == '\0') {
				if (a->op[0] == '\0')
					return true;
			} else if (strcmp(alt.op, "=") == 0 &&
			    deps_version_ok(alt.version, a))
				return true;
		}
		p = comma != NULL ? comma + 1 : NULL;
	}
	return false;
}

/* Whether stanza D's Provides satisfy A: 1, 0, or -ENOMEM. */
static int
deps_stanza_provides(const struct dpkgstatus_stanza *d,
    const struct dep_alt *a)
{
	struct deps_field df = { "Provides", NULL };
	bool ok;

	if (dpkgfmt_fields(d->text, d->len, deps_field_fn, &df) < 0)
		return -ENOMEM;
	ok = deps_provides(df.value, a);
	free(df.value);
	return ok;
}

/* Whether stanza D is the package being unpacked (its installed self). */
static bool
deps_is_new(const struct dpkgstatus_stanza *d, const struct dep_new *nw)
{
	return strcmp(d->name, nw->name) == 0 && (d->arch == NULL ||
	    nw->arch == NULL || strcmp(d->arch, nw->arch) == 0 ||
	    (!dpkgstatus_ma_same(d->ma) && !dpkgstatus_ma_same(nw->ma)));
}

/* Whether stanzas A and B are one package instance. */
static bool
deps_same(const struct dpkgstatus_stanza *a, const struct dpkgstatus_stanza *b)
{
	return strcmp(a->name, b->name) == 0 && strcmp(a->arch != NULL ?
	    a->arch : "", b->arch != NULL ? b->arch : "") == 0;
}

/*
 * How depisok checks a group: NW is to be installed, DN the depending
 * package (its arch qualifies the alternatives), GONE a stanza to be
 * removed (or NULL), UNCONF whether an unpacked or half-configured
 * package whose configured version would do satisfies it (dpkg's
 * allowunconfigd, for pre-dependencies), TRIG where to name a package
 * whose awaited triggers would (NULL: not asked).
 */
struct dep_check {
	const struct dep_new *nw, *dn;
	const struct dpkgstatus_stanza *gone;
	bool unconf;
	char **trig;
};

/* Note stanza D (SHOWN) as the package whose triggers would satisfy. */
static int
deps_trig(const struct dep_check *c, const char *shown)
{
	if (c->trig == NULL || *c->trig != NULL)
		return 0;
	return (*c->trig = strdup(shown)) == NULL ? -ENOMEM : 0;
}

/*
 * One group (V, N alternatives) as depisok checks it (C): 1 satisfied,
 * 0 not (dpkg's lines added to FP), or -ENOMEM.
 */
static int
deps_check_group(const struct dpkgstatus *st, const struct dep_check *c,
    const struct dep_alt *v, size_t n, FILE *fp)
{
	const struct dep_new *nw = c->nw;
	char shown[512];
	size_t i, j;
	int r;

	for (i = 0; i < n; i++) {
		const struct dep_alt *a = &v[i];
		bool said = false;

		/* The package being unpacked, by its own name. */
		if (strcmp(a->name, nw->name) == 0) {
			if (deps_version_ok(nw->version, a) &&
			    deps_arch_ok(nw->arch, nw->ma, a, c->dn))
				return 1;
			fprintf(fp, "  %s is to be installed, but is version"
			    " %s.\n", nw->shown, dpkgfmt_version(nw->version));
			said = true;
		}
		for (j = 0; j < st->n; j++) {
			const struct dpkgstatus_stanza *d = &st->v[j];
			const char *state = dpkgstatus_state(d);
			bool ok;

			if (strcmp(d->name, a->name) != 0 || deps_is_new(d, nw))
				continue;
			dpkgstatus_name(d->name, d->arch, d->ma, shown,
			    sizeof(shown));
			said = true;
			if (c->gone != NULL && deps_same(d, c->gone)) {
				fprintf(fp, "  %s is to be removed.\n", shown);
				continue;
			}
			ok = deps_version_ok(d->version, a) &&
			    deps_arch_ok(d->arch, d->ma, a, c->dn);
			if (strcmp(state, "installed") == 0 ||
			    strcmp(state, "triggers-pending") == 0) {
				if (ok)
					return 1;
				fprintf(fp, "  %s is installed, but is version"
				    " %s.\n", shown, dpkgfmt_version(
				    d->version != NULL ? d->version : ""));
				continue;
			}
			if (strcmp(state, "not-installed") == 0) {
				said = false;
				continue;
			}
			if (strcmp(state, "triggers-awaited") == 0 && ok &&
			    (r = deps_trig(c, shown)) != 0)
				return r;
			if (!c->unconf || (strcmp(state, "triggers-awaited") != 0 &&
			    strcmp(state, "unpacked") != 0 &&
			    strcmp(state, "half-configured") != 0)) {
				fprintf(fp, "  %s is %s.\n", shown,
				    deps_state_words(state));
				continue;
			}
			/* Unpacked will do where the configured version does. */
			if (d->cversion == NULL || d->cversion[0] == '\0')
				fprintf(fp, "  %s is unpacked, but has never"
				    " been configured.\n", shown);
			else if (!ok)
				fprintf(fp, "  %s is unpacked, but is version"
				    " %s.\n", shown, dpkgfmt_version(
				    d->version != NULL ? d->version : ""));
			else if (!deps_version_ok(d->cversion, a))
				fprintf(fp, "  %s latest configured version is"
				    " %s.\n", shown, dpkgfmt_version(
				    d->cversion));
			else
				return 1;
		}
		/* What the package being unpacked provides. */
		if (deps_provides(control_get(nw->ctl, "Provides"), a))
			return 1;
		/* What the installed packages provide. */
		for (j = 0; j < st->n; j++) {
			const struct dpkgstatus_stanza *d = &st->v[j];
			const char *state = dpkgstatus_state(d);
			int pr;

			if (deps_is_new(d, nw))
				continue;
			if ((pr = deps_stanza_provides(d, a)) < 0)
				return pr;
			if (pr == 0)
				continue;
			dpkgstatus_name(d->name, d->arch, d->ma, shown,
			    sizeof(shown));
			said = true;
			if (c->gone != NULL && deps_same(d, c->gone)) {
				fprintf(fp, "  %s provides %s but is to be"
				    " removed.\n", shown, a->name);
				continue;
			}
			if (strcmp(state, "installed") == 0 ||
			    strcmp(state, "triggers-pending") == 0)
				return 1;
			if (strcmp(state, "triggers-awaited") == 0 &&
			    (r = deps_trig(c, shown)) != 0)
				return r;
			fprintf(fp, "  %s provides %s but is %s.\n", shown,
			    a->name, deps_state_words(state));
		}
		if (!said)
			fprintf(fp, "  %s is not installed.\n", a->name);
	}
	return 0;
}

/*
 * Start the explanation of one group of a relation field (P, GLEN bytes):
 * its alternatives into V (at most NV; their number in *N), and a stream
 * (*FP, its text at *TEXT, *LEN) that holds dpkg's first line, " SHOWN
 * VERB GROUP".  0, or -errno with nothing left open.
 */
static int
deps_group_open(const char *p, size_t glen, struct dep_alt *v, size_t nv,
    int *n, const char *shown, const char *verb, FILE **fp, char **text,
    size_t *len)
{
	char *group, *form = NULL;
	int r;

	if ((*n = deps_group(p, glen, v, nv)) < 0)
		return *n;
	if ((group = strndup(p, glen)) == NULL)
		return -ENOMEM;
	r = dpkgfmt_depends(group, &form);
	free(group);
	if (r == -ENOMEM)
		return r;
	if ((*fp = open_memstream(text, len)) == NULL) {
		free(form);
		return -ENOMEM;
	}
	fprintf(*fp, " %s %s %s\n", shown, verb, form != NULL ? form : "");
	free(form);
	return 0;
}

int
unpackdeps_predepends(const struct dpkgstatus *st,
    const struct control *ctl, const char *shown, const char *native,
    const char *ignore, size_t *at, bool *ignored, char **why, char **trig)
{
	struct dep_new nw = { ctl, control_get(ctl, "Package"),
	    control_get(ctl, "Architecture"), control_get(ctl, "Multi-Arch"),
	    control_get(ctl, "Version"), shown, native };
	struct dep_check c = { &nw, &nw, NULL, true, trig };
	const char *field = control_get(ctl, "Pre-Depends"), *p, *comma;
	struct dep_alt v[32];
	char *text = NULL;
	size_t len = 0, glen;
	FILE *fp;
	int n, r = UNPACKDEPS_OK;

	*why = NULL;
	*trig = NULL;
	*ignored = false;
	if (nw.name == NULL)
		return -EINVAL;
	if (field != NULL && *at > strlen(field))
		return UNPACKDEPS_OK;
	for (p = field != NULL ? field + *at : NULL; r == UNPACKDEPS_OK &&
	    p != NULL && *p != '\0'; p = comma != NULL ? comma + 1 : NULL) {
		comma = strchr(p, ',');
		glen = comma != NULL ? (size_t)(comma - p) : strlen(p);
		*at = comma != NULL ? (size_t)(comma + 1 - field) :
		    strlen(field) + 1;
		if (strspn(p, " \t\n") >= glen)
			continue;
		if ((r = deps_group_open(p, glen, v, sizeof(v) / sizeof(v[0]),
		    &n, shown, "pre-depends on", &fp, &text, &len)) != 0)
			return r;
		r = deps_check_group(st, &c, v, (size_t)n, fp);
		if (fclose(fp) != 0 && r >= 0)
			r = -ENOMEM;
		if (r < 0) {
			free(text);
			free(*trig);
			*trig = NULL;
			return r;
		}
		if (r == 1) {
			free(text);
			text = NULL;
			free(*trig);
			*trig = NULL;
			r = UNPACKDEPS_OK;
			continue;
		}
		if (*trig != NULL) {
			free(text);
			return UNPACKDEPS_TRIGGERS;
		}
		*why = text;
		/* dpkg's force_depends looks at the first alternative. */
		*ignored = n > 0 && unpackdeps_ignored(ignore, v[0].name, NULL);
		return UNPACKDEPS_PROBLEM;
	}
	return UNPACKDEPS_OK;
}

/*
 * One Breaks group (V, N alternatives; dpkg reads the first alone) as
 * depisok checks it: 1 satisfied, 0 not (lines added to FP, *FIX the
 * one package that deconfiguring would fix it, or NULL), -ENOMEM.
 */
static int
deps_check_breaks(const struct dpkgstatus *st, const struct dep_new *nw,
    const struct dep_alt *a, FILE *fp,
    const struct dpkgstatus_stanza **fix)
{
	char shown[512];
	size_t j, nconflicts = 0;

	for (j = 0; j < st->n && strcmp(a->name, nw->name) != 0; j++) {
		const struct dpkgstatus_stanza *d = &st->v[j];
		const char *state = dpkgstatus_state(d);

		if (strcmp(d->name, a->name) != 0 || deps_is_new(d, nw))
			continue;
		/* Unpacked, half-installed and the like break nothing. */
		if (strcmp(state, "installed") != 0 &&
		    strcmp(state, "triggers-pending") != 0 &&
		    strcmp(state, "triggers-awaited") != 0)
			continue;
		if (!deps_version_ok(d->version, a) ||
		    !(strcmp(a->arch, "any") == 0 ||
		    deps_arch_ok(d->arch, d->ma, a, nw)))
			continue;
		dpkgstatus_name(d->name, d->arch, d->ma, shown, sizeof(shown));
		fprintf(fp, "  %s (version %s) is present and %s.\n", shown,
		    dpkgfmt_version(d->version != NULL ? d->version : ""),
		    deps_state_words(state));
		nconflicts++;
		*fix = d;
	}
	for (j = 0; j < st->n; j++) {
		const struct dpkgstatus_stanza *d = &st->v[j];
		struct deps_field df = { "Provides", NULL };
		const char *state = dpkgstatus_state(d);
		bool ok;

		if (strcmp(d->name, nw->name) == 0)
			continue;
		if (strcmp(state, "installed") != 0 &&
		    strcmp(state, "triggers-pending") != 0 &&
		    strcmp(state, "triggers-awaited") != 0)
			continue;
		if (dpkgfmt_fields(d->text, d->len, deps_field_fn, &df) < 0)
			return -ENOMEM;
		ok = deps_provides(df.value, a);
		free(df.value);
		if (!ok)
			continue;
		dpkgstatus_name(d->name, d->arch, d->ma, shown, sizeof(shown));
		fprintf(fp, "  %s provides %s and is present and %s.\n", shown,
		    a->name, deps_state_words(state));
		nconflicts++;
		*fix = d;
	}
	if (nconflicts == 0)
		return 1;
	if (nconflicts > 1)
		*fix = NULL;
	return 0;
}

int
unpackdeps_breaks(const struct dpkgstatus *st, const struct control *ctl,
    const char *shown, const char *native, size_t *at, char **why,
    const struct dpkgstatus_stanza **fix)
{
	struct dep_new nw = { ctl, control_get(ctl, "Package"),
	    control_get(ctl, "Architecture"), control_get(ctl, "Multi-Arch"),
	    control_get(ctl, "Version"), shown, native };
	const char *field = control_get(ctl, "Breaks"), *p, *comma;
	struct dep_alt v[32];
	char *text = NULL;
	size_t len = 0, glen, k = 0;
	FILE *fp;
	int n, r;

	*why = NULL;
	*fix = NULL;
	if (nw.name == NULL)
		return -EINVAL;
	for (p = field; p != NULL && *p != '\0';
	    p = comma != NULL ? comma + 1 : NULL, k++) {
		comma = strchr(p, ',');
		glen = comma != NULL ? (size_t)(comma - p) : strlen(p);
		if (k < *at || strspn(p, " \t\n") >= glen)
			continue;
		if ((r = deps_group_open(p, glen, v, sizeof(v) / sizeof(v[0]),
		    &n, shown, "breaks", &fp, &text, &len)) != 0)
			return r;
		r = deps_check_breaks(st, &nw, &v[0], fp, fix);
		if (fclose(fp) != 0 && r >= 0)
			r = -ENOMEM;
		if (r != 0) {
			free(text);
			text = NULL;
			*fix = NULL;
			if (r < 0)
				return r;
			continue;
		}
		*at = k + 1;
		*why = text;
		return UNPACKDEPS_PROBLEM;
	}
	return UNPACKDEPS_OK;
}


/* Whether group V (N alternatives) names NAME. */
static bool
deps_names(const struct dep_alt *v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return true;
	return false;
}

/*
 * D's first group in FIELD that names NAME and that removing O leaves
 * unsatisfied: 1 with *WHY, 0 when none, -errno.
 */
static int
deps_removal_field(const struct dpkgstatus *st, const struct dep_new *nw,
    const struct dpkgstatus_stanza *d, const struct dpkgstatus_stanza *o,
    const char *field, const char *name, char **why)
{
	struct deps_field df = { field, NULL };
	struct dep_new dn = *nw;
	struct dep_check c = { nw, &dn, o, false, NULL };
	struct dep_alt v[32];
	const char *p, *comma;
	char shown[512], *text = NULL;
	size_t len, glen;
	FILE *fp;
	int n, r = 0;

	if (dpkgfmt_fields(d->text, d->len, deps_field_fn, &df) < 0)
		return -ENOMEM;
	dn.arch = d->arch;
	dn.ma = d->ma;
	dpkgstatus_name(d->name, d->arch, d->ma, shown, sizeof(shown));
	for (p = df.value; r == 0 && p != NULL && *p != '\0';
	    p = comma != NULL ? comma + 1 : NULL) {
		comma = strchr(p, ',');
		glen = comma != NULL ? (size_t)(comma - p) : strlen(p);
		if (strspn(p, " \t\n") >= glen)
			continue;
		if ((n = deps_group(p, glen, v, sizeof(v) / sizeof(v[0]))) < 0) {
			r = n;
			break;
		}
		if (!deps_names(v, (size_t)n, name))
			continue;
		if ((r = deps_group_open(p, glen, v, sizeof(v) / sizeof(v[0]),
		    &n, shown, strcmp(field, "Pre-Depends") == 0 ?
		    "pre-depends on" : "depends on", &fp, &text, &len)) != 0)
			break;
		r = deps_check_group(st, &c, v, (size_t)n, fp);
		if (fclose(fp) != 0 && r >= 0)
			r = -ENOMEM;
		if (r == 0) {
			*why = text;
			r = 1;
			break;
		}
		free(text);
		text = NULL;
		r = r == 1 ? 0 : r;
	}
	free(df.value);
	return r;
}

int
unpackdeps_removal(const struct dpkgstatus *st, const struct control *ctl,
    const char *shown, const char *native, const struct dpkgstatus_stanza *o,
    size_t *at, const struct dpkgstatus_stanza **d, char **why, char **via)
{
	struct dep_new nw = { ctl, control_get(ctl, "Package"),
	    control_get(ctl, "Architecture"), control_get(ctl, "Multi-Arch"),
	    control_get(ctl, "Version"), shown, native };
	struct deps_field prov = { "Provides", NULL };
	struct dep_alt pv;
	const char *q, *comma, *state;
	bool cfg, pre;
	size_t k, j;
	int r = 0;

	*why = *via = NULL;
	if (nw.name == NULL)
		return -EINVAL;
	if (dpkgfmt_fields(o->text, o->len, deps_field_fn, &prov) < 0)
		return -ENOMEM;
	/*
	 * dpkg's order: the packages that depend on O by name, then those
	 * that depend on what O provides, each list newest first (dpkg
	 * links each reverse dependency at the head as it reads its
	 * status).
	 */
	for (; r == 0 && *at < 2 * st->n; (*at)++) {
		k = *at < st->n ? *at : *at - st->n;
		*d = &st->v[st->n - 1 - k];
		state = dpkgstatus_state(*d);
		cfg = strcmp(state, "installed") == 0 ||
		    strncmp(state, "triggers-", 9) == 0;
		pre = strcmp(state, "unpacked") == 0 ||
		    strcmp(state, "half-configured") == 0 ||
		    strcmp(state, "half-installed") == 0;

		if ((!cfg && !pre) || deps_same(*d, o) || deps_is_new(*d, &nw))
			continue;
		if (*at < st->n) {
			if (cfg)
				r = deps_removal_field(st, &nw, *d, o,
				    "Depends", o->name, why);
			if (r == 0)
				r = deps_removal_field(st, &nw, *d, o,
				    "Pre-Depends", o->name, why);
			continue;
		}
		for (q = prov.value; r == 0 && q != NULL && *q != '\0';
		    q = comma != NULL ? comma + 1 : NULL) {
			comma = strchr(q, ',');
			j = comma != NULL ? (size_t)(comma - q) : strlen(q);
			if (strspn(q, " \t\n") >= j || deps_group(q, j, &pv, 1) != 1)
				continue;
			if (cfg)
				r = deps_removal_field(st, &nw, *d, o,
				    "Depends", pv.name, why);
			if (r == 0)
				r = deps_removal_field(st, &nw, *d, o,
				    "Pre-Depends", pv.name, why);
			if (r == 1 && (*via = strdup(pv.name)) == NULL)
				r = -ENOMEM;
		}
	}
	free(prov.value);
	return r;
}
