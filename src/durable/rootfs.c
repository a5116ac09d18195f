/* SPDX-License-Identifier: MIT */
/* Opening paths inside the target root so that nothing resolves outside it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef HAVE_LINUX_OPENAT2_H
#include <linux/openat2.h>
#endif

#include "durable/rootfs.h"

/* Linux gives up after 40 symlinks in one lookup; so do we. */
#define ROOTFS_MAXLINKS	40

#if defined(HAVE_LINUX_OPENAT2_H) && HAVE_DECL_SYS_OPENAT2
static int
rootfs_openat2(int dirfd, const char *rel, int flags)
{
	struct open_how how;
	int fd, tries;

	memset(&how, 0, sizeof(how));
	how.flags = (unsigned long long)(flags | O_CLOEXEC);
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	/* EAGAIN means a concurrent rename raced a "..": just retry. */
	for (tries = 0; tries < 16; tries++) {
		fd = (int)syscall(SYS_openat2, dirfd, rel[0] ? rel : ".",
		    &how, sizeof(how));
		if (fd >= 0)
			return fd;
		if (errno != EAGAIN)
			break;
	}
	return -errno;
}
#else
static int
rootfs_openat2(int dirfd, const char *rel, int flags)
{
	(void)dirfd;
	(void)rel;
	(void)flags;
	return -ENOSYS;
}
#endif

int
rootfs_open(struct rootfs *rf, const char *dir, struct dbp_error *err)
{
	int fd;

	rf->dpkg = false;
	rf->dpkgfd = -1;
	rf->dpkgdir = NULL;
	rf->fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rf->fd < 0)
		return dbp_err(err, errno, dir, "cannot open root");
	fd = rootfs_openat2(rf->fd, "", O_PATH | O_DIRECTORY);
	rf->openat2 = fd >= 0;
	if (fd >= 0)
		close(fd);
	return 0;
}

void
rootfs_close(struct rootfs *rf)
{
	if (rf->fd >= 0)
		close(rf->fd);
	rf->fd = -1;
	if (rf->dpkg && rf->dpkgfd >= 0)
		close(rf->dpkgfd);
	rf->dpkg = false;
	rf->dpkgfd = -1;
}

int
rootfs_open_dpkg(struct rootfs *rf, const char *dir, struct dbp_error *err)
{
	int fd;

	/* The user's path is followed as dpkg follows it; below it, nothing. */
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return dbp_err(err, errno, dir, "cannot open dpkg's database"
		    " directory");
	if (rf->dpkg && rf->dpkgfd >= 0)
		close(rf->dpkgfd);
	rf->dpkg = true;
	rf->dpkgfd = fd;
	rf->dpkgdir = dir;
	return 0;
}

void
rootfs_force_walk(struct rootfs *rf)
{
	rf->openat2 = false;
}

/*
 * The user-space equivalent of RESOLVE_IN_ROOT.  PENDING holds what is
 * left to resolve; symlink targets are spliced in front of it.  The stack
 * of directories walked so far lets ".." go up without a lookup by name,
 * and stops at the root.
 */
static int
rootfs_walk(const struct rootfs *rf, const char *rel, int flags)
{
	char *pending, *comp, *next, link[PATH_MAX];
	int stack[PATH_MAX / 2], depth = 0, links = 0, fd, r, slash;
	size_t plen;
	struct stat st;

	if ((pending = malloc(PATH_MAX * 2)) == NULL)
		return -ENOMEM;
	if (strlen(rel) >= PATH_MAX) {
		free(pending);
		return -ENAMETOOLONG;
	}
	strcpy(pending, rel);
	stack[0] = rf->fd;
	comp = pending;
	for (;;) {
		while (*comp == '/')
			comp++;
		if (*comp == '\0') {
			/* Everything resolved: reopen the directory with FLAGS. */
			r = openat(stack[depth], ".", flags | O_CLOEXEC);
			r = r < 0 ? -errno : r;
			goto out;
		}
		/* A slash after the last component asks for a directory. */
		next = strchr(comp, '/');
		slash = next != NULL;
		if (slash)
			*next++ = '\0';
		else
			next = comp + strlen(comp);
		if (strcmp(comp, ".") == 0) {
			comp = next;
			continue;
		}
		if (strcmp(comp, "..") == 0) {
			if (depth > 0)
				close(stack[depth--]);
			comp = next;
			continue;
		}
		fd = openat(stack[depth], comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) != 0) {
			r = -errno;
			if (fd >= 0)
				close(fd);
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			ssize_t n = readlinkat(stack[depth], comp, link,
			    sizeof(link) - 1);

			close(fd);
			if (n < 0 || ++links > ROOTFS_MAXLINKS) {
				r = n < 0 ? -errno : -ELOOP;
				goto out;
			}
			link[n] = '\0';
			plen = strlen(next);
			if ((size_t)n + 1 + plen >= PATH_MAX * 2) {
				r = -ENAMETOOLONG;
				goto out;
			}
			/* Splice: PENDING becomes "TARGET/REST", or "TARGET". */
			memmove(pending + n + slash, next, plen + 1);
			memcpy(pending, link, (size_t)n);
			if (slash)
				pending[n] = '/';
			comp = pending;
			if (link[0] == '/')
				while (depth > 0)
					close(stack[depth--]);
			continue;
		}
		if (*next == '\0' && !slash && !S_ISDIR(st.st_mode)) {
			/* Last component and not a directory: open it itself. */
			close(fd);
			r = openat(stack[depth], comp,
			    flags | O_NOFOLLOW | O_CLOEXEC);
			r = r < 0 ? -errno : r;
			goto out;
		}
		if (!S_ISDIR(st.st_mode)) {
			close(fd);
			r = -ENOTDIR;
			goto out;
		}
		if (depth + 1 >= (int)(sizeof(stack) / sizeof(stack[0]))) {
			close(fd);
			r = -ENAMETOOLONG;
			goto out;
		}
		stack[++depth] = fd;
		comp = next;
	}
out:
	while (depth > 0)
		close(stack[depth--]);
	free(pending);
	return r;
}

/*
 * REL's part inside dpkg's directory when RF has one and REL is
 * ROOTFS_DPKG or under it ("" for the directory itself), else NULL.
 */
static const char *
rootfs_in_dpkg(const struct rootfs *rf, const char *rel)
{
	size_t n = sizeof(ROOTFS_DPKG) - 1;

	if (!rf->dpkg)
		return NULL;
	while (*rel == '/')
		rel++;
	while (rel[0] == '.' && rel[1] == '/')
		for (rel += 2; *rel == '/'; rel++)
			;
	if (strncmp(rel, ROOTFS_DPKG, n) != 0 ||
	    (rel[n] != '\0' && rel[n] != '/'))
		return NULL;
	for (rel += n; *rel == '/'; rel++)
		;
	return rel;
}

int
rootfs_resolve(const struct rootfs *rf, const char *rel, int flags)
{
	const char *in = rootfs_in_dpkg(rf, rel);

	if (in != NULL) {
		/* dpkg's directory is a root of its own: nothing leaves it. */
		struct rootfs sub = { .fd = rf->dpkgfd,
		    .openat2 = rf->openat2, .dpkg = false, .dpkgfd = -1 };

		if (sub.openat2)
			return rootfs_openat2(sub.fd, in, flags);
		return rootfs_walk(&sub, in, flags);
	}
	if (rf->openat2)
		return rootfs_openat2(rf->fd, rel, flags);
	return rootfs_walk(rf, rel, flags);
}
