/* SPDX-License-Identifier: MIT */
/* The conffiles list of a package (control.tar's "conffiles"). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deb/conffiles.h"
#include "durable/names.h"

struct conffiles {
	char **v;		/* root-relative, sorted for bsearch */
	size_t n;
	char **rm;		/* "remove-on-upgrade" ones, in file order */
	size_t nrm;
};

static int
conffiles_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
conffiles_free(struct conffiles *c)
{
	if (c == NULL)
		return;
	while (c->n > 0)
		free(c->v[--c->n]);
	free(c->v);
	while (c->nrm > 0)
		free(c->rm[--c->nrm]);
	free(c->rm);
	free(c);
}

/* Add the path LINE (LEN bytes, "/...") to list *V of *N. */
static int
conffiles_put(char ***v, size_t *n, const char *line, size_t len,
    struct dbp_error *err)
{
	char abs[PATH_MAX], **nv, *path;
	int r;

	if (len == 0 || line[0] != '/')
		return dbp_err(err, 0, "conffiles", "not an absolute path");
	if (len >= sizeof(abs))
		return dbp_err(err, 0, "conffiles", "path too long");
	memcpy(abs, line, len);
	abs[len] = '\0';
	if ((nv = realloc(*v, (*n + 1) * sizeof(*nv))) == NULL)
		return dbp_err(err, ENOMEM, "conffiles", "cannot read");
	*v = nv;
	/* The normal form is never longer. */
	if ((path = malloc(len + 1)) == NULL)
		return dbp_err(err, ENOMEM, "conffiles", "cannot read");
	if ((r = names_path(abs, path, len + 1, err)) != 0) {
		free(path);
		return r;
	}
	nv[(*n)++] = path;
	return 0;
}

/*
 * One line: a path, or a flag, blanks and a path (deb-conffiles(5)).  The
 * one flag there is, remove-on-upgrade, marks a conffile the package no
 * longer ships, to be removed by the upgrade.
 */
static int
conffiles_add(struct conffiles *c, const char *line, size_t len,
    struct dbp_error *err)
{
	char flag[64];
	size_t flen;

	if (len >= PATH_MAX)
		return dbp_err(err, 0, "conffiles", "path too long");
	if (line[0] == '/')
		return conffiles_put(&c->v, &c->n, line, len, err);
	flen = 0;
	while (flen < len && line[flen] != ' ' && line[flen] != '\t')
		flen++;
	if (flen == len)
		return dbp_err(err, 0, "conffiles", "not an absolute path");
	if (flen != strlen("remove-on-upgrade") ||
	    memcmp(line, "remove-on-upgrade", flen) != 0) {
		snprintf(flag, sizeof(flag), "%.*s",
		    (int)(flen < 40 ? flen : 40), line);
		return dbp_err(err, 0, "conffiles", "unknown flag '%s'", flag);
	}
	while (flen < len && (line[flen] == ' ' || line[flen] == '\t'))
		flen++;
	return conffiles_put(&c->rm, &c->nrm, line + flen, len - flen, err);
}

int
conffiles_parse(const char *text, struct conffiles **out,
    struct dbp_error *err)
{
	struct conffiles *c;
	const char *p, *nl;
	size_t len;
	int r = 0;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return dbp_err(err, ENOMEM, "conffiles", "cannot read");
	for (p = text; r == 0 && p != NULL && *p != '\0';
	    p = nl != NULL ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\r'))
			len--;
		if (len > 0)
			r = conffiles_add(c, p, len, err);
	}
	if (r != 0) {
		conffiles_free(c);
		return r;
	}
	if (c->n > 0)
		qsort(c->v, c->n, sizeof(*c->v), conffiles_cmp);
	*out = c;
	return 0;
}

bool
conffiles_has(const struct conffiles *c, const char *path)
{
	return c != NULL && c->n > 0 && bsearch(&path, c->v, c->n,
	    sizeof(*c->v), conffiles_cmp) != NULL;
}

size_t
conffiles_nremove(const struct conffiles *c)
{
	return c != NULL ? c->nrm : 0;
}

const char *
conffiles_remove_at(const struct conffiles *c, size_t i)
{
	return c->rm[i];
}

bool
conffiles_removes(const struct conffiles *c, const char *path)
{
	size_t i;

	for (i = 0; c != NULL && i < c->nrm; i++)
		if (strcmp(c->rm[i], path) == 0)
			return true;
	return false;
}
