/* SPDX-License-Identifier: MIT */
/* The dpkg for apt's decision: dpkg's call read as dpkg would, handed on or made debunpack's command line. */
#ifndef DEBUNPACK_SHIMCALL_H
#define DEBUNPACK_SHIMCALL_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/dpkgargs.h"
#include "run/emulate.h"

/* A growing argv. */
struct argvec {
	char **v;
	size_t n;
	char **owned;		/* strings made here */
	size_t nowned;
};
int argvec_add(struct argvec *av, const char *s);
/* Add a string made from FMT, owned by AV. */
int argvec_addf(struct argvec *av, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void argvec_free(struct argvec *av);

/* The state of one call. */
struct shim {
	int argc;
	char **argv;			/* as the shim was called */
	const char *dpkg;		/* the real dpkg */
	const char *debunpack;
	struct dpkgargs a;
	char *instdir, *admindir;	/* as dpkg would have them */
	bool own_db;			/* ADMINDIR is not INSTDIR/var/lib/dpkg:
					   debunpack --dpkg-admindir */
	struct argvec debs;		/* the package files, in dpkg's order */
	char *help;			/* debunpack --help */
	bool verbose;			/* DEBUNPACK_DPKG_DEBUG: say why */
};

/*
 * Run debunpack --help and keep what it prints (S->help): its list of
 * options.  0 or -errno.
 */
int shim_ask_debunpack(struct shim *s);

/*
 * Run ARGV (ARGV[0] searched in PATH if it has no '/'), standard input
 * from /dev/null, standard error too if QUIET, and keep what it prints
 * on standard output in *OUT (NUL-terminated, *LEN bytes; the caller
 * frees it): 0, or -errno (-ENOEXEC: it did not exit 0).
 */
int shim_output(char *const argv[], bool quiet, char **out, size_t *len);

/*
 * Whether debunpack can do the call as dpkg would: NULL, or why not
 * (static text, or written to WHY, N bytes).  Fills S's directories,
 * package files and own_db on the way.
 */
const char *shim_judge(struct shim *s, char *why, size_t n);

/*
 * A power cut or a kill inside debunpack's batch leaves its journal,
 * which any next debunpack run finishes first; dpkg knows nothing of
 * it.  For a call that changes the root (not --no-act), when the root
 * has that journal: debunpack's command line that finishes it, into
 * AV, and 1.  0 when there is nothing to finish, -ENOMEM.
 */
int shim_recover_argv(struct shim *s, struct argvec *av);

/* S->instdir and S->admindir as dpkg would have them.  0 or -ENOMEM. */
int shim_where(struct shim *s);

/*
 * Whether the real dpkg must start in a user namespace whose binfmt_misc
 * runs the root's programs (run/binfmtns.h), as debunpack's own scripts
 * do: a root of another CPU that no entry of the host's runs, and an
 * emulator named (DEBUNPACK_EMULATOR; judged only then: else nothing
 * changes).  1 with EM filled, or 0: dpkg runs as it is, and says
 * itself what fails.
 */
int shim_emulated(struct shim *s, struct emulate *em);

/* debunpack's command line for the call, into AV.  0 or -ENOMEM. */
int shim_unpack_argv(struct shim *s, struct argvec *av);

#endif
