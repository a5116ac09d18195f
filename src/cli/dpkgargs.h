/* SPDX-License-Identifier: MIT */
/* dpkg's command line and configuration files, parsed as dpkg parses them, each option with the shim's verdict. */
#ifndef DEBUNPACK_DPKGARGS_H
#define DEBUNPACK_DPKGARGS_H

#include <stdbool.h>
#include <stddef.h>

/* What a row of dpkgargs_table is. */
enum dpkgargs_kind {
	DPKGARGS_ACTION,	/* --install, -L, --assert-FEATURE, ... */
	DPKGARGS_OPTION,	/* --root, -R, --force-LIST, ... */
	DPKGARGS_FORCE,		/* a name --force-, --refuse- and --no-force- take */
};

/*
 * What the shim does with a row when asked to unpack or install: the one
 * place where each of dpkg's options is judged.
 */
enum dpkgargs_verdict {
	DPKGARGS_HANDON,	/* the real dpkg does the whole call */
	DPKGARGS_SAME,		/* the unpack does the same with or without it */
	DPKGARGS_MAP,		/* debunpack's option ->debunpack does it */
	DPKGARGS_SHIM,		/* the shim does it itself (dpkgshim.c) */
	DPKGARGS_RUN,		/* an action the shim runs through debunpack */
};

/* The rows the shim's code looks at by name. */
enum dpkgargs_id {
	DPKGARGS_ID_NONE,
	DPKGARGS_ID_INSTALL,
	DPKGARGS_ID_UNPACK,
	DPKGARGS_ID_ROOT,
	DPKGARGS_ID_INSTDIR,
	DPKGARGS_ID_ADMINDIR,
	DPKGARGS_ID_RECURSIVE,
	DPKGARGS_ID_STATUS_FD,
	DPKGARGS_ID_ABORT_AFTER,
	DPKGARGS_ID_NO_DEBSIG,
	DPKGARGS_ID_LOG,
	DPKGARGS_ID_PRE_INVOKE,
	DPKGARGS_ID_POST_INVOKE,
	DPKGARGS_ID_FORCE,		/* --force-LIST */
	DPKGARGS_ID_REFUSE,		/* --refuse-LIST, --no-force-LIST */
	DPKGARGS_ID_REFUSE_DOWNGRADE,	/* -G */
	DPKGARGS_ID_TRIGGERS,
	DPKGARGS_ID_NO_TRIGGERS,
	DPKGARGS_ID_FORCE_NOT_ROOT,
	DPKGARGS_ID_FORCE_DOWNGRADE,
	DPKGARGS_ID_IGNORE_DEPENDS,
};

/* One of dpkg's options, actions or force names. */
struct dpkgargs_def {
	const char *name;	/* long name without "--", or NULL */
	char short_name;	/* or 0 */
	unsigned char kind;	/* enum dpkgargs_kind */
	/* 0: none; 1: a value (=V or the next word); 2: --NAME-V too */
	unsigned char takes;
	unsigned char verdict;	/* enum dpkgargs_verdict */
	unsigned char id;	/* enum dpkgargs_id */
	bool force_on;		/* FORCE: on by dpkg's default */
	const char *debunpack;	/* MAP: debunpack's option, "--x" */
};

/* Every row, actions, options and force names; NULL name and short ends it. */
extern const struct dpkgargs_def dpkgargs_table[];

/* One option as given, in the order dpkg applies them. */
struct dpkgargs_use {
	const struct dpkgargs_def *def;
	const char *value;	/* its value, or NULL */
	const char *origin;	/* the configuration file, NULL: the command line */
};

/* A command line with the configuration before it. */
struct dpkgargs {
	const struct dpkgargs_def *action;	/* or NULL */
	const char *action_value;		/* --assert-FEATURE's FEATURE */
	struct dpkgargs_use *use;
	size_t nuse;
	char *const *operands;			/* after the options, in argv */
	int noperands;
	bool *force;		/* per row of dpkgargs_table: the force is on */
	/* dpkg's words for what it would refuse ("unknown option --x") */
	char error[512];
	char **owned;		/* the configuration's strings */
	size_t nowned;
};

/*
 * Start A with the forces dpkg starts from: FORCE_ENV (DPKG_FORCE's
 * value, or NULL) when set, else dpkg's defaults.  0, -ENOMEM, or
 * -EINVAL with A->error filled (an unknown force name).
 */
int dpkgargs_init(struct dpkgargs *a, const char *force_env);

/*
 * Read dpkg's configuration as dpkg does: the files of CFGDIR/dpkg.cfg.d (names of
 * letters, digits, '_' and '-' only, in strcmp order), CFGDIR/dpkg.cfg,
 * then HOME/.dpkg.cfg (HOME may be NULL); missing files are skipped.
 * Returns 0, -ENOMEM, or -EINVAL with A->error filled ("configuration
 * error: FILE:LINE: ..."), or another -errno when a file or the directory
 * cannot be read (dpkg warns or fails then: the caller hands the call on).
 */
int dpkgargs_load_config(struct dpkgargs *a, const char *cfgdir,
    const char *home);

/*
 * Parse ARGV (ARGV[0] is the program) after the configuration, as dpkg
 * does: options up to the first word that is not one or "--", long ones
 * as --NAME, --NAME=V or --NAME V, short ones clustered.  Returns 0,
 * -ENOMEM, or -EINVAL with A->error in dpkg's words.  A's strings point
 * into ARGV, which must outlive A.
 */
int dpkgargs_parse(struct dpkgargs *a, int argc, char *const *argv);

/* The row of force NAME (LEN bytes), or NULL. */
const struct dpkgargs_def *dpkgargs_force(const char *name, size_t len);

/*
 * The forces on, as dpkg puts them in DPKG_FORCE for what it runs: their
 * names in dpkg's order, commas between.  The caller frees it; NULL when
 * out of memory.
 */
char *dpkgargs_force_string(const struct dpkgargs *a);

/* The last value of option ID, or NULL when not given. */
const char *dpkgargs_value(const struct dpkgargs *a, enum dpkgargs_id id);

/* Whether option ID was given. */
bool dpkgargs_given(const struct dpkgargs *a, enum dpkgargs_id id);

/*
 * dpkg's integer argument (strtol base 0, 0 to INT_MAX): the value, or
 * -1 with A->error filled for option DEF.
 */
long dpkgargs_int(struct dpkgargs *a, const struct dpkgargs_def *def,
    const char *s);

void dpkgargs_free(struct dpkgargs *a);

#endif
