/* SPDX-License-Identifier: MIT */
/* Whether dpkg changed a package since debunpack recorded it: dpkg's status decides. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	close(dfd);
	if (r == -ENOENT)
		return 0;
	if (r != 0)
		return r;
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		free(text);
		return -ENOMEM;
	}
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
	free(s);
}

const struct dpkgstatus *
dpkgstale_status(const struct dpkgstale *s)
{
	return s != NULL ? &s->status : NULL;
}

/* Field NAME's line in stanza O, or NULL. */
static const char *
dpkgstale_field(const struct dpkgstatus_stanza *o, const char *name)
{
	size_t len = strlen(name);
	const char *l;

	for (l = o->text; l != NULL && l < o->text + o->len;
	    l = memchr(l, '\n', (size_t)(o->text + o->len - l)),
	    l = l != NULL ? l + 1 : NULL)
		if ((size_t)(o->text + o->len - l) > len &&
		    strncmp(l, name, len) == 0 && l[len] == ':')
			return l;
	return NULL;
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
	/*
	 * The few fields dpkg (and --maintscripts) write for a package
	 * installed afresh, before its files: nothing of it was installed
	 * when the call began, so the record is from an earlier life.
	 */
	if (strcmp(state, "half-installed") == 0 &&
	    dpkgstale_field(o, "Maintainer") == NULL &&
	    dpkgstale_field(o, "Description") == NULL) {
		*what = "purged";
		return true;
	}
	/* A record of conffiles only stands for dpkg's config-files state. */
	if (record_config_files(r)) {
		if (strcmp(state, "config-files") == 0)
			return false;
		snprintf(s->what, sizeof(s->what), "%s", strcmp(state,
		    "not-installed") == 0 ? "purged" : "installed again");
		*what = s->what;
		return true;
	}
	if (!dpkgstatus_installed(o)) {
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
