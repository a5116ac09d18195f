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

static bool
shimtrig_configured(const struct dpkgstatus_stanza *o)
{
	const char *st = dpkgstatus_state(o);

	return strcmp(st, "installed") == 0 ||
	    strcmp(st, "triggers-pending") == 0 ||
	    strcmp(st, "triggers-awaited") == 0;
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

/* Whether AFTER satisfies alternative ALT ("name[:arch] [(op ver)]"). */
static bool
shimtrig_alt_ok(const struct dpkgstatus *after, char *alt)
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
		if (!shimtrig_configured(o))
			continue;
		if (strcmp(o->name, name) == 0 && (op == NULL ||
		    (o->version != NULL && version_satisfies(o->version, op,
		    ref))))
			return true;
		if (shimtrig_provides(o, name, op, ref))
			return true;
	}
	return false;
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
				any = shimtrig_alt_ok(after, alt);
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
