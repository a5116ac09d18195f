/* Making archive-supplied names safe to print on a terminal. */
#ifndef DEBUNPACK_ESCAPE_H
#define DEBUNPACK_ESCAPE_H

#include <stddef.h>

/*
 * Copy S into BUF (size N, always terminated), writing control characters
 * (C0, DEL and the UTF-8 encoded C1 range) and backslashes as \\, \n, \t
 * or \xNN, so an archive cannot send escape sequences to the user's
 * terminal.  Output that does not fit is cut and ends in "...".
 * Returns BUF.
 */
char *escape_name(const char *s, char *buf, size_t n);

#endif
