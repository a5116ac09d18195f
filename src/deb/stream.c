/* SPDX-License-Identifier: MIT */
/* An archive entry's data streamed into a file, digested on the way. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>

#include "deb/stream.h"

static void
stream_digest(const struct stream_to *s, const void *buf, size_t len)
{
	digest_add(s->sha, buf, len);
	if (s->md5 != NULL)
		digest_add(s->md5, buf, len);
}

/* Feed the zeros of a hole, from *HASHED up to OFF, to the digests. */
static void
stream_hole(const struct stream_to *s, int64_t *hashed, int64_t off)
{
	static const uint8_t zeros[4096];

	while (*hashed < off) {
		size_t n = off - *hashed > (int64_t)sizeof(zeros) ?
		    sizeof(zeros) : (size_t)(off - *hashed);

		stream_digest(s, zeros, n);
		*hashed += (int64_t)n;
	}
}

/* LEN bytes of BUF at OFF into the tee, unless it failed already. */
static void
stream_tee(struct stream_tee *t, const void *buf, size_t len, off_t off)
{
	ssize_t w;

	while (t != NULL && t->errnum == 0 && len > 0) {
		if ((w = pwrite(t->fd, buf, len, off)) < 0) {
			if (errno != EINTR)
				t->errnum = errno;
			continue;
		}
		buf = (const char *)buf + w;
		len -= (size_t)w;
		off += w;
	}
}

int
stream_entry(const struct stream_to *s, int64_t size,
    uint8_t sha[DIGEST_LEN], uint8_t *md5, struct dbp_error *err)
{
	uint8_t md5out[DIGEST_LEN];
	la_int64_t off;
	int64_t end = 0, hashed = 0;
	const void *buf;
	size_t len;
	ssize_t w;
	int r;

	if ((r = digest_start(s->sha)) != 0)
		return dbp_err(err, -r, s->path, "cannot compute SHA-256");
	if (s->md5 != NULL && (r = digest_start(s->md5)) != 0)
		return dbp_err(err, -r, s->path, "cannot compute MD5");
	for (;;) {
		r = archive_read_data_block(s->a, &buf, &len, &off);
		if (r == ARCHIVE_EOF)
			break;
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
			return dbp_err(err, 0, s->path, "%s",
			    archive_error_string(s->a) != NULL ?
			    archive_error_string(s->a) : "read error");
		if (s->stop != NULL && *s->stop)
			return dbp_err(err, EINTR, s->path, "interrupted");
		stream_hole(s, &hashed, off);
		if (off == hashed) {
			stream_digest(s, buf, len);
			hashed += (int64_t)len;
		}
		if (s->fd >= 0)
			stream_tee(s->tee, buf, len, off);
		/* No file: a dry run reads and checks the data, no more. */
		if (s->fd < 0) {
			off += (la_int64_t)len;
			len = 0;
		}
		while (len > 0) {
			/* Offsets skip holes of sparse entries. */
			w = pwrite(s->fd, buf, len, off);
			if (w < 0) {
				if (errno == EINTR)
					continue;
				return dbp_err(err, errno, s->path,
				    "cannot write");
			}
			buf = (const char *)buf + w;
			len -= (size_t)w;
			off += w;
			*s->bytes += (uint64_t)w;
		}
		if (off > end)
			end = off;
	}
	/* A sparse file may end in a hole. */
	if (end < size && s->fd >= 0 && ftruncate(s->fd, size) != 0)
		return dbp_err(err, errno, s->path, "cannot write");
	if (s->tee != NULL && s->tee->errnum == 0 && s->fd >= 0 &&
	    end < size && ftruncate(s->tee->fd, size) != 0)
		s->tee->errnum = errno;
	stream_hole(s, &hashed, size);
	if (s->md5 != NULL) {
		if ((r = digest_end(s->md5, md5out)) != 0)
			return dbp_err(err, -r, s->path, "cannot compute MD5");
		memcpy(md5, md5out, DIGEST_MD5_LEN);
	}
	if ((r = digest_end(s->sha, sha)) != 0)
		return dbp_err(err, -r, s->path, "cannot compute SHA-256");
	return 0;
}
