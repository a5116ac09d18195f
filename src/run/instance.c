/* SPDX-License-Identifier: MIT */
/* Which instance of its name a package is: its record's key, and whether it may sit beside the others. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "db/dpkgarch.h"
#include "db/record.h"
#include "run/instance.h"

int
instance_key(struct manifest *man, bool dpkg_db, const struct control *ctl,
    char *key, size_t n, struct dbp_error *err)
{
	const char *name = control_get(ctl, "Package");
	const char *arch = control_get(ctl, "Architecture");
	const struct record *plain;
	size_t i;

	snprintf(key, n, "%s", name);
	if (!dpkg_db || arch == NULL ||
	    !dpkgstatus_ma_same(control_get(ctl, "Multi-Arch")))
		return 0;
	for (i = 0; i < manifest_nstaged(man); i++) {
		plain = manifest_staged(man, i);
		if (strcmp(control_get(plain->ctl, "Package"), name) == 0 &&
		    control_get(plain->ctl, "Architecture") != NULL &&
		    strcmp(control_get(plain->ctl, "Architecture"), arch) != 0)
			return dbp_err(err, 0, "", "'%s:%s' and '%s:%s' in one"
			    " run: debunpack unpacks two instances of a"
			    " package in runs of their own", name, arch,
			    name, control_get(plain->ctl, "Architecture"));
	}
	if ((size_t)snprintf(key, n, "%s:%s", name, arch) >= n)
		return dbp_err(err, ENAMETOOLONG, "", "cannot name the record"
		    " of '%s'", name);
	if (manifest_installed_record(man, key) != NULL)
		return 0;
	/* The plain name stands for the instance installed first. */
	plain = manifest_installed_record(man, name);
	if (plain != NULL && control_get(plain->ctl, "Architecture") != NULL &&
	    strcmp(control_get(plain->ctl, "Architecture"), arch) != 0)
		return 0;
	snprintf(key, n, "%s", name);
	return 0;
}

int
instance_check(struct manifest *man, const struct dpkgstatus *status,
    const struct control *ctl, struct dbp_error *err)
{
	const struct record *old;
	char msg[512];

	old = manifest_installed_record(man, control_get(ctl, "Package"));
	if (dpkgarch_coinstance(old != NULL ? old->ctl : NULL, status, ctl,
	    msg, sizeof(msg)) == 0)
		return 0;
	return dbp_err(err, 0, "", "%s", msg);
}
