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

#include "db/dpkgadopt.h"
#include "db/dpkgdivert.h"
#include "db/recstore.h"

struct recstore {
	int fd;			/* the admin directory, or -1: none */
	const char *name;	/* what errors call it */
	recstore_stale_fn *stale;
	void *stale_ctx;
	/* recstore_set_dpkg's: dpkg's database in root RF, its status */
	const struct rootfs *rf;
	const struct dpkgstatus *status;
	unsigned adopt_flags;	/* dpkgadopt_one's FLAGS */
	int dpkgfd;		/* var/lib/dpkg, opened at the first need */
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
	s->dpkgfd = -1;
	if (dirfd < 0)
		s->fd = -1;
	else if ((s->fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0)) < 0) {
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
	if (s->fd >= 0)
		close(s->fd);
	if (s->dpkgfd >= 0)
		close(s->dpkgfd);
	free(s);
}

void
recstore_set_stale(struct recstore *s, recstore_stale_fn *fn, void *ctx)
{
	s->stale = fn;
	s->stale_ctx = ctx;
}

void
recstore_set_dpkg(struct recstore *s, const struct rootfs *rf,
    const struct dpkgstatus *status, unsigned flags)
{
	s->rf = rf;
	s->status = status;
	s->adopt_flags = flags;
}

/* The stanza of package NAME that dpkg has files of, or NULL. */
static const struct dpkgstatus_stanza *
recstore_dpkg_stanza(const struct recstore *s, const char *name)
{
	const struct dpkgstatus_stanza *o;
	char file[512];
	size_t i;

	for (i = 0; s->status != NULL && i < s->status->n; i++) {
		o = &s->status->v[i];
		if (strcmp(o->name, name) != 0 || !dpkgadopt_has_files(o))
			continue;
		/* An instance with a record of its own is NAME:ARCH's. */
		if (s->fd >= 0 && dpkgstatus_ma_same(o->ma) && o->arch != NULL &&
		    (size_t)snprintf(file, sizeof(file), "%s:%s" RECSTORE_SUFFIX,
		    name, o->arch) < sizeof(file) && faccessat(s->fd, file, F_OK,
		    AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		return o;
	}
	return NULL;
}

/* Stanza O's package as dpkg's database has it, or -ENOENT. */
static int
recstore_adopt(struct recstore *s, const struct dpkgstatus_stanza *o,
    struct record **out, struct dbp_error *err)
{
	int r;

	if (o == NULL)
		return -ENOENT;
	if (s->dpkgfd < 0 && (s->dpkgfd = rootfs_resolve(s->rf, "var/lib/dpkg",
	    O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		r = s->dpkgfd;
		s->dpkgfd = -1;
		return r == -ENOENT ? -ENOENT :
		    dbp_err(err, -r, "var/lib/dpkg", "cannot open");
	}
	if ((r = dpkgadopt_one(s->rf, s->dpkgfd, o, s->adopt_flags, out,
	    err)) != 0)
		return r;
	return *out != NULL ? 0 : -ENOENT;
}

/* Package NAME as dpkg's database has it (recstore_set_dpkg), or -ENOENT. */
static int
recstore_load_dpkg(struct recstore *s, const char *name, struct record **out,
    struct dbp_error *err)
{
	return recstore_adopt(s, recstore_dpkg_stanza(s, name), out, err);
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

bool
recstore_valid_key(const char *key)
{
	const char *colon = strchr(key, ':');
	char name[256];

	if (colon == NULL)
		return recstore_valid_name(key);
	if ((size_t)(colon - key) >= sizeof(name))
		return false;
	memcpy(name, key, (size_t)(colon - key));
	name[colon - key] = '\0';
	return recstore_valid_name(name) && control_valid_arch(colon + 1);
}

static int recstore_load_instance(struct recstore *s, const char *spec,
    struct record **out, struct dbp_error *err);

/* Package NAME, or instance NAME:ARCH, as dpkg's database has it. */
static int
recstore_from_dpkg(struct recstore *s, const char *name, struct record **out,
    struct dbp_error *err)
{
	return strchr(name, ':') != NULL ? recstore_load_instance(s, name, out,
	    err) : recstore_load_dpkg(s, name, out, err);
}

static int
recstore_load_one(struct recstore *s, const char *name, struct record **out,
    const char **stale, struct dbp_error *err)
{
	const char *what;
	char file[256];
	FILE *fp;
	int fd, r;

	if (stale != NULL)
		*stale = NULL;
	if (!recstore_valid_key(name))
		return -ENOENT;
	snprintf(file, sizeof(file), "%s" RECSTORE_SUFFIX, name);
	/* A record is a file of ours: a symlink there is not one. */
	if (s->fd < 0)
		return recstore_from_dpkg(s, name, out, err);
	if ((fd = openat(s->fd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return errno == ENOENT ? recstore_from_dpkg(s, name, out, err) :
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
		/* dpkg's database tells what stands instead. */
		if ((r = recstore_from_dpkg(s, name, out, err)) != -ENOENT)
			return r;
		if (stale != NULL)
			*stale = what;
		return -ENOENT;
	}
	return r;
}

/*
 * SPEC, "NAME:ARCH": another Multi-Arch: same instance of NAME than the
 * one NAME stands for (recstore_names lists it so), read from dpkg's
 * database; -ENOENT for the instance NAME stands for.
 */
static int
recstore_load_instance(struct recstore *s, const char *spec,
    struct record **out, struct dbp_error *err)
{
	const struct dpkgstatus_stanza *o = NULL;
	const char *arch = strchr(spec, ':') + 1;
	struct record *plain;
	char name[256];
	size_t i, len = (size_t)(arch - 1 - spec);
	bool same;
	int r;

	if (len == 0 || len >= sizeof(name))
		return -ENOENT;
	memcpy(name, spec, len);
	name[len] = '\0';
	for (i = 0; o == NULL && s->status != NULL && i < s->status->n; i++)
		if (strcmp(s->status->v[i].name, name) == 0 &&
		    s->status->v[i].arch != NULL &&
		    strcmp(s->status->v[i].arch, arch) == 0 &&
		    dpkgstatus_ma_same(s->status->v[i].ma) &&
		    dpkgadopt_has_files(&s->status->v[i]))
			o = &s->status->v[i];
	if (o == NULL)
		return -ENOENT;
	if ((r = recstore_load_one(s, name, &plain, NULL, err)) == 0) {
		same = control_get(plain->ctl, "Architecture") != NULL &&
		    strcmp(control_get(plain->ctl, "Architecture"), arch) == 0;
		record_free(plain);
		if (same)
			return -ENOENT;
	} else if (r != -ENOENT)
		return r;
	return recstore_adopt(s, o, out, err);
}

/*
 * A record, debunpack's or read from dpkg's database, read through the
 * diversions of the day (recstore_set_divert): its paths where the files
 * are now.
 */
int
recstore_load(struct recstore *s, const char *name, struct record **out,
    const char **stale, struct dbp_error *err)
{
	int r;

	if (stale != NULL)
		*stale = NULL;
	if ((r = recstore_load_one(s, name, out, stale, err)) == 0 &&
	    strchr(name, ':') != NULL && (r = record_set_key(*out, name)) != 0) {
		record_free(*out);
		*out = NULL;
		return dbp_err(err, -r, name, "cannot read record");
	}
	if (r == 0 && s->divert != NULL &&
	    (r = dpkgdivert_follow(s->divert, *out)) != 0) {
		record_free(*out);
		*out = NULL;
		r = dbp_err(err, -r, name, "cannot follow the diversions of"
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
	size_t n = 0, sl = strlen(RECSTORE_SUFFIX), len, i, k;
	char **v = NULL, **nv;
	struct dirent *de;
	DIR *dir;
	int fd = -1;

	/* Its own descriptor: closedir closes it, and reads from the start. */
	if (s->fd < 0)
		dir = NULL;
	else if ((fd = openat(s->fd, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0 || (dir = fdopendir(fd)) == NULL) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return dbp_err(err, e, s->name, "cannot list admin directory");
	}
	while (dir != NULL && (de = readdir(dir)) != NULL) {
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
	if (dir != NULL)
		closedir(dir);
	/*
	 * And the packages dpkg has files of, once each; a Multi-Arch: same
	 * package's other instances as NAME:ARCH (recstore_load_instance).
	 */
	for (i = 0; s->status != NULL && i < s->status->n; i++) {
		const struct dpkgstatus_stanza *o = &s->status->v[i];
		char inst[512];
		const char *add = o->name;

		if (!dpkgadopt_has_files(o) || !recstore_valid_name(o->name))
			continue;
		for (k = 0; k < n && strcmp(v[k], o->name) != 0; k++)
			;
		if (k < n) {
			if (!dpkgstatus_ma_same(o->ma) || o->arch == NULL ||
			    (size_t)snprintf(inst, sizeof(inst), "%s:%s",
			    o->name, o->arch) >= sizeof(inst))
				continue;
			add = inst;
			for (k = 0; k < n && strcmp(v[k], add) != 0; k++)
				;
			if (k < n)
				continue;
		}
		if ((nv = realloc(v, (n + 2) * sizeof(*v))) == NULL ||
		    (nv[n] = strdup(add)) == NULL) {
			v = nv != NULL ? nv : v;
			if (v != NULL)
				v[n] = NULL;
			recstore_names_free(v);
			return dbp_err(err, ENOMEM, "", "cannot list records");
		}
		v = nv;
		v[++n] = NULL;
	}
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
