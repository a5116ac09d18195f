/* SPDX-License-Identifier: MIT */
/* dpkg's triggers database (var/lib/dpkg/triggers): interests and activations. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/dpkgtrig.h"
#include "db/recowners.h"
#include "deb/control.h"

/* One file of the triggers directory, as lines without their newline. */
struct dpkgtrig_text {
	char *name;
	char **line;
	size_t n;
	bool changed;
	char *out;		/* what dpkgtrig_file hands back */
	size_t outlen;
};

struct dpkgtrig {
	int dfd;
	struct dpkgtrig_text *v;
	size_t n;
	struct dpkgtrig_note *note;	/* what the activations noted */
	size_t nnote;
};

static void
dpkgtrig_text_clear(struct dpkgtrig_text *x)
{
	size_t i;

	for (i = 0; i < x->n; i++)
		free(x->line[i]);
	free(x->line);
	free(x->name);
	free(x->out);
}

void
dpkgtrig_free(struct dpkgtrig *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++)
		dpkgtrig_text_clear(&t->v[i]);
	free(t->v);
	for (i = 0; i < t->nnote; i++) {
		free(t->note[i].pend);
		free(t->note[i].trig);
		free(t->note[i].aw);
	}
	free(t->note);
	free(t);
}

static int
dpkgtrig_push(struct dpkgtrig_text *x, const char *s, size_t len)
{
	char **v;

	if ((v = realloc(x->line, (x->n + 1) * sizeof(*v))) == NULL)
		return -ENOMEM;
	x->line = v;
	if ((v[x->n] = strndup(s, len)) == NULL)
		return -ENOMEM;
	x->n++;
	return 0;
}

/* The text of file NAME, read in on first use (missing: empty). */
static int
dpkgtrig_get(struct dpkgtrig *t, const char *name, struct dpkgtrig_text **out)
{
	struct dpkgtrig_text *v, *x;
	char *line = NULL;
	size_t i, len = 0;
	ssize_t got;
	FILE *fp;
	int fd, r = 0;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, name) == 0) {
			*out = &t->v[i];
			return 0;
		}
	if ((v = realloc(t->v, (t->n + 1) * sizeof(*v))) == NULL)
		return -ENOMEM;
	t->v = v;
	x = memset(&v[t->n], 0, sizeof(*x));
	if ((x->name = strdup(name)) == NULL)
		return -ENOMEM;
	t->n++;
	*out = x;
	if ((fd = openat(t->dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : -errno;
	if ((fp = fdopen(fd, "r")) == NULL) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((got = getline(&line, &len, fp)) >= 0) {
		while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == ' '))
			got--;
		if (got > 0 && (r = dpkgtrig_push(x, line, (size_t)got)) != 0)
			break;
	}
	if (r == 0 && ferror(fp))
		r = -EIO;
	free(line);
	fclose(fp);
	return r;
}

/*
 * Whether a line of File ("PATH PKG[/noawait]") or NAME names PKG.  A
 * package of one instance may be named with its architecture too
 * ("PKG:ARCH", as dpkg writes a foreign one): dpkg resolves both to the
 * package and rewrites them in its own form.
 */
static bool
dpkgtrig_line_is(const char *line, const char *pkg, bool file)
{
	const char *p = file ? strrchr(line, ' ') : line;
	size_t len = strlen(pkg);

	if (p == NULL)
		return false;
	if (file)
		p++;
	if (strncmp(p, pkg, len) != 0)
		return false;
	p += len;
	if (*p == ':' && strchr(pkg, ':') == NULL)
		p += 1 + strcspn(p + 1, "/");
	return *p == '\0' || strcmp(p, "/noawait") == 0;
}

/* Drop (ADD false) or register (ADD true) PKG's interest in TRIG. */
static int
dpkgtrig_interest(struct dpkgtrig *t, const char *pkg, const char *trig,
    bool noawait, bool add)
{
	struct dpkgtrig_text *x;
	bool file = trig[0] == '/';
	char line[4200];
	size_t i, k;
	int r;

	/* A name dpkg would refuse, or one of the directory's own files. */
	if (!file && (strchr(trig, '/') != NULL || trig[0] == '.' ||
	    strcmp(trig, "File") == 0 || strcmp(trig, "Unincorp") == 0 ||
	    strcmp(trig, "Lock") == 0))
		return 0;
	if ((r = dpkgtrig_get(t, file ? "File" : trig, &x)) != 0)
		return r;
	for (i = k = 0; i < x->n; i++) {
		/* File lines of other paths stay. */
		if (dpkgtrig_line_is(x->line[i], pkg, file) && (!file ||
		    (strncmp(x->line[i], trig, strlen(trig)) == 0 &&
		    x->line[i][strlen(trig)] == ' '))) {
			free(x->line[i]);
			x->changed = true;
			continue;
		}
		x->line[k++] = x->line[i];
	}
	x->n = k;
	if (!add)
		return 0;
	snprintf(line, sizeof(line), "%s%s%s%s", file ? trig : "",
	    file ? " " : "", pkg, noawait ? "/noawait" : "");
	x->changed = true;
	return dpkgtrig_push(x, line, strlen(line));
}

/*
 * Note that PEND (an interest's "PKG[/OPTION]") has trigger TRIG pending,
 * awaited by AW (NULL: by none, or when the interest is noawait).
 */
static int
dpkgtrig_note(struct dpkgtrig *t, const char *pend, const char *trig,
    const char *aw)
{
	struct dpkgtrig_note *v, *n;
	size_t len = strcspn(pend, "/");

	if (len == 0)
		return 0;
	if (strcmp(pend + len, "/noawait") == 0)
		aw = NULL;
	if ((v = realloc(t->note, (t->nnote + 1) * sizeof(*v))) == NULL)
		return -ENOMEM;
	t->note = v;
	n = memset(&v[t->nnote], 0, sizeof(*n));
	if ((n->pend = strndup(pend, len)) == NULL ||
	    (n->trig = strdup(trig)) == NULL ||
	    (aw != NULL && (n->aw = strdup(aw)) == NULL)) {
		free(n->pend);
		free(n->trig);
		return -ENOMEM;
	}
	t->nnote++;
	return 0;
}

/* Whether file trigger interest PATH (LEN bytes) is TRIG or above it. */
static bool
dpkgtrig_path_covers(const char *path, size_t len, const char *trig)
{
	return strncmp(trig, path, len) == 0 &&
	    (trig[len] == '\0' || trig[len] == '/');
}

/*
 * Activate TRIG awaited by AW (NULL: none), as dpkg does: the packages
 * interested in it now have it pending.  A file trigger activates the
 * interests in its path and in every directory above it.
 */
static int
dpkgtrig_activate(struct dpkgtrig *t, const char *trig, const char *aw)
{
	struct dpkgtrig_text *x;
	char path[4200];
	const char *sp;
	size_t i, len;
	int r;

	if (trig[0] == '/') {
		if ((r = dpkgtrig_get(t, "File", &x)) != 0)
			return r;
		for (i = 0; i < x->n; i++) {
			if ((sp = strrchr(x->line[i], ' ')) == NULL ||
			    (len = (size_t)(sp - x->line[i])) >= sizeof(path) ||
			    !dpkgtrig_path_covers(x->line[i], len, trig))
				continue;
			memcpy(path, x->line[i], len);
			path[len] = '\0';
			if ((r = dpkgtrig_note(t, sp + 1, path, aw)) != 0)
				return r;
		}
		return 0;
	}
	/* A name dpkg would refuse, or one of the directory's own files. */
	if (strchr(trig, '/') != NULL || trig[0] == '.' || trig[0] == '\0' ||
	    strcmp(trig, "File") == 0 || strcmp(trig, "Unincorp") == 0 ||
	    strcmp(trig, "Lock") == 0)
		return 0;
	if ((r = dpkgtrig_get(t, trig, &x)) != 0)
		return r;
	for (i = 0; i < x->n; i++)
		if ((r = dpkgtrig_note(t, x->line[i], trig, aw)) != 0)
			return r;
	return 0;
}

/*
 * dpkg-trigger's queue (Unincorp: "TRIG AWAITER..." lines, "-" for
 * none), incorporated as dpkg does when it opens its database: each
 * activation noted, the queue left empty.
 */
static int
dpkgtrig_incorporate(struct dpkgtrig *t)
{
	struct dpkgtrig_text *x;
	char *line, *trig, *aw, *save;
	size_t i, n;
	int r = 0;

	if ((r = dpkgtrig_get(t, "Unincorp", &x)) != 0 || (n = x->n) == 0)
		return r;
	for (i = 0; r == 0 && i < n; i++) {
		/* An activation reads files in: X moves. */
		if ((r = dpkgtrig_get(t, "Unincorp", &x)) != 0)
			return r;
		if ((line = strdup(x->line[i])) == NULL)
			return -ENOMEM;
		trig = strtok_r(line, " \t", &save);
		while (r == 0 && trig != NULL &&
		    (aw = strtok_r(NULL, " \t", &save)) != NULL)
			r = dpkgtrig_activate(t, trig, strcmp(aw, "-") == 0 ?
			    NULL : aw);
		free(line);
	}
	if (r != 0 || (r = dpkgtrig_get(t, "Unincorp", &x)) != 0)
		return r;
	for (i = 0; i < x->n; i++)
		free(x->line[i]);
	x->n = 0;
	x->changed = true;
	return r;
}

int
dpkgtrig_new(struct dpkgtrig **out, int dfd)
{
	struct dpkgtrig *t;
	struct dpkgtrig_text *x;
	int r;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		return -ENOMEM;
	t->dfd = dfd;
	if ((r = dpkgtrig_get(t, "File", &x)) != 0 ||
	    (r = dpkgtrig_incorporate(t)) != 0) {
		dpkgtrig_free(t);
		return r;
	}
	*out = t;
	return 0;
}

const struct dpkgtrig_note *
dpkgtrig_notes(const struct dpkgtrig *t, size_t *n)
{
	*n = t->nnote;
	return t->note;
}

typedef int trigfire_fn(struct dpkgtrig *, const char *, const char *, bool);

/*
 * Each directive of triggers control file CI: "interest[-await|-noawait]
 * NAME" when INTEREST, else "activate[-await|-noawait] NAME"; FN is told
 * the name and whether it is noawait.
 */
static int
dpkgtrig_parse(const char *ci, bool interest, trigfire_fn *fn,
    struct dpkgtrig *t, const char *pkg)
{
	const char *p = ci, *nl;
	char line[4200], *dir, *name, *save;
	size_t len;
	int r;

	for (; p != NULL && *p != '\0'; p = nl != NULL ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (len >= sizeof(line))
			continue;
		memcpy(line, p, len);
		line[len] = '\0';
		if ((name = strchr(line, '#')) != NULL)
			*name = '\0';
		if ((dir = strtok_r(line, " \t", &save)) == NULL ||
		    (name = strtok_r(NULL, " \t", &save)) == NULL)
			continue;
		if (strncmp(dir, interest ? "interest" : "activate", 8) != 0 ||
		    (dir[8] != '\0' && strcmp(dir + 8, "-await") != 0 &&
		    strcmp(dir + 8, "-noawait") != 0))
			continue;
		if ((r = fn(t, pkg, name, strcmp(dir + 8, "-noawait") == 0)) != 0)
			return r;
	}
	return 0;
}

static int
dpkgtrig_drop(struct dpkgtrig *t, const char *pkg, const char *trig,
    bool noawait)
{
	return dpkgtrig_interest(t, pkg, trig, noawait, false);
}

static int
dpkgtrig_add(struct dpkgtrig *t, const char *pkg, const char *trig,
    bool noawait)
{
	return dpkgtrig_interest(t, pkg, trig, noawait, true);
}

static int
dpkgtrig_fire(struct dpkgtrig *t, const char *pkg, const char *trig,
    bool noawait)
{
	return dpkgtrig_activate(t, trig, noawait ? NULL : pkg);
}

/*
 * File triggers: the interests whose path is one of REC's or above it,
 * each activated once, awaited by PKG.
 */
static int
dpkgtrig_paths(struct dpkgtrig *t, const char *pkg, const struct record *rec)
{
	struct dpkgtrig_text *file;
	char path[4200];
	const char *sp;
	size_t i, k, len;
	int r;

	if ((r = dpkgtrig_get(t, "File", &file)) != 0)
		return r;
	for (k = 0; k < file->n; k++) {
		if ((sp = strrchr(file->line[k], ' ')) == NULL ||
		    (len = (size_t)(sp - file->line[k])) >= sizeof(path))
			continue;
		for (i = 0; i < rec->n; i++)
			if (dpkgtrig_path_covers(file->line[k], len,
			    rec->v[i].path))
				break;
		if (i == rec->n)
			continue;
		/* The trigger pending is the interest's path. */
		memcpy(path, file->line[k], len);
		path[len] = '\0';
		if ((r = dpkgtrig_note(t, sp + 1, path, pkg)) != 0)
			return r;
	}
	return 0;
}

/*
 * The old version's paths (OLDLIST, one a line) that REC lacks: dpkg
 * removes them and activates the interests in each and above it.
 */
static int
dpkgtrig_gone(struct dpkgtrig *t, const char *pkg, const char *oldlist,
    struct record *rec, struct recstage *rs)
{
	const char *name = control_get(rec->ctl, "Package");
	const char *p, *nl;
	char path[4200];
	size_t len;
	int r;

	for (p = oldlist; p != NULL && *p != '\0'; p = nl != NULL ? nl + 1 :
	    NULL) {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (len == 0 || len >= sizeof(path) || p[0] != '/')
			continue;
		memcpy(path, p, len);
		path[len] = '\0';
		/* dpkg leaves what another package has (shared directories). */
		if (strcmp(path, "/.") == 0 ||
		    record_find_name(rec, path) != NULL || (rs != NULL &&
		    name != NULL && recowners_other_owner(rs, path, name) !=
		    NULL))
			continue;
		if ((r = dpkgtrig_activate(t, path, pkg)) != 0)
			return r;
	}
	return 0;
}

/* An "activate" directive of a package that awaits nothing yet. */
static int
dpkgtrig_fire_noawait(struct dpkgtrig *t, const char *pkg, const char *trig,
    bool noawait)
{
	(void)pkg;
	(void)noawait;
	return dpkgtrig_activate(t, trig, NULL);
}

int
dpkgtrig_package(struct dpkgtrig *t, const char *name, const char *oldname,
    const char *old, const char *new, const struct record *rec,
    const char *oldlist, bool was_there, struct recstage *rs)
{
	trigfire_fn *fire = was_there ? dpkgtrig_fire : dpkgtrig_fire_noawait;

	int r;

	/*
	 * In dpkg's order: the "activate" directives of the old version
	 * and of the new fire, the package's files are unpacked (firing
	 * the interests registered so far), then its interests replace
	 * the old version's.
	 */
	if ((r = dpkgtrig_parse(old, false, fire, t, oldname)) != 0 ||
	    (r = dpkgtrig_parse(new, false, fire, t, name)) != 0 ||
	    (r = dpkgtrig_paths(t, name, rec)) != 0 ||
	    (r = dpkgtrig_gone(t, name, oldlist, (struct record *)rec,
	    rs)) != 0 ||
	    (r = dpkgtrig_parse(old, true, dpkgtrig_drop, t, oldname)) != 0)
		return r;
	return dpkgtrig_parse(new, true, dpkgtrig_add, t, name);
}

int
dpkgtrig_file(struct dpkgtrig *t, size_t *idx, const char **name,
    const char **text, size_t *len)
{
	struct dpkgtrig_text *x;
	size_t i;
	FILE *fp;

	for (; *idx < t->n; (*idx)++) {
		x = &t->v[*idx];
		if (!x->changed)
			continue;
		free(x->out);
		x->out = NULL;
		if ((fp = open_memstream(&x->out, &x->outlen)) == NULL)
			return -ENOMEM;
		for (i = 0; i < x->n; i++)
			fprintf(fp, "%s\n", x->line[i]);
		if (fclose(fp) != 0)
			return -ENOMEM;
		*name = x->name;
		*text = x->out;
		*len = x->outlen;
		(*idx)++;
		return 1;
	}
	return 0;
}
