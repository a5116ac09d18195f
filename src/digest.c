/* SHA-256: of archive data as it streams by, and of files already on disk. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "digest.h"

/*
 * Through libcrypto: every file's data goes through SHA-256 on its way to
 * disk (the record keeps it), and libcrypto uses the CPU's SHA
 * instructions where there are some, several times faster than plain C.
 */
struct digest {
	EVP_MD_CTX *ctx;
};

int
digest_new(struct digest **out)
{
	struct digest *d;

	if ((d = malloc(sizeof(*d))) == NULL)
		return -ENOMEM;
	if ((d->ctx = EVP_MD_CTX_new()) == NULL) {
		free(d);
		return -ENOMEM;
	}
	*out = d;
	return 0;
}

void
digest_free(struct digest *d)
{
	if (d == NULL)
		return;
	EVP_MD_CTX_free(d->ctx);
	free(d);
}

int
digest_start(struct digest *d)
{
	return EVP_DigestInit_ex(d->ctx, EVP_sha256(), NULL) == 1 ? 0 : -EIO;
}

void
digest_add(struct digest *d, const void *buf, size_t len)
{
	EVP_DigestUpdate(d->ctx, buf, len);
}

void
digest_end(struct digest *d, uint8_t out[DIGEST_LEN])
{
	unsigned int n = DIGEST_LEN;

	EVP_DigestFinal_ex(d->ctx, out, &n);
}

int
digest_file_at(int dfd, const char *name, uint8_t out[DIGEST_LEN])
{
	uint8_t buf[65536];
	struct digest *d;
	ssize_t n;
	int fd, r;

	if ((r = digest_new(&d)) != 0)
		return r;
	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		r = -errno;
		digest_free(d);
		return r;
	}
	r = digest_start(d);
	while (r == 0 && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno != EINTR)
				r = -errno;
			continue;
		}
		digest_add(d, buf, (size_t)n);
	}
	close(fd);
	if (r == 0)
		digest_end(d, out);
	digest_free(d);
	return r;
}
