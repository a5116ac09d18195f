/* SPDX-License-Identifier: MIT */
/* The messages between the decoding process and its clients (ahead.h). */
#ifndef DEBUNPACK_AHEADMSG_H
#define DEBUNPACK_AHEADMSG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#define AHEADMSG_MAGIC	0x64626168u	/* "dbah" */

enum aheadmsg_op {
	AHEADMSG_ADD = 1,	/* a package file to decode: PATH */
	AHEADMSG_TAKE,		/* the decoded member of the file ID is */
	AHEADMSG_READY,		/* here it is: a descriptor, LEN bytes */
	AHEADMSG_NONE,		/* not here: decode it */
	AHEADMSG_CLAIM,		/* a call's: the file ID is, not to start */
};

/* One message a datagram (SOCK_SEQPACKET): its size is fixed. */
struct aheadmsg {
	uint32_t magic;
	uint32_t op;
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
	uint64_t len;
	char path[PATH_MAX];
};

/* FILE's identity as ST has it, into M. */
void aheadmsg_set_id(struct aheadmsg *m, const struct stat *st);

/* Whether M names the file ST is (same inode, size and times). */
bool aheadmsg_same(const struct aheadmsg *m, const struct stat *st);

/*
 * The process's address: an abstract socket (per network namespace, so
 * a container has its own) of this user's and of this root's (the
 * device and inode of "/": a chroot has its own), and of the tag in
 * AHEADMSG_ENV where it is set (runs that must not meet: the tests,
 * side by side).
 */
#define AHEADMSG_ENV	"DEBUNPACK_AHEAD_TAG"
socklen_t aheadmsg_addr(struct sockaddr_un *a);

/*
 * Whether the peer of connected socket FD runs as root or as this
 * process's user: anyone may bind an abstract name first.
 */
bool aheadmsg_trusted(int fd);

/*
 * A connection to the process (AHEADMSG_RCVTIMEO seconds at most a
 * reply), checked with aheadmsg_trusted: a descriptor, or -errno
 * (-ECONNREFUSED, -ENOENT: none runs).
 */
#define AHEADMSG_RCVTIMEO	120
int aheadmsg_connect(void);

/* Send M, with descriptor PASS (-1: none).  0 or -errno. */
int aheadmsg_send(int fd, const struct aheadmsg *m, int pass);

/*
 * Receive one message into M, and a descriptor it carries into *PASS
 * (-1: none; PASS NULL: closed).  1, 0 at the end, or -errno; a message
 * of another size or magic is -EPROTO.
 */
int aheadmsg_recv(int fd, struct aheadmsg *m, int *pass);

#endif
