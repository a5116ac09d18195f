/* SPDX-License-Identifier: MIT */
/* Making archive-supplied names safe to print on a terminal. */
#ifndef DEBUNPACK_ESCAPE_H
#define DEBUNPACK_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Copy S into BUF (size N, always terminated), writing control characters
 * (C0, DEL and the UTF-8 encoded C1 range), bytes that are not well-formed
 * UTF-8, and backslashes as \\, \n, \t or \xNN, so an archive cannot send
 * escape sequences to the user's terminal.  Output that does not fit is
 * cut and ends in "...".  Returns BUF.
 */
char *escape_name(const char *s, char *buf, size_t n);

/*
 * Fields of the admin directory's text files (records, journal) hold any
 * path.  escape_put_field writes S to FP with backslash, TAB, newline and
 * the other control bytes (below 0x20, 0x7f) as \\, \t, \n and \xNN
 * (lowercase hex), every other byte as itself: one spelling per name.
 * Returns false when a write fails.
 */
bool escape_put_field(FILE *fp, const char *s);

/*
 * S as a JSON string, quotes included: control characters escaped, valid
 * UTF-8 as itself, any other byte as \u00NN (JSON text is UTF-8; such a
 * name is shown, not reproduced).  Returns false when a write fails.
 */
bool escape_put_json(FILE *fp, const char *s);

/*
 * Decode field S in place, accepting only the spelling escape_put_field
 * writes.  Returns NULL, or why S is bad.
 */
const char *escape_parse_field(char *s);

#endif
