/* SPDX-License-Identifier: MIT */
/* The real dpkg's syncs, each decided by the shim: the database's files sync the filesystem, the rest do nothing. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <seccomp.h>

#include "cli/shimsync.h"
#include "durable/fileat.h"
#include "durable/fskind.h"

#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE	(1UL << 0)
#endif

/* What the filter answers alone: these sync more than one file's worth. */
static const char *const shimsync_none[] = {
	"sync", "syncfs", "sync_file_range", "sync_file_range2",
	"arm_sync_file_range",
};
/* What it asks the shim about: the file's name decides. */
static const char *const shimsync_ask[] = { "fsync", "fdatasync" };

int
shimsync_init(struct shimsync *ss, const char *admindir)
{
	char real[PATH_MAX];
	size_t len;

	memset(ss, 0, sizeof(*ss));
	ss->sock[0] = ss->sock[1] = ss->listen = ss->admin = -1;
	if (realpath(admindir, real) == NULL)
		return -errno;
	len = strlen(real);
	if ((ss->admindir = malloc(len + 2)) == NULL)
		return -ENOMEM;
	memcpy(ss->admindir, real, len);
	/* "/" alone stays "/": a database at the top of its root. */
	if (len == 0 || real[len - 1] != '/')
		ss->admindir[len++] = '/';
	ss->admindir[len] = '\0';
	ss->admindir_len = len;
	if ((ss->admin = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ss->sock) != 0) {
		int e = errno;

		shimsync_free(ss);
		return -e;
	}
	/* Guarded calls are made on xfs and btrfs only (shimconf_how). */
	ss->how = fskind_sync(ss->admin) != FSKIND_SYNCFS ? SHIMSYNC_SYNCFS :
	    fskind_settles(ss->admin) ? SHIMSYNC_SETTLE :
	    fskind_fsync_commits_all(ss->admin) &&
	    fskind_writeback_orders(ss->admin) ? SHIMSYNC_WRITEBACK :
	    SHIMSYNC_SYNCFS;
	return 0;
}

static int
shimsync_filter(scmp_filter_ctx ctx)
{
	size_t i;
	int nr, r;

	for (i = 0; i < sizeof(shimsync_none) / sizeof(shimsync_none[0]); i++) {
		/* Calls this architecture lacks are left out. */
		if ((nr = seccomp_syscall_resolve_name(shimsync_none[i])) ==
		    __NR_SCMP_ERROR)
			continue;
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(0), nr, 0)) != 0 &&
		    r != -EDOM)
			return r;
	}
	for (i = 0; i < sizeof(shimsync_ask) / sizeof(shimsync_ask[0]); i++) {
		if ((nr = seccomp_syscall_resolve_name(shimsync_ask[i])) ==
		    __NR_SCMP_ERROR)
			continue;
		if ((r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0)) != 0 &&
		    r != -EDOM)
			return r;
	}
	return 0;
}

/* Room for one descriptor's control message, aligned for its header. */
union shimsync_cbuf {
	char buf[CMSG_SPACE(sizeof(int))];
	struct cmsghdr align;
};

/* The message that carries the filter's descriptor: one byte, one fd. */
static void
shimsync_msg(struct msghdr *msg, struct iovec *iov, char *one,
    union shimsync_cbuf *cbuf)
{
	memset(msg, 0, sizeof(*msg));
	memset(cbuf, 0, sizeof(*cbuf));
	iov->iov_base = one;
	iov->iov_len = 1;
	msg->msg_iov = iov;
	msg->msg_iovlen = 1;
	msg->msg_control = cbuf->buf;
	msg->msg_controllen = sizeof(cbuf->buf);
}

int
shimsync_child(struct shimsync *ss)
{
	union shimsync_cbuf cbuf;
	struct msghdr msg;
	struct cmsghdr *cm;
	struct iovec iov;
	scmp_filter_ctx ctx;
	char one = 1;
	int fd, r;

	close(ss->sock[0]);
	ss->sock[0] = -1;
	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL)
		r = -ENOMEM;
	else if ((r = shimsync_filter(ctx)) == 0)
		r = seccomp_load(ctx);
	/* The descriptor outlives the context: it is the filter's. */
	fd = r == 0 ? seccomp_notify_fd(ctx) : -1;
	if (ctx != NULL)
		seccomp_release(ctx);
	if (r == 0 && fd < 0)
		r = -EBADF;
	if (r == 0) {
		shimsync_msg(&msg, &iov, &one, &cbuf);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
		/*
		 * Not sent, the filter is in place with nobody to answer:
		 * its calls would fail (ENOSYS) once this end is closed, as
		 * dpkg's fsync, a failure it reports.  Cannot happen on a
		 * socketpair with room for one message.
		 */
		if (sendmsg(ss->sock[1], &msg, MSG_NOSIGNAL) != 1)
			r = -errno;
	}
	if (fd >= 0)
		close(fd);
	close(ss->sock[1]);
	ss->sock[1] = -1;
	return r;
}

/* The filter's descriptor, from the child: -1 when it sent none. */
static int
shimsync_receive(struct shimsync *ss)
{
	union shimsync_cbuf cbuf;
	char one;
	struct msghdr msg;
	struct cmsghdr *cm;
	struct iovec iov;
	ssize_t n;
	int fd = -1;

	shimsync_msg(&msg, &iov, &one, &cbuf);
	while ((n = recvmsg(ss->sock[0], &msg, MSG_CMSG_CLOEXEC)) < 0 &&
	    errno == EINTR)
		continue;
	if (n == 1 && (cm = CMSG_FIRSTHDR(&msg)) != NULL &&
	    cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/*
 * A database file's data ahead of every later change, without a commit:
 * through a descriptor of our own for the file the caller syncs (PROC,
 * the same inode as ST), written back and waited for on xfs, which logs
 * a write's size when it completes, or settled on btrfs, which records
 * its extents in a worker after that (fskind_settles).  Its rename, which
 * dpkg makes next, is then in the same transaction of the filesystem or
 * a later one, and so is every change after it; everything before it
 * (the conffiles' renames, the scripts' metadata) in the same or an
 * earlier one.  The barrier after the call commits them all, one commit
 * where a syncfs here cost one more per status file.  No fsync of the
 * call's can log a later change alone: the filter answers them all.
 * 0 done; 1 not here (the caller syncs the filesystem); -errno.
 */
static int
shimsync_settle(const struct shimsync *ss, const char *proc,
    const struct stat *st)
{
	struct stat own;
	int fd, r;

	if (ss->how == SHIMSYNC_SYNCFS)
		return 1;
	if ((fd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
		return 1;
	if (fstat(fd, &own) != 0 || own.st_dev != st->st_dev ||
	    own.st_ino != st->st_ino) {
		close(fd);
		return 1;
	}
	r = ss->how == SHIMSYNC_SETTLE ? fileat_writeback_mapped(fd) :
	    fileat_writeback(fd);
	if (r < 0)
		r = -errno;
	close(fd);
	return r;
}

/*
 * The answer to REQ, a sync of one file: does the file belong to the
 * database?  dpkg writes each file of its database it replaces (status,
 * diversions, statoverride, the triggers' files; update-alternatives'
 * under alternatives/) as NAME-new, syncs it, and renames it over NAME:
 * on the disk ahead of everything after it (shimsync_settle), or synced
 * with everything before it, the new file is whole and names no change
 * that a power cut could take back.  The update files it syncs one per
 * status change may come back empty (dpkg reads that as no change: the
 * step is done again), and a maintainer script's sync is not dpkg's to
 * keep: both do nothing until the barrier.
 */
static void
shimsync_answer(struct shimsync *ss, int listen, struct seccomp_notif *req,
    struct seccomp_notif_resp *resp)
{
	char proc[64], path[PATH_MAX];
	struct stat st;
	ssize_t n;
	int r;

	resp->id = req->id;
	resp->val = 0;
	resp->error = 0;
	resp->flags = 0;
	snprintf(proc, sizeof(proc), "/proc/%u/fd/%llu", (unsigned)req->pid,
	    (unsigned long long)req->data.args[0]);
	if (stat(proc, &st) != 0) {
		/* No such descriptor: the call's own answer (EBADF). */
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		return;
	}
	if (!S_ISREG(st.st_mode) ||
	    (n = readlink(proc, path, sizeof(path) - 1)) < 0)
		goto skip;
	path[n] = '\0';
	if (strncmp(path, ss->admindir, ss->admindir_len) != 0 ||
	    strncmp(path + ss->admindir_len, "updates/", 8) == 0)
		goto skip;
	/* The name read was that process's: it is still the one asking. */
	if (seccomp_notify_id_valid(listen, req->id) != 0)
		return;
	if ((r = shimsync_settle(ss, proc, &st)) <= 0) {
		resp->error = r;
		ss->settled++;
		return;
	}
	if (syncfs(ss->admin) != 0)
		resp->error = -errno;
	ss->synced++;
	return;
skip:
	ss->skipped++;
}

/*
 * Answer one waiting call: as shimsync_answer says, or, with RUN_ALL,
 * each as asked (the kernel runs it).  -errno when nothing was waiting.
 */
static int
shimsync_one(struct shimsync *ss, int listen, bool run_all,
    struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
	int r;

	memset(req, 0, sizeof(*req));
	if ((r = seccomp_notify_receive(listen, req)) != 0)
		return r;
	if (run_all) {
		memset(resp, 0, sizeof(*resp));
		resp->id = req->id;
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	} else
		shimsync_answer(ss, listen, req, resp);
	/* A caller killed meanwhile has no answer to get. */
	(void)seccomp_notify_respond(listen, resp);
	return 0;
}

/*
 * What dpkg left running under the filter (a daemon a maintainer script
 * started) still asks: a process of its own answers for as long as it
 * runs, every sync as asked, so that it is not left with syncs that
 * fail (ENOSYS) once the shim is gone.  Detached, with none of the
 * shim's descriptors: apt waits for dpkg's, not for it.
 */
static void
shimsync_leave(struct shimsync *ss, int listen, struct seccomp_notif *req,
    struct seccomp_notif_resp *resp)
{
	struct pollfd p;
	pid_t pid;
	int null;

	if ((pid = fork()) != 0)
		return;
	setsid();
	if ((null = open("/dev/null", O_RDWR)) >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	if (dup2(listen, 3) < 0)
		_exit(1);
	close_range(4, ~0U, 0);
	for (;;) {
		p.fd = 3;
		p.events = POLLIN;
		p.revents = 0;
		if (poll(&p, 1, -1) < 0)
			continue;
		if (p.revents & POLLIN)
			shimsync_one(ss, 3, true, req, resp);
		else if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
			_exit(0);
	}
}

int
shimsync_serve(struct shimsync *ss, pid_t pid, int *status)
{
	struct seccomp_notif_resp *resp = NULL;
	struct seccomp_notif *req = NULL;
	struct pollfd p[2];
	bool gone = false;
	int pidfd, r = 0;
	pid_t w;

	close(ss->sock[1]);
	ss->sock[1] = -1;
	ss->listen = shimsync_receive(ss);
	close(ss->sock[0]);
	ss->sock[0] = -1;
	if (ss->listen >= 0 && seccomp_notify_alloc(&req, &resp) != 0) {
		req = NULL;
		resp = NULL;
	}
	if (ss->listen < 0 || req == NULL) {
		/* No filter: dpkg runs with its own syncs. */
		while ((w = waitpid(pid, status, 0)) < 0 && errno == EINTR)
			continue;
		seccomp_notify_free(req, resp);
		return w < 0 ? -errno : 0;
	}
	/* Its end, told by a descriptor; else by asking every 20 ms. */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	while (!gone) {
		p[0].fd = ss->listen;
		p[0].events = POLLIN;
		p[1].fd = pidfd;
		p[1].events = POLLIN;
		p[0].revents = p[1].revents = 0;
		if (poll(p, pidfd >= 0 ? 2 : 1, pidfd >= 0 ? -1 : 20) < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (p[0].revents & POLLIN) {
			shimsync_one(ss, ss->listen, false, req, resp);
			continue;
		}
		if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			/* Nobody runs under the filter any more. */
			while ((w = waitpid(pid, status, 0)) < 0 &&
			    errno == EINTR)
				continue;
			r = w < 0 ? -errno : 0;
			gone = true;
		} else if (pidfd < 0 || (p[1].revents & POLLIN)) {
			if ((w = waitpid(pid, status, WNOHANG)) < 0) {
				r = -errno;
				break;
			}
			if (w == pid) {
				/* dpkg is gone; is anything else under it? */
				p[0].revents = 0;
				if (poll(p, 1, 0) >= 0 &&
				    !(p[0].revents & (POLLHUP | POLLERR)))
					shimsync_leave(ss, ss->listen, req,
					    resp);
				gone = true;
			}
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	seccomp_notify_free(req, resp);
	return r;
}

void
shimsync_free(struct shimsync *ss)
{
	if (ss->sock[0] >= 0)
		close(ss->sock[0]);
	if (ss->sock[1] >= 0)
		close(ss->sock[1]);
	if (ss->listen >= 0)
		close(ss->listen);
	if (ss->admin >= 0)
		close(ss->admin);
	free(ss->admindir);
	memset(ss, 0, sizeof(*ss));
	ss->sock[0] = ss->sock[1] = ss->listen = ss->admin = -1;
}
