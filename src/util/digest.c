/* SPDX-License-Identifier: MIT */
/* SHA-256 (and MD5 for dpkg): of archive data as it streams by, and of files on disk. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <nettle/nettle-meta.h>
#include <nettle/version.h>

#include "util/digest.h"

/*
 * Through Nettle: every file's data goes through SHA-256 on its way to
 * disk (the record keeps it).  Its x86-64 build uses the CPU's SHA
 * instructions where there are some, as libcrypto does (about 1 GB/s
 * here against libcrypto's 1.15), and costs nothing to start: libcrypto's
 * load and its first digest (EVP_MD_fetch reads its configuration and
 * loads a provider) took 2.2 ms of every run, which apt's dpkg calls,
 * one a package, pay each time.  libarchive loads Nettle anyway.
 */
struct digest {
	const struct nettle_hash *alg;
	void *ctx;		/* alg->context_size bytes */
};

static int
digest_new_alg(struct digest **out, const struct nettle_hash *alg)
{
	struct digest *d;

	if ((d = calloc(1, sizeof(*d))) == NULL)
		return -ENOMEM;
	d->alg = alg;
	if ((d->ctx = malloc(alg->context_size)) == NULL) {
		free(d);
		return -ENOMEM;
	}
	alg->init(d->ctx);
	*out = d;
	return 0;
}

int
digest_new(struct digest **out)
{
	return digest_new_alg(out, &nettle_sha256);
}

int
digest_new_md5(struct digest **out)
{
	return digest_new_alg(out, &nettle_md5);
}

void
digest_free(struct digest *d)
{
	if (d == NULL)
		return;
	free(d->ctx);
	free(d);
}

int
digest_start(struct digest *d)
{
	d->alg->init(d->ctx);
	return 0;
}

void
digest_add(struct digest *d, const void *buf, size_t len)
{
	d->alg->update(d->ctx, len, buf);
}

int
digest_end(struct digest *d, uint8_t out[DIGEST_LEN])
{
	d->alg->digest(d->ctx, d->alg->digest_size, out);
	return 0;
}

int
digest_fd(struct digest *d, int fd, uint8_t out[DIGEST_LEN])
{
	uint8_t buf[65536];
	ssize_t n;
	int r;

	r = digest_start(d);
	while (r == 0 && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno != EINTR)
				r = -errno;
			continue;
		}
		digest_add(d, buf, (size_t)n);
	}
	return r != 0 ? r : digest_end(d, out);
}

int
digest_file_at(struct digest *d, int dfd, const char *name,
    uint8_t out[DIGEST_LEN])
{
	int fd, r;

	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -errno;
	r = digest_fd(d, fd, out);
	close(fd);
	return r;
}

const char *
digest_library(void)
{
	static char v[32];

	snprintf(v, sizeof(v), "Nettle %d.%d", nettle_version_major(),
	    nettle_version_minor());
	return v;
}
