/* The conffiles list of a package (control.tar's "conffiles"). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "conffiles.h"
#include "names.h"

struct conffiles {
	char **v;		/* root-relative, sorted for bsearch */
	size_t n;
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
	free(c);
}

static int
conffiles_add(struct conffiles *c, const char *line, size_t len,
    struct dbp_error *err)
{
	char abs[PATH_MAX], **v;
	int r;

	if (len >= sizeof(abs))
		return dbp_err(err, 0, "conffiles", "path too long");
	memcpy(abs, line, len);
	abs[len] = '\0';
	/* Newer dpkg may prefix flags ("remove-on-upgrade /x"): not yet. */
	if (abs[0] != '/')
		return dbp_err(err, 0, "conffiles", "not an absolute path");
	if ((v = realloc(c->v, (c->n + 1) * sizeof(*v))) == NULL)
		return dbp_err(err, ENOMEM, "conffiles", "cannot read");
	c->v = v;
	if ((v[c->n] = malloc(len + 1)) == NULL)
		return dbp_err(err, ENOMEM, "conffiles", "cannot read");
	if ((r = names_path(abs, v[c->n], len + 1, err)) != 0) {
		free(v[c->n]);
		return r;
	}
	c->n++;
	return 0;
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
