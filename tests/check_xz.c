/* SPDX-License-Identifier: MIT */
/* Unit tests of xz.c: one stream decoded whole, or block by block. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lzma.h>

#include "checkutil.h"
#include "deb/xz.h"

#define PLAIN_LEN	(700 * 1024 + 123)
#define BLOCK		(128 * 1024)
#define LEAD		1000	/* bytes before the stream in the file */

static uint8_t *plain;

/* Half random, half repeated: blocks of unequal compressed sizes. */
static void
plain_make(void)
{
	unsigned seed = 7;
	size_t i;

	plain = malloc(PLAIN_LEN);
	ck_assert_ptr_nonnull(plain);
	for (i = 0; i < PLAIN_LEN; i++) {
		seed = seed * 1103515245 + 12345;
		plain[i] = i % 2048 < 1024 ? (uint8_t)(seed >> 16) : 'x';
	}
}

/* PLAIN in xz, blocks of BLOCK with their sizes and an index; *LEN. */
static uint8_t *
encode(size_t *len)
{
	lzma_mt mt = { .threads = 2, .block_size = BLOCK, .preset = 1,
	    .check = LZMA_CHECK_CRC64 };
	lzma_stream s = LZMA_STREAM_INIT;
	size_t cap = PLAIN_LEN * 2;
	uint8_t *out = malloc(cap);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(lzma_stream_encoder_mt(&s, &mt), LZMA_OK);
	s.next_in = plain;
	s.avail_in = PLAIN_LEN;
	s.next_out = out;
	s.avail_out = cap;
	ck_assert_int_eq(lzma_code(&s, LZMA_FINISH), LZMA_STREAM_END);
	*len = cap - s.avail_out;
	lzma_end(&s);
	return out;
}

/* A file holding LEAD bytes, then XZ (LEN bytes): its descriptor. */
static int
file_with(const uint8_t *xz, size_t len)
{
	static const char lead[LEAD];
	int fd;

	fd = open(checkutil_at("s.xz"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, lead, sizeof(lead)), (ssize_t)sizeof(lead));
	ck_assert_int_eq(write(fd, xz, len), (ssize_t)len);
	return fd;
}

/* Block I of IX whole into OUT (room for it): its length, or -1. */
static ssize_t
decode_block(const struct xz_index *ix, size_t i, uint8_t *out, size_t cap,
    const char **why)
{
	struct xz_block *b;
	uint64_t mem;
	size_t got = 0;
	ssize_t n;

	static char msg[XZ_WHY_MAX];

	if (xz_block_open(&b, ix, i, XZ_MEMLIMIT, &mem, msg,
	    sizeof(msg)) != 0) {
		*why = msg;
		return -1;
	}
	ck_assert_uint_gt(mem, 0);
	/* Odd sizes: a read ends wherever the caller's buffer does. */
	while ((n = xz_block_read(b, out + got, cap - got < 1000 ? cap - got :
	    1000, why)) > 0)
		got += (size_t)n;
	/* The message may live in B. */
	if (n < 0) {
		snprintf(msg, sizeof(msg), "%s", *why);
		*why = msg;
	}
	xz_block_free(b);
	return n < 0 ? -1 : (ssize_t)got;
}

/* Blocks decoded last to first give the input back, slice by slice. */
START_TEST(test_xz_blocks_any_order)
{
	struct xz_index *ix;
	const char *why = NULL;
	size_t len, i, n, off;
	uint8_t *xz, *out;
	int fd;

	plain_make();
	xz = encode(&len);
	fd = file_with(xz, len);
	ck_assert_int_eq(xz_index_read(&ix, fd, LEAD, (off_t)len), 0);
	n = xz_index_blocks(ix);
	ck_assert_uint_eq(n, (PLAIN_LEN + BLOCK - 1) / BLOCK);
	out = malloc(BLOCK);
	for (i = n; i-- > 0;) {
		off = i * BLOCK;
		ck_assert_uint_eq(xz_index_block_size(ix, i),
		    PLAIN_LEN - off < BLOCK ? PLAIN_LEN - off : BLOCK);
		ck_assert_int_eq(decode_block(ix, i, out, BLOCK, &why),
		    (ssize_t)xz_index_block_size(ix, i));
		ck_assert_int_eq(memcmp(out, plain + off,
		    xz_index_block_size(ix, i)), 0);
	}
	xz_index_free(ix);
	close(fd);
	free(out);
	free(xz);
	free(plain);
}
END_TEST

/* Source of xz_new: the whole buffer at once. */
struct src {
	const uint8_t *p;
	size_t len;
	bool given;
};

static ssize_t
src_read(void *cookie, const void **buf)
{
	struct src *s = cookie;

	if (s->given)
		return 0;
	s->given = true;
	*buf = s->p;
	return (ssize_t)s->len;
}

/* The whole stream through xz_new: its bytes, or -1 and the message. */
static ssize_t
decode_whole(const uint8_t *xz, size_t len, const char **why)
{
	struct src s = { xz, len, false };
	const void *p;
	struct xz *x;
	size_t got = 0;
	bool bad = false;
	ssize_t n;

	ck_assert_int_eq(xz_new(&x, src_read, &s), 0);
	/* Only a stream that decodes whole must give the input back. */
	while ((n = xz_read(x, &p)) > 0) {
		if (got + (size_t)n <= PLAIN_LEN &&
		    memcmp(p, plain + got, (size_t)n) != 0)
			bad = true;
		got += (size_t)n;
	}
	ck_assert(n < 0 || !bad);
	*why = n < 0 ? strdup(xz_error(x)) : NULL;
	xz_free(x);
	return n < 0 ? -1 : (ssize_t)got;
}

/*
 * What cannot be split is left to the stream decoder, which reads it
 * whole: two streams, stream padding, a member cut short, not xz.
 */
START_TEST(test_xz_index_not_split)
{
	struct xz_index *ix;
	const char *why;
	size_t len;
	uint8_t *xz, *two;
	int fd;

	plain_make();
	xz = encode(&len);
	two = malloc(2 * len + 8);
	memcpy(two, xz, len);
	memset(two + len, 0, 8);
	fd = file_with(two, len + 8);
	ck_assert_int_eq(xz_index_read(&ix, fd, LEAD, (off_t)len + 8), 1);
	close(fd);
	ck_assert_int_eq(decode_whole(two, len + 8, &why), PLAIN_LEN);
	memcpy(two + len, xz, len);
	fd = file_with(two, 2 * len);
	ck_assert_int_eq(xz_index_read(&ix, fd, LEAD, (off_t)(2 * len)), 1);
	close(fd);
	fd = file_with(xz, len - 100);
	ck_assert_int_eq(xz_index_read(&ix, fd, LEAD, (off_t)len - 100), 1);
	close(fd);
	ck_assert_int_eq(decode_whole(xz, len - 100, &why), -1);
	ck_assert_str_eq(why, "truncated xz data");
	free((char *)why);
	fd = file_with((const uint8_t *)"not xz at all, no", 17);
	ck_assert_int_eq(xz_index_read(&ix, fd, LEAD, 17), 1);
	close(fd);
	free(two);
	free(xz);
	free(plain);
}
END_TEST

/* The offset of block I's header in XZ, from the index. */
static size_t
block_at(const uint8_t *xz, size_t len, size_t i)
{
	struct xz_index *ix;
	size_t at = 0, k, total;
	uint8_t hs;
	int fd;

	/* Walk the blocks by their headers' sizes and the index's totals. */
	fd = file_with(xz, len);
	ck_assert_int_eq(xz_index_read(&ix, fd, LEAD, (off_t)len), 0);
	xz_index_free(ix);
	close(fd);
	at = LZMA_STREAM_HEADER_SIZE;
	for (k = 0; k < i; k++) {
		lzma_block b = { .version = 1, .check = LZMA_CHECK_CRC64 };
		lzma_filter f[LZMA_FILTERS_MAX + 1];

		hs = xz[at];
		b.header_size = lzma_block_header_size_decode(hs);
		b.filters = f;
		ck_assert_int_eq(lzma_block_header_decode(&b, NULL, xz + at),
		    LZMA_OK);
		total = (size_t)lzma_block_total_size(&b);
		for (size_t j = 0; f[j].id != LZMA_VLI_UNKNOWN; j++)
			free(f[j].options);
		at += total;
	}
	return at;
}

/*
 * In XZ (LEN bytes), block BAD fails with WANT and block GOOD decodes:
 * the stream decoder, reading it whole, fails with the same words.
 */
static void
assert_block_fails(uint8_t *xz, size_t len, size_t bad, size_t good,
    const char *want)
{
	struct xz_index *ix;
	const char *why = NULL, *whole;
	uint8_t *out;
	int fd;

	fd = file_with(xz, len);
	ck_assert_int_eq(xz_index_read(&ix, fd, LEAD, (off_t)len), 0);
	out = malloc(BLOCK);
	ck_assert_int_eq(decode_block(ix, good, out, BLOCK, &why), BLOCK);
	ck_assert_int_eq(decode_block(ix, bad, out, BLOCK, &why), -1);
	ck_assert_str_eq(why, want);
	ck_assert_int_eq(decode_whole(xz, len, &whole), -1);
	ck_assert_str_eq(whole, why);
	free((char *)whole);
	xz_index_free(ix);
	close(fd);
	free(out);
}

/*
 * A block header asking for a 128 MiB dictionary (its CRC right): an
 * error saying so, from the block decoder and from the stream decoder
 * alike, and nothing allocated for it.
 */
START_TEST(test_xz_memlimit)
{
	size_t len, at, hs, k;
	uint32_t crc;
	uint8_t *xz;

	plain_make();
	xz = encode(&len);
	at = block_at(xz, len, 2);
	hs = lzma_block_header_size_decode(xz[at]);
	/* LZMA2's filter flags: id 0x21, one byte of properties. */
	for (k = 2; k + 2 < hs - 4; k++)
		if (xz[at + k] == 0x21 && xz[at + k + 1] == 1)
			break;
	ck_assert_uint_lt(k + 2, hs - 4);
	xz[at + k + 2] = 30;	/* 2 << (30 / 2 + 11): 128 MiB */
	crc = lzma_crc32(xz + at, hs - 4, 0);
	memcpy(xz + at + hs - 4, &crc, 4);	/* little-endian */
	assert_block_fails(xz, len, 2, 1, "xz data needs 129 MiB of memory"
	    " to decode, more than the limit of 80 MiB");
	free(xz);
	free(plain);
}
END_TEST

/* A flipped byte inside a block: that block fails, the others decode. */
START_TEST(test_xz_corrupt_block)
{
	size_t len, at;
	uint8_t *xz;

	plain_make();
	xz = encode(&len);
	at = block_at(xz, len, 3);
	xz[at + 40] ^= 0x10;
	assert_block_fails(xz, len, 3, 4, "corrupt xz data");
	free(xz);
	free(plain);
}
END_TEST

/*
 * Decoding from block 2 on as one decoder would: the bytes from there,
 * then the index, which lists blocks it did not see, is an error.
 */
START_TEST(test_xz_resume)
{
	struct xz_index *ix;
	const void *p;
	struct xz *x;
	size_t len, got = 0;
	uint8_t *xz;
	ssize_t n;
	int fd;

	plain_make();
	xz = encode(&len);
	fd = file_with(xz, len);
	ck_assert_int_eq(xz_index_read(&ix, fd, LEAD, (off_t)len), 0);
	ck_assert_int_eq(xz_resume(&x, ix, 2), 0);
	while ((n = xz_read(x, &p)) > 0) {
		ck_assert_uint_le(2 * BLOCK + got + (size_t)n, PLAIN_LEN);
		ck_assert_int_eq(memcmp(p, plain + 2 * BLOCK + got, (size_t)n),
		    0);
		got += (size_t)n;
	}
	ck_assert_int_eq(n, -1);
	ck_assert_uint_eq(got, PLAIN_LEN - 2 * BLOCK);
	ck_assert_str_eq(xz_error(x), "corrupt xz data");
	xz_free(x);
	/* From the first block it is the whole stream, which is sound. */
	ck_assert_int_eq(xz_resume(&x, ix, 0), 0);
	got = 0;
	while ((n = xz_read(x, &p)) > 0)
		got += (size_t)n;
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(got, PLAIN_LEN);
	xz_free(x);
	xz_index_free(ix);
	close(fd);
	free(xz);
	free(plain);
}
END_TEST

static Suite *
xz_suite(void)
{
	Suite *s = suite_create("xz");
	TCase *tc;

	tc = checkutil_scratch_tcase(s, "blocks", NULL, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_xz_blocks_any_order);
	tcase_add_test(tc, test_xz_index_not_split);
	tcase_add_test(tc, test_xz_resume);
	tc = checkutil_scratch_tcase(s, "limits", NULL, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_xz_memlimit);
	tcase_add_test(tc, test_xz_corrupt_block);
	return s;
}

int
main(void)
{
	return checkutil_run(xz_suite());
}
