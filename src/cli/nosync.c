/* SPDX-License-Identifier: MIT */
/* debunpack-nosync: run a command whose sync calls do nothing, for a step that one later barrier makes durable. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <seccomp.h>

/*
 * debunpack-bootstrap runs "dpkg --configure -a" under it: dpkg and the
 * maintainer scripts sync each file they write, thousands of device cache
 * flushes for a root that one syncfs afterwards makes durable as a whole.
 * A seccomp filter, installed here before exec, answers these calls with
 * success without running them, for the command and all its children; it
 * needs nothing inside the root (LD_PRELOAD would need a library there,
 * and misses static binaries and direct system calls).
 */
static const char *const nosync_calls[] = {
	"fsync", "fdatasync", "sync", "syncfs", "sync_file_range",
	"sync_file_range2", "arm_sync_file_range",
};

/*
 * No filter: fail (1), or where the caller asked for it
 * (DEBUNPACK_NOSYNC_FALLBACK set: the dpkg for apt, whose barrier after
 * the command is then only redundant), run the command with its syncs.
 */
static int
nosync_fallback(char **argv)
{
	if (getenv("DEBUNPACK_NOSYNC_FALLBACK") == NULL)
		return 1;
	unsetenv("DEBUNPACK_NOSYNC_FALLBACK");
	execvp(argv[1], argv + 1);
	fprintf(stderr, "debunpack-nosync: '%s': %s\n", argv[1],
	    strerror(errno));
	return errno == ENOENT ? 127 : 126;
}

int
main(int argc, char **argv)
{
	scmp_filter_ctx ctx;
	size_t i;
	int nr, r;

	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: debunpack-nosync COMMAND [ARG...]\n");
		return 2;
	}
	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		fprintf(stderr, "debunpack-nosync: cannot make a seccomp filter\n");
		return nosync_fallback(argv);
	}
	for (i = 0; i < sizeof(nosync_calls) / sizeof(nosync_calls[0]); i++) {
		/* Calls this architecture lacks are left out. */
		if ((nr = seccomp_syscall_resolve_name(nosync_calls[i])) ==
		    __NR_SCMP_ERROR)
			continue;
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(0), nr, 0)) != 0 &&
		    r != -EDOM) {
			fprintf(stderr, "debunpack-nosync: %s: %s\n",
			    nosync_calls[i], strerror(-r));
			seccomp_release(ctx);
			return nosync_fallback(argv);
		}
	}
	r = seccomp_load(ctx);
	seccomp_release(ctx);
	if (r != 0) {
		fprintf(stderr, "debunpack-nosync: cannot install the seccomp"
		    " filter: %s\n", strerror(-r));
		return nosync_fallback(argv);
	}
	unsetenv("DEBUNPACK_NOSYNC_FALLBACK");
	/* debunpack --stats tells that its syncs did nothing. */
	if (setenv("DEBUNPACK_NOSYNC_ACTIVE", "1", 1) != 0) {
		fprintf(stderr, "debunpack-nosync: cannot set the"
		    " environment: %s\n", strerror(errno));
		return 1;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "debunpack-nosync: '%s': %s\n", argv[1],
	    strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
