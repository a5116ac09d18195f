/* SPDX-License-Identifier: MIT */
/* Merged /usr for a new root: bin, sbin, lib... as links into usr/. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deb/control.h"
#include "deb/deb.h"
#include "durable/journal.h"
#include "run/usrmerge.h"

/*
 * Since Debian bookworm only merged-/usr systems are supported, yet no
 * package ships the links: debootstrap and mmdebstrap make them before
 * extracting, and so does this.  They must exist before the first entry
 * under bin/ is extracted, or it would make a directory there.
 */

/* The library directories usrmerge's convert-usrmerge links per architecture. */
static const struct {
	const char *arch;
	const char *dirs[3];
} usrmerge_libdirs[] = {
	{ "amd64",	{ "lib32", "lib64", "libx32" } },
	{ "i386",	{ "lib64", "libx32", NULL } },
	{ "mips64el",	{ "lib32", "lib64", "libo32" } },
	{ "mipsel",	{ "lib64", "libo32", NULL } },
	{ "powerpc",	{ "lib64", NULL, NULL } },
	{ "ppc64",	{ "lib32", "lib64", NULL } },
	{ "ppc64el",	{ "lib64", NULL, NULL } },
	{ "s390x",	{ "lib32", NULL, NULL } },
	{ "sparc64",	{ "lib32", "lib64", NULL } },
	{ "x32",	{ "lib32", "lib64", "libx32" } },
};

static bool
usrmerge_missing(int rootfd, const char *name)
{
	struct stat st;

	return fstatat(rootfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 &&
	    errno == ENOENT;
}

/* Whether package CTL says the release has merged /usr. */
static bool
usrmerge_release(const struct control *ctl)
{
	const char *name = control_get(ctl, "Package");
	const char *v = control_get(ctl, "Version"), *colon;

	if (name == NULL || v == NULL)
		return false;
	if (strcmp(name, "usr-is-merged") == 0)
		return true;
	if (strcmp(name, "base-files") != 0)
		return false;
	if ((colon = strchr(v, ':')) != NULL)
		v = colon + 1;
	return atoi(v) >= 12;
}

int
usrmerge_wanted(enum usrmerge_mode mode, int rootfd, char *const *files,
    size_t n, bool *want, const char **arch, struct dbp_error *err)
{
	static const char *const top[] = { "bin", "sbin", "lib", "usr" };
	struct control *ctl;
	struct deb *d;
	bool merged = false;
	size_t i;
	int r;

	*want = false;
	*arch = NULL;
	if (mode == USRMERGE_NO)
		return 0;
	for (i = 0; i < 4; i++)
		if (!usrmerge_missing(rootfd, top[i]))
			break;
	if (mode == USRMERGE_AUTO && i < 4)
		return 0;	/* not a new root: it is what it is */
	/*
	 * Read the control files ahead of the extraction: a few KiB each.
	 * Not of a pipe, which cannot be read twice: it does not count.
	 */
	for (i = 0; i < n; i++) {
		struct stat st;

		if (stat(files[i], &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if ((r = deb_open(&d, files[i], err)) != 0) {
			dbp_err_pkg(err, files[i]);
			return r;
		}
		if ((r = deb_read_control(d, &ctl, err)) != 0) {
			dbp_err_pkg(err, files[i]);
			deb_close(d);
			return r;
		}
		merged |= usrmerge_release(ctl);
		if (*arch == NULL) {
			const char *a = control_get(ctl, "Architecture");
			size_t k;

			for (k = 0; a != NULL && k < sizeof(usrmerge_libdirs) /
			    sizeof(usrmerge_libdirs[0]); k++)
				if (strcmp(a, usrmerge_libdirs[k].arch) == 0)
					*arch = usrmerge_libdirs[k].arch;
		}
		control_free(ctl);
		deb_close(d);
	}
	*want = mode == USRMERGE_YES || merged;
	return 0;
}

/* Make usr/NAME and NAME -> usr/NAME, unless NAME is there. */
static int
usrmerge_one(struct usrmerge *u, struct dirs *d, struct journal *j,
    int rootfd, const char *name, struct dbp_error *err)
{
	char target[16];
	size_t idx;
	int r;

	if (!usrmerge_missing(rootfd, name))
		return 0;
	snprintf(target, sizeof(target), "usr/%s", name);
	if ((r = dirs_get(d, target, true, 0755, &idx, err)) != 0)
		return r;
	/* A dry run: paths through NAME reach usr/NAME, nothing is made. */
	if (dirs_plans(d))
		return dirs_plan_link(d, name, idx) != 0 ? dbp_err(err,
		    ENOMEM, name, "cannot plan symlink") : 0;
	/* In the journal before it exists: a repair removes it. */
	if ((r = journal_dir(j, name, NULL, rootfd)) != 0)
		return dbp_err(err, -r, name, "cannot write journal");
	if (symlinkat(target, rootfd, name) != 0)
		return dbp_err(err, errno, name, "cannot create symlink");
	snprintf(u->made[u->nmade++], sizeof(u->made[0]), "%s", name);
	return 0;
}

int
usrmerge_make(struct usrmerge *u, struct dirs *d, struct journal *j,
    const char *arch, struct dbp_error *err)
{
	static const char *const base[] = { "bin", "sbin", "lib" };
	size_t i, k, root;
	int rootfd, r;

	if ((r = dirs_get(d, "", false, 0, &root, err)) != 0)
		return r;
	if ((rootfd = dirs_fd(d, root)) < 0)
		return dbp_err(err, -rootfd, "", "cannot open directory");
	for (i = 0; i < 3; i++)
		if ((r = usrmerge_one(u, d, j, rootfd, base[i], err)) != 0)
			return r;
	for (k = 0; arch != NULL && k < sizeof(usrmerge_libdirs) /
	    sizeof(usrmerge_libdirs[0]); k++) {
		if (strcmp(arch, usrmerge_libdirs[k].arch) != 0)
			continue;
		for (i = 0; i < 3 && usrmerge_libdirs[k].dirs[i] != NULL; i++)
			if ((r = usrmerge_one(u, d, j, rootfd,
			    usrmerge_libdirs[k].dirs[i], err)) != 0)
				return r;
	}
	/* The links become durable with the root's other new names. */
	if (u->nmade > 0)
		dirs_mark(d, root, DIR_NAMES);
	return 0;
}

int
usrmerge_undo(struct usrmerge *u, struct dirs *d)
{
	size_t root;
	int rootfd, r = 0;

	if (u->nmade == 0)
		return 0;
	if (dirs_get(d, "", false, 0, &root, NULL) != 0 ||
	    (rootfd = dirs_fd(d, root)) < 0)
		return -EIO;
	while (u->nmade > 0)
		if (unlinkat(rootfd, u->made[--u->nmade], 0) != 0 &&
		    errno != ENOENT && r == 0)
			r = -errno;
	dirs_mark(d, root, DIR_NAMES);
	return r;
}
