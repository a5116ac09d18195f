/* SPDX-License-Identifier: MIT */
/* binfmtns: a script's own user namespace, whose binfmt_misc runs the root's binaries by a named emulator. */
#ifndef DEBUNPACK_BINFMTNS_H
#define DEBUNPACK_BINFMTNS_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Where the host's binfmt_misc has no entry for a root's binaries (not
 * registered, or a container that sees none), a static qemu-user the
 * user names still runs them: each script starts in a user namespace
 * of its own, with the ids of its parent's mapped to themselves, and
 * mounts there a binfmt_misc of that namespace's own (Linux 6.7 and
 * later), holding one entry with the F flag for the emulator.  The
 * kernel looks entries up in the nearest namespace that has its own,
 * so the script and everything it runs find that one, and nothing of
 * the host's changes.  The script runs as root of that namespace: what
 * only the host's root may do (making device nodes, loading modules)
 * is refused to it.
 */

#define BINFMTNS_LINE	512

/*
 * The registration line of an F entry NAME that runs the ELF binaries
 * whose header H (20 bytes at least) starts as this one's (class, byte
 * order, machine; executables and shared objects) by EMULATOR, into
 * BUF.  0, or -ENAMETOOLONG.
 */
int binfmtns_line(char *buf, size_t n, const char *name,
    const unsigned char *h, const char *emulator);

/* The two pipes between a script's process and its parent. */
struct binfmtns {
	int up[2];	/* child to parent: its namespace is made */
	int down[2];	/* parent to child: its ids are mapped (an errno) */
};

/* Before the fork: the pipes.  0 or -errno. */
int binfmtns_open(struct binfmtns *b);
void binfmtns_close(struct binfmtns *b);

/*
 * In the child, before it chroots: its namespaces made, its ids mapped
 * by the parent (binfmtns_parent), binfmt_misc mounted and LINE
 * registered.  0 or -errno.
 */
int binfmtns_child(struct binfmtns *b, const char *line);

/*
 * binfmtns_child for a child that has nobody to report to but standard
 * error: where it fails, "WHOcannot register the emulator EMULATOR:
 * ERRNO" there, and _exit(STATUS).
 */
void binfmtns_child_or_exit(struct binfmtns *b, const char *line,
    const char *who, const char *emulator, int status);

/*
 * In the parent: the ids of child PID mapped once it asks.  0, or
 * -errno (the child is told, and gives up).  A child that died first
 * is no error here: its exit status tells.
 */
int binfmtns_parent(struct binfmtns *b, pid_t pid);

/*
 * Whether LINE can be registered so (a child does it all, and exits):
 * 0, or -errno (EPERM: a kernel before 6.7, or user namespaces off).
 */
int binfmtns_try(const char *line);

#endif
