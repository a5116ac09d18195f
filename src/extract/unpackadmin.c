/* SPDX-License-Identifier: MIT */
/* What the administrator's settings change for an entry: dpkg-divert's diversions, dpkg-statoverride's overrides, the path filters. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <archive_entry.h>

#include "durable/names.h"
#include "unpack.h"
#include "extract/unpack_int.h"

void
unpack_set_diversions(struct unpack *u, const struct dpkgdivert *d)
{
	u->divert = d;
}

/*
 * Send root-relative PATH (a buffer of N) where the diversions put it
 * for the package being extracted, keeping its own name in U->from, as
 * dpkg's unpack uses the diverted name for the file and the package's
 * name for its file list.  What a diversion's new name is, no package
 * may ship (dpkg's --force-overwrite-diverted, which is not offered).
 */
int
unpack_divert(struct unpack *u, char *path, size_t n, bool check,
    struct dbp_error *err)
{
	const struct dpkgdivert_entry *d;
	char abspath[PATH_MAX + 1];
	const char *where;

	u->from[0] = '\0';
	if (dpkgdivert_count(u->divert) == 0 || u->rec == NULL)
		return 0;
	snprintf(abspath, sizeof(abspath), "/%s", path);
	/* dpkg's text names the path: no "'PATH': " before it. */
	if (check && (d = dpkgdivert_to(u->divert, abspath)) != NULL) {
		if (d->pkg != NULL)
			return dbp_err(err, 0, "", "trying to overwrite"
			    " '%s', which is the diverted version of '%s'"
			    " (package: %s)", abspath, d->from, d->pkg);
		return dbp_err(err, 0, "", "trying to overwrite '%s', which"
		    " is the diverted version of '%s'", abspath, d->from);
	}
	where = dpkgdivert_use(u->divert, abspath, control_get(u->rec->ctl,
	    "Package"));
	if (where == abspath)
		return 0;
	snprintf(u->from, sizeof(u->from), "%s", path);
	return names_path(where, path, n, err);
}

void
unpack_set_statoverrides(struct unpack *u, const struct dpkgstatov *s)
{
	u->statov = s;
}

/*
 * dpkg-statoverride's owner and mode for the current entry, looked up by
 * the package's name for it (dpkg keys overrides by the file list's
 * node, not the diverted one): on the entry itself, so that what is made
 * and what is recorded agree.  A symlink takes the owner alone, as dpkg
 * gives it (lchown).  A hardlink's goes on the inode it shares with its
 * target, as dpkg sets it there (unpack_hardlink).
 */
bool
unpack_statoverride(struct unpack *u, struct archive_entry *ae,
    const char *path)
{
	const struct dpkgstatov_entry *so;
	char abspath[PATH_MAX + 1];

	if (dpkgstatov_count(u->statov) == 0)
		return false;
	snprintf(abspath, sizeof(abspath), "/%s", unpack_shipped(u, path));
	if ((so = dpkgstatov_find(u->statov, abspath)) == NULL)
		return false;
	u->uid = so->uid;
	u->gid = so->gid;
	if (archive_entry_filetype(ae) != AE_IFLNK)
		archive_entry_set_perm(ae, so->mode);
	return true;
}

void
unpack_set_filters(struct unpack *u, const struct pathfilter *f)
{
	u->filter = f;
}

/*
 * Whether the filters leave the current entry out, by the package's name
 * for PATH, as dpkg matches the archive's name; if so it is noted for
 * dpkg's file list, and its data, if any, is skipped with the entry.
 */
int
unpack_filtered(struct unpack *u, struct archive_entry *ae, const char *path,
    bool *out, struct dbp_error *err)
{
	unsigned type = archive_entry_filetype(ae);
	char abspath[PATH_MAX + 1], kind;
	int r;

	*out = false;
	if (pathfilter_count(u->filter) == 0 || path[0] == '\0')
		return 0;
	snprintf(abspath, sizeof(abspath), "/%s", unpack_shipped(u, path));
	if (archive_entry_hardlink(ae) != NULL)
		kind = 'h';
	else
		kind = type == AE_IFDIR ? 'd' : type == AE_IFLNK ? 'l' :
		    type == AE_IFCHR ? 'c' : type == AE_IFBLK ? 'b' :
		    type == AE_IFIFO ? 'p' : 'f';
	if (!pathfilter_skip(u->filter, abspath, kind == 'd' || kind == 'l'))
		return 0;
	*out = true;
	/*
	 * dpkg judges whose the path is before it leaves it out: another
	 * package's file there is a conflict as for any entry, or stays the
	 * other's (1: then this package does not list it); taken over
	 * (Replaces, --force-overwrite) both list it, as nothing of it is
	 * written.  Installed packages' paths; a directory is anyone's.
	 */
	if (kind != 'd' && u->rec != NULL) {
		struct unpack_target t;

		memset(&t, 0, sizeof(t));
		snprintf(t.path, sizeof(t.path), "%s", path);
		t.judge_only = true;
		if ((r = unpack_conflict(u, &t, NULL, NULL, err)) != 0)
			return r > 0 ? 0 : r;
	}
	if (u->rec != NULL && (r = record_add_filtered(u->rec, abspath,
	    kind)) != 0)
		return dbp_err(err, -r, path, "cannot record");
	return 0;
}
