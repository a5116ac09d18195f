/* SHA-256 of data already on disk, for conffile checks and --verify. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <sha2.h>

#include "digest.h"

int
digest_file_at(int dfd, const char *name, uint8_t out[DIGEST_LEN])
{
	uint8_t buf[65536];
	SHA2_CTX ctx;
	ssize_t n;
	int fd, r = 0;

	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -errno;
	SHA256Init(&ctx);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		SHA256Update(&ctx, buf, (size_t)n);
	}
	close(fd);
	if (r == 0)
		SHA256Final(out, &ctx);
	return r;
}
