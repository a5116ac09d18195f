/* SPDX-License-Identifier: MIT */
/* dpkg's database: dpkgdb_prepare, the steps that write it, in their order. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "db/dpkgdb.h"
#include "db/dpkgdb_int.h"
#include "durable/dirs.h"

/* Make DIR (root-relative) if missing, as part of the batch. */
static int
dpkgdb_dir(struct dpkgdb *db, const char *dir, size_t *idx,
    struct dbp_error *err)
{
	return dirs_get(db->dirs, dir, true, 0755, idx, err);
}

/* var/lib/dpkg, its info/ and updates/, made if missing. */
static int
dpkgdb_prepare_dirs(struct dpkgdb *db, struct dbp_error *err)
{
	size_t uidx;
	int r, fd;

	if ((r = dpkgdb_dir(db, DPKGDB_DIR, &db->didx, err)) != 0 ||
	    (r = dpkgdb_dir(db, DPKGDB_DIR "/info", &db->infoidx, err)) != 0 ||
	    (r = dpkgdb_dir(db, DPKGDB_DIR "/updates", &uidx, err)) != 0)
		return r;
	/*
	 * A dry run's new database is only planned: nothing in it yet.  The
	 * cause is the one dirs_fd met: the journal's line for the
	 * directory may have failed to reach the disk (a full one).
	 */
	if (!db->plan && ((fd = dirs_fd(db->dirs, db->didx)) < 0 ||
	    (fd = dirs_fd(db->dirs, db->infoidx)) < 0))
		return dbp_err(err, -fd, DPKGDB_DIR, "cannot open directory");
	return 0;
}

/* A package's stanza, info files and list, in that order. */
static int
dpkgdb_prepare_package(struct dpkgdb *db, struct dpkgdb_new *p,
    struct dbp_error *err)
{
	int r;

	if (p->whole)
		return 0;	/* nothing of it stays */
	if ((r = dpkgdb_make_stanza(p, err)) != 0 ||
	    (r = dpkgdb_put_info(db, p, err)) != 0)
		return r;
	return dpkgdb_put_list(db, p, err);
}

/* The stanzas held back (dpkgdb_set_pending): the new ones kept aside. */
static int
dpkgdb_hold_back(struct dpkgdb *db, struct dbp_error *err)
{
	struct dpkgdb_new *p;
	char *now;
	size_t i;

	for (i = 0; i < db->nrun; i++) {
		p = &db->run[i];
		if (p->pend == NULL || p->whole || p->removal)
			continue;
		if ((now = strdup(p->pend->now)) == NULL)
			return dbp_err(err, ENOMEM, DPKGDB_DIR "/status",
			    "cannot write");
		free(p->pend->held);
		p->pend->held = p->stanza;
		p->stanza = now;
		p->stanza_len = strlen(now);
	}
	return 0;
}

/*
 * The steps give their files to the batch in this order, which is the
 * order of the renames at the commit: each package's info files and
 * list, the lists of the packages that gave paths up, the triggers, then
 * the status, after the files its stanzas name; what a database dpkg
 * did not make lacks comes last.
 */
int
dpkgdb_prepare(struct dpkgdb *db, struct dbp_error *err)
{
	size_t i;
	int r;

	if ((r = dpkgdb_prepare_dirs(db, err)) != 0)
		return r;
	for (i = 0; i < db->nrun; i++)
		if ((r = dpkgdb_prepare_package(db, &db->run[i], err)) != 0)
			return r;
	if ((r = dpkgdb_disowned(db, err)) != 0 ||
	    (r = dpkgdb_find_gone(db, err)) != 0 ||
	    (r = dpkgdb_triggers(db, err)) != 0 ||
	    (r = dpkgdb_hold_back(db, err)) != 0 ||
	    (r = dpkgdb_put_status(db, err)) != 0 ||
	    (r = dpkgdb_put_format(db, err)) != 0 ||
	    (r = dpkgdb_put_locks(db, err)) != 0)
		return r;
	return 0;
}

