/* SPDX-License-Identifier: MIT */
/* What the front end tells: the run's events, a dry run's verdicts, errors. */
#ifndef DEBUNPACK_CLI_RENDER_H
#define DEBUNPACK_CLI_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "run/install.h"
#include "util/error.h"

/* ERR on standard error, as "debunpack: LINE". */
void render_error(const struct dbp_error *err);

/*
 * install_opts' note callback; CTX is the struct cli_opts: the progress
 * line and status fd hear of every event, a dry run's verdicts go to
 * standard output (text or JSON), warnings to standard error unless -q,
 * the rest with -v.
 */
void render_note(void *ctx, const struct install_note *n);
/*
 * After a --maintscripts call: with --dpkg-messages, dpkg's summary of
 * the package files that failed on standard error; the list freed.
 */
struct cli_opts;
void render_errors(struct cli_opts *o);

#endif
