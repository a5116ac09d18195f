/* SPDX-License-Identifier: MIT */
/* dpkg-statoverride's overrides in dpkg's database: the owner and mode a path is installed with. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/dpkgstatov.h"
#include "durable/fileat.h"

#define DPKGSTATOV_FILE	"var/lib/dpkg/statoverride"

struct dpkgstatov {
	char *text;			/* the file, cut in place */
	struct dpkgstatov_entry *v;	/* sorted by path */
	size_t n;
};

static int
dpkgstatov_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dpkgstatov_entry *)a)->path,
	    ((const struct dpkgstatov_entry *)b)->path);
}

void
dpkgstatov_free(struct dpkgstatov *s)
{
	if (s == NULL)
		return;
	free(s->text);
	free(s->v);
	free(s);
}

size_t
dpkgstatov_count(const struct dpkgstatov *s)
{
	return s != NULL ? s->n : 0;
}

const struct dpkgstatov_entry *
dpkgstatov_find(const struct dpkgstatov *s, const char *path)
{
	struct dpkgstatov_entry key = { .path = path };

	if (s == NULL || s->n == 0)
		return NULL;
	return bsearch(&key, s->v, s->n, sizeof(key), dpkgstatov_cmp);
}

/* "#N": the number, as dpkg reads it (decimal, no sign); else -1. */
static long
dpkgstatov_number(const char *s)
{
	char *end;
	long v;

	if (s[1] < '0' || s[1] > '9')
		return -1;
	errno = 0;
	v = strtol(s + 1, &end, 10);
	return *end != '\0' || errno != 0 || v < 0 || v >= 0xffffffffL ? -1 : v;
}

/* The next field of the line at *P, up to a space; NULL if there is none. */
static char *
dpkgstatov_field(char **p)
{
	char *f = *p, *sp = strchr(f, ' ');

	if (sp == NULL)
		return NULL;
	*sp = '\0';
	*p = sp + 1;
	return f;
}

/*
 * One line LINE (number NO), cut in place into E.  dpkg's checks, in its
 * order, with its words.
 */
static int
dpkgstatov_line(char *line, size_t no, const struct users *users,
    struct dpkgstatov_entry *e, struct dbp_error *err)
{
	char *p = line, *user, *group, *mode, *end;
	long id, m;

	if ((user = dpkgstatov_field(&p)) == NULL ||
	    (group = dpkgstatov_field(&p)) == NULL ||
	    (mode = dpkgstatov_field(&p)) == NULL || *p == '\0')
		return dbp_err(err, 0, DPKGSTATOV_FILE, "line %zu: syntax"
		    " error in statoverride file", no);
	if (user[0] == '#') {
		if ((id = dpkgstatov_number(user)) < 0)
			return dbp_err(err, 0, DPKGSTATOV_FILE, "line %zu:"
			    " invalid statoverride uid %s", no, user);
		e->uid = (uid_t)id;
	} else if ((e->uid = users_uid(users, user, (uid_t)-1)) == (uid_t)-1)
		return dbp_err(err, 0, DPKGSTATOV_FILE, "line %zu: unknown"
		    " system user '%s' in statoverride file (the root's"
		    " etc/passwd has none); dpkg-statoverride --remove %s"
		    " removes the override", no, user, p);
	if (group[0] == '#') {
		if ((id = dpkgstatov_number(group)) < 0)
			return dbp_err(err, 0, DPKGSTATOV_FILE, "line %zu:"
			    " invalid statoverride gid %s", no, group);
		e->gid = (gid_t)id;
	} else if ((e->gid = users_gid(users, group, (gid_t)-1)) == (gid_t)-1)
		return dbp_err(err, 0, DPKGSTATOV_FILE, "line %zu: unknown"
		    " system group '%s' in statoverride file (the root's"
		    " etc/group has none); dpkg-statoverride --remove %s"
		    " removes the override", no, group, p);
	errno = 0;
	m = strtol(mode, &end, 8);
	if (end == mode || *end != '\0' || m < 0 || m > 07777 || errno != 0)
		return dbp_err(err, 0, DPKGSTATOV_FILE, "line %zu: invalid"
		    " statoverride mode %s", no, mode);
	e->mode = (mode_t)m;
	e->path = p;
	return 0;
}

int
dpkgstatov_load(struct dpkgstatov **out, const struct rootfs *rf,
    const struct users *users, struct dbp_error *err)
{
	struct dpkgstatov *s;
	size_t len, i, n = 0, no;
	char *p, *nl;
	int dfd, r;

	*out = NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return dbp_err(err, ENOMEM, DPKGSTATOV_FILE, "cannot read");
	if ((dfd = rootfs_resolve(rf, "var/lib/dpkg", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0) {
		r = dfd;
		goto none;
	}
	r = fileat_read(dfd, "statoverride", &s->text, &len);
	close(dfd);
none:
	if (r == -ENOENT || r == -ENOTDIR) {
		*out = s;
		return 0;
	}
	if (r != 0) {
		dpkgstatov_free(s);
		return dbp_err(err, -r, DPKGSTATOV_FILE, "cannot read");
	}
	if (len > 0 && s->text[len - 1] != '\n') {
		dpkgstatov_free(s);
		return dbp_err(err, 0, DPKGSTATOV_FILE, "statoverride file is"
		    " missing final newline");
	}
	if (memchr(s->text, '\0', len) != NULL) {
		dpkgstatov_free(s);
		return dbp_err(err, 0, DPKGSTATOV_FILE, "NUL byte in"
		    " statoverride file");
	}
	for (i = 0; i < len; i++)
		n += s->text[i] == '\n';
	if (n > 0 && (s->v = calloc(n, sizeof(*s->v))) == NULL) {
		dpkgstatov_free(s);
		return dbp_err(err, ENOMEM, DPKGSTATOV_FILE, "cannot read");
	}
	for (p = s->text, no = 1; (nl = strchr(p, '\n')) != NULL;
	    p = nl + 1, no++) {
		*nl = '\0';
		if (nl == p)
			r = dbp_err(err, 0, DPKGSTATOV_FILE, "line %zu:"
			    " statoverride file contains empty line", no);
		else
			r = dpkgstatov_line(p, no, users, &s->v[s->n], err);
		if (r != 0) {
			dpkgstatov_free(s);
			return r;
		}
		s->n++;
	}
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), dpkgstatov_cmp);
	for (i = 1; i < s->n; i++)
		if (strcmp(s->v[i - 1].path, s->v[i].path) == 0) {
			r = dbp_err(err, 0, DPKGSTATOV_FILE, "multiple"
			    " statoverrides present for file '%s'",
			    s->v[i].path);
			dpkgstatov_free(s);
			return r;
		}
	*out = s;
	return 0;
}
