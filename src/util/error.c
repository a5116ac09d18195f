/* SPDX-License-Identifier: MIT */
/* Error reports that library functions hand back to main.c for printing. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"
#include "util/escape.h"

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

void
dbp_err_format(const struct dbp_error *err, bool with_pkg, char *buf,
    size_t size)
{
	char pkg[PATH_MAX], path[PATH_MAX], msg[1024];
	size_t n = 0;

	buf[0] = '\0';
	if (with_pkg && err->pkg[0] != '\0')
		n += (size_t)snprintf(buf + n, size - n, "%s: ",
		    escape_name(err->pkg, pkg, sizeof(pkg)));
	if (err->path[0] != '\0' && n < size)
		n += (size_t)snprintf(buf + n, size - n, "'%s': ",
		    escape_name(err->path, path, sizeof(path)));
	/* Messages quote archive strings too (member names, link targets). */
	if (n < size)
		n += (size_t)snprintf(buf + n, size - n, "%s",
		    err->msg[0] != '\0' ? escape_name(err->msg, msg,
		    sizeof(msg)) : "failed");
	if (err->errnum != 0 && n < size)
		snprintf(buf + n, size - n, ": %s", strerror(err->errnum));
}
