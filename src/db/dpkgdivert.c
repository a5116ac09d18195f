/* SPDX-License-Identifier: MIT */
/* dpkg-divert's diversions in dpkg's database: which path goes where, and for whom. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db/dpkgdivert.h"
#include "durable/fileat.h"

struct dpkgdivert {
	char *text;			/* the file, its lines cut in place */
	struct dpkgdivert_entry *v;	/* sorted by FROM */
	size_t n;
};

static int
dpkgdivert_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dpkgdivert_entry *)a)->from,
	    ((const struct dpkgdivert_entry *)b)->from);
}

/*
 * The file holds three lines per diversion, as dpkg-divert writes it:
 * the diverted path, its new name and the package that may still
 * install it there (":" for the administrator's).  A last incomplete
 * triplet is not one.
 */
int
dpkgdivert_read(struct dpkgdivert **out, int dfd)
{
	struct dpkgdivert *d;
	const char *line[3];
	size_t len, i, n = 0, k = 0;
	char *p, *nl;
	int r;

	*out = NULL;
	if ((d = calloc(1, sizeof(*d))) == NULL)
		return -ENOMEM;
	if ((r = fileat_read(dfd, "diversions", &d->text, &len)) != 0) {
		free(d);
		if (r != -ENOENT)
			return r;
		return (*out = calloc(1, sizeof(**out))) != NULL ? 0 : -ENOMEM;
	}
	for (i = 0; i < len; i++)
		n += d->text[i] == '\n';
	if (n >= 3 && (d->v = calloc(n / 3, sizeof(*d->v))) == NULL) {
		dpkgdivert_free(d);
		return -ENOMEM;
	}
	for (p = d->text; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		*nl = '\0';
		line[k++] = p;
		if (k < 3)
			continue;
		d->v[d->n].from = line[0];
		d->v[d->n].to = line[1];
		d->v[d->n++].pkg = strcmp(line[2], ":") == 0 ? NULL : line[2];
		k = 0;
	}
	if (d->n > 1)
		qsort(d->v, d->n, sizeof(*d->v), dpkgdivert_cmp);
	*out = d;
	return 0;
}

void
dpkgdivert_free(struct dpkgdivert *d)
{
	if (d == NULL)
		return;
	free(d->text);
	free(d->v);
	free(d);
}

size_t
dpkgdivert_count(const struct dpkgdivert *d)
{
	return d != NULL ? d->n : 0;
}

const struct dpkgdivert_entry *
dpkgdivert_nth(const struct dpkgdivert *d, size_t i)
{
	return &d->v[i];
}

const struct dpkgdivert_entry *
dpkgdivert_from(const struct dpkgdivert *d, const char *from)
{
	struct dpkgdivert_entry key = { .from = from };

	if (d == NULL || d->n == 0)
		return NULL;
	return bsearch(&key, d->v, d->n, sizeof(key), dpkgdivert_cmp);
}

const struct dpkgdivert_entry *
dpkgdivert_to(const struct dpkgdivert *d, const char *to)
{
	size_t i;

	/* A handful of diversions in a system: no index for this side. */
	for (i = 0; d != NULL && i < d->n; i++)
		if (strcmp(d->v[i].to, to) == 0)
			return &d->v[i];
	return NULL;
}

const char *
dpkgdivert_use(const struct dpkgdivert *d, const char *path, const char *pkg)
{
	const struct dpkgdivert_entry *e = dpkgdivert_from(d, path);

	/* The diverting package itself installs the original name. */
	if (e == NULL || (e->pkg != NULL && pkg != NULL &&
	    strcmp(e->pkg, pkg) == 0))
		return path;
	return e->to;
}

int
dpkgdivert_follow(const struct dpkgdivert *d, struct record *rec)
{
	const char *pkg = control_get(rec->ctl, "Package");
	const char *name, *where;
	size_t i;
	int r;

	if (dpkgdivert_count(d) == 0 && !record_has_diverted(rec))
		return 0;
	for (i = 0; i < rec->n; i++) {
		if (rec->v[i].type == 'd')
			continue;
		name = record_entry_name(&rec->v[i]);
		where = dpkgdivert_use(d, name, pkg);
		if (strcmp(where, rec->v[i].path) == 0)
			continue;
		if ((r = record_relocate(rec, i, where, where != name ? name :
		    NULL)) != 0)
			return r;
	}
	return 0;
}
