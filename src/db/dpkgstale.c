/* SPDX-License-Identifier: MIT */
/* Whether dpkg changed a package since debunpack recorded it: dpkg's status decides. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/dpkgstale.h"
#include "db/dpkgstatus.h"
#include "durable/fileat.h"

/*
 * In a root where dpkg's database is kept too, dpkg may act after
 * debunpack: dpkg --purge, dpkg -i of another version.  The record then
 * describes files that are gone, or dpkg's now; only dpkg's status tells.
 */
struct dpkgstale {
	struct dpkgstatus status;
	int infofd;		/* var/lib/dpkg/info, or -1 */
	char what[300];
};

int
dpkgstale_open(struct dpkgstale **out, const struct rootfs *rf)
{
	struct dpkgstale *s;
	char *text;
	size_t len;
	int dfd, r;

	*out = NULL;
	if ((dfd = rootfs_resolve(rf, "var/lib/dpkg", O_RDONLY |
	    O_DIRECTORY)) < 0)
		return dfd == -ENOENT || dfd == -ENOTDIR ? 0 : dfd;
	r = fileat_read(dfd, "status", &text, &len);
	if (r != 0 || (s = calloc(1, sizeof(*s))) == NULL) {
		close(dfd);
		if (r == 0)
			free(text);
		return r == -ENOENT ? 0 : r != 0 ? r : -ENOMEM;
	}
	s->infofd = openat(dfd, "info", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(dfd);
	r = dpkgstatus_parse(&s->status, text, len);
	free(text);
	if (r != 0) {
		dpkgstale_free(s);
		/* A status dpkg cannot read either: no verdict from it. */
		return r == -EINVAL ? 0 : r;
	}
	*out = s;
	return 0;
}

void
dpkgstale_free(struct dpkgstale *s)
{
	if (s == NULL)
		return;
	dpkgstatus_clear(&s->status);
	if (s->infofd >= 0)
		close(s->infofd);
	free(s);
}

const struct dpkgstatus *
dpkgstale_status(const struct dpkgstale *s)
{
	return s != NULL ? &s->status : NULL;
}

/*
 * Half-installed without a file list: a call of dpkg (or of debunpack
 * --maintscripts, which marks each package before its batch) began to
 * unpack the package after dpkg had purged it, and dpkg knows no file of
 * it, so the record does not stand.
 */
static bool
dpkgstale_unlisted(const struct dpkgstale *s, const struct record *r,
    const char *state)
{
	char *name, file[PATH_MAX];
	struct stat st;
	bool none;

	if (strcmp(state, "half-installed") != 0 || s->infofd < 0 ||
	    (name = dpkgstatus_infoname(control_get(r->ctl, "Package"),
	    control_get(r->ctl, "Architecture"),
	    control_get(r->ctl, "Multi-Arch"))) == NULL)
		return false;
	snprintf(file, sizeof(file), "%s.list", name);
	none = fstatat(s->infofd, file, &st, 0) != 0 && errno == ENOENT;
	free(name);
	return none;
}

bool
dpkgstale_is(void *ctx, const struct record *r, const char **what)
{
	struct dpkgstale *s = ctx;
	const struct dpkgstatus_stanza *o;
	const char *state;

	if (s == NULL || !r->dpkg_db)
		return false;
	o = dpkgstatus_peek(&s->status, control_get(r->ctl, "Package"),
	    control_get(r->ctl, "Architecture"),
	    control_get(r->ctl, "Multi-Arch"));
	if (o == NULL) {
		*what = "purged";
		return true;
	}
	state = dpkgstatus_state(o);
	/* A record of conffiles only stands for dpkg's config-files state. */
	if (record_config_files(r)) {
		if (strcmp(state, "config-files") == 0)
			return false;
		snprintf(s->what, sizeof(s->what), "%s", strcmp(state,
		    "not-installed") == 0 ? "purged" : "installed again");
		*what = s->what;
		return true;
	}
	if (!dpkgstatus_installed(o) || dpkgstale_unlisted(s, r, state)) {
		*what = strcmp(state, "config-files") == 0 ? "removed" :
		    "purged";
		return true;
	}
	if (o->version == NULL || strcmp(o->version,
	    control_get(r->ctl, "Version")) != 0) {
		snprintf(s->what, sizeof(s->what), "version %s installed",
		    o->version != NULL ? o->version : "?");
		*what = s->what;
		return true;
	}
	return false;
}
