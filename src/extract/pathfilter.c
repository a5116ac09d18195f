/* SPDX-License-Identifier: MIT */
/* dpkg's --path-exclude and --path-include: which of a package's paths are left out. */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "extract/pathfilter.h"

struct pathfilter_rule {
	char *glob;
	bool include;
};

struct pathfilter {
	struct pathfilter_rule *v;	/* in the order given */
	size_t n;
};

int
pathfilter_add(struct pathfilter **f, const char *glob, bool include)
{
	struct pathfilter *t = *f;
	struct pathfilter_rule *v;
	char *g;

	if ((g = strdup(glob)) == NULL)
		return -ENOMEM;
	if (t == NULL && (t = calloc(1, sizeof(*t))) == NULL) {
		free(g);
		return -ENOMEM;
	}
	if ((v = realloc(t->v, (t->n + 1) * sizeof(*v))) == NULL) {
		free(g);
		if (*f == NULL)
			free(t);
		return -ENOMEM;
	}
	t->v = v;
	v[t->n].glob = g;
	v[t->n++].include = include;
	*f = t;
	return 0;
}

void
pathfilter_free(struct pathfilter *f)
{
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; i < f->n; i++)
		free(f->v[i].glob);
	free(f->v);
	free(f);
}

size_t
pathfilter_count(const struct pathfilter *f)
{
	return f != NULL ? f->n : 0;
}

/*
 * Whether include rule R's fixed start (before its first wildcard, its
 * trailing slashes dropped) starts ABSPATH.  dpkg's own approximation:
 * it may keep a directory nothing is brought back into, never lose one
 * that something is.
 */
static bool
pathfilter_reincludes(const struct pathfilter_rule *r, const char *abspath)
{
	size_t len = strcspn(r->glob, "*?[\\");

	while (len > 0 && r->glob[len - 1] == '/')
		len--;
	return strncmp(abspath, r->glob, len) == 0;
}

bool
pathfilter_skip(const struct pathfilter *f, const char *abspath,
    bool dirlike)
{
	bool skip = false;
	size_t i;

	for (i = 0; f != NULL && i < f->n; i++)
		if (fnmatch(f->v[i].glob, abspath, 0) == 0)
			skip = !f->v[i].include;
	if (!skip || !dirlike)
		return skip;
	for (i = 0; i < f->n; i++)
		if (f->v[i].include && pathfilter_reincludes(&f->v[i], abspath))
			return false;
	return true;
}
