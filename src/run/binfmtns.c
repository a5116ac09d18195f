/* SPDX-License-Identifier: MIT */
/* binfmtns: a script's own user namespace, whose binfmt_misc runs the root's binaries by a named emulator. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/binfmtns.h"

#define BINFMTNS_DIR	"/proc/sys/fs/binfmt_misc"

int
binfmtns_line(char *buf, size_t n, const char *name, const unsigned char *h,
    const char *emulator)
{
	unsigned char magic[20], mask[20];
	size_t i, at;
	int w;

	/* ELF magic, class, byte order, version; e_type; e_machine. */
	memcpy(magic, h, sizeof(magic));
	memset(mask, 0xff, sizeof(mask));
	/* The OS ABI and the padding vary: any will do. */
	memset(magic + 7, 0, 9);
	memset(mask + 7, 0, 9);
	/* ET_EXEC (2) and ET_DYN (3): the low bit of e_type is free. */
	i = h[5] == 2 ? 17 : 16;	/* ELFDATA2MSB: big-endian */
	magic[16] = magic[17] = 0;
	magic[i] = 2;
	mask[i] = 0xfe;
	if ((w = snprintf(buf, n, ":%s:M::", name)) < 0 || (size_t)w >= n)
		return -ENAMETOOLONG;
	at = (size_t)w;
	/* Every byte escaped: a ':' would end the field. */
	for (i = 0; i < sizeof(magic) && at + 4 < n; i++, at += 4)
		snprintf(buf + at, n - at, "\\x%02x", magic[i]);
	if (at + 1 < n)
		buf[at++] = ':';
	for (i = 0; i < sizeof(mask) && at + 4 < n; i++, at += 4)
		snprintf(buf + at, n - at, "\\x%02x", mask[i]);
	if (at >= n || (w = snprintf(buf + at, n - at, ":%s:F", emulator)) <
	    0 || (size_t)w >= n - at)
		return -ENAMETOOLONG;
	return 0;
}

int
binfmtns_open(struct binfmtns *b)
{
	b->up[0] = b->up[1] = b->down[0] = b->down[1] = -1;
	if (pipe2(b->up, O_CLOEXEC) != 0 || pipe2(b->down, O_CLOEXEC) != 0) {
		int e = errno;

		binfmtns_close(b);
		return -e;
	}
	return 0;
}

void
binfmtns_close(struct binfmtns *b)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (b->up[i] >= 0)
			close(b->up[i]);
		if (b->down[i] >= 0)
			close(b->down[i]);
		b->up[i] = b->down[i] = -1;
	}
}

int
binfmtns_child(struct binfmtns *b, const char *line)
{
	int e = 0, fd;
	size_t len = strlen(line);

	close(b->up[0]);
	close(b->down[1]);
	b->up[0] = b->down[1] = -1;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
		return -errno;
	/* Its ids mapped from outside: it has no right to map them itself. */
	if (write(b->up[1], "u", 1) != 1 ||
	    read(b->down[0], &e, sizeof(e)) != (ssize_t)sizeof(e))
		return -EPIPE;
	if (e != 0)
		return -e;
	/* Over the host's, in this mount namespace only. */
	if (mount("binfmt_misc", BINFMTNS_DIR, "binfmt_misc", MS_NOSUID |
	    MS_NODEV | MS_NOEXEC, NULL) != 0)
		return -errno;
	if ((fd = open(BINFMTNS_DIR "/register", O_WRONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (write(fd, line, len) != (ssize_t)len) {
		e = errno;
		close(fd);
		return -e;
	}
	close(fd);
	return 0;
}

/*
 * /proc/PID/WHICH ("uid_map", "gid_map") written with each range of
 * this process's own map mapped to itself.  0 or -errno.
 */
static int
binfmtns_map(pid_t pid, const char *which)
{
	char path[64], map[4096], line[128];
	unsigned long in, out, count;
	size_t at = 0;
	FILE *f;
	int fd, e = 0;

	snprintf(path, sizeof(path), "/proc/self/%s", which);
	if ((f = fopen(path, "re")) == NULL)
		return -errno;
	while (fscanf(f, "%lu %lu %lu", &in, &out, &count) == 3) {
		int w = snprintf(line, sizeof(line), "%lu %lu %lu\n", in, in,
		    count);

		if (w < 0 || at + (size_t)w >= sizeof(map)) {
			fclose(f);
			return -E2BIG;
		}
		memcpy(map + at, line, (size_t)w);
		at += (size_t)w;
	}
	fclose(f);
	if (at == 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, which);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -errno;
	/* The whole map in one write: the kernel takes no second. */
	if (write(fd, map, at) != (ssize_t)at)
		e = errno != 0 ? errno : EIO;
	close(fd);
	return -e;
}

void
binfmtns_child_or_exit(struct binfmtns *b, const char *line,
    const char *who, const char *emulator, int status)
{
	int r;

	if ((r = binfmtns_child(b, line)) == 0)
		return;
	fprintf(stderr, "%scannot register the emulator %s: %s\n", who,
	    emulator, strerror(-r));
	_exit(status);
}

int
binfmtns_parent(struct binfmtns *b, pid_t pid)
{
	char c;
	int r;
	ssize_t n;

	close(b->up[1]);
	close(b->down[0]);
	b->up[1] = b->down[0] = -1;
	while ((n = read(b->up[0], &c, 1)) < 0 && errno == EINTR)
		;
	if (n != 1)
		return 0;	/* it died or gave up before: its status says */
	if ((r = binfmtns_map(pid, "uid_map")) == 0)
		r = binfmtns_map(pid, "gid_map");
	{
		int e = -r;

		if (write(b->down[1], &e, sizeof(e)) != (ssize_t)sizeof(e) &&
		    r == 0)
			r = -EPIPE;
	}
	return r;
}

int
binfmtns_try(const char *line)
{
	struct binfmtns b;
	int r, status;
	pid_t pid;

	if ((r = binfmtns_open(&b)) != 0)
		return r;
	if ((pid = fork()) < 0) {
		r = -errno;
		binfmtns_close(&b);
		return r;
	}
	if (pid == 0) {
		r = binfmtns_child(&b, line);
		_exit(r == 0 ? 0 : -r > 0 && -r < 256 ? -r : EIO);
	}
	r = binfmtns_parent(&b, pid);
	binfmtns_close(&b);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (r != 0)
		return r;
	if (!WIFEXITED(status))
		return -EINTR;
	return -WEXITSTATUS(status);
}
