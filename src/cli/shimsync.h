/* SPDX-License-Identifier: MIT */
/* The real dpkg's syncs, each decided by the shim: the database's files sync the filesystem, the rest do nothing. */
#ifndef DEBUNPACK_CLI_SHIMSYNC_H
#define DEBUNPACK_CLI_SHIMSYNC_H

#include <sys/types.h>

/*
 * A seccomp filter installed in the child that runs dpkg, whose fsync
 * and fdatasync calls (its own and its maintainer scripts') the shim,
 * its parent, answers one by one (SECCOMP_RET_USER_NOTIF): a regular
 * file of the database (ADMINDIR, but its updates/) is put on the disk
 * ahead of every change made after it (written back and waited for on
 * xfs, settled on btrfs), else ADMINDIR's whole filesystem is synced;
 * any other call does nothing; sync, syncfs and sync_file_range do
 * nothing.  shimconf.c says why that is sound and where.
 */
enum shimsync_how {
	SHIMSYNC_SYNCFS,	/* syncfs of ADMINDIR's filesystem */
	SHIMSYNC_WRITEBACK,	/* the file written back (xfs) */
	SHIMSYNC_SETTLE,	/* the file settled (btrfs: fskind_settles) */
};

struct shimsync {
	int sock[2];		/* the filter's descriptor, child to parent */
	int listen;		/* the parent's: the filter's notifications */
	int admin;		/* ADMINDIR, open: what its syncs sync */
	enum shimsync_how how;	/* what a database file's sync does */
	char *admindir;		/* its real path, "/" at the end */
	size_t admindir_len;
	unsigned long synced, settled, skipped;	/* calls answered, for the
					   debug line */
};

/*
 * Before fork: SS for the database at ADMINDIR.  0, or -errno (no
 * filter then: dpkg runs with its own syncs).
 */
int shimsync_init(struct shimsync *ss, const char *admindir);

/*
 * In the child, before exec: install the filter and hand its
 * descriptor to the parent.  0, or -errno: the child then runs dpkg
 * with its own syncs, and the parent sees no descriptor.
 */
int shimsync_child(struct shimsync *ss);

/*
 * In the parent: answer the child PID's calls until it exits, and reap
 * it: its wait status in *STATUS.  Calls of what it leaves running (a
 * daemon a maintainer script started) are answered by a process left
 * behind for them, which runs each of them as asked.  0, or -errno
 * from waitpid.
 */
int shimsync_serve(struct shimsync *ss, pid_t pid, int *status);

/* Release what shimsync_init took (either side). */
void shimsync_free(struct shimsync *ss);

#endif
