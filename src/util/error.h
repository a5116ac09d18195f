/* SPDX-License-Identifier: MIT */
/* Error reports that library functions hand back to main.c for printing. */
#ifndef DEBUNPACK_ERROR_H
#define DEBUNPACK_ERROR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Filled by the function that failed; main.c prints it as one line
 * "debunpack: PKG: 'PATH': MSG: strerror(errnum)".  Every field may be empty.
 */
struct dbp_error {
	int errnum;		/* errno value, 0 when the cause is not a syscall */
	char pkg[PATH_MAX];	/* package file being processed */
	char path[PATH_MAX];	/* path inside the root or the archive */
	char msg[256];		/* what failed, lowercase, no trailing period */
};

/*
 * Record an error and return -errnum, so a caller can write
 * "return dbp_err(err, errno, path, "cannot sync");".  ERRNUM 0 means the
 * message says it all (a malformed archive): nothing is appended to it
 * when printed, and -EINVAL is returned.
 * The package name is left untouched: the layer that knows it sets it.
 */
int dbp_err(struct dbp_error *err, int errnum, const char *path,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Set the package name of an error unless a deeper layer already did. */
void dbp_err_pkg(struct dbp_error *err, const char *pkg);

void dbp_err_clear(struct dbp_error *err);

/*
 * ERR as one line, without the program's name, into BUF of SIZE bytes:
 * "PKG: 'PATH': MSG: ERRNO", without "PKG: " unless WITH_PKG; names and
 * the message escaped (util/escape.h), "failed" for an empty message.
 */
void dbp_err_format(const struct dbp_error *err, bool with_pkg, char *buf,
    size_t size);

#endif
