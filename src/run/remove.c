/* SPDX-License-Identifier: MIT */
/* The packages a run removes or purges: refused or staged, as dpkg judges them. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db/dpkgdb.h"
#include "db/dpkgstatus.h"
#include "manifest.h"
#include "extract/obsolete.h"
#include "run/remove.h"

/*
 * What dpkg --purge removes beside a conffile: the versions dpkg, ucf
 * and debunpack keep next to it.
 */
static const char *const remove_conffile_exts[] = {
	".dpkg-old", ".dpkg-new", ".dpkg-dist", ".dpkg-bak", ".dpkg-tmp",
	".dpkg-remove", ".ucf-old", ".ucf-new", ".ucf-dist",
	".debunpack-dist", NULL
};

/* A package that stays installed, as the dependency check sees it. */
struct remove_left {
	const char *name;
	const char *provides;		/* or NULL */
	const char *deps[2];		/* Depends, Pre-Depends, or NULL */
	struct control *ctl;		/* parsed from dpkg's status: ours */
};

struct remove_set {
	struct remove_left *v;
	size_t n;
};

static bool
remove_named(char *const *names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

/*
 * The next package name of dependency field *P (a "Depends" or a
 * "Provides"), without version or architecture, into BUF; *SEP is the
 * character that ended it: ',' (a new clause), '|' (an alternative) or
 * '\0'.  false at the end.
 */
static bool
remove_next(const char **p, char *buf, size_t n, char *sep)
{
	const char *s = *p, *e;
	size_t len;

	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == ',' || *s == '|')
		s++;
	if (*s == '\0')
		return false;
	for (e = s; *e != '\0' && *e != ' ' && *e != '\t' && *e != '\n' &&
	    *e != '(' && *e != ':' && *e != ',' && *e != '|' && *e != '['; e++)
		;
	len = (size_t)(e - s) < n - 1 ? (size_t)(e - s) : n - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	while (*e != '\0' && *e != ',' && *e != '|')
		e++;
	*sep = *e;
	*p = *e != '\0' ? e + 1 : e;
	return true;
}

/* Whether a package left installed is NAME or provides it. */
static bool
remove_satisfied(const struct remove_set *left, const char *name)
{
	char buf[256], sep;
	const char *p;
	size_t i;

	for (i = 0; i < left->n; i++) {
		if (strcmp(left->v[i].name, name) == 0)
			return true;
		for (p = left->v[i].provides; p != NULL &&
		    remove_next(&p, buf, sizeof(buf), &sep);)
			if (strcmp(buf, name) == 0)
				return true;
	}
	return false;
}

/*
 * The first package of NAMES (N) that dependency field DEP needs: a clause
 * naming one of them with no alternative left installed.  NULL if none.
 */
static const char *
remove_breaks(const struct remove_set *left, const char *dep,
    char *const *names, size_t n)
{
	const char *p = dep, *hit = NULL;
	char buf[256], sep = ',';
	bool ok = false;
	size_t i;

	while (remove_next(&p, buf, sizeof(buf), &sep)) {
		for (i = 0; hit == NULL && i < n; i++)
			if (strcmp(buf, names[i]) == 0)
				hit = names[i];
		ok = ok || remove_satisfied(left, buf);
		if (sep != '|') {
			if (hit != NULL && !ok)
				return hit;
			hit = NULL;
			ok = false;
		}
	}
	return NULL;
}

static int
remove_left_add(struct remove_set *left, const struct control *ctl,
    struct control *own)
{
	struct remove_left *v;

	if ((v = realloc(left->v, (left->n + 1) * sizeof(*v))) == NULL) {
		control_free(own);
		return -ENOMEM;
	}
	left->v = v;
	v += left->n++;
	v->name = control_get(ctl, "Package");
	v->provides = control_get(ctl, "Provides");
	v->deps[0] = control_get(ctl, "Depends");
	v->deps[1] = control_get(ctl, "Pre-Depends");
	v->ctl = own;
	return 0;
}

/*
 * Every package that stays: debunpack's records (not those left with
 * their conffiles only) and what dpkg's status has installed, but NAMES.
 */
static int
remove_left_load(struct remove_set *left, struct manifest *man,
    struct dpkgdb *db, char *const *names, size_t n, struct dbp_error *err)
{
	const struct dpkgstatus *st;
	struct dbp_error perr;
	struct control *ctl;
	struct record *rec;
	char **all;
	size_t i;
	int r = 0;

	if ((r = manifest_names(man, &all, err)) != 0)
		return r;
	for (i = 0; r == 0 && all[i] != NULL; i++)
		if (!remove_named(names, n, all[i]) &&
		    (rec = manifest_installed_record(man, all[i])) != NULL &&
		    !record_config_files(rec))
			r = remove_left_add(left, rec->ctl, NULL);
	manifest_names_free(all);
	if (r != 0 || db == NULL)
		return r != 0 ? dbp_err(err, -r, "", "cannot remove") : 0;
	st = dpkgdb_status(db);
	for (i = 0; r == 0 && i < st->n; i++) {
		const struct dpkgstatus_stanza *o = &st->v[i];

		/* debunpack's own packages are in the records already. */
		if (!dpkgstatus_installed(o) || remove_named(names, n, o->name) ||
		    manifest_installed_record(man, o->name) != NULL)
			continue;
		if (control_parse(o->text, o->len, &ctl, &perr) != 0)
			continue;	/* dpkg's to complain about */
		r = remove_left_add(left, ctl, ctl);
	}
	return r != 0 ? dbp_err(err, -r, "", "cannot remove") : 0;
}

static void
remove_left_free(struct remove_set *left)
{
	size_t i;

	for (i = 0; i < left->n; i++)
		control_free(left->v[i].ctl);
	free(left->v);
}

/* No package that stays may depend on one of NAMES, unless forced. */
static int
remove_check_depends(const struct remove_opts *ro, struct manifest *man,
    struct dpkgdb *db, char *const *names, size_t n, struct dbp_error *err)
{
	struct remove_set left = { NULL, 0 };
	const char *hit = NULL;
	size_t i, k;
	int r;

	if (ro->force_depends || n == 0)
		return 0;
	if ((r = remove_left_load(&left, man, db, names, n, err)) != 0) {
		remove_left_free(&left);
		return r;
	}
	for (i = 0; hit == NULL && i < left.n; i++)
		for (k = 0; hit == NULL && k < 2; k++)
			if (left.v[i].deps[k] != NULL)
				hit = remove_breaks(&left, left.v[i].deps[k],
				    names, n);
	if (hit != NULL)
		r = dbp_err(err, 0, "", "cannot remove '%s': '%s' %s it"
		    " (--force-depends removes it all the same)", hit,
		    left.v[i - 1].name, k == 2 ? "pre-depends on" :
		    "depends on");
	remove_left_free(&left);
	return r;
}

/*
 * What stays of removed package OLD: its conffiles and the directories
 * that lead to them that no other package of MAN has, in OLD's order, as
 * dpkg's file list keeps them.
 * *OUT is NULL when no conffile stays.
 */
static int
remove_config_files(struct manifest *man, const struct record *old,
    struct record **out)
{
	struct record *nr;
	size_t i, k, len;
	bool any = false, keep;
	int r;

	*out = NULL;
	for (i = 0; i < old->n; i++)
		any = any || old->v[i].conffile;
	if (!any)
		return 0;
	if ((r = record_new_like(&nr, old, RECORD_CONFIG_FILES)) != 0)
		return r;
	for (i = 0; i < old->n; i++) {
		const struct record_entry *e = &old->v[i];

		keep = e->conffile;
		len = strlen(e->path);
		for (k = 0; !keep && e->type == 'd' && k < old->n; k++)
			keep = old->v[k].conffile &&
			    strncmp(old->v[k].path, e->path, len) == 0 &&
			    old->v[k].path[len] == '/';
		/* dpkg's list keeps no directory another package has. */
		if (keep && e->type == 'd' && manifest_other_owner(man, e->path,
		    control_get(old->ctl, "Package")) != NULL)
			keep = false;
		if (keep && (r = record_add(nr, e)) != 0) {
			record_free(nr);
			return r;
		}
	}
	*out = nr;
	return 0;
}

/* A purge also removes what dpkg, ucf and debunpack kept beside a conffile. */
static int
remove_leftovers(struct obsolete *ob, const struct record *old, int rootfd)
{
	char path[4096];
	struct stat st;
	size_t i, k;
	int r;

	for (i = 0; i < old->n; i++) {
		if (!old->v[i].conffile)
			continue;
		for (k = 0; remove_conffile_exts[k] != NULL; k++) {
			if (snprintf(path, sizeof(path), "%s%s", old->v[i].path,
			    remove_conffile_exts[k]) >= (int)sizeof(path))
				continue;
			if (fstatat(rootfd, path + 1, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
			    !S_ISREG(st.st_mode))
				continue;
			if ((r = obsolete_add(ob, path)) != 0)
				return r;
		}
	}
	return 0;
}

/* Stage the removal of installed package NAME (record OLD). */
static int
remove_one(const struct remove_opts *ro, struct manifest *man,
    struct obsolete *ob, struct dpkgdb *db, int rootfd,
    const struct record *old, struct dbp_error *err)
{
	const char *name = control_get(old->ctl, "Package"), *v;
	static const char *const scripts[] = { "prerm", "postrm" };
	struct record *keep = NULL, *gone;
	size_t i;
	int r;

	if (!ro->force_essential &&
	    (((v = control_get(old->ctl, "Essential")) != NULL &&
	    strcmp(v, "yes") == 0) ||
	    ((v = control_get(old->ctl, "Protected")) != NULL &&
	    strcmp(v, "yes") == 0)))
		return dbp_err(err, 0, "", "cannot remove '%s': it is %s"
		    " (--force-remove-essential removes it all the same)",
		    name, control_get(old->ctl, "Essential") != NULL &&
		    strcmp(control_get(old->ctl, "Essential"), "yes") == 0 ?
		    "essential" : "protected");
	for (i = 0; db != NULL && !ro->no_scripts && i < 2; i++)
		if (dpkgdb_has_script(db, old, scripts[i]))
			return dbp_err(err, 0, "", "cannot remove '%s': it has"
			    " a %s script, which debunpack does not run: run"
			    " 'dpkg --remove %s' in the root, or --no-scripts"
			    " to remove it without them", name, scripts[i],
			    name);
	if (!ro->purge && (r = remove_config_files(man, old, &keep)) != 0)
		return dbp_err(err, -r, "", "cannot remove '%s'", name);
	if (keep != NULL) {
		/* The manifest takes KEEP, which outlives DB. */
		if ((r = manifest_stage(man, keep, err)) != 0)
			return r;
		return db != NULL ? dpkgdb_stage_removal(db, keep, false,
		    err) : 0;
	}
	if (ro->purge && (r = remove_leftovers(ob, old, rootfd)) != 0)
		return dbp_err(err, -r, "", "cannot remove '%s'", name);
	if ((r = record_new_like(&gone, old, NULL)) != 0 ||
	    (r = manifest_drop(man, gone)) != 0)
		return dbp_err(err, -r, "", "cannot remove '%s'", name);
	return db != NULL ? dpkgdb_stage_removal(db, gone, true, err) : 0;
}

int
remove_stage(const struct remove_opts *ro, struct manifest *man,
    struct obsolete *ob, struct dpkgdb *db, int rootfd, char *const *names,
    size_t n, struct dbp_error *err)
{
	const struct record *old;
	char **todo;
	size_t i, k, ntodo = 0;
	int r = 0;

	if ((todo = calloc(n + 1, sizeof(*todo))) == NULL)
		return dbp_err(err, ENOMEM, "", "cannot remove");
	/* Every refusal before anything is staged: the root stays as it is. */
	for (i = 0; i < n && r == 0; i++) {
		for (k = 0; k < ntodo && strcmp(todo[k], names[i]) != 0; k++)
			;
		if (k < ntodo)
			continue;	/* named twice: once is enough */
		old = manifest_installed_record(man, names[i]);
		if (old == NULL) {
			const struct dpkgstatus *st = db != NULL ?
			    dpkgdb_status(db) : NULL;
			size_t s;

			for (s = 0; st != NULL && s < st->n; s++)
				if (strcmp(st->v[s].name, names[i]) == 0 &&
				    dpkgstatus_installed(&st->v[s]))
					break;
			if (st != NULL && s < st->n)
				r = dbp_err(err, 0, "", "cannot remove '%s':"
				    " dpkg installed it, not debunpack: run"
				    " 'dpkg --remove %s' in the root",
				    names[i], names[i]);
			else if (ro->warn != NULL)
				ro->warn(ro->ctx, names[i], "not installed:"
				    " nothing to remove");
			continue;
		}
		if (db == NULL && old->dpkg_db) {
			r = dbp_err(err, 0, "", "cannot remove '%s': dpkg's"
			    " database has it too: --dpkg-db removes it from"
			    " there as well", names[i]);
			continue;
		}
		if (record_config_files(old) && !ro->purge) {
			if (ro->warn != NULL)
				ro->warn(ro->ctx, names[i], "only its"
				    " configuration files are left: --purge"
				    " removes them");
			continue;
		}
		todo[ntodo++] = names[i];
	}
	if (r == 0)
		r = remove_check_depends(ro, man, db, todo, ntodo, err);
	for (i = 0; i < ntodo && r == 0; i++)
		r = remove_one(ro, man, ob, db, rootfd,
		    manifest_installed_record(man, todo[i]), err);
	free(todo);
	return r;
}
