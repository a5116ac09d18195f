/* SPDX-License-Identifier: MIT */
/* The messages between the decoding process and its clients: address, identity, descriptors. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "ahead/aheadmsg.h"

void
aheadmsg_set_id(struct aheadmsg *m, const struct stat *st)
{
	m->dev = (uint64_t)st->st_dev;
	m->ino = (uint64_t)st->st_ino;
	m->size = (uint64_t)st->st_size;
	m->mtime_sec = (int64_t)st->st_mtim.tv_sec;
	m->mtime_nsec = (int64_t)st->st_mtim.tv_nsec;
	m->ctime_sec = (int64_t)st->st_ctim.tv_sec;
	m->ctime_nsec = (int64_t)st->st_ctim.tv_nsec;
}

/*
 * The change time too: a file written again in place within the same
 * mtime tick, or given its old mtime back (touch -r), has a new ctime.
 */
bool
aheadmsg_same(const struct aheadmsg *m, const struct stat *st)
{
	return m->dev == (uint64_t)st->st_dev &&
	    m->ino == (uint64_t)st->st_ino &&
	    m->size == (uint64_t)st->st_size &&
	    m->mtime_sec == (int64_t)st->st_mtim.tv_sec &&
	    m->mtime_nsec == (int64_t)st->st_mtim.tv_nsec &&
	    m->ctime_sec == (int64_t)st->st_ctim.tv_sec &&
	    m->ctime_nsec == (int64_t)st->st_ctim.tv_nsec;
}

/*
 * The name is the user's and the root's: an abstract name is the
 * network namespace's, which a chroot shares with the host, and the
 * hook of an apt run in a chroot names files by the chroot's paths.  So
 * a run in a chroot and one on the host (or two chroots) each have
 * their own process, found by the device and inode of "/".
 */
socklen_t
aheadmsg_addr(struct sockaddr_un *a)
{
	const char *tag = getenv(AHEADMSG_ENV);
	size_t max = sizeof(a->sun_path) - 1;
	struct stat st;
	int n;

	if (stat("/", &st) != 0)
		st.st_dev = st.st_ino = 0;
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	n = snprintf(a->sun_path + 1, max, "debunpack-ahead-%u-%jx-%jx%s%s",
	    (unsigned)geteuid(), (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
	    tag != NULL && tag[0] != '\0' ? "-" : "", tag != NULL ? tag : "");
	if (n < 0 || (size_t)n >= max)
		n = (int)max - 1;
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    (size_t)n);
}

bool
aheadmsg_trusted(int fd)
{
	struct ucred c;
	socklen_t len = sizeof(c);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &len) != 0)
		return false;
	return c.uid == 0 || c.uid == geteuid();
}

int
aheadmsg_connect(void)
{
	struct timeval tv = { .tv_sec = AHEADMSG_RCVTIMEO };
	struct sockaddr_un a;
	socklen_t len = aheadmsg_addr(&a);
	int fd, r;

	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, len) != 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (!aheadmsg_trusted(fd)) {
		close(fd);
		return -EPERM;
	}
	/* A process that hangs costs a call its wait, never the call. */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

int
aheadmsg_send(int fd, const struct aheadmsg *m, int pass)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (pass >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass, sizeof(int));
	}
	for (;;) {
		ssize_t n = sendmsg(fd, &mh, MSG_NOSIGNAL);

		if (n == (ssize_t)sizeof(*m))
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 ? -errno : -EPROTO;
	}
}

int
aheadmsg_recv(int fd, struct aheadmsg *m, int *pass)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *c;
	int got = -1;
	ssize_t n;

	if (pass != NULL)
		*pass = -1;
	do
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&got, CMSG_DATA(c), sizeof(int));
	if (n == 0) {
		if (got >= 0)
			close(got);
		return 0;
	}
	if ((size_t)n != sizeof(*m) || (mh.msg_flags & MSG_TRUNC) ||
	    m->magic != AHEADMSG_MAGIC) {
		if (got >= 0)
			close(got);
		return -EPROTO;
	}
	m->path[sizeof(m->path) - 1] = '\0';
	if (pass != NULL)
		*pass = got;
	else if (got >= 0)
		close(got);
	return 1;
}
