/* SPDX-License-Identifier: MIT */
/* dpkg's rules for conffiles while unpacking: the user's changes kept, and remove-on-upgrade. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive_entry.h>

#include "deb/conffiles.h"
#include "deb/control.h"
#include "util/digest.h"
#include "durable/names.h"
#include "extract/unpack_int.h"
#include "extract/unpackconf.h"

int
unpack_keep_obsolete(struct unpack *u, struct record *rec,
    struct dbp_error *err)
{
	const char *pkg = record_key(rec);
	struct record *old = manifest_installed_record(u->man, pkg);
	struct record_entry c;
	size_t i;
	int r;

	for (i = 0; old != NULL && i < old->n; i++) {
		const struct record_entry *e = &old->v[i];

		/*
		 * Not shipped any more: kept, the package's still (purge
		 * takes it), as dpkg keeps an obsolete conffile; but one
		 * flagged remove-on-upgrade follows its own rule, and one
		 * another package of the run took is that one's.
		 */
		if (!e->conffile || (e->type != 'f' && e->type != 'h') ||
		    record_find(rec, e->path) != NULL ||
		    conffiles_removes(u->conffiles, record_entry_name(e) + 1) ||
		    manifest_other_owner(u->man, e->path, pkg) != NULL)
			continue;
		c = *e;
		c.obsolete = true;
		c.has_md5 = false;
		if ((r = record_add(rec, &c)) != 0)
			return dbp_err(err, -r, e->path + 1, "cannot record");
	}
	return 0;
}

/*
 * Whether NAME in directory DFD is what installed entry E says was
 * installed there.  A package dpkg installed has only the MD5 its status
 * keeps (none: "newconffile", never the same).
 */
static int
unpack_installed_same(struct unpack *u, int dfd, const char *name,
    const struct record_entry *e, bool *same)
{
	uint8_t digest[DIGEST_LEN];
	int r;

	*same = false;
	if (e->type != 'f' && e->type != 'h')
		return 0;
	if (e->sha256_unknown && !e->has_md5)
		return 0;
	if ((r = digest_file_at(e->sha256_unknown ? u->md5 : u->dg, dfd, name,
	    digest)) != 0)
		return r;
	*same = e->sha256_unknown ? memcmp(digest, e->md5,
	    sizeof(e->md5)) == 0 : memcmp(digest, e->sha256,
	    sizeof(e->sha256)) == 0;
	return 0;
}

bool
unpack_is_conffile(const struct unpack *u, const char *path)
{
	return conffiles_has(u->conffiles, path);
}

/* Whether T's NAME.dpkg-new is there (an instance waits to configure). */
static bool
unpack_dpkg_new_there(const struct unpack_target *t)
{
	char aside[NAME_MAX + 1];
	struct stat st;

	if ((size_t)snprintf(aside, sizeof(aside), "%s%s", t->name,
	    NAMES_DPKG_NEW_SUFFIX) >= sizeof(aside))
		return true;
	return fstatat(t->dfd, aside, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/*
 * dpkg's table for a conffile the package is unpacking (unpack_file then
 * applies what it cannot know before the new version's data is read):
 * - not there, and the package had it (its record): the user deleted
 *   it, and it stays deleted; a new version goes beside it as
 *   NAME.debunpack-dist (dpkg's .dpkg-dist, its prompt's default);
 * - not there otherwise: installed;
 * - what the package's record says was installed: replaced as usual;
 * - changed by the user (or there without a record): kept, the new
 *   version made NAME.debunpack-dist;
 * - either way, nothing goes beside the user's if the package's own
 *   version did not change.
 * As dpkg --unpack (unpack_opts' dpkg_new), none of this: the new
 * version goes to NAME.dpkg-new whatever is at NAME (but where another
 * Multi-Arch: same instance shares it: below), and dpkg's --configure,
 * which reads the hash the status carries over, decides with the user
 * (its --force-conf* options) what becomes of both.
 */
int
unpack_conffile(struct unpack *u, struct unpack_target *t,
    struct dbp_error *err)
{
	const struct record_entry *e = NULL;
	char abspath[PATH_MAX + 1];
	const char *suffix, *from = NULL;
	struct stat st;
	size_t len;
	bool same;
	int r;

	t->conf = UNPACK_CONF_PLAIN;
	snprintf(abspath, sizeof(abspath), "/%s", t->path);
	if (u->rec != NULL) {
		from = record_key(u->rec);
		e = manifest_installed_entry(u->man, from, abspath);
	}
	/*
	 * Taken over from another package: what that one installed is
	 * what the user may have changed (dpkg's conffile transfer).
	 */
	if (e == NULL && t->taken && t->taken_entry.conffile) {
		e = &t->taken_entry;
		from = t->taken_from;
	}
	/*
	 * Another Multi-Arch: same instance has it: its hash is the one
	 * dpkg carries over where this one had none (it looks the path up
	 * in its owners, this package first), and the one it judges the
	 * new version by.
	 */
	t->shared_old = t->shared_from != NULL ? manifest_installed_entry(
	    u->man, t->shared_from, abspath) : NULL;
	if (t->shared_old != NULL && !t->shared_old->conffile)
		t->shared_old = NULL;
	if (e == NULL && t->shared_old != NULL) {
		e = t->shared_old;
		from = t->shared_from;
	}
	/*
	 * Another package's conffile of this name that a diversion sent
	 * elsewhere: dpkg finds its hash by the name all the same, and
	 * judges what is at the name (nothing, when dpkg-divert --rename
	 * moved it: deleted by the user) against it.
	 */
	if (e == NULL && u->rec != NULL && dpkgdivert_count(u->divert) > 0) {
		char name[PATH_MAX + 1];
		const char *owner;

		snprintf(name, sizeof(name), "/%s", unpack_shipped(u, t->path));
		if ((e = manifest_diverted_entry(u->man, name, from,
		    &owner)) != NULL)
			from = owner;
	}
	if (e != NULL && !e->conffile)
		e = NULL;	/* a plain file before: no user's copy */
	t->conf_old = e;
	t->conf_from = e != NULL ? from : NULL;
	if (u->opts.dpkg_new) {
		/*
		 * Shared with another instance at this version, the conffile
		 * at its name: dpkg counts one more owner and writes nothing,
		 * if the new version is the one the other's status has
		 * (unpack_conffile_done).  Only at NAME: both unpacked in
		 * one call, each writes NAME.dpkg-new.  And only where the
		 * other is configured: unpacked, dpkg judges by its
		 * NAME.dpkg-new, which this one writes again, the same.
		 */
		t->conf = UNPACK_CONF_DPKG_NEW;
		if (t->shared && t->shared_old != NULL && t->dfd >= 0 &&
		    fstatat(t->dfd, t->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !unpack_dpkg_new_there(t))
			t->conf = UNPACK_CONF_SHARED;
		suffix = NAMES_DPKG_NEW_SUFFIX;
		goto aside;
	}
	/* A dry run's planned directory (no descriptor) holds nothing. */
	if (t->dfd < 0 || fstatat(t->dfd, t->name, &st,
	    AT_SYMLINK_NOFOLLOW) != 0) {
		if ((t->dfd >= 0 && errno != ENOENT) || e == NULL ||
		    (e->type != 'f' && e->type != 'h'))
			return 0;
		/* Deleted: the new version, if new, goes beside it. */
		t->conf = UNPACK_CONF_DELETED;
	} else if (!S_ISREG(st.st_mode))
		return 0;
	else {
		if (e != NULL && (r = unpack_installed_same(u, t->dfd, t->name,
		    e, &same)) != 0)
			return dbp_err(err, -r, t->path,
			    "cannot read conffile");
		if (e != NULL && same) {
			t->conf = UNPACK_CONF_UNCHANGED;
			return 0;
		}
		t->conf = UNPACK_CONF_KEPT;
	}
	suffix = u->opts.dpkg_dist ? NAMES_DPKG_DIST_SUFFIX : NAMES_DIST_SUFFIX;
aside:
	len = strlen(t->path);
	if (len + strlen(suffix) >= sizeof(t->path) ||
	    strlen(t->name) + strlen(suffix) + strlen(NAMES_TMP_SUFFIX) >
	    NAME_MAX)
		return dbp_err(err, ENAMETOOLONG, t->path,
		    "cannot keep the changed conffile");
	/* The record keeps the conffile's path, with the new version's data. */
	memcpy(t->orig, t->path, len + 1);
	t->record_path = t->orig;
	memcpy(t->path + len, suffix, strlen(suffix) + 1);
	t->name = strrchr(t->path, '/') != NULL ? strrchr(t->path, '/') + 1 :
	    t->path;
	if (names_tmp(t->name, &u->tmpseq, t->tmp, sizeof(t->tmp)) != 0)
		return dbp_err(err, ENAMETOOLONG, t->path, "name too long");
	return 0;
}

/*
 * Conffile T stays as the user has it, its new version beside it as
 * T->name (ASIDE) or nowhere: the run holds its path (unpack_held).
 */
static int
unpack_hold(struct unpack *u, const struct unpack_target *t, bool aside,
    struct dbp_error *err)
{
	struct unpack_held *v, *h;
	const char *slash = strrchr(t->orig, '/');

	if ((v = realloc(u->held, (u->nheld + 1) * sizeof(*v))) == NULL)
		return dbp_err(err, ENOMEM, t->orig,
		    "cannot keep the conffile");
	u->held = v;
	h = memset(&v[u->nheld], 0, sizeof(*h));
	h->dir = t->dir;
	h->item = t->item;
	h->pkg = u->pkg;
	h->name = strdup(slash != NULL ? slash + 1 : t->orig);
	h->aside = aside ? strdup(t->name) : NULL;
	if (asprintf(&h->abspath, "/%s", t->orig) < 0)
		h->abspath = NULL;
	if (h->name == NULL || h->abspath == NULL ||
	    (aside && h->aside == NULL)) {
		free(h->name);
		free(h->aside);
		free(h->abspath);
		return dbp_err(err, ENOMEM, t->orig,
		    "cannot keep the conffile");
	}
	u->nheld++;
	return 0;
}

const struct unpack_held *
unpack_held(const struct unpack *u, size_t dir, const char *name)
{
	size_t i;

	for (i = 0; i < u->nheld; i++)
		if (u->held[i].dir == dir && strcmp(u->held[i].name, name) == 0)
			return &u->held[i];
	return NULL;
}

int
unpack_release(struct unpack *u, const struct unpack_held *h,
    struct dbp_error *err)
{
	size_t i = (size_t)(h - u->held);
	int r;

	if (h->aside != NULL) {
		if ((r = syncbatch_drop(u->sb, h->item, err)) != 0)
			return r;
		manifest_forget_path(u->man, h->dir, h->aside);
	}
	free(u->held[i].name);
	free(u->held[i].aside);
	free(u->held[i].abspath);
	u->held[i] = u->held[--u->nheld];
	return 0;
}

void
unpack_held_free(struct unpack *u)
{
	while (u->nheld > 0) {
		u->nheld--;
		free(u->held[u->nheld].name);
		free(u->held[u->nheld].aside);
		free(u->held[u->nheld].abspath);
	}
	free(u->held);
	u->held = NULL;
}

int
unpack_conffile_done(struct unpack *u, struct unpack_target *t,
    const uint8_t digest[DIGEST_LEN], const uint8_t *md5,
    struct dbp_error *err)
{
	const struct record_entry *o = t->conf_old;
	char msg[PATH_MAX + 64];
	bool same;
	int r;

	/* What dpkg installed is known by the MD5 its status keeps. */
	if (o != NULL && o->sha256_unknown)
		same = o->has_md5 && md5 != NULL && memcmp(md5, o->md5,
		    sizeof(o->md5)) == 0;
	else
		same = o != NULL && memcmp(digest, o->sha256, DIGEST_LEN) == 0;
	if (t->conf == UNPACK_CONF_PLAIN)
		return 0;
	/*
	 * Another instance's conffile at this version: the same as the
	 * one its status has, nothing is written (dpkg's refcounting: no
	 * NAME.dpkg-new); else dpkg's refusal, or with --force-overwrite
	 * its warning, and the new version at NAME.dpkg-new.
	 */
	if (t->conf == UNPACK_CONF_SHARED) {
		o = t->shared_old;
		if (o->sha256_unknown)
			same = o->has_md5 && md5 != NULL && memcmp(md5, o->md5,
			    sizeof(o->md5)) == 0;
		else
			same = memcmp(digest, o->sha256, DIGEST_LEN) == 0;
		if (same) {
			if ((r = syncbatch_drop(u->sb, t->item, err)) != 0)
				return r;
			manifest_forget_path(u->man, t->dir, t->name);
			return unpack_hold(u, t, false, err);
		}
		if ((r = unpack_shared_differs(u, t->record_path, err)) != 0)
			return r;
		t->conf = UNPACK_CONF_DPKG_NEW;
	}
	/*
	 * Left at NAME.dpkg-new for dpkg's --configure; NAME is held, so
	 * that a later package of the run that ships it takes its place
	 * (its own .dpkg-new), as with dpkg.
	 */
	if (t->conf == UNPACK_CONF_DPKG_NEW) {
		if (u->opts.plan != NULL)
			u->opts.plan(u->opts.warn_ctx, PLAN_CREATE, t->path,
			    NULL);
		return unpack_hold(u, t, true, err);
	}
	if (t->conf == UNPACK_CONF_UNCHANGED && u->opts.plan != NULL)
		u->opts.plan(u->opts.warn_ctx, same ? PLAN_KEEP_UNCHANGED :
		    PLAN_REPLACE, t->path, NULL);
	if (t->conf == UNPACK_CONF_UNCHANGED && !same)
		return 0;
	/*
	 * Neither the user nor the package changed it: dpkg's configure
	 * keeps the file as it is (its time, its mode) and drops the new
	 * copy, so the run does not write it either.  The conffile is then
	 * held as a kept one is, its path the record's still.
	 */
	if (t->conf == UNPACK_CONF_UNCHANGED) {
		memcpy(t->orig, t->path, strlen(t->path) + 1);
		if ((r = syncbatch_drop(u->sb, t->item, err)) != 0)
			return r;
		manifest_forget_path(u->man, t->dir, t->name);
		return unpack_hold(u, t, false, err);
	}
	/* Its verdict now that the run knows whether anything goes beside. */
	if (u->opts.plan != NULL)
		u->opts.plan(u->opts.warn_ctx, t->conf == UNPACK_CONF_KEPT ?
		    PLAN_KEEP_CONFFILE : PLAN_KEEP_DELETED, t->record_path,
		    same ? NULL : t->path);
	if (!same) {
		if (u->opts.warn != NULL) {
			if (snprintf(msg, sizeof(msg), "%s since it was"
			    " installed: %s, the new version is '%s'",
			    t->conf == UNPACK_CONF_KEPT ? "changed" : "deleted",
			    t->conf == UNPACK_CONF_KEPT ? "kept" :
			    "not brought back", t->name) >= (int)sizeof(msg))
				msg[sizeof(msg) - 1] = '\0';
			u->opts.warn(u->opts.warn_ctx, t->record_path, msg);
		}
		return unpack_hold(u, t, true, err);
	}
	/*
	 * The package's version is the one installed before (a reinstall,
	 * or an upgrade that left it): the user's change or deletion stands
	 * and, as with dpkg, nothing goes beside it.
	 */
	if ((r = syncbatch_drop(u->sb, t->item, err)) != 0)
		return r;
	manifest_forget_path(u->man, t->dir, t->name);
	return unpack_hold(u, t, false, err);
}

/*
 * Conffile PATH, which package PKG flags remove-on-upgrade (see
 * unpack_remove_on_upgrade).
 */
static int
unpack_rm_one(struct unpack *u, const char *pkg, const char *path,
    struct obsolete *ob, struct dbp_error *err)
{
	static const char old_suffix[] = ".dpkg-old";
	const struct record_entry *e;
	struct unpack_target t;
	char parent[PATH_MAX], abspath[PATH_MAX + 1], name[NAME_MAX + 1];
	char msg[NAME_MAX + 96];
	const char *base;
	struct stat st;
	size_t len = strlen(path);
	bool same;
	int tries, r;

	snprintf(abspath, sizeof(abspath), "/%s", path);
	if (manifest_other_owner(u->man, abspath, pkg) != NULL ||
	    len + sizeof(old_suffix) > sizeof(t.path))
		return 0;
	memset(&t, 0, sizeof(t));
	memcpy(t.path, path, len + 1);
	unpack_split(t.path, parent, &base);
	if (strlen(base) >= sizeof(name))
		return 0;
	memcpy(name, base, strlen(base) + 1);
	/* No directory, nothing in it; or the run puts a file there. */
	if (dirs_get(u->dirs, parent, false, 0, &t.dir, NULL) != 0 ||
	    (t.dfd = dirs_fd(u->dirs, t.dir)) < 0 ||
	    manifest_find(u->man, t.dir, name) != NULL ||
	    fstatat(t.dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISREG(st.st_mode))
		return 0;
	e = manifest_installed_entry(u->man, pkg, abspath);
	if (e != NULL) {
		/* Another type than the record's: the old paths' rule keeps it. */
		if (e->type != 'f' && e->type != 'h')
			return 0;
		if ((r = unpack_installed_same(u, t.dfd, name, e, &same)) != 0)
			return dbp_err(err, -r, path, "cannot read conffile");
		/* Unchanged: it goes with the old version's other paths. */
		if (same)
			return 0;
	}
	/* Changed since, or there without a record: kept aside, as dpkg. */
	memcpy(t.path + len, old_suffix, sizeof(old_suffix));
	t.record_path = t.path;
	t.name = base;	/* now NAME.dpkg-old, in t.path */
	if (strlen(t.name) > NAME_MAX ||
	    names_tmp(t.name, &u->tmpseq, t.tmp, sizeof(t.tmp)) != 0)
		return dbp_err(err, ENAMETOOLONG, path,
		    "cannot keep the changed conffile");
	if (fstatat(t.dfd, t.name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode))
			return dbp_err(err, EISDIR, t.path, "cannot keep the"
			    " changed conffile '%s' there", name);
		t.existed = true;
	}
	for (tries = 0, r = 0; !u->opts.nowrite; tries++) {
		r = linkat(t.dfd, name, t.dfd, t.tmp, 0);
		if (r == 0 || !unpack_stale(&t, tries))
			break;
	}
	if (r != 0)
		return dbp_err(err, errno, t.path, "cannot link");
	if ((r = unpack_register(u, &t, AE_IFREG, err)) != 0)
		return r;
	if (e == NULL && (r = obsolete_add(ob, abspath)) != 0)
		return dbp_err(err, -r, path, "cannot plan removal");
	if (snprintf(msg, sizeof(msg), "no longer in the package and changed"
	    " since it was installed: kept as '%s'", t.name) >=
	    (int)sizeof(msg))
		msg[sizeof(msg) - 1] = '\0';
	if (u->opts.warn != NULL)
		u->opts.warn(u->opts.warn_ctx, path, msg);
	return 0;
}

int
unpack_remove_on_upgrade(struct unpack *u, const struct record *rec,
    struct obsolete *ob, struct dbp_error *err)
{
	const char *pkg = record_key(rec);
	size_t i;
	int r;

	for (i = 0; i < conffiles_nremove(u->conffiles); i++)
		if ((r = unpack_rm_one(u, pkg, conffiles_remove_at(u->conffiles,
		    i), ob, err)) != 0)
			return r;
	return 0;
}
