/* SPDX-License-Identifier: MIT */
/* emulate: a foreign root's maintainer scripts run under qemu-user. */
#ifndef DEBUNPACK_EMULATE_H
#define DEBUNPACK_EMULATE_H

#include <limits.h>
#include <stdbool.h>
#include <time.h>

#include "run/binfmtns.h"
#include "util/error.h"

/*
 * Everything debunpack does to a root runs on the host: it only reads
 * archives and writes files.  Only the maintainer scripts run the root's
 * own binaries, chrooted, and a root of another CPU needs the kernel's
 * binfmt_misc to hand them to qemu-user.  An entry with the F flag has
 * its interpreter open already and works in any chroot; one without it
 * makes the kernel look for the interpreter inside the root when each
 * program starts, so a static one is put there for each script's
 * duration and taken away after it.
 */
struct emulate {
	bool foreign;		/* the root's binaries are not the host's */
	char machine[32];	/* theirs, for the messages: "aarch64" */
	char entry[256];		/* the binfmt_misc entry that runs them */
	/* Without F: the interpreter's path as the kernel looks it up
	   (empty: nothing to put in the root), and the file copied there. */
	char interp[PATH_MAX];
	char source[PATH_MAX];
	/*
	 * No entry of the host's runs them: each script in a user
	 * namespace of its own whose binfmt_misc has LINE (binfmtns.h).
	 */
	bool own;
	char line[BINFMTNS_LINE];
};

/*
 * Judge how the chrooted scripts of ROOT run, before anything is
 * written: from the ELF header of its /bin/sh (or /usr/bin/dpkg),
 * resolved inside the root, or, where the root has neither yet, from
 * its dpkg architecture ARCH (NULL: the host's).  EMULATOR (NULL: none)
 * is a static qemu-user the user names for an entry without F, or for
 * no entry at all: each script then runs with a binfmt_misc of its own
 * (binfmtns.h), tried here once.  The
 * kernel's binfmt_misc is read from /proc/sys/fs/binfmt_misc, or the
 * directory DEBUNPACK_BINFMT_MISC names (for tests).  0 with EM filled,
 * or -ENOEXEC with ERR naming the root and its architecture when no
 * way to run its binaries is there.
 */
int emulate_judge(struct emulate *em, const char *root, const char *arch,
    const char *emulator, struct dbp_error *err);

/* What emulate_enter put in the root, for emulate_leave to take away. */
struct emulate_left {
	int nmade;		/* directories made, then the file (made) */
	char made[8][PATH_MAX];
	bool file;
	char top[PATH_MAX];	/* the directory that was there, its times */
	struct timespec times[2];
};

/*
 * Before a script of ROOT: the interpreter EM needs in place (nothing
 * when it is there already or EM needs none).  0, or -errno with ERR;
 * what was made is then already taken away.  emulate_leave takes it
 * away after the script, the times of the directory that held it as
 * they were: the root is left as it was.
 */
int emulate_enter(const struct emulate *em, const char *root,
    struct emulate_left *left, struct dbp_error *err);
int emulate_leave(const char *root, struct emulate_left *left,
    struct dbp_error *err);

#endif
