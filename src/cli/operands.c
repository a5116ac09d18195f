/* SPDX-License-Identifier: MIT */
/* The package files an install names: directories expanded for -R, "-" once. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/operands.h"

struct operands {
	char **v;
	size_t n, cap;
};

static int
operands_push(struct operands *o, const char *path)
{
	char **v;

	if (o->n + 1 >= o->cap) {
		o->cap = o->cap != 0 ? o->cap * 2 : 16;
		if ((v = realloc(o->v, o->cap * sizeof(*v))) == NULL)
			return -ENOMEM;
		o->v = v;
	}
	if ((o->v[o->n] = strdup(path)) == NULL)
		return -ENOMEM;
	o->v[++o->n] = NULL;
	return 0;
}

static int
operands_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
operands_is_deb(const char *name)
{
	size_t len = strlen(name);

	return len > 4 && strcmp(name + len - 4, ".deb") == 0;
}

/*
 * The *.deb files below directory DIR into O, depth first; symbolic links
 * are not followed (no loop, nothing outside).
 */
static int
operands_walk(struct operands *o, const char *dir, struct dbp_error *err)
{
	struct dirent **ents;
	char path[4096];
	struct stat st;
	int i, n, r = 0;

	if ((n = scandir(dir, &ents, NULL, alphasort)) < 0)
		return dbp_err(err, errno, dir, "cannot read directory");
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		if (r == 0 && strcmp(name, ".") != 0 && strcmp(name, "..") != 0) {
			if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
			    (int)sizeof(path))
				r = dbp_err(err, ENAMETOOLONG, dir,
				    "cannot read directory");
			else if (lstat(path, &st) != 0)
				r = dbp_err(err, errno, path, "cannot read");
			else if (S_ISDIR(st.st_mode))
				r = operands_walk(o, path, err);
			else if (S_ISREG(st.st_mode) && operands_is_deb(name) &&
			    operands_push(o, path) != 0)
				r = dbp_err(err, ENOMEM, "", "cannot list packages");
		}
		free(ents[i]);
	}
	free(ents);
	return r;
}

void
operands_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int
operands_expand(char *const *in, size_t n, bool recursive, char ***out,
    size_t *nout, struct dbp_error *err)
{
	struct operands o = { NULL, 0, 0 };
	struct stat st;
	bool stdin_seen = false;
	size_t i, first;
	int r = 0;

	for (i = 0; i < n && r == 0; i++) {
		if (strcmp(in[i], "-") == 0) {
			if (stdin_seen)
				r = dbp_err(err, 0, "-", "standard input ('-')"
				    " can be read once");
			stdin_seen = true;
		}
		if (r != 0)
			break;
		if (!recursive || stat(in[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
			/* Its own step says what is wrong with it. */
			if (operands_push(&o, in[i]) != 0)
				r = dbp_err(err, ENOMEM, "", "cannot list packages");
			continue;
		}
		first = o.n;
		if ((r = operands_walk(&o, in[i], err)) != 0)
			break;
		if (o.n == first) {
			r = dbp_err(err, 0, in[i], "no package file (*.deb)"
			    " under it");
			break;
		}
		/* Sorted by whole path, as the walk is by name. */
		qsort(o.v + first, o.n - first, sizeof(*o.v), operands_cmp);
	}
	if (r == 0 && o.v == NULL && operands_push(&o, "") == 0) {
		/* No operand at all: an empty list, NULL-terminated. */
		free(o.v[0]);
		o.v[0] = NULL;
		o.n = 0;
	}
	if (r != 0) {
		operands_free(o.v, o.n);
		return r;
	}
	*out = o.v;
	*nout = o.n;
	return 0;
}
