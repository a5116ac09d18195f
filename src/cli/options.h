/* SPDX-License-Identifier: MIT */
/* The command line: every option defined once (name, argument, help, check), and each action with what it needs. */
#ifndef DEBUNPACK_CLI_OPTIONS_H
#define DEBUNPACK_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/opts.h"

/* What an action needs and allows (struct cli_command's FLAGS). */
#define CMD_ROOT	0x01	/* --root, "/" included: it writes */
#define CMD_QUERY	0x02	/* reads only: queries_run answers it */
#define CMD_JSON	0x04	/* --json */
#define CMD_RPM		0x08	/* --verify-format */
#define CMD_REMOVE	0x10	/* --remove and --purge */
#define CMD_OPERANDS	0x20	/* at least one operand */
#define CMD_NO_OPERANDS	0x40	/* none at all */
#define CMD_REPAIR	0x80	/* repairs only: main_recover answers it */
#define CMD_CACHE	0x100	/* the store only: main_cache answers it */

struct cli_command {
	enum cli_action action;
	const char *option;	/* its option's name; NULL: no option */
	unsigned flags;		/* CMD_* */
	const char *verb;	/* what --root is required to do, if CMD_ROOT */
};

/*
 * Parse ARGV into O: its options, then the checks between them that the
 * action's row names.  The index of the first operand, -1 after a usage
 * error (told in one line on standard error), or -2 after --help or
 * --version (told on standard output: exit 0).
 */
int options_parse(int argc, char **argv, struct cli_opts *o);

/* --help: the synopsis, then every option of the table, sorted. */
void options_usage(FILE *fp);

#endif
