/* SPDX-License-Identifier: MIT */
/* gzip decompression through zlib, trailer checks included. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <zlib.h>

#include "deb/gunzip.h"

/*
 * libarchive's gzip filter does not check the CRC-32 and length in the
 * trailer, so a corrupted data.tar.gz would install corrupted files.
 * zlib's inflate checks both when it parses the gzip wrapper itself.
 */

#define GUNZIP_BUF	(64 * 1024)

struct gunzip {
	z_stream zs;
	gunzip_source src;
	void *cookie;
	bool src_end;		/* the source has no more bytes */
	bool member_end;	/* inflate finished a gzip member */
	const char *err;
	unsigned char out[GUNZIP_BUF];
};

int
gunzip_new(struct gunzip **out, gunzip_source src, void *cookie)
{
	struct gunzip *g;

	if ((g = calloc(1, sizeof(*g))) == NULL)
		return -ENOMEM;
	/* 16 + MAX_WBITS: a gzip wrapper, not zlib's own. */
	if (inflateInit2(&g->zs, 16 + MAX_WBITS) != Z_OK) {
		free(g);
		return -ENOMEM;
	}
	g->src = src;
	g->cookie = cookie;
	*out = g;
	return 0;
}

ssize_t
gunzip_read(struct gunzip *g, const void **buf)
{
	const void *in;
	ssize_t n;
	size_t made;
	int r;

	for (;;) {
		if (g->zs.avail_in == 0 && !g->src_end) {
			if ((n = g->src(g->cookie, &in)) < 0) {
				g->err = "source";
				return -1;
			}
			if (n == 0)
				g->src_end = true;
			g->zs.next_in = (Bytef *)(uintptr_t)in;
			g->zs.avail_in = (uInt)n;
		}
		if (g->zs.avail_in == 0 && g->src_end) {
			if (g->member_end)
				return 0;
			g->err = "truncated gzip data";
			return -1;
		}
		if (g->member_end) {
			/* More bytes after a member: gzip allows concatenation. */
			inflateReset(&g->zs);
			g->member_end = false;
		}
		g->zs.next_out = g->out;
		g->zs.avail_out = sizeof(g->out);
		r = inflate(&g->zs, Z_NO_FLUSH);
		if (r == Z_STREAM_END)
			g->member_end = true;
		else if (r != Z_OK && r != Z_BUF_ERROR) {
			g->err = g->zs.msg != NULL ? g->zs.msg :
			    "corrupted gzip data";
			return -1;
		}
		made = sizeof(g->out) - g->zs.avail_out;
		if (made > 0) {
			*buf = g->out;
			return (ssize_t)made;
		}
	}
}

const char *
gunzip_error(const struct gunzip *g)
{
	return g->err != NULL ? g->err : "no error";
}

void
gunzip_free(struct gunzip *g)
{
	if (g == NULL)
		return;
	inflateEnd(&g->zs);
	free(g);
}

const char *
gunzip_library(void)
{
	return zlibVersion();
}
