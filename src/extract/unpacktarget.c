/* SPDX-License-Identifier: MIT */
/* Where an archive entry lands: its directory and name, stale temporaries, its place in the batch. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "manifest.h"
#include "syncbatch.h"
#include "extract/unpack_int.h"

void
unpack_split(char *path, char *parent, const char **name)
{
	char *slash = strrchr(path, '/');

	if (slash == NULL) {
		parent[0] = '\0';
		*name = path;
		return;
	}
	memcpy(parent, path, (size_t)(slash - path));
	parent[slash - path] = '\0';
	*name = slash + 1;
}

int
unpack_target_dir(struct unpack *u, struct unpack_target *t,
    struct dbp_error *err)
{
	/* A dry run's planned directory has no descriptor: nothing is in it. */
	if (dirs_flags(u->dirs, t->dir) & DIR_PLANNED) {
		t->dfd = -1;
		return 0;
	}
	if ((t->dfd = dirs_fd(u->dirs, t->dir)) < 0)
		return dbp_err(err, -t->dfd, dirs_path(u->dirs, t->dir),
		    "cannot open directory");
	return 0;
}

void
unpack_target_find(struct unpack *u, struct unpack_target *t, bool *dir,
    bool *empty)
{
	struct stat st;
	size_t idx;

	*dir = *empty = false;
	/*
	 * A dry run's merged-/usr link: the run's own, made this run, so
	 * what replaces it is new to the root; no directory either way.
	 */
	if (u->opts.nowrite && dirs_planned_link(u->dirs, t->path)) {
		t->existed = false;
		return;
	}
	if (t->dfd >= 0 && fstatat(t->dfd, t->name, &st,
	    AT_SYMLINK_NOFOLLOW) == 0) {
		t->existed = true;
		*dir = S_ISDIR(st.st_mode);
		*empty = *dir && dirs_empty(t->dfd, t->name);
		/* A dry run's files in it are no temporaries on disk. */
		if (*empty && u->opts.nowrite && dirs_get(u->dirs, t->path,
		    false, 0, &idx, NULL) == 0)
			*empty = !(dirs_flags(u->dirs, idx) & DIR_NAMES);
		return;
	}
	/*
	 * A dry run's planned directory stands where the run's would: empty
	 * unless the run planned something in it.
	 */
	t->existed = u->opts.nowrite && dirs_get(u->dirs, t->path, false, 0,
	    &idx, NULL) == 0 && (dirs_flags(u->dirs, idx) & DIR_PLANNED);
	*dir = t->existed;
	*empty = t->existed && !(dirs_flags(u->dirs, idx) & DIR_NAMES);
}

/*
 * A temporary name already taken is left over from an interrupted run
 * (this run's own were dropped in unpack_prepare): remove it once.
 */
int
unpack_stale(struct unpack_target *t, int tries)
{
	if (errno != EEXIST || tries > 0)
		return 0;
	return unlinkat(t->dfd, t->tmp, 0) == 0;
}

/*
 * Register the temporary just made, or remove it if that fails; the
 * entry's verdict is settled now (a kept conffile moved T->path).
 */
int
unpack_register(struct unpack *u, struct unpack_target *t, unsigned type,
    struct dbp_error *err)
{
	int r;

	/*
	 * A conffile kept for the user, or one that may stay as it is:
	 * unpack_conffile_done tells it.
	 */
	if (u->opts.plan != NULL && t->record_path == t->path &&
	    t->conf != UNPACK_CONF_UNCHANGED)
		u->opts.plan(u->opts.warn_ctx, t->existed ? PLAN_REPLACE :
		    PLAN_CREATE, t->path, NULL);

	if ((r = syncbatch_add(u->sb, t->dir, t->path, u->opts.nowrite ?
	    NULL : t->tmp, &t->item)) != 0) {
		if (!u->opts.nowrite)
			unlinkat(t->dfd, t->tmp, 0);
		return dbp_err(err, -r, t->path, "cannot register");
	}
	dirs_mark(u->dirs, t->dir, DIR_NAMES);
	if ((r = manifest_put(u->man, t->dir, t->name, t->item, u->pkg,
	    type)) != 0)
		return dbp_err(err, -r, t->path, "cannot register");
	return 0;
}
