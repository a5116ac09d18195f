/* SPDX-License-Identifier: MIT */
/* Owner names of archive entries mapped to ids through the root's own passwd and group. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "durable/users.h"

struct users_id {
	char *name;
	unsigned long id;
};

struct users_tab {
	struct users_id *v;
	size_t n;
};

struct users {
	struct users_tab pw, gr;
};

static int
users_add(struct users_tab *t, const char *name, unsigned long id)
{
	struct users_id *v;

	v = realloc(t->v, (t->n + 1) * sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	t->v = v;
	if ((v[t->n].name = strdup(name)) == NULL)
		return -ENOMEM;
	v[t->n++].id = id;
	return 0;
}

static FILE *
users_fopen(const struct rootfs *rf, const char *rel)
{
	FILE *fp;
	int fd;

	fd = rootfs_resolve(rf, rel, O_RDONLY);
	if (fd < 0)
		return NULL;
	if ((fp = fdopen(fd, "r")) == NULL)
		close(fd);
	return fp;
}

int
users_load(struct users **out, const struct rootfs *rf)
{
	struct users *u;
	struct passwd *pw;
	struct group *gr;
	FILE *fp;
	int r = 0;

	if ((u = calloc(1, sizeof(*u))) == NULL)
		return -ENOMEM;
	/* fgetpwent parses exactly one file, never NSS: the root's, not ours. */
	if ((fp = users_fopen(rf, "etc/passwd")) != NULL) {
		while (r == 0 && (pw = fgetpwent(fp)) != NULL)
			r = users_add(&u->pw, pw->pw_name, pw->pw_uid);
		fclose(fp);
	}
	if ((fp = users_fopen(rf, "etc/group")) != NULL) {
		while (r == 0 && (gr = fgetgrent(fp)) != NULL)
			r = users_add(&u->gr, gr->gr_name, gr->gr_gid);
		fclose(fp);
	}
	if (r != 0) {
		users_free(u);
		return r;
	}
	*out = u;
	return 0;
}

static void
users_tab_free(struct users_tab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
}

void
users_free(struct users *u)
{
	if (u == NULL)
		return;
	users_tab_free(&u->pw);
	users_tab_free(&u->gr);
	free(u);
}

static int
users_find(const struct users_tab *t, const char *name, unsigned long *id)
{
	size_t i;

	if (name == NULL || name[0] == '\0')
		return 0;
	for (i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, name) == 0) {
			*id = t->v[i].id;
			return 1;
		}
	return 0;
}

uid_t
users_uid(const struct users *u, const char *name, uid_t fallback)
{
	unsigned long id;

	return u != NULL && users_find(&u->pw, name, &id) ? (uid_t)id :
	    fallback;
}

gid_t
users_gid(const struct users *u, const char *name, gid_t fallback)
{
	unsigned long id;

	return u != NULL && users_find(&u->gr, name, &id) ? (gid_t)id :
	    fallback;
}

/*
 * Whether id ID has a mapping in MAP (/proc/self/uid_map or gid_map:
 * "INSIDE OUTSIDE COUNT" lines); true when the map cannot be read.
 */
static bool
users_mapped(const char *map, unsigned long id)
{
	unsigned long in, out, count;
	bool found = false;
	FILE *fp;

	if ((fp = fopen(map, "re")) == NULL)
		return true;
	while (!found && fscanf(fp, "%lu %lu %lu", &in, &out, &count) == 3)
		found = id >= in && id - in < count;
	fclose(fp);
	return found;
}

bool
users_initial_ns(void)
{
	unsigned long in, out, count;
	bool initial = true;	/* no map to read: no namespaces */
	FILE *fp;

	if ((fp = fopen("/proc/self/uid_map", "re")) == NULL)
		return true;
	/* The initial namespace maps all of 0..2^32-2 onto itself, once. */
	if (fscanf(fp, "%lu %lu %lu", &in, &out, &count) == 3)
		initial = in == 0 && out == 0 && count == 4294967295UL;
	fclose(fp);
	return initial;
}

int
users_chown_err(struct dbp_error *err, int e, const char *path, uid_t uid,
    gid_t gid)
{
	if (e == EINVAL && !users_mapped("/proc/self/uid_map", uid))
		return dbp_err(err, 0, path, "uid %lu is not mapped in this"
		    " user namespace", (unsigned long)uid);
	if (e == EINVAL && !users_mapped("/proc/self/gid_map", gid))
		return dbp_err(err, 0, path, "gid %lu is not mapped in this"
		    " user namespace", (unsigned long)gid);
	return dbp_err(err, e, path, "cannot change owner");
}
