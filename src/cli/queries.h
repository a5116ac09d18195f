/* SPDX-License-Identifier: MIT */
/* The queries' front end: --list, --owner, --files, --verify, --contents. */
#ifndef DEBUNPACK_CLI_QUERIES_H
#define DEBUNPACK_CLI_QUERIES_H

#include "cli/opts.h"

/*
 * Answer O's query (ARGV[FIRST..ARGC-1] its operands) on standard output,
 * reading the records as dpkg-query reads dpkg's database: read-only,
 * never repairing (--recover alone repairs, in main.c).  Errors and
 * misses are told on standard error; the exit status: 0, or 1.
 */
int queries_run(const struct cli_opts *o, int argc, char **argv, int first);

#endif
