/* SPDX-License-Identifier: MIT */
/* The dpkg for apt: which packages an unpack's trigger processing takes. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/shimtrig.h"
#include "db/dpkgfmt.h"
#include "db/version.h"

/* Field NAME's value in stanza O (*LEN bytes), or NULL. */
struct shimtrig_find {
	const char *name, *value;
	size_t len;
};

static int
shimtrig_field_cb(const struct dpkgfmt_field *f, void *ctx)
{
	struct shimtrig_find *fd = ctx;

	if (!dpkgfmt_field_is(f, fd->name))
		return 0;
	fd->value = f->value;
	fd->len = f->len;
	return 1;
}

static const char *
shimtrig_field(const struct dpkgstatus_stanza *o, const char *name,
    size_t *len)
{
	struct shimtrig_find fd = { .name = name };

	dpkgfmt_fields(o->text, o->len, shimtrig_field_cb, &fd);
	*len = fd.len;
	return fd.value;
}

/* Whether O's state satisfies a dependency (AWAITED: triggers-awaited too). */
static bool
shimtrig_configured(const struct dpkgstatus_stanza *o, bool awaited)
{
	const char *st = dpkgstatus_state(o);

	return strcmp(st, "installed") == 0 ||
	    strcmp(st, "triggers-pending") == 0 ||
	    (awaited && strcmp(st, "triggers-awaited") == 0);
}

/* Whether package O provides NAME at a version in relation OP to REF. */
static bool
shimtrig_provides(const struct dpkgstatus_stanza *o, const char *name,
    const char *op, const char *ref)
{
	char *v, *alt, *save, *p, *ver;
	size_t len, nl = strlen(name);
	const char *val;
	bool ok = false;

	if ((val = shimtrig_field(o, "Provides", &len)) == NULL ||
	    (v = strndup(val, len)) == NULL)
		return false;
	for (alt = strtok_r(v, ",", &save); !ok && alt != NULL;
	    alt = strtok_r(NULL, ",", &save)) {
		alt += strspn(alt, " \t\n");
		if (strncmp(alt, name, nl) != 0 || (alt[nl] != '\0' &&
		    strchr(" \t\n(:", alt[nl]) == NULL))
			continue;
		if (op == NULL) {
			ok = true;
			continue;
		}
		/* A versioned dependency: only "(= V)" provides a version. */
		if ((p = strchr(alt, '(')) == NULL ||
		    strncmp(p + 1 + strspn(p + 1, " "), "=", 1) != 0)
			continue;
		ver = p + 2 + strspn(p + 1, " ");
		ver += strspn(ver, " ");
		ver[strcspn(ver, " )")] = '\0';
		ok = version_satisfies(ver, op, ref);
	}
	free(v);
	return ok;
}

/*
 * The package of AFTER that satisfies alternative ALT ("name[:arch]
 * [(op ver)]", cut up) in a state shimtrig_configured takes (AWAITED),
 * or NULL.  ONLY: that state alone ("triggers-awaited"), NULL: any.
 */
static const struct dpkgstatus_stanza *
shimtrig_alt(const struct dpkgstatus *after, char *alt, bool awaited,
    const char *only, bool configured_once)
{
	char *name, *ref = NULL, *p, opbuf[4];
	const struct dpkgstatus_stanza *o;
	const char *op = NULL;
	size_t i, oplen;

	alt += strspn(alt, " \t\n");
	name = alt;
	if ((p = strchr(alt, '(')) != NULL) {
		*p++ = '\0';
		p += strspn(p, " ");
		if ((oplen = strspn(p, "<>=")) > 0 && oplen < sizeof(opbuf)) {
			memcpy(opbuf, p, oplen);
			opbuf[oplen] = '\0';
			op = opbuf;
		}
		ref = p + oplen;
		ref += strspn(ref, " ");
		ref[strcspn(ref, " )")] = '\0';
	}
	name[strcspn(name, " \t\n:")] = '\0';
	for (i = 0; i < after->n; i++) {
		o = &after->v[i];
		if (only != NULL ? strcmp(dpkgstatus_state(o), only) != 0 :
		    !shimtrig_configured(o, awaited))
			continue;
		/* Unpacked but configured before: that version counts too. */
		if (configured_once && (o->cversion == NULL || (op != NULL &&
		    !version_satisfies(o->cversion, op, ref))))
			continue;
		if (strcmp(o->name, name) == 0 && (op == NULL ||
		    (o->version != NULL && version_satisfies(o->version, op,
		    ref))))
			return o;
		if (only == NULL && shimtrig_provides(o, name, op, ref))
			return o;
	}
	return NULL;
}

/* Whether AFTER satisfies O's Depends and Pre-Depends. */
static int
shimtrig_deps_ok(const struct dpkgstatus *after,
    const struct dpkgstatus_stanza *o, bool *ok)
{
	static const char *const fields[] = { "Depends", "Pre-Depends" };
	char *v, *grp, *alt, *save, *save2;
	const char *val;
	size_t k, len;
	bool any;

	*ok = true;
	for (k = 0; *ok && k < sizeof(fields) / sizeof(fields[0]); k++) {
		if ((val = shimtrig_field(o, fields[k], &len)) == NULL)
			continue;
		if ((v = strndup(val, len)) == NULL)
			return -ENOMEM;
		for (grp = strtok_r(v, ",", &save); *ok && grp != NULL;
		    grp = strtok_r(NULL, ",", &save)) {
			any = false;
			for (alt = strtok_r(grp, "|", &save2); !any &&
			    alt != NULL; alt = strtok_r(NULL, "|", &save2))
				any = shimtrig_alt(after, alt, true, NULL,
				    false) != NULL;
			*ok = any;
		}
		free(v);
	}
	return 0;
}

/* Stanza O's Triggers-Pending value (LEN bytes), or NULL. */
static const char *
shimtrig_trigpend(const struct dpkgstatus_stanza *o, size_t *len)
{
	return shimtrig_field(o, "Triggers-Pending", len);
}

void
shimtrig_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int
shimtrig_pending(const struct dpkgstatus *before,
    const struct dpkgstatus *after, char ***names, size_t *n)
{
	const struct dpkgstatus_stanza *o, *b;
	const char *tp, *btp;
	size_t i, len, blen;
	char buf[512], **v;
	bool ok;
	int r;

	*names = NULL;
	*n = 0;
	for (i = 0; i < after->n; i++) {
		o = &after->v[i];
		if (strncmp(dpkgstatus_state(o), "triggers-", 9) != 0 ||
		    (tp = shimtrig_trigpend(o, &len)) == NULL)
			continue;
		b = dpkgstatus_peek((struct dpkgstatus *)before, o->name,
		    o->arch, o->ma);
		if (b != NULL && strcmp(dpkgstatus_state(b),
		    dpkgstatus_state(o)) == 0 &&
		    (btp = shimtrig_trigpend(b, &blen)) != NULL &&
		    blen == len && memcmp(btp, tp, len) == 0)
			continue;
		if ((r = shimtrig_deps_ok(after, o, &ok)) != 0)
			goto fail;
		if (!ok)
			continue;
		r = -ENOMEM;
		if ((v = realloc(*names, (*n + 1) * sizeof(*v))) == NULL)
			goto fail;
		*names = v;
		if ((v[*n] = strdup(dpkgstatus_name(o->name, o->arch, o->ma,
		    buf, sizeof(buf)))) == NULL)
			goto fail;
		(*n)++;
	}
	return 0;
fail:
	shimtrig_free(*names, *n);
	*names = NULL;
	*n = 0;
	return r;
}

/* Add NAME (LEN bytes) to *NAMES unless there. */
static int
shimtrig_add(char ***names, size_t *n, const char *name, size_t len)
{
	char **v;
	size_t i;

	for (i = 0; i < *n; i++)
		if (strlen((*names)[i]) == len &&
		    strncmp((*names)[i], name, len) == 0)
			return 0;
	if ((v = realloc(*names, (*n + 1) * sizeof(*v))) == NULL)
		return -ENOMEM;
	*names = v;
	if ((v[*n] = strndup(name, len)) == NULL)
		return -ENOMEM;
	(*n)++;
	return 0;
}

int
shimtrig_required(const struct dpkgstatus *before, const char *predepends,
    char ***names, size_t *n)
{
	static const char *const unconfigd[] = { NULL, "triggers-awaited",
	    "unpacked", "half-configured" };
	const struct dpkgstatus_stanza *aw, *cand;
	char *v, *w, *a, *grp, *alt, *save, *save2;
	const char *val, *p;
	size_t k, len, wl;
	bool ok;
	int r = 0;

	if (predepends == NULL || (v = strdup(predepends)) == NULL)
		return predepends == NULL ? 0 : -ENOMEM;
	for (grp = strtok_r(v, ",", &save); r == 0 && grp != NULL;
	    grp = strtok_r(NULL, ",", &save)) {
		if ((w = strdup(grp)) == NULL) {
			r = -ENOMEM;
			break;
		}
		/*
		 * dpkg's Pre-Depends at unpack: configured, or unpacked
		 * (triggers-awaited among them) at a version configured once.
		 */
		ok = false;
		for (alt = strtok_r(w, "|", &save2); !ok && alt != NULL;
		    alt = strtok_r(NULL, "|", &save2))
			for (k = 0; !ok && k < sizeof(unconfigd) /
			    sizeof(unconfigd[0]); k++) {
				if ((a = strdup(alt)) == NULL) {
					free(w);
					free(v);
					return -ENOMEM;
				}
				ok = shimtrig_alt(before, a, false, unconfigd[k],
				    unconfigd[k] != NULL) != NULL;
				free(a);
			}
		free(w);
		if (ok)
			continue;
		/* The last triggers-awaited package that would do, as dpkg's. */
		aw = NULL;
		for (alt = strtok_r(grp, "|", &save2); alt != NULL;
		    alt = strtok_r(NULL, "|", &save2))
			if ((cand = shimtrig_alt(before, alt, false,
			    "triggers-awaited", false)) != NULL)
				aw = cand;
		if (aw == NULL ||
		    (val = shimtrig_field(aw, "Triggers-Awaited", &len)) == NULL)
			continue;
		for (p = val; r == 0 && p < val + len; p += wl) {
			p += strspn(p, " \t");
			wl = strcspn(p, " \t\n");
			if (p + wl > val + len)
				wl = (size_t)(val + len - p);
			if (wl > 0)
				r = shimtrig_add(names, n, p, wl);
		}
	}
	free(v);
	return r;
}
