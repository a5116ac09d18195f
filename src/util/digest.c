/* SPDX-License-Identifier: MIT */
/* SHA-256 (and MD5 for dpkg): of archive data as it streams by, and of files on disk. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "util/digest.h"

/*
 * Through libcrypto: every file's data goes through SHA-256 on its way to
 * disk (the record keeps it), and libcrypto uses the CPU's SHA
 * instructions where there are some, several times faster than plain C.
 */
struct digest {
	EVP_MD_CTX *ctx;
	EVP_MD *md;		/* fetched once, not at every file */
	bool failed;
};

static int
digest_new_alg(struct digest **out, const char *alg)
{
	struct digest *d;

	if ((d = calloc(1, sizeof(*d))) == NULL)
		return -ENOMEM;
	d->ctx = EVP_MD_CTX_new();
	d->md = EVP_MD_fetch(NULL, alg, NULL);
	if (d->ctx == NULL || d->md == NULL) {
		digest_free(d);
		return -ENOMEM;
	}
	*out = d;
	return 0;
}

int
digest_new(struct digest **out)
{
	return digest_new_alg(out, "SHA256");
}

int
digest_new_md5(struct digest **out)
{
	return digest_new_alg(out, "MD5");
}

void
digest_free(struct digest *d)
{
	if (d == NULL)
		return;
	EVP_MD_CTX_free(d->ctx);
	EVP_MD_free(d->md);
	free(d);
}

int
digest_start(struct digest *d)
{
	d->failed = EVP_DigestInit_ex2(d->ctx, d->md, NULL) != 1;
	return d->failed ? -EIO : 0;
}

void
digest_add(struct digest *d, const void *buf, size_t len)
{
	if (!d->failed && EVP_DigestUpdate(d->ctx, buf, len) != 1)
		d->failed = true;
}

int
digest_end(struct digest *d, uint8_t out[DIGEST_LEN])
{
	unsigned int n = DIGEST_LEN;

	/* A record must never hold a digest that was not computed. */
	if (d->failed || EVP_DigestFinal_ex(d->ctx, out, &n) != 1 ||
	    (int)n != EVP_MD_get_size(d->md))
		return -EIO;
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
	return OpenSSL_version(OPENSSL_VERSION);
}
