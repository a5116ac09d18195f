/* SPDX-License-Identifier: MIT */
/* operands: the package files an install names, directories expanded. */
#ifndef DEBUNPACK_OPERANDS_H
#define DEBUNPACK_OPERANDS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

/*
 * The N operands IN as package files: with RECURSIVE, a directory stands
 * for the regular files named *.deb below it, sorted by path (as dpkg -R
 * finds them); "-" (standard input) at most once.  *OUT (*NOUT entries,
 * NULL-terminated) is the caller's to free with operands_free.  0 or
 * -errno with ERR naming the operand.
 */
int operands_expand(char *const *in, size_t n, bool recursive, char ***out,
    size_t *nout, struct dbp_error *err);
void operands_free(char **v, size_t n);

#endif
