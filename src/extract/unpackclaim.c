/* SPDX-License-Identifier: MIT */
/* Whose a non-directory path is when another package has it: dpkg's judgment of file conflicts. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/dpkgarch.h"
#include "db/dpkgstatus.h"
#include "db/replaces.h"
#include "db/version.h"
#include "util/digest.h"
#include "util/escape.h"
#include "extract/unpack_int.h"

/* Whether ORE keeps ABSPATH only as an obsolete conffile. */
static bool
unpack_obsolete_at(const struct record *orec, const char *abspath)
{
	const struct record_entry *oe = record_find((struct record *)orec,
	    abspath);

	return oe != NULL && oe->obsolete;
}

/* Whether package NAME goes in favour of the run's after it. */
static bool
unpack_removing(const struct unpack *u, const char *name)
{
	size_t i;

	for (i = 0; i < u->opts.nremoving; i++)
		if (strcmp(u->opts.removing[i], name) == 0)
			return true;
	return false;
}

/* Whether record REC (may be NULL) has ABSPATH as a conffile. */
static bool
unpack_conf_of(struct record *rec, const char *abspath)
{
	const struct record_entry *e = rec != NULL ? record_find(rec,
	    abspath) : NULL;

	return e != NULL && e->conffile;
}

/*
 * What the installed version of package FROM (its record OREC, or NULL)
 * had at ABSPATH, for the conffile rules: the path is taken over.
 */
static void
unpack_taken(struct unpack_target *t, const struct record *orec,
    const char *from, const char *abspath)
{
	const struct record_entry *oe = orec != NULL ?
	    record_find((struct record *)orec, abspath) : NULL;

	t->taken = true;
	t->taken_from = from;
	memset(&t->taken_entry, 0, sizeof(t->taken_entry));
	if (oe == NULL || (oe->type != 'f' && oe->type != 'h'))
		return;
	t->taken_entry = *oe;
	t->taken_entry.path = NULL;
	t->taken_entry.target = NULL;
	t->taken_entry.divert_from = NULL;
}

/*
 * Taken from a package of this run, earlier, whose new version (its
 * record OREC) has THEIRS as a conffile: nothing of that version reaches
 * the root there (this package's entry replaces its temporary, or it
 * stayed beside the user's file), so what is there is still what the
 * conffile's owner before the run installed, perhaps changed by the
 * user.  It is judged against that, as dpkg carries the old conffile's
 * hash over to the new version and from it to the package that takes
 * the path.
 */
static void
unpack_taken_run(struct unpack *u, struct unpack_target *t,
    struct record *orec, const char *theirs)
{
	const struct record_entry *oe = record_find(orec, theirs);
	const char *from;

	if (oe == NULL || !oe->conffile || (from = oe->conf_from) == NULL) {
		unpack_taken(t, NULL, NULL, theirs);
		return;
	}
	unpack_taken(t, manifest_installed_record(u->man, from), from, theirs);
}

/* Whether A and B are two Multi-Arch: same instances of one package. */
static bool
unpack_instances(const struct record *a, const struct record *b)
{
	return control_get(a->ctl, "Architecture") != NULL &&
	    dpkgstatus_ma_same(control_get(a->ctl, "Multi-Arch")) &&
	    dpkgarch_other(control_get(b->ctl, "Package"), control_get(b->ctl,
	    "Architecture"), control_get(b->ctl, "Multi-Arch"), a->ctl);
}

int
unpack_shared_check(struct unpack *u, const struct unpack_target *t,
    mode_t kind, const uint8_t *digest, const char *target, dev_t rdev,
    struct dbp_error *err)
{
	uint8_t there[DIGEST_LEN];
	char link[PATH_MAX];
	struct stat st;
	ssize_t n;
	bool same;
	int r;

	/* A shared conffile is judged by its hash (unpack_conffile_done). */
	if (!t->shared || u->opts.nowrite || t->conf == UNPACK_CONF_SHARED)
		return 0;
	if (fstatat(t->dfd, t->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : dbp_err(err, errno, t->path,
		    "cannot check the shared path");
	if ((st.st_mode & S_IFMT) != kind)
		same = false;
	else if (kind == S_IFLNK)
		same = (n = readlinkat(t->dfd, t->name, link,
		    sizeof(link) - 1)) >= 0 && (link[n] = '\0',
		    strcmp(link, target) == 0);
	else if (kind == S_IFCHR || kind == S_IFBLK)
		same = st.st_rdev == rdev;
	else if (kind != S_IFREG)
		same = true;
	else if ((r = digest_file_at(u->dg, t->dfd, t->name, there)) != 0)
		return dbp_err(err, -r, t->path, "cannot check the shared"
		    " path");
	else
		same = memcmp(there, digest, DIGEST_LEN) == 0;
	if (same)
		return 0;
	return unpack_shared_differs(u, t->path, err);
}

int
unpack_shared_differs(struct unpack *u, const char *path,
    struct dbp_error *err)
{
	char abspath[PATH_MAX + 1], msg[PATH_MAX + 600], shown[PATH_MAX + 16];
	char *name;

	if ((name = dpkgstatus_infoname(control_get(u->rec->ctl, "Package"),
	    control_get(u->rec->ctl, "Architecture"), control_get(u->rec->ctl,
	    "Multi-Arch"))) == NULL)
		return dbp_err(err, ENOMEM, path, "cannot judge");
	/* dpkg's words, its text naming the path. */
	snprintf(abspath, sizeof(abspath), "/%s", path);
	snprintf(msg, sizeof(msg), "trying to overwrite shared '%s', which is"
	    " different from other instances of package %s", escape_name(
	    abspath, shown, sizeof(shown)), name);
	free(name);
	if (!u->opts.force_overwrite)
		return dbp_err(err, 0, "", "%s", msg);
	if (u->opts.warn != NULL)
		u->opts.warn(u->opts.warn_ctx, path, msg);
	return 0;
}

/*
 * A non-directory path that another package has, installed (by its
 * record) or earlier in this run (E; or H, a conffile it left as the
 * user has it), as dpkg judges it: the owner's version staged earlier in
 * this run no longer has it, no conflict; the owner replaces this
 * package, the path stays the owner's (1: leave the entry); this package
 * replaces the owner, or --force-overwrite (with a warning), it changes
 * owner; else an error.
 */
int
unpack_conflict(struct unpack *u, struct unpack_target *t,
    const struct manifest_entry *e, const struct unpack_held *h,
    struct dbp_error *err)
{
	const char *self, *other = NULL;
	const struct record_entry *oe;
	struct record *orec;
	char abspath[PATH_MAX + 1], theirs[PATH_MAX + 1], msg[PATH_MAX + 600];
	bool installed = false, replaced, gone = false;
	unsigned opkg = 0;
	int r;

	t->taken = false;
	t->shared = false;
	t->shared_from = NULL;
	if (u->rec == NULL)
		return 0;
	self = record_key(u->rec);
	snprintf(abspath, sizeof(abspath), "/%s", t->path);
	if ((e != NULL && e->pkg != u->pkg) ||
	    (h != NULL && h->pkg != u->pkg)) {
		opkg = e != NULL ? e->pkg : h->pkg;
		other = manifest_run_name(u->man, opkg);
		orec = manifest_staged(u->man, opkg);
		/*
		 * Its record lists the path as it spelled it (merged /usr:
		 * "bin/x" for this package's "usr/bin/x"), which its
		 * temporary's item, or the held conffile, kept.
		 */
		if (e != NULL)
			snprintf(theirs, sizeof(theirs), "/%s",
			    syncbatch_path(u->sb, e->item));
		else
			snprintf(theirs, sizeof(theirs), "%s", h->abspath);
	} else {
		other = manifest_owner(u->man, abspath, self);
		installed = other != NULL;
		orec = installed ? manifest_installed_record(u->man, other) :
		    NULL;
		/*
		 * Its owner is upgraded by this run, earlier, to a version
		 * without it: judged against the new version, as dpkg does.
		 */
		if (installed && manifest_staged_lacks(u->man, other, abspath)) {
			if (t->judge_only)
				return 0;
			unpack_taken(t, orec, unpack_conf_of(orec, abspath) ?
			    other : NULL, abspath);
			manifest_lost(u->man, other);
			return 0;
		}
	}
	/* Its own path (the same package twice in a run is refused). */
	if (other == NULL || strcmp(other, self) == 0)
		return 0;
	/*
	 * Another Multi-Arch: same instance of this package, installed: the
	 * path is both instances' (dpkg counts its owners).  At this one's
	 * version, what this one writes must be what is there, checked once
	 * written; at another (the instances get out of step, the other one
	 * deconfigured until its own upgrade), it is written over.
	 */
	if (installed && orec != NULL && unpack_instances(u->rec, orec)) {
		t->shared_from = other;
		t->shared = control_get(orec->ctl, "Version") != NULL &&
		    control_get(u->rec->ctl, "Version") != NULL &&
		    version_cmp(control_get(orec->ctl, "Version"),
		    control_get(u->rec->ctl, "Version")) == 0;
		return 0;
	}
	/*
	 * A path a diversion sent here is judged by the name its package
	 * ships, as dpkg judges it: what another package has here under
	 * its own name is no conflict, and dpkg writes over it without a
	 * word (the other keeps listing it).  Said here.
	 */
	if (u->from[0] != '\0' && orec != NULL &&
	    (oe = record_find(orec, installed ? abspath : theirs)) != NULL &&
	    oe->divert_from == NULL) {
		snprintf(msg, sizeof(msg), "written over the file of package"
		    " '%s': a diversion sends '/%s' there", other, u->from);
		if (u->opts.warn != NULL)
			u->opts.warn(u->opts.warn_ctx, t->path, msg);
		return 0;
	}
	/*
	 * Its owner goes in favour of this package after the run, or only
	 * its conffiles are left: dpkg takes the path without a word.
	 */
	if (orec != NULL && installed && (record_config_files(orec) ||
	    unpack_removing(u, other)))
		gone = true;

	/* The owner replaces this package: the path stays the owner's. */
	if (!gone && orec != NULL && replaces_pkg(orec->ctl, self,
	    control_get(u->rec->ctl, "Version"))) {
		if (u->opts.plan != NULL)
			u->opts.plan(u->opts.warn_ctx, PLAN_KEEP_OWNED, t->path,
			    other);
		/*
		 * dpkg's status keeps such a conffile, obsolete, with the
		 * hash the owner has for it.
		 */
		if (unpack_is_conffile(u, unpack_shipped(u, t->path)) &&
		    (r = record_add_kept(u->rec, abspath, other)) != 0)
			return dbp_err(err, -r, t->path, "cannot record");
		return 1;
	}
	/*
	 * This package replaces the owner (Replaces: OTHER [(OP V)]), or the
	 * owner keeps it only as an obsolete conffile, or has only its
	 * conffiles left (removed, not purged), which dpkg lets go.
	 */
	replaced = gone || (orec != NULL && (replaces_pkg(u->rec->ctl, other,
	    control_get(orec->ctl, "Version")) || (installed &&
	    unpack_obsolete_at(orec, abspath))));
	if (u->opts.dpkg_words) {
		char shown[PATH_MAX + 16], shipped[PATH_MAX + 2], *name = NULL;

		/* dpkg names the path as the package ships it. */
		if (u->from[0] != '\0')
			snprintf(shipped, sizeof(shipped), "/%s", u->from);
		/* And a Multi-Arch: same owner as NAME:ARCH. */
		if (orec != NULL && control_get(orec->ctl, "Package") != NULL &&
		    (name = dpkgstatus_infoname(control_get(orec->ctl,
		    "Package"), control_get(orec->ctl, "Architecture"),
		    control_get(orec->ctl, "Multi-Arch"))) == NULL)
			return dbp_err(err, ENOMEM, t->path, "cannot judge");
		snprintf(msg, sizeof(msg), "trying to overwrite '%s', which is"
		    " also in package %s %s", escape_name(u->from[0] != '\0' ?
		    shipped : abspath, shown, sizeof(shown)), name != NULL ?
		    name : other, orec != NULL &&
		    control_get(orec->ctl, "Version") != NULL ?
		    control_get(orec->ctl, "Version") : "");
		free(name);
		/* dpkg's text names the path: no "'PATH': " before it. */
		if (!u->opts.force_overwrite && !replaced)
			return dbp_err(err, 0, "", "%s", msg);
	} else if (!u->opts.force_overwrite && !replaced)
		return dbp_err(err, 0, t->path, "also in package '%s'"
		    " (--force-overwrite takes it over)", other);
	else
		snprintf(msg, sizeof(msg), "taken over from package '%s'",
		    other);
	if (!replaced && u->opts.warn != NULL)
		u->opts.warn(u->opts.warn_ctx, t->path, msg);
	if (t->judge_only)
		return 0;
	if (installed) {
		unpack_taken(t, orec, unpack_conf_of(orec, abspath) ? other :
		    NULL, abspath);
		if ((r = manifest_disown(u->man, other, abspath)) != 0)
			return dbp_err(err, -r, t->path, "cannot update the"
			    " record of '%s'", other);
		return 0;
	}
	/* An earlier package of this run: its record is not written yet. */
	unpack_taken_run(u, t, orec, theirs);
	if ((r = manifest_disown_staged(u->man, opkg, theirs)) != 0)
		return dbp_err(err, -r, t->path, "cannot update the record of"
		    " '%s'", other);
	return 0;
}
