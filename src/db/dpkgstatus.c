/* SPDX-License-Identifier: MIT */
/* dpkg's status file: its stanzas, and the file merged with the run's. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db/dpkgstatus.h"

/* The first line of field NAME in stanza TEXT (LEN bytes), or NULL. */
static char *
dpkgstatus_field(const char *text, size_t len, const char *name)
{
	const char *p = text, *end = text + len, *nl, *v;
	size_t nlen = strlen(name);

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if ((size_t)(nl - p) > nlen && p[nlen] == ':' &&
		    strncasecmp(p, name, nlen) == 0) {
			v = p + nlen + 1;
			while (v < nl && (*v == ' ' || *v == '\t'))
				v++;
			len = (size_t)(nl - v);
			while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t'))
				len--;
			return strndup(v, len);
		}
	}
	return NULL;
}

static void
dpkgstatus_stanza_clear(struct dpkgstatus_stanza *o)
{
	free(o->text);
	free(o->name);
	free(o->arch);
	free(o->ma);
	free(o->status);
	free(o->version);
	free(o->cversion);
}

int
dpkgstatus_parse(struct dpkgstatus *db, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *start, *nl;
	struct dpkgstatus_stanza *v, *o;

	while (p < end) {
		/* Empty lines between stanzas. */
		while (p < end && (*p == '\n' || *p == '\r'))
			p++;
		if (p >= end)
			break;
		start = p;
		for (;;) {
			if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL) {
				p = end;
				break;
			}
			p = nl + 1;
			if (p >= end || *p == '\n')
				break;
		}
		if ((v = realloc(db->v, (db->n + 1) * sizeof(*v))) == NULL)
			return -ENOMEM;
		db->v = v;
		o = memset(&v[db->n++], 0, sizeof(*o));
		o->len = (size_t)(p - start);
		if ((o->text = malloc(o->len + 2)) == NULL)
			return -ENOMEM;
		memcpy(o->text, start, o->len);
		/* A last stanza without its newline gets one. */
		if (o->len > 0 && o->text[o->len - 1] != '\n')
			o->text[o->len++] = '\n';
		o->text[o->len] = '\0';
		o->name = dpkgstatus_field(o->text, o->len, "Package");
		o->arch = dpkgstatus_field(o->text, o->len, "Architecture");
		o->ma = dpkgstatus_field(o->text, o->len, "Multi-Arch");
		o->status = dpkgstatus_field(o->text, o->len, "Status");
		o->version = dpkgstatus_field(o->text, o->len, "Version");
		o->cversion = dpkgstatus_field(o->text, o->len, "Config-Version");
		if (o->name == NULL)
			return -EINVAL;
	}
	return 0;
}

void
dpkgstatus_clear(struct dpkgstatus *db)
{
	size_t i;

	for (i = 0; i < db->n; i++)
		dpkgstatus_stanza_clear(&db->v[i]);
	free(db->v);
	db->v = NULL;
	db->n = 0;
}

bool
dpkgstatus_ma_same(const char *ma)
{
	return ma != NULL && strcasecmp(ma, "same") == 0;
}

struct dpkgstatus_stanza *
dpkgstatus_peek(struct dpkgstatus *db, const char *name, const char *arch,
    const char *ma)
{
	struct dpkgstatus_stanza *found = NULL;
	size_t i;

	/* Same name, and the same arch when both are Multi-Arch: same. */
	for (i = 0; i < db->n; i++) {
		struct dpkgstatus_stanza *o = &db->v[i];

		if (strcmp(o->name, name) != 0 || o->replaced)
			continue;
		if (dpkgstatus_ma_same(ma) && dpkgstatus_ma_same(o->ma) &&
		    (o->arch == NULL || arch == NULL || strcmp(o->arch, arch) != 0))
			continue;
		/* One of the same arch first: a crossgrade's other goes too. */
		if (found == NULL || (o->arch != NULL && arch != NULL &&
		    strcmp(o->arch, arch) == 0))
			found = o;
	}
	return found;
}

struct dpkgstatus_stanza *
dpkgstatus_take(struct dpkgstatus *db, const char *name, const char *arch,
    const char *ma)
{
	struct dpkgstatus_stanza *found = dpkgstatus_peek(db, name, arch, ma);
	size_t i;

	/* The others of that name cannot stay beside it: they go. */
	for (i = 0; found != NULL && i < db->n; i++) {
		struct dpkgstatus_stanza *o = &db->v[i];

		if (strcmp(o->name, name) == 0 && !(dpkgstatus_ma_same(ma) &&
		    dpkgstatus_ma_same(o->ma) && o->arch != NULL &&
		    arch != NULL && strcmp(o->arch, arch) != 0))
			o->replaced = true;
	}
	return found;
}

const char *
dpkgstatus_state(const struct dpkgstatus_stanza *o)
{
	const char *s = o->status != NULL ? strrchr(o->status, ' ') : NULL;

	return s != NULL ? s + 1 : "not-installed";
}

static int
dpkgstatus_cmp(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;
	const char *xn = x[0], *yn = y[0];
	int r = strcmp(xn, yn);

	return r != 0 ? r : strcmp(x[1] != NULL ? x[1] : "",
	    y[1] != NULL ? y[1] : "");
}

int
dpkgstatus_merge(const struct dpkgstatus *db, const struct dpkgstatus_add *add,
    size_t nadd, char **out, size_t *len)
{
	const char *(*v)[3];
	size_t i, n = 0, l;
	FILE *fp;

	if ((v = calloc(db->n + nadd + 1, sizeof(*v))) == NULL)
		return -ENOMEM;
	for (i = 0; i < db->n; i++)
		if (!db->v[i].replaced) {
			v[n][0] = db->v[i].name;
			v[n][1] = db->v[i].arch;
			v[n++][2] = db->v[i].text;
		}
	for (i = 0; i < nadd; i++) {
		v[n][0] = add[i].name;
		v[n][1] = add[i].arch;
		v[n++][2] = add[i].text;
	}
	qsort(v, n, sizeof(*v), dpkgstatus_cmp);
	if ((fp = open_memstream(out, len)) == NULL) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		fputs(v[i][2], fp);
		/* Each stanza ends with an empty line, old ones as new. */
		l = strlen(v[i][2]);
		if (l > 0 && v[i][2][l - 1] == '\n' &&
		    (l < 2 || v[i][2][l - 2] != '\n'))
			fputc('\n', fp);
	}
	free(v);
	return fclose(fp) != 0 ? -ENOMEM : 0;
}

bool
dpkgstatus_installed(const struct dpkgstatus_stanza *o)
{
	const char *state = dpkgstatus_state(o);

	return strcmp(state, "not-installed") != 0 &&
	    strcmp(state, "config-files") != 0;
}

char *
dpkgstatus_infoname(const char *name, const char *arch, const char *ma)
{
	char *s;

	if (!dpkgstatus_ma_same(ma))
		return strdup(name);
	if (asprintf(&s, "%s:%s", name, arch != NULL ? arch : "") < 0)
		return NULL;
	return s;
}

const char *
dpkgstatus_name(const char *name, const char *arch, const char *ma,
    char *buf, size_t n)
{
	snprintf(buf, n, dpkgstatus_ma_same(ma) ? "%s:%s" : "%s", name,
	    arch != NULL ? arch : "");
	return buf;
}
