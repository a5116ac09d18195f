/* SPDX-License-Identifier: MIT */
/* debunpack-emulate: run a command that starts a root's programs, with an emulator where the host has no binfmt_misc entry for them. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/binfmtns.h"
#include "run/emulate.h"

/*
 * debunpack-bootstrap runs "dpkg --configure -a" in a root of another
 * CPU, and the chown after it, through this.  Where the host's
 * binfmt_misc runs the root's programs, the command is only executed.
 * Where it has no entry for them, the static qemu-user DEBUNPACK_EMULATOR
 * names is registered in a binfmt_misc of the command's own user
 * namespace (run/binfmtns.h), as debunpack does for each maintainer
 * script, and the command runs there; its exit status is this one's.
 */
int
main(int argc, char **argv)
{
	char line[3 * PATH_MAX + 1200];
	struct dbp_error err;
	struct emulate em;
	struct binfmtns ns;
	int r, status;
	pid_t pid;

	if (argc < 3 || argv[1][0] == '-') {
		fprintf(stderr, "usage: debunpack-emulate ROOT COMMAND [ARG...]\n");
		return 2;
	}
	dbp_err_clear(&err);
	if (emulate_judge(&em, argv[1], NULL, getenv("DEBUNPACK_EMULATOR"),
	    &err) != 0) {
		dbp_err_format(&err, false, line, sizeof(line));
		fprintf(stderr, "debunpack-emulate: %s\n", line);
		return 1;
	}
	/* An entry of the host's with F, or none needed: nothing to add. */
	if (!em.own) {
		if (em.interp[0] != '\0') {
			fprintf(stderr, "debunpack-emulate: '%s': binfmt_misc's"
			    " entry '%s' needs %s in the root\n", argv[1],
			    em.entry, em.interp);
			return 1;
		}
		execvp(argv[2], argv + 2);
		fprintf(stderr, "debunpack-emulate: '%s': %s\n", argv[2],
		    strerror(errno));
		return errno == ENOENT ? 127 : 126;
	}
	if ((r = binfmtns_open(&ns)) != 0 || (pid = fork()) < 0) {
		fprintf(stderr, "debunpack-emulate: cannot start '%s': %s\n",
		    argv[2], strerror(r != 0 ? -r : errno));
		return 1;
	}
	if (pid == 0) {
		binfmtns_child_or_exit(&ns, em.line, "debunpack-emulate: ",
		    em.source, 1);
		execvp(argv[2], argv + 2);
		fprintf(stderr, "debunpack-emulate: '%s': %s\n", argv[2],
		    strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	/* A failure here is the child's too: it says so and exits. */
	(void)binfmtns_parent(&ns, pid);
	binfmtns_close(&ns);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "debunpack-emulate: cannot wait for"
			    " '%s': %s\n", argv[2], strerror(errno));
			return 1;
		}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
