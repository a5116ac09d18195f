/* SPDX-License-Identifier: MIT */
/* Error reports that library functions hand back to main.c for printing. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"

int
dbp_err(struct dbp_error *err, int errnum, const char *path,
    const char *fmt, ...)
{
	va_list ap;

	if (err != NULL) {
		err->errnum = errnum;
		snprintf(err->path, sizeof(err->path), "%s",
		    path != NULL ? path : "");
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return errnum > 0 ? -errnum : -EINVAL;
}

void
dbp_err_pkg(struct dbp_error *err, const char *pkg)
{
	if (err != NULL && err->pkg[0] == '\0')
		snprintf(err->pkg, sizeof(err->pkg), "%s", pkg);
}

void
dbp_err_clear(struct dbp_error *err)
{
	memset(err, 0, sizeof(*err));
}
