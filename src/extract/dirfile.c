/* SPDX-License-Identifier: MIT */
/* dpkg's rules for a directory and a file replacing each other. */
#include "config.h"

#include <limits.h>
#include <stdio.h>

#include "extract/dirfile.h"
#include "durable/dirs.h"
#include "db/record.h"

/*
 * Nothing of anyone is lost either way: a directory goes only empty, a
 * file only when it is the package's own old version, and both are kept
 * under their backup names until the run stands.
 */

int
dirfile_file_over_dir(struct manifest *m, const char *self, const char *path,
    bool empty, bool run_dir, struct dbp_error *err)
{
	char abspath[PATH_MAX + 1];
	const char *other;

	if (run_dir)
		return dbp_err(err, 0, path, "is a directory of this run, not"
		    " replacing it by a file");
	snprintf(abspath, sizeof(abspath), "/%s", path);
	if (self != NULL &&
	    (other = manifest_other_owner(m, abspath, self)) != NULL)
		return dbp_err(err, 0, path, "is a directory of package '%s',"
		    " not replacing it by a file", other);
	if (!empty)
		return dbp_err(err, 0, path, "is a directory that is not empty,"
		    " not replacing it by a file");
	return 0;
}

int
dirfile_dir_over_file(struct manifest *m, const char *self, const char *rel,
    struct dbp_error *err)
{
	const struct record_entry *e;
	char abspath[PATH_MAX + 1];
	const char *other;

	snprintf(abspath, sizeof(abspath), "/%s", rel);
	if ((other = manifest_owner(m, abspath, self)) != NULL)
		return dbp_err(err, 0, rel, "is a file of package '%s', not"
		    " replacing it by a directory", other);
	e = manifest_installed_entry(m, self, abspath);
	return e != NULL && e->type != 'd' ? 0 : 1;
}
