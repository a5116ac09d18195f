/* Records of the paths a run installs: which package, which entry, which type. */
#include "config.h"

#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"

struct manifest {
	void *root;		/* tsearch tree of struct manifest_entry */
	size_t n;
};

static int
manifest_cmp(const void *a, const void *b)
{
	const struct manifest_entry *x = a, *y = b;

	if (x->dir != y->dir)
		return x->dir < y->dir ? -1 : 1;
	return strcmp(x->name, y->name);
}

int
manifest_new(struct manifest **out)
{
	if ((*out = calloc(1, sizeof(**out))) == NULL)
		return -ENOMEM;
	return 0;
}

static void
manifest_entry_free(void *p)
{
	struct manifest_entry *e = p;

	free(e->name);
	free(e);
}

void
manifest_free(struct manifest *m)
{
	if (m == NULL)
		return;
	tdestroy(m->root, manifest_entry_free);
	free(m);
}

struct manifest_entry *
manifest_find(struct manifest *m, size_t dir, const char *name)
{
	struct manifest_entry key, **found;

	key.dir = dir;
	key.name = (char *)name;
	found = tfind(&key, &m->root, manifest_cmp);
	return found != NULL ? *found : NULL;
}

int
manifest_put(struct manifest *m, size_t dir, const char *name, size_t item,
    unsigned pkg, unsigned type)
{
	struct manifest_entry *e, **slot;

	if ((e = manifest_find(m, dir, name)) == NULL) {
		if ((e = calloc(1, sizeof(*e))) == NULL ||
		    (e->name = strdup(name)) == NULL) {
			free(e);
			return -ENOMEM;
		}
		e->dir = dir;
		slot = tsearch(e, &m->root, manifest_cmp);
		if (slot == NULL) {
			manifest_entry_free(e);
			return -ENOMEM;
		}
		m->n++;
	}
	e->item = item;
	e->pkg = pkg;
	e->type = type;
	return 0;
}

size_t
manifest_count(const struct manifest *m)
{
	return m->n;
}
