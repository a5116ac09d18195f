/* SPDX-License-Identifier: MIT */
/* Asking the decoding process for a package's decoded data member (ahead.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ahead/ahead.h"
#include "ahead/aheadmsg.h"

/* The seals that make the memory file's bytes those the process wrote. */
#define AHEADC_SEALS	(F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | \
	F_SEAL_WRITE)

void
ahead_claim(char *const *files, size_t n)
{
	struct aheadmsg m;
	struct stat st;
	size_t i;
	int fd;

	if (n == 0 || (fd = aheadmsg_connect()) < 0)
		return;
	memset(&m, 0, sizeof(m));
	m.magic = AHEADMSG_MAGIC;
	m.op = AHEADMSG_CLAIM;
	for (i = 0; i < n; i++) {
		if (stat(files[i], &st) != 0)
			continue;
		aheadmsg_set_id(&m, &st);
		snprintf(m.path, sizeof(m.path), "%s", files[i]);
		if (aheadmsg_send(fd, &m, -1) != 0)
			break;
	}
	close(fd);
}

int
ahead_take(const char *file, const struct stat *st, size_t *len)
{
	struct aheadmsg m;
	struct stat mst;
	int fd, mfd = -1, r;

	*len = 0;
	if ((fd = aheadmsg_connect()) < 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.magic = AHEADMSG_MAGIC;
	m.op = AHEADMSG_TAKE;
	aheadmsg_set_id(&m, st);
	snprintf(m.path, sizeof(m.path), "%s", file);
	if (aheadmsg_send(fd, &m, -1) != 0 ||
	    (r = aheadmsg_recv(fd, &m, &mfd)) != 1 ||
	    m.op != AHEADMSG_READY || mfd < 0 || !aheadmsg_same(&m, st)) {
		close(fd);
		if (mfd >= 0)
			close(mfd);
		return -1;
	}
	close(fd);
	/*
	 * Sealed against any change, and of the size said: what is read is
	 * what the process decoded, whoever else holds the file.
	 */
	if ((fcntl(mfd, F_GET_SEALS) & AHEADC_SEALS) != AHEADC_SEALS ||
	    fstat(mfd, &mst) != 0 || (uint64_t)mst.st_size != m.len) {
		close(mfd);
		return -1;
	}
	*len = (size_t)m.len;
	return mfd;
}
