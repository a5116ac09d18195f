/* SPDX-License-Identifier: MIT */
/* installdb: the admin directory and dpkg's database made ready around a run. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "db/admin.h"
#include "db/dpkgstatov.h"
#include "db/record.h"
#include "deb/control.h"
#include "durable/dirs.h"
#include "durable/recover.h"
#include "durable/users.h"
#include "manifest.h"
#include "run/install.h"
#include "run/install_int.h"
#include "run/query.h"
#include "unpack.h"

/*
 * Attach the admin directory: the one the options name, which must
 * exist, or ROOT/ADMIN_DIR_DEFAULT, created inside the root as part of the
 * batch (so that a failed run removes it again).
 */
int
install_admindir(const struct install_opts *o, const struct rootfs *rf,
    struct dirs *dirs, struct syncbatch *sb, struct manifest *man,
    struct stats *st, struct dbp_error *err)
{
	size_t idx;
	int fd, r;

	if (o->admindir != NULL) {
		if ((fd = admin_open(o->admindir, rf)) < 0)
			return dbp_err(err, -fd, o->admindir,
			    "cannot open admin directory");
		r = manifest_admin(man, fd, o->admindir, rf->openat2, sb, st,
		    err);
		close(fd);
		return r;
	}
	if ((r = dirs_get(dirs, ADMIN_DIR_DEFAULT, true, 0755, &idx, err)) != 0)
		return r;
	/* Whatever path leads a package there: one directory, one index. */
	dirs_mark(dirs, idx, DIR_SEALED);
	/* A dry run's, planned: no records yet, none installed. */
	if (dirs_flags(dirs, idx) & DIR_PLANNED)
		return 0;
	if ((fd = dirs_fd(dirs, idx)) < 0)
		return dbp_err(err, -fd, ADMIN_DIR_DEFAULT,
		    "cannot open admin directory");
	return manifest_admin(man, fd, ADMIN_DIR_DEFAULT, rf->openat2, sb, st,
	    err);
}

int
install_recover(const struct install_opts *o, const struct rootfs *rf,
    bool lock, struct dbp_error *err)
{
	struct recover_result res;
	int r;

	r = admin_recover(o->admindir, rf, lock, &res, err);
	if (r == 0 && res.found) {
		struct install_note n = { .event = INSTALL_REPAIRED,
		    .repair = &res };

		install_say(o, &n);
	}
	return r;
}

/*
 * Whether record R no longer stands: dpkg's verdict (admin.h), or its
 * package is one dpkg had not installed before the call (o->fresh).
 */
static bool
install_is_stale(void *ctx, const struct record *r, const char **what)
{
	struct install *in = ctx;
	size_t i;

	for (i = 0; r->dpkg_db && i < in->o->nfresh; i++)
		if (strcmp(in->o->fresh[i], control_get(r->ctl,
		    "Package")) == 0) {
			*what = "purged";
			return true;
		}
	return admin_view_stale(&in->view, r, what);
}

/*
 * Records of packages dpkg removed, purged or replaced since debunpack
 * installed them (dpkg's database is the authority where it is kept):
 * read as none, and dropped by the run, each told.
 */
int
install_stale(struct install *in, struct dbp_error *err)
{
	int r;

	if ((r = admin_view_open(&in->view, in->o->admindir, &in->rf,
	    err)) != 0)
		return r;
	manifest_set_stale(in->man, install_is_stale, in, true);
	/* What dpkg installed is installed: the run acts on it as on its own. */
	if (in->o->dpkg_db) {
		manifest_set_dpkg_db(in->man);
		manifest_set_adopt(in->man, admin_view_adopt, &in->view,
		    &in->rf);
	}
	return 0;
}

/*
 * A dry run on a root whose last run awaits its repair: the repair would
 * change files (old versions back, or the old paths gone) that the plan
 * judges, and a dry run repairs nothing, so it cannot say what the run
 * would do.
 */
int
install_no_pending(struct install *in, struct dbp_error *err)
{
	if (!in->view.pending.found)
		return 0;
	return dbp_err(err, 0, admin_name(in->o->admindir), "an interrupted"
	    " run awaits its repair, which a dry run does not make:"
	    " 'debunpack --recover' repairs it");
}

/*
 * Where dpkg's database is kept, its diversions are honoured as dpkg
 * honours them: the run's packages are extracted through them, and the
 * installed records read where they send their paths now.
 */
int
install_diversions(struct install *in, struct dbp_error *err)
{
	int r;

	if (!in->o->dpkg_db)
		return 0;
	if ((r = query_diversions(&in->rf, &in->divert, err)) != 0)
		return r;
	manifest_set_divert(in->man, in->divert);
	unpack_set_diversions(in->u, in->divert);
	return 0;
}

/*
 * dpkg-statoverride's overrides, applied where dpkg's database is kept,
 * their names resolved in the root's passwd and group (read for them
 * alone when the run does not chown: the mode applies all the same).
 */
int
install_statoverrides(struct install *in, struct dbp_error *err)
{
	struct users *own = NULL;
	int r;

	if (!in->o->dpkg_db)
		return 0;
	if (in->users == NULL && (r = users_load(&own, &in->rf)) != 0)
		return dbp_err(err, -r, "etc/passwd", "cannot read users");
	r = dpkgstatov_load(&in->statov, &in->rf, in->users != NULL ?
	    in->users : own, err);
	users_free(own);
	if (r == 0)
		unpack_set_statoverrides(in->u, in->statov);
	return r;
}

/* Tell the records install_stale found stale, once the run dropped them. */
void
install_tell_stale(struct install *in)
{
	struct install_note n = { .event = INSTALL_STALE };
	size_t i;

	for (i = 0; i < manifest_nforgotten(in->man); i++) {
		n.name = manifest_forgotten(in->man, i, &n.msg);
		install_say(in->o, &n);
	}
}
