/* SPDX-License-Identifier: MIT */
/* apt's DPkg::Pre-Install-Pkgs hook: the run's package files to the decoding process (ahead.h). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ahead/ahead.h"

/*
 * usage: decode-ahead [FILE...]; without FILE, the names apt writes on
 * the hook's input (version 1 of its protocol: one package file a line).
 * It never fails apt's run: what goes wrong is said, and the calls then
 * decode their packages themselves.  It does nothing where the calls
 * would not ask: on one core (no idle one to decode on, and the calls
 * decode without threads) and with a store of unpacked files
 * (DEBUNPACK_CACHE: the calls clone or decode with it).
 */

static void
ahead_warn(const struct dbp_error *err)
{
	fprintf(stderr, "debunpack: decoding ahead: %s%s%s\n", err->msg,
	    err->errnum != 0 ? ": " : "",
	    err->errnum != 0 ? strerror(err->errnum) : "");
}

/* NAME's absolute path into the list, when it is a package file that exists. */
static int
ahead_push(char ***v, size_t *n, size_t *cap, const char *name)
{
	char path[PATH_MAX], **nv;
	size_t len = strlen(name);

	if (len < 5 || strcmp(name + len - 4, ".deb") != 0 ||
	    realpath(name, path) == NULL)
		return 0;
	if (*n == *cap) {
		*cap = *cap != 0 ? 2 * *cap : 64;
		if ((nv = reallocarray(*v, *cap, sizeof(*nv))) == NULL)
			return -1;
		*v = nv;
	}
	if (((*v)[*n] = strdup(path)) == NULL)
		return -1;
	(*n)++;
	return 0;
}

int
main(int argc, char **argv)
{
	struct ahead_proc *serve = NULL;
	struct dbp_error err;
	char **v = NULL, *line = NULL;
	const char *cache;
	size_t n = 0, cap = 0, lcap = 0, i;
	ssize_t len;
	int k, r = 0;

	dbp_err_clear(&err);
	for (k = 1; r == 0 && k < argc; k++)
		r = ahead_push(&v, &n, &cap, argv[k]);
	while (r == 0 && argc < 2 &&
	    (len = getline(&line, &lcap, stdin)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		r = ahead_push(&v, &n, &cap, line);
	}
	free(line);
	/* Read all the same: apt writes the list whole. */
	cache = getenv("DEBUNPACK_CACHE");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 ||
	    (cache != NULL && cache[0] != '\0'))
		;
	else if (r != 0) {
		dbp_err(&err, ENOMEM, "", "cannot read the package list");
		ahead_warn(&err);
	} else if (ahead_start(v, n, &serve, &err) != 0)
		ahead_warn(&err);
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	/*
	 * The decoding process: _exit ends a decoding still under way, with
	 * no exit handler run beside it.
	 */
	if (serve != NULL) {
		if (ahead_serve(serve) != 0)
			_exit(0);
		ahead_proc_free(serve);
	}
	return 0;
}
