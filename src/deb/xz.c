/* SPDX-License-Identifier: MIT */
/* xz decompression through liblzma: as one stream, or block by block. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lzma.h>

#include "deb/xz.h"
#include "durable/fileat.h"

/*
 * Why not libarchive's xz filter: it lets a stream ask for up to 1 GiB
 * of decoder memory, and it can only read a stream from its start.  A
 * big package's data member is made of independent blocks (dpkg-deb and
 * xz write 24 MiB blocks whose sizes the index at the end of the stream
 * lists); with the index read first, every block can be decoded by a
 * thread of its own while the extraction reads them in order.
 */

#define XZ_BUF		(64 * 1024)
/*
 * More blocks than this (each unit of work costs a little memory) and the
 * stream is decoded as one: 64 Ki blocks of 24 MiB make 1.5 TiB.
 */
#define XZ_BLOCKS_MAX	65536
#define XZ_INDEX_MAX	(XZ_BLOCKS_MAX * 20)	/* two numbers a block */

/* liblzma's verdicts in words, the same for both ways of decoding. */
static const char *
xz_why(lzma_ret r, const lzma_stream *s, char *buf, size_t len)
{
	switch (r) {
	case LZMA_MEM_ERROR:
		return "out of memory";
	case LZMA_MEMLIMIT_ERROR:
		snprintf(buf, len, "xz data needs %llu MiB of memory to decode,"
		    " more than the limit of %llu MiB",
		    (unsigned long long)((lzma_memusage(s) + (1 << 20) - 1) >> 20),
		    (unsigned long long)(XZ_MEMLIMIT >> 20));
		return buf;
	case LZMA_FORMAT_ERROR:
		return "not xz data";
	case LZMA_OPTIONS_ERROR:
		return "unsupported xz options";
	case LZMA_BUF_ERROR:
		return "truncated xz data";
	default:
		return "corrupt xz data";
	}
}

/* The source of xz_resume: the stream header, then the file from a block. */
struct xz_resume {
	int fd;
	off_t pos, end;
	bool header_given;
	uint8_t header[LZMA_STREAM_HEADER_SIZE];
	char msg[128];
	uint8_t buf[XZ_BUF];
};

struct xz {
	lzma_stream s;
	xz_source src;
	void *cookie;
	struct xz_resume *res;	/* owned, when made by xz_resume */
	bool src_end;
	bool end;
	const char *err;
	char msg[128];
	uint8_t out[XZ_BUF];
};

int
xz_new(struct xz **out, xz_source src, void *cookie)
{
	struct xz *x;

	if ((x = calloc(1, sizeof(*x))) == NULL)
		return -ENOMEM;
	x->s = (lzma_stream)LZMA_STREAM_INIT;
	if (lzma_stream_decoder(&x->s, XZ_MEMLIMIT, LZMA_CONCATENATED) !=
	    LZMA_OK) {
		free(x);
		return -ENOMEM;
	}
	x->src = src;
	x->cookie = cookie;
	*out = x;
	return 0;
}

ssize_t
xz_read(struct xz *x, const void **buf)
{
	const void *in;
	ssize_t n;
	size_t made;
	lzma_ret r;

	if (x->err != NULL)
		return -1;
	while (!x->end) {
		if (x->s.avail_in == 0 && !x->src_end) {
			if ((n = x->src(x->cookie, &in)) < 0) {
				x->err = x->res != NULL ? x->res->msg :
				    "source";
				return -1;
			}
			x->src_end = n == 0;
			/* At the end the source leaves *BUF as it was. */
			x->s.next_in = n > 0 ? in : NULL;
			x->s.avail_in = (size_t)n;
		}
		x->s.next_out = x->out;
		x->s.avail_out = sizeof(x->out);
		/* FINISH at the end of the input: a cut stream is an error. */
		r = lzma_code(&x->s, x->src_end ? LZMA_FINISH : LZMA_RUN);
		made = sizeof(x->out) - x->s.avail_out;
		if (r == LZMA_STREAM_END)
			x->end = true;
		else if (r != LZMA_OK) {
			/*
			 * What was decoded before the error first, the error
			 * next: the bytes given before an error are then the
			 * same however the input and output were cut, and so
			 * the entry being written when it shows.
			 */
			x->err = xz_why(r, &x->s, x->msg, sizeof(x->msg));
			if (made == 0)
				return -1;
		}
		if (made > 0) {
			*buf = x->out;
			return (ssize_t)made;
		}
	}
	return 0;
}

const char *
xz_error(const struct xz *x)
{
	return x->err != NULL ? x->err : "no error";
}

void
xz_free(struct xz *x)
{
	if (x == NULL)
		return;
	lzma_end(&x->s);
	free(x->res);
	free(x);
}

/* One block as the index lists it; offsets from the start of the stream. */
struct xz_blk {
	uint64_t off;		/* its block header */
	uint64_t total;		/* header, data, padding and check */
	uint64_t unpadded;	/* total less the padding */
	uint64_t usize;		/* uncompressed */
};

struct xz_index {
	int fd;
	off_t off, size;
	lzma_check check;
	struct xz_blk *b;
	size_t n;
};

/* The index of the stream at OFF, SIZE bytes long: see xz_index_read. */
static int
xz_index_decode(lzma_index **idx, lzma_stream_flags *flags, int fd, off_t off,
    off_t size)
{
	uint8_t hdr[LZMA_STREAM_HEADER_SIZE], ftr[LZMA_STREAM_HEADER_SIZE];
	lzma_stream_flags hf;
	uint64_t memlimit = 16 << 20;
	size_t pos = 0;
	uint8_t *buf;
	int r;

	if (size < 2 * LZMA_STREAM_HEADER_SIZE)
		return 1;
	if ((r = fileat_pread(fd, hdr, sizeof(hdr), off)) != 0 ||
	    (r = fileat_pread(fd, ftr, sizeof(ftr),
	    off + size - LZMA_STREAM_HEADER_SIZE)) != 0)
		return r;
	/* One stream that fills the member exactly, or the slow way. */
	if (lzma_stream_header_decode(&hf, hdr) != LZMA_OK ||
	    lzma_stream_footer_decode(flags, ftr) != LZMA_OK ||
	    lzma_stream_flags_compare(&hf, flags) != LZMA_OK ||
	    !lzma_check_is_supported(hf.check) ||
	    flags->backward_size > XZ_INDEX_MAX ||
	    (off_t)flags->backward_size > size - 2 * LZMA_STREAM_HEADER_SIZE)
		return 1;
	if ((buf = malloc(flags->backward_size)) == NULL)
		return -ENOMEM;
	r = fileat_pread(fd, buf, flags->backward_size, off + size -
	    LZMA_STREAM_HEADER_SIZE - (off_t)flags->backward_size);
	if (r == 0 && (lzma_index_buffer_decode(idx, &memlimit, NULL, buf,
	    &pos, flags->backward_size) != LZMA_OK ||
	    pos != flags->backward_size))
		r = 1;
	free(buf);
	if (r != 0)
		return r;
	if (lzma_index_stream_size(*idx) != (lzma_vli)size ||
	    lzma_index_block_count(*idx) == 0 ||
	    lzma_index_block_count(*idx) > XZ_BLOCKS_MAX) {
		lzma_index_end(*idx, NULL);
		return 1;
	}
	return 0;
}

int
xz_index_read(struct xz_index **out, int fd, off_t off, off_t size)
{
	lzma_stream_flags flags;
	struct xz_index *ix;
	lzma_index_iter it;
	lzma_index *idx;
	size_t i;
	int r;

	if ((r = xz_index_decode(&idx, &flags, fd, off, size)) != 0)
		return r;
	if ((ix = calloc(1, sizeof(*ix))) == NULL ||
	    (ix->b = calloc(lzma_index_block_count(idx),
	    sizeof(*ix->b))) == NULL) {
		free(ix);
		lzma_index_end(idx, NULL);
		return -ENOMEM;
	}
	ix->fd = fd;
	ix->off = off;
	ix->size = size;
	ix->check = flags.check;
	ix->n = lzma_index_block_count(idx);
	lzma_index_iter_init(&it, idx);
	for (i = 0; i < ix->n && !lzma_index_iter_next(&it,
	    LZMA_INDEX_ITER_BLOCK); i++) {
		ix->b[i].off = it.block.compressed_file_offset;
		ix->b[i].total = it.block.total_size;
		ix->b[i].unpadded = it.block.unpadded_size;
		ix->b[i].usize = it.block.uncompressed_size;
	}
	lzma_index_end(idx, NULL);
	*out = ix;
	return 0;
}

size_t
xz_index_blocks(const struct xz_index *ix)
{
	return ix->n;
}

uint64_t
xz_index_block_size(const struct xz_index *ix, size_t i)
{
	return ix->b[i].usize;
}

void
xz_index_free(struct xz_index *ix)
{
	if (ix == NULL)
		return;
	free(ix->b);
	free(ix);
}

struct xz_block {
	lzma_stream s;
	lzma_block block;	/* the decoder writes the sizes it saw here */
	lzma_filter filters[LZMA_FILTERS_MAX + 1]; /* until it starts */
	int fd;
	off_t pos;		/* next compressed byte in the file */
	uint64_t left;		/* compressed bytes not yet read */
	bool end;
	const char *why;	/* an error, given after the bytes before it */
	char msg[128];
	uint8_t in[XZ_BUF];
};

static ssize_t xz_block_fill(struct xz_block *x, void *buf, size_t len,
    const char **why);

static void
xz_filters_free(lzma_filter *f)
{
	size_t i;

	for (i = 0; f[i].id != LZMA_VLI_UNKNOWN; i++) {
		free(f[i].options);
		f[i].options = NULL;
	}
}

/* Decode block B's header into X: 0, or -1 with *WHY. */
static int
xz_block_header(struct xz_block *x, const struct xz_index *ix,
    const struct xz_blk *b, uint64_t memlimit, uint64_t *mem,
    const char **why)
{
	uint8_t hdr[LZMA_BLOCK_HEADER_SIZE_MAX] = { 0 };
	lzma_filter *filters = x->filters;
	lzma_ret lr;
	int r;

	r = fileat_pread(ix->fd, hdr, 1, ix->off + (off_t)b->off);
	if (r == 0 && hdr[0] == 0)
		r = 1;		/* the index indicator, not a block */
	x->block.version = 1;
	x->block.check = ix->check;
	x->block.header_size = lzma_block_header_size_decode(hdr[0]);
	x->block.filters = filters;
	if (r == 0 && x->block.header_size > b->total)
		r = 1;
	if (r == 0)
		r = fileat_pread(ix->fd, hdr, x->block.header_size,
		    ix->off + (off_t)b->off);
	if (r != 0) {
		if (r < 0)
			snprintf(x->msg, sizeof(x->msg), "cannot read: %s",
			    strerror(-r));
		*why = r < 0 ? x->msg : "corrupt xz data";
		return -1;
	}
	if ((lr = lzma_block_header_decode(&x->block, NULL, hdr)) != LZMA_OK) {
		*why = xz_why(lr, &x->s, x->msg, sizeof(x->msg));
		return -1;
	}
	/* What the header says must be what the index says. */
	if (lzma_block_compressed_size(&x->block, b->unpadded) != LZMA_OK ||
	    (x->block.uncompressed_size != LZMA_VLI_UNKNOWN &&
	    x->block.uncompressed_size != b->usize)) {
		xz_filters_free(filters);
		*why = "corrupt xz data";
		return -1;
	}
	x->block.uncompressed_size = b->usize;
	*mem = lzma_raw_decoder_memusage(filters);
	if (*mem == UINT64_MAX) {
		xz_filters_free(filters);
		*why = "unsupported xz options";
		return -1;
	}
	if (*mem > memlimit) {
		snprintf(x->msg, sizeof(x->msg), "xz data needs %llu MiB of"
		    " memory to decode, more than the limit of %llu MiB",
		    (unsigned long long)((*mem + (1 << 20) - 1) >> 20),
		    (unsigned long long)(memlimit >> 20));
		xz_filters_free(filters);
		*why = x->msg;
		return -1;
	}
	lr = lzma_block_decoder(&x->s, &x->block);
	/* The options are read once, by the decoder's initialization. */
	xz_filters_free(filters);
	x->block.filters = NULL;
	if (lr != LZMA_OK) {
		*why = xz_why(lr, &x->s, x->msg, sizeof(x->msg));
		return -1;
	}
	return 0;
}

int
xz_block_open(struct xz_block **out, const struct xz_index *ix, size_t i,
    uint64_t memlimit, uint64_t *mem, char *why, size_t whylen)
{
	const struct xz_blk *b = &ix->b[i];
	struct xz_block *x;
	const char *w;

	*mem = 0;
	if ((x = calloc(1, sizeof(*x))) == NULL)
		return -ENOMEM;
	x->s = (lzma_stream)LZMA_STREAM_INIT;
	x->fd = ix->fd;
	if (xz_block_header(x, ix, b, memlimit, mem, &w) != 0) {
		/* W may be in X: the caller's copy outlives it. */
		snprintf(why, whylen, "%s", w);
		xz_block_free(x);
		return -1;
	}
	x->pos = ix->off + (off_t)(b->off + x->block.header_size);
	x->left = b->total - x->block.header_size;
	*out = x;
	return 0;
}

ssize_t
xz_block_read(struct xz_block *x, void *buf, size_t len, const char **why)
{
	ssize_t n;

	if (x->why != NULL) {
		*why = x->why;
		return -1;
	}
	/* As xz_read: the bytes before an error, then the error. */
	n = xz_block_fill(x, buf, len, &x->why);
	if (n >= 0 || (n = (ssize_t)(len - x->s.avail_out)) > 0)
		return n;
	*why = x->why;
	return -1;
}

/* Decode into BUF until it is full or the block ends: how much, or -1. */
static ssize_t
xz_block_fill(struct xz_block *x, void *buf, size_t len, const char **why)
{
	size_t k;
	lzma_ret r;
	int e;

	x->s.next_out = buf;
	x->s.avail_out = len;
	while (!x->end && x->s.avail_out > 0) {
		if (x->s.avail_in == 0 && x->left > 0) {
			k = x->left < sizeof(x->in) ? (size_t)x->left :
			    sizeof(x->in);
			if ((e = fileat_pread(x->fd, x->in, k, x->pos)) != 0) {
				if (e < 0)
					snprintf(x->msg, sizeof(x->msg),
					    "cannot read: %s", strerror(-e));
				*why = e < 0 ? x->msg : "truncated xz data";
				return -1;
			}
			x->pos += (off_t)k;
			x->left -= k;
			x->s.next_in = x->in;
			x->s.avail_in = k;
		}
		r = lzma_code(&x->s, x->left == 0 ? LZMA_FINISH : LZMA_RUN);
		if (r == LZMA_STREAM_END) {
			/* The block must end where the index says it does. */
			if (x->s.avail_in != 0 || x->left != 0) {
				*why = "corrupt xz data";
				return -1;
			}
			x->end = true;
		} else if (r != LZMA_OK) {
			/* Out of bytes inside the block: its sizes lied. */
			*why = xz_why(r == LZMA_BUF_ERROR ? LZMA_DATA_ERROR : r,
			    &x->s, x->msg, sizeof(x->msg));
			return -1;
		}
	}
	return (ssize_t)(len - x->s.avail_out);
}

void
xz_block_free(struct xz_block *x)
{
	if (x == NULL)
		return;
	lzma_end(&x->s);
	free(x);
}

static ssize_t
xz_resume_read(void *cookie, const void **buf)
{
	struct xz_resume *r = cookie;
	size_t k;
	int e;

	if (!r->header_given) {
		r->header_given = true;
		*buf = r->header;
		return (ssize_t)sizeof(r->header);
	}
	if (r->pos >= r->end)
		return 0;
	k = r->end - r->pos < (off_t)sizeof(r->buf) ? (size_t)(r->end - r->pos) :
	    sizeof(r->buf);
	if ((e = fileat_pread(r->fd, r->buf, k, r->pos)) != 0) {
		snprintf(r->msg, sizeof(r->msg), "cannot read: %s",
		    e < 0 ? strerror(-e) : "file shrank");
		return -1;
	}
	r->pos += (off_t)k;
	*buf = r->buf;
	return (ssize_t)k;
}

int
xz_resume(struct xz **out, const struct xz_index *ix, size_t i)
{
	struct xz_resume *r;
	int e;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		return -ENOMEM;
	if ((e = fileat_pread(ix->fd, r->header, sizeof(r->header), ix->off)) != 0) {
		free(r);
		return e < 0 ? e : -EIO;
	}
	r->fd = ix->fd;
	r->pos = ix->off + (off_t)ix->b[i].off;
	r->end = ix->off + ix->size;
	if ((e = xz_new(out, xz_resume_read, r)) != 0) {
		free(r);
		return e;
	}
	(*out)->res = r;
	return 0;
}

const char *
xz_library(void)
{
	return lzma_version_string();
}
