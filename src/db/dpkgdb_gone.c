/* SPDX-License-Identifier: MIT */
/* dpkg's database: old info files gone, paths other packages gave up. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/dpkgdb.h"
#include "db/dpkgdb_int.h"
#include "db/dpkgfmt.h"
#include "db/dpkgstatus.h"
#include "durable/journal.h"
#include "durable/names.h"
#include "db/recowners.h"

/*
 * An old version's info file the new one lacks is removed after the
 * commit point, told to the journal before it so that a repair removes
 * the same.  A package outside the run that gave paths or conffiles up
 * keeps its stanza and list, without them, as dpkg keeps them.
 */

/* Info file INFONAME.SUFFIX of one of the run's packages is written. */
static bool
dpkgdb_written(const struct dpkgdb *db, const char *file)
{
	size_t i, k, len;

	for (i = 0; i < db->nrun; i++) {
		const struct dpkgdb_new *p = &db->run[i];

		len = strlen(p->infoname);
		if (strncmp(file, p->infoname, len) != 0 || file[len] != '.')
			continue;
		if (p->whole)
			continue;
		if (strcmp(file + len + 1, "list") == 0)
			return true;
		for (k = 0; k < p->ninfo; k++)
			if (strcmp(file + len + 1, p->info[k].name) == 0)
				return true;
	}
	return false;
}

/* The info files in DFD of the run's packages that the run does not write. */
static int
dpkgdb_find_gone_in(struct dpkgdb *db, int dfd)
{
	struct dirent *de;
	const char *dot;
	size_t i, len;
	DIR *dir;
	int fd;

	if ((fd = dup(dfd)) < 0)
		return -errno;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(dir)) != NULL) {
		if ((dot = strrchr(de->d_name, '.')) == NULL ||
		    names_reserved(de->d_name))
			continue;
		len = (size_t)(dot - de->d_name);
		for (i = 0; i < db->nrun; i++) {
			const char *names[2] = { db->run[i].infoname,
			    db->run[i].oldinfo };
			int k;

			for (k = 0; k < 2; k++)
				if (names[k] != NULL && strlen(names[k]) == len &&
				    strncmp(de->d_name, names[k], len) == 0)
					break;
			if (k < 2)
				break;
		}
		if (i == db->nrun || dpkgdb_written(db, de->d_name))
			continue;
		if (dpkgdb_add_gone(db, db->infoidx, DPKGDB_DIR "/info",
		    de->d_name) != 0) {
			closedir(dir);
			return -ENOMEM;
		}
	}
	closedir(dir);
	return 0;
}

int
dpkgdb_find_gone(struct dpkgdb *db, struct dbp_error *err)
{
	int ifd = dirs_fd(db->dirs, db->infoidx), r;

	/* A dry run's new database is only planned: nothing in it yet. */
	if (ifd >= 0 && (r = dpkgdb_find_gone_in(db, ifd)) != 0)
		return dbp_err(err, -r, DPKGDB_DIR "/info", "cannot read");
	return 0;
}

/* How dpkgdb_obsolete_conffiles copies a Conffiles value. */
struct dpkgdb_obsolete {
	FILE *fp;
	struct record *rec;	/* what the package keeps */
	const char *done;		/* copied up to there */
	bool changed;
};

static int
dpkgdb_obsolete_line(const struct dpkgfmt_conffile *c, void *ctx)
{
	struct dpkgdb_obsolete *ob = ctx;
	const char *end = c->line + c->linelen;

	fwrite(ob->done, 1, (size_t)(end - ob->done), ob->fp);
	ob->done = end;
	if (record_find_name(ob->rec, c->path) == NULL &&
	    !(c->flags & DPKGFMT_CONFF_OBSOLETE)) {
		fputs(" obsolete", ob->fp);
		ob->changed = true;
	}
	return 0;
}

/*
 * Package REC, outside the run, gave conffiles up to the run's: as dpkg,
 * its stanza keeps them in Conffiles, flagged "obsolete".
 */
static int
dpkgdb_obsolete_conffiles(struct dpkgdb *db, struct record *rec)
{
	struct dpkgdb_obsolete ob = { .rec = rec };
	struct dpkgstatus_stanza *o;
	struct dpkgstatus_add *v;
	char *text;
	size_t len;

	o = dpkgstatus_peek(&db->status, control_get(rec->ctl, "Package"),
	    control_get(rec->ctl, "Architecture"),
	    control_get(rec->ctl, "Multi-Arch"));
	if (o == NULL || o->conffiles == NULL)
		return 0;
	if ((ob.fp = open_memstream(&text, &len)) == NULL)
		return -ENOMEM;
	ob.done = o->text;
	dpkgfmt_conffiles(o->conffiles, o->conffiles_len, dpkgdb_obsolete_line,
	    &ob);
	fwrite(ob.done, 1, (size_t)(o->text + o->len - ob.done), ob.fp);
	if (fclose(ob.fp) != 0)
		return -ENOMEM;
	if (!ob.changed) {
		free(text);
		return 0;
	}
	if ((v = realloc(db->restanza, (db->nrestanza + 1) * sizeof(*v))) ==
	    NULL) {
		free(text);
		return -ENOMEM;
	}
	db->restanza = v;
	v[db->nrestanza].name = o->name;
	v[db->nrestanza].arch = o->arch;
	v[db->nrestanza++].text = text;
	o->replaced = true;
	return 0;
}

/*
 * Packages the run took paths from (Replaces, --force-overwrite, the
 * conffiles of a package removed but not purged) and does not itself
 * install: their file lists lose those paths, as dpkg's do, so that no
 * path is listed by two packages.
 */
int
dpkgdb_disowned(struct dpkgdb *db, struct dbp_error *err)
{
	const struct dpkgstatus_stanza *o;
	struct record *rec;
	char file[NAME_MAX + 1], *info, *list;
	size_t i = 0, len;
	FILE *fp;
	int r;

	while ((rec = recowners_disowned_nth(db->rs, &i)) != NULL) {
		if ((o = dpkgstatus_peek(&db->status, control_get(rec->ctl,
		    "Package"), control_get(rec->ctl, "Architecture"),
		    control_get(rec->ctl, "Multi-Arch"))) == NULL ||
		    (!dpkgstatus_installed(o) && strcmp(dpkgstatus_state(o),
		    "config-files") != 0))
			continue;
		if ((r = dpkgdb_obsolete_conffiles(db, rec)) != 0)
			return dbp_err(err, -r, DPKGDB_DIR "/status",
			    "cannot write");
		if ((info = dpkgstatus_infoname(o->name, o->arch, o->ma)) == NULL)
			return dbp_err(err, ENOMEM, "", "cannot write");
		snprintf(file, sizeof(file), "%s.list", info);
		free(info);
		if ((fp = open_memstream(&list, &len)) == NULL)
			return dbp_err(err, ENOMEM, file, "cannot write");
		r = dpkgfmt_list(fp, rec, dpkgdb_list_rooted(db, file));
		if (fclose(fp) != 0 && r == 0)
			r = -ENOMEM;
		if (r == 0)
			r = dpkgdb_put(db, db->infoidx, DPKGDB_DIR "/info", file,
			    0644, list, len, err);
		else
			r = dbp_err(err, -r, file, "cannot write");
		free(list);
		if (r != 0)
			return r;
	}
	return 0;
}

int
dpkgdb_plan_obsolete(struct dpkgdb *db, struct journal *j,
    struct dbp_error *err)
{
	size_t i;
	int r;

	for (i = 0; i < db->ngone; i++)
		if ((r = journal_gone(j, 'f', db->gone[i].path)) != 0)
			return dbp_err(err, -r, db->gone[i].path,
			    "cannot plan removal");
	return 0;
}

void
dpkgdb_remove_obsolete(struct dpkgdb *db,
    void (*warn)(void *, const char *, const char *), void *ctx)
{
	size_t i;
	int dfd;

	for (i = 0; i < db->ngone; i++) {
		const struct dpkgdb_gone *g = &db->gone[i];

		if ((dfd = dirs_fd(db->dirs, g->dir)) < 0 ||
		    (unlinkat(dfd, g->name, 0) != 0 && errno != ENOENT)) {
			if (warn != NULL)
				warn(ctx, g->path, "cannot remove a file of"
				    " dpkg's database");
			continue;
		}
		dirs_mark(db->dirs, g->dir, DIR_NAMES);
	}
}
