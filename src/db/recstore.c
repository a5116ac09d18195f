/* SPDX-License-Identifier: MIT */
/* The admin directory's records, read and never written: what a query opens, and what a run reads before it stages. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/dpkgdivert.h"
#include "db/recstore.h"

struct recstore {
	int fd;			/* the admin directory */
	const char *name;	/* what errors call it */
	recstore_stale_fn *stale;
	void *stale_ctx;
	const struct dpkgdivert *divert;	/* recstore_set_divert's */
};

int
recstore_open(struct recstore **out, int dirfd, const char *name,
    struct dbp_error *err)
{
	struct recstore *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return dbp_err(err, ENOMEM, name, "cannot open admin directory");
	s->name = name;
	if ((s->fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0)) < 0) {
		free(s);
		return dbp_err(err, errno, name, "cannot open admin directory");
	}
	*out = s;
	return 0;
}

void
recstore_free(struct recstore *s)
{
	if (s == NULL)
		return;
	/* Read-only: nothing of it to lose at close. */
	close(s->fd);
	free(s);
}

void
recstore_set_stale(struct recstore *s, recstore_stale_fn *fn, void *ctx)
{
	s->stale = fn;
	s->stale_ctx = ctx;
}

void
recstore_set_divert(struct recstore *s, const struct dpkgdivert *d)
{
	s->divert = d;
}

int
recstore_fd(const struct recstore *s)
{
	return s->fd;
}

bool
recstore_valid_name(const char *name)
{
	const char *p;

	if (strlen(name) < 1 || strlen(name) > 200 ||
	    !((name[0] >= 'a' && name[0] <= 'z') ||
	    (name[0] >= '0' && name[0] <= '9')))
		return false;
	for (p = name; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '+' || *p == '-' || *p == '.'))
			return false;
	return true;
}

int
recstore_load(struct recstore *s, const char *name, struct record **out,
    const char **stale, struct dbp_error *err)
{
	const char *what;
	char file[256];
	FILE *fp;
	int fd, r;

	if (stale != NULL)
		*stale = NULL;
	if (!recstore_valid_name(name))
		return -ENOENT;
	snprintf(file, sizeof(file), "%s" RECSTORE_SUFFIX, name);
	/* A record is a file of ours: a symlink there is not one. */
	if ((fd = openat(s->fd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return errno == ENOENT ? -ENOENT :
		    dbp_err(err, errno, file, "cannot read record");
	if ((fp = fdopen(fd, "r")) == NULL) {
		close(fd);
		return dbp_err(err, errno, file, "cannot read record");
	}
	r = record_read(fp, file, out, err);
	fclose(fp);
	if (r == 0 && s->stale != NULL && s->stale(s->stale_ctx, *out, &what)) {
		record_free(*out);
		*out = NULL;
		if (stale != NULL)
			*stale = what;
		return -ENOENT;
	}
	if (r == 0 && s->divert != NULL &&
	    (r = dpkgdivert_follow(s->divert, *out)) != 0) {
		record_free(*out);
		*out = NULL;
		r = dbp_err(err, -r, file, "cannot follow the diversions of"
		    " var/lib/dpkg/diversions");
	}
	return r;
}

static int
recstore_cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
recstore_names(struct recstore *s, char ***names, struct dbp_error *err)
{
	size_t n = 0, sl = strlen(RECSTORE_SUFFIX), len;
	char **v = NULL, **nv;
	struct dirent *de;
	DIR *dir;
	int fd;

	/* Its own descriptor: closedir closes it, and reads from the start. */
	if ((fd = openat(s->fd, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0 || (dir = fdopendir(fd)) == NULL) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return dbp_err(err, e, s->name, "cannot list admin directory");
	}
	while ((de = readdir(dir)) != NULL) {
		len = strlen(de->d_name);
		if (len <= sl || strcmp(de->d_name + len - sl,
		    RECSTORE_SUFFIX) != 0)
			continue;
		if ((nv = realloc(v, (n + 2) * sizeof(*v))) == NULL ||
		    (nv[n] = strndup(de->d_name, len - sl)) == NULL) {
			v = nv != NULL ? nv : v;
			if (v != NULL)
				v[n] = NULL;
			recstore_names_free(v);
			closedir(dir);
			return dbp_err(err, ENOMEM, "", "cannot list records");
		}
		v = nv;
		v[++n] = NULL;
	}
	closedir(dir);
	if (v == NULL && (v = calloc(1, sizeof(*v))) == NULL)
		return dbp_err(err, ENOMEM, "", "cannot list records");
	qsort(v, n, sizeof(*v), recstore_cmp_names);
	*names = v;
	return 0;
}

void
recstore_names_free(char **names)
{
	size_t i;

	if (names == NULL)
		return;
	for (i = 0; names[i] != NULL; i++)
		free(names[i]);
	free(names);
}
