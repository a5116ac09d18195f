/* SPDX-License-Identifier: MIT */
/* Parsing a package's control file (RFC 822 style fields). */
#ifndef DEBUNPACK_CONTROL_H
#define DEBUNPACK_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

struct control_field {
	char *name;
	char *value;	/* continuation lines joined with '\n', as dpkg keeps them */
};

struct control {
	struct control_field *fields;
	size_t nfields;
};

/*
 * Parse one stanza of LEN bytes.  Package, Version and Architecture must be
 * present and non-empty; field names are unique.  On success *OUT is owned
 * by the caller (control_free).  Errors return -EINVAL with ERR filled.
 */
int control_parse(const char *text, size_t len, struct control **out,
    struct dbp_error *err);

/*
 * Version and Architecture follow dpkg's syntax: 0, or -EINVAL with ERR
 * filled.  For packages about to be installed; records already written
 * are read as they are, as dpkg reads its status file.
 */
int control_check_syntax(const struct control *c, struct dbp_error *err);

/*
 * Why VERSION is not a Debian version (dpkg's syntax, deb-version(7)),
 * or NULL when it is one.
 */
const char *control_bad_version(const char *version);

/* Whether A is an architecture name: a letter or digit, then those and "-". */
bool control_valid_arch(const char *a);

/* Value of field NAME (case-insensitive, as in deb-control(5)), or NULL. */
const char *control_get(const struct control *c, const char *name);

void control_free(struct control *c);

#endif
