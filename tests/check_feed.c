/* SPDX-License-Identifier: MIT */
/* Unit tests of feed.c (decompression threads) and digest.c (SHA-256). */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <lzma.h>

#include "checkutil.h"
#include "deb/deb.h"
#include "util/digest.h"
#include "run/feed.h"
#include "deb/xz.h"

/* Bytes in memory, grown as needed. */
struct buf {
	char *p;
	size_t len, cap;
};

static void
buf_add(struct buf *b, const void *data, size_t len)
{
	if (b->len + len > b->cap) {
		b->cap = (b->len + len) * 2;
		b->p = realloc(b->p, b->cap);
		ck_assert_ptr_nonnull(b->p);
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

/* An archive of FORMAT (with FILTER) holding NAME = DATA, into OUT. */
static void
one_member(struct buf *out, int format, int filter, const char *name,
    const void *data, size_t len)
{
	struct archive_entry *ae;
	struct archive *a;
	size_t used = 0, cap = len + 65536;

	out->p = malloc(cap);
	out->cap = cap;
	ck_assert_ptr_nonnull(out->p);
	a = archive_write_new();
	ck_assert_int_eq(archive_write_set_format(a, format), ARCHIVE_OK);
	if (filter != ARCHIVE_FILTER_NONE)
		ck_assert_int_eq(archive_write_add_filter(a, filter), ARCHIVE_OK);
	ck_assert_int_eq(archive_write_open_memory(a, out->p, cap, &used),
	    ARCHIVE_OK);
	ae = archive_entry_new();
	archive_entry_set_pathname(ae, name);
	archive_entry_set_filetype(ae, AE_IFREG);
	archive_entry_set_perm(ae, 0644);
	archive_entry_set_size(ae, (la_int64_t)len);
	ck_assert_int_eq(archive_write_header(a, ae), ARCHIVE_OK);
	ck_assert_int_eq(archive_write_data(a, data, len), (la_ssize_t)len);
	archive_entry_free(ae);
	ck_assert_int_eq(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	out->len = used;
}

/*
 * OUT: PLAIN as an xz stream of blocks of BLOCK bytes, each header with
 * its sizes, an index at the end, as xz -T and dpkg-deb write them.
 */
static void
xz_blocks(struct buf *out, const struct buf *plain, uint64_t block)
{
	lzma_mt mt = { .threads = 2, .block_size = block, .preset = 1,
	    .check = LZMA_CHECK_CRC64 };
	lzma_stream s = LZMA_STREAM_INIT;
	size_t cap = plain->len + plain->len / 8 + 65536;

	out->p = malloc(cap);
	ck_assert_ptr_nonnull(out->p);
	ck_assert_int_eq(lzma_stream_encoder_mt(&s, &mt), LZMA_OK);
	s.next_in = (const uint8_t *)plain->p;
	s.avail_in = plain->len;
	s.next_out = (uint8_t *)out->p;
	s.avail_out = cap;
	ck_assert_int_eq(lzma_code(&s, LZMA_FINISH), LZMA_STREAM_END);
	out->len = cap - s.avail_out;
	out->cap = cap;
	lzma_end(&s);
}

/*
 * PATH: a .deb whose data.tar.xz holds one file of SIZE bytes made from
 * SEED (mostly incompressible, so that it is many blocks).  CORRUPT
 * flips a byte in the middle of the compressed data.  BLOCK, when not 0,
 * makes the xz stream of blocks of that size with an index (xz_blocks).
 * The data member's decompressed bytes go to *TAR.
 */
static void
make_deb_blocks(const char *path, size_t size, unsigned seed, bool corrupt,
    uint64_t block, struct buf *tar)
{
	static const char control[] = "Package: p\nVersion: 1\n"
	    "Architecture: all\n";
	struct buf ctl = { 0 }, data = { 0 }, plain = { 0 }, deb = { 0 };
	struct archive_entry *ae;
	struct archive *a;
	char *content;
	size_t i, used = 0;
	FILE *fp;

	content = malloc(size);
	ck_assert_ptr_nonnull(content);
	for (i = 0; i < size; i++) {
		seed = seed * 1103515245 + 12345;
		content[i] = (char)(seed >> 16);
	}
	/* With blocks, half of the bytes repeat: blocks of unequal sizes. */
	if (block != 0)
		memset(content, 'a', size / 2);
	one_member(&ctl, ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_GZIP,
	    "./control", control, sizeof(control) - 1);
	one_member(&plain, ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_NONE,
	    "./f", content, size);
	if (block != 0)
		xz_blocks(&data, &plain, block);
	else
		one_member(&data, ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_XZ,
		    "./f", content, size);
	free(content);
	if (corrupt)
		data.p[data.len / 2] ^= 0x55;
	deb.cap = ctl.len + data.len + 4096;
	deb.p = malloc(deb.cap);
	ck_assert_ptr_nonnull(deb.p);
	a = archive_write_new();
	archive_write_set_format_ar_svr4(a);
	ck_assert_int_eq(archive_write_open_memory(a, deb.p, deb.cap, &used),
	    ARCHIVE_OK);
	{
		const char *names[] = { "debian-binary", "control.tar.gz",
		    "data.tar.xz" };
		const void *bodies[] = { "2.0\n", ctl.p, data.p };
		size_t lens[] = { 4, ctl.len, data.len };

		for (i = 0; i < 3; i++) {
			ae = archive_entry_new();
			archive_entry_set_pathname(ae, names[i]);
			archive_entry_set_filetype(ae, AE_IFREG);
			archive_entry_set_perm(ae, 0644);
			archive_entry_set_size(ae, (la_int64_t)lens[i]);
			ck_assert_int_eq(archive_write_header(a, ae), ARCHIVE_OK);
			ck_assert_int_eq(archive_write_data(a, bodies[i],
			    lens[i]), (la_ssize_t)lens[i]);
			archive_entry_free(ae);
		}
	}
	ck_assert_int_eq(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	fp = fopen(path, "wb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(deb.p, 1, used, fp), used);
	ck_assert_int_eq(fclose(fp), 0);
	free(ctl.p);
	free(data.p);
	free(deb.p);
	*tar = plain;
}

static void
make_deb(const char *path, size_t size, unsigned seed, bool corrupt,
    struct buf *tar)
{
	make_deb_blocks(path, size, seed, corrupt, 0, tar);
}

/* What one thread gets from the file: the reference. */
static ssize_t
read_alone(const char *path, struct buf *out, char *why, size_t whylen)
{
	struct dbp_error err;
	const char *w = NULL;
	const void *p;
	struct deb *d;
	ssize_t n;

	dbp_err_clear(&err);
	ck_assert_int_eq(deb_open(&d, path, &err), 0);
	ck_assert_int_eq(deb_data_raw(d, &err), 0);
	while ((n = deb_data_read(d, &p, &w)) > 0)
		buf_add(out, p, (size_t)n);
	if (n < 0)
		snprintf(why, whylen, "%s", w);
	deb_close(d);
	return n;
}

#define NPKG	4

/* NPKG paths in the scratch directory, FIRST with its digit counting up. */
static void
pkg_paths(char path[NPKG][64], char **files, const char *first)
{
	size_t i;

	for (i = 0; i < NPKG; i++) {
		snprintf(path[i], sizeof(path[i]), "%s", checkutil_at(first));
		path[i][strlen(path[i]) - 5] = (char)('0' + i);
		files[i] = path[i];
	}
}

/* Package I of F, the file FILE, read through the threads: WANT's bytes. */
static void
read_one(struct feed *f, size_t i, const char *file, const struct buf *want)
{
	struct dbp_error err;
	struct buf got = { 0 };
	const void *p;
	const char *why;
	struct deb *d;
	void *pkg;
	ssize_t n;

	ck_assert_int_eq(deb_open(&d, file, &err), 0);
	pkg = feed_pkg(f, i, deb_fd(d));
	while ((n = feed_read(pkg, &p, &why)) > 0)
		buf_add(&got, p, (size_t)n);
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(got.len, want->len);
	ck_assert_int_eq(memcmp(got.p, want->p, got.len), 0);
	free(got.p);
	feed_done(f, i);
	deb_close(d);
}

/*
 * Read FILES[0..NPKG-1] through JOBS threads within BUDGET, as the
 * extraction does, package after package: each must be WANT's bytes.
 */
static void
read_in_order(char **files, const struct buf *want, unsigned jobs,
    size_t budget)
{
	struct feed *f;
	size_t i;

	ck_assert_int_eq(feed_new(&f, files, NPKG, jobs, budget), 0);
	for (i = 0; i < NPKG; i++)
		read_one(f, i, files[i], &want[i]);
	feed_free(f);
}

/*
 * Threads give every package's bytes whole and in order, with a budget
 * much smaller than a package (the readers and the threads take turns),
 * whatever the number of threads.
 */
START_TEST(test_feed_in_order)
{
	static const unsigned jobs[] = { 1, 2, 3, 8 };
	struct buf want[NPKG];
	char *files[NPKG], path[NPKG][64];
	size_t i, j;

	pkg_paths(path, files, "p0.deb");
	for (i = 0; i < NPKG; i++)
		make_deb(files[i], 200000 + 150000 * i, (unsigned)i + 1, false,
		    &want[i]);
	for (j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++)
		read_in_order(files, want, jobs[j], 64 * 1024);
	for (i = 0; i < NPKG; i++)
		free(want[i].p);
}
END_TEST

/*
 * A package abandoned half way (the run failed) and the threads stopped
 * while they still hold later packages: no wait, no leak.
 */
START_TEST(test_feed_abandon)
{
	struct buf want;
	char *files[2], a[64], b[64];
	const void *p;
	const char *why;
	struct feed *f;
	struct deb *d;
	struct dbp_error err;

	snprintf(a, sizeof(a), "%s", checkutil_at("a.deb"));
	snprintf(b, sizeof(b), "%s", checkutil_at("b.deb"));
	files[0] = a;
	files[1] = b;
	make_deb(a, 600000, 7, false, &want);
	free(want.p);
	make_deb(b, 600000, 8, false, &want);
	free(want.p);
	ck_assert_int_eq(feed_new(&f, files, 2, 2, 32 * 1024), 0);
	ck_assert_int_eq(deb_open(&d, a, &err), 0);
	ck_assert_int_gt(feed_read(feed_pkg(f, 0, deb_fd(d)), &p, &why), 0);
	feed_done(f, 0);
	deb_close(d);
	feed_free(f);
}
END_TEST

/*
 * A caller that started the threads for a whole call (install_feed):
 * packages it skips are done unread, before or while they are decoded;
 * the others it finds by name, whatever the pointer, and reads whole
 * within a budget smaller than one package; a package done once is not
 * found again (a batch tried again decodes it itself).
 */
START_TEST(test_feed_find_skip)
{
	struct buf want[NPKG];
	char *files[NPKG], path[NPKG][64], copy[64];
	static const size_t order[] = { 0, 3 };
	struct feed *f;
	size_t i, k;

	pkg_paths(path, files, "s0.deb");
	for (i = 0; i < NPKG; i++)
		make_deb(files[i], 300000 + 50000 * i, (unsigned)i + 11, false,
		    &want[i]);
	ck_assert_int_eq(feed_new(&f, files, NPKG, 2, 64 * 1024), 0);
	/* Skipped before its turn: 1 while 0 decodes, 2 after. */
	feed_done(f, 1);
	for (k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		i = order[k];
		snprintf(copy, sizeof(copy), "%s", files[i]);
		ck_assert_uint_eq(feed_find(f, k == 0 ? files[i] : copy), i);
		read_one(f, i, files[i], &want[i]);
		if (i == 0) {
			feed_done(f, 2);
			feed_done(f, 2);	/* twice: as the first time */
		}
		ck_assert_uint_eq(feed_find(f, files[i]), FEED_NOT_FED);
	}
	ck_assert_uint_eq(feed_find(f, "nowhere.deb"), FEED_NOT_FED);
	feed_free(f);
	for (i = 0; i < NPKG; i++)
		free(want[i].p);
}
END_TEST

/* A corrupt member: the threads' message is the one of a single reader. */
START_TEST(test_feed_corrupt)
{
	char *files[1], path[64], alone[256];
	struct buf want = { 0 }, ref = { 0 };
	const void *p;
	const char *why = NULL;
	struct feed *f;
	struct deb *d;
	struct dbp_error err;
	ssize_t n;

	snprintf(path, sizeof(path), "%s", checkutil_at("bad.deb"));
	files[0] = path;
	make_deb(path, 300000, 3, true, &want);
	free(want.p);
	ck_assert_int_lt(read_alone(path, &ref, alone, sizeof(alone)), 0);
	free(ref.p);
	ck_assert_int_eq(feed_new(&f, files, 1, 2, 1 << 20), 0);
	ck_assert_int_eq(deb_open(&d, path, &err), 0);
	while ((n = feed_read(feed_pkg(f, 0, deb_fd(d)), &p, &why)) > 0)
		;
	ck_assert_int_eq(n, -1);
	ck_assert_str_eq(why, alone);
	feed_done(f, 0);
	deb_close(d);
	feed_free(f);
}
END_TEST

/*
 * Packages of many blocks, between packages of one: every thread count
 * and budget gives each package's bytes whole and in order, and the
 * index does list the blocks.
 */
START_TEST(test_feed_blocks)
{
	static const unsigned jobs[] = { 2, 3, 8 };
	static const size_t budgets[] = { 64 * 1024, 1 << 20, 64 << 20 };
	struct buf want[NPKG];
	char *files[NPKG], path[NPKG][64];
	struct xz_index *ix;
	struct dbp_error err;
	off_t off, size;
	struct deb *d;
	size_t i, j, b;

	pkg_paths(path, files, "m0.deb");
	for (i = 0; i < NPKG; i++)
		make_deb_blocks(files[i], 300000 + 400000 * (i % 2),
		    (unsigned)i + 11, false, i % 2 ? 65536 : 0, &want[i]);
	/* Blocks of 64 KiB: the index of the second lists them all. */
	ck_assert_int_eq(deb_open(&d, files[1], &err), 0);
	ck_assert_int_eq(deb_data_xz(d, &off, &size, &err), 0);
	ck_assert_int_gt(off, 0);
	ck_assert_int_eq(xz_index_read(&ix, deb_fd(d), off, size), 0);
	ck_assert_uint_eq(xz_index_blocks(ix), (want[1].len + 65535) / 65536);
	xz_index_free(ix);
	deb_close(d);
	for (j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++)
		for (b = 0; b < sizeof(budgets) / sizeof(budgets[0]); b++)
			read_in_order(files, want, jobs[j], budgets[b]);
	for (i = 0; i < NPKG; i++)
		free(want[i].p);
}
END_TEST

/*
 * A corrupt block in the middle: the same bytes up to the error and the
 * same message as one thread decoding the stream from its start, so the
 * same entry fails with the same words whatever the number of threads.
 */
START_TEST(test_feed_blocks_corrupt)
{
	char *files[1], path[64], alone[256];
	struct buf want = { 0 }, ref = { 0 }, got = { 0 };
	const void *p;
	const char *why = NULL;
	struct feed *f;
	struct deb *d;
	struct dbp_error err;
	ssize_t n;

	snprintf(path, sizeof(path), "%s", checkutil_at("badm.deb"));
	files[0] = path;
	make_deb_blocks(path, 800000, 5, true, 65536, &want);
	free(want.p);
	ck_assert_int_lt(read_alone(path, &ref, alone, sizeof(alone)), 0);
	ck_assert_int_eq(feed_new(&f, files, 1, 3, 1 << 20), 0);
	ck_assert_int_eq(deb_open(&d, path, &err), 0);
	while ((n = feed_read(feed_pkg(f, 0, deb_fd(d)), &p, &why)) > 0)
		buf_add(&got, p, (size_t)n);
	ck_assert_int_eq(n, -1);
	ck_assert_str_eq(why, alone);
	ck_assert_str_eq(why, "data.tar.xz: corrupt xz data");
	/* Exactly the bytes one thread gives before the error. */
	ck_assert_uint_eq(got.len, ref.len);
	ck_assert_int_eq(memcmp(got.p, ref.p, got.len), 0);
	free(got.p);
	free(ref.p);
	feed_done(f, 0);
	deb_close(d);
	feed_free(f);
}
END_TEST

/* FIPS 180-2's examples, and a digest reused from one input to the next. */
START_TEST(test_digest_known)
{
	static const uint8_t abc[DIGEST_LEN] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41,
		0x40, 0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3,
		0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00,
		0x15, 0xad,
	};
	static const uint8_t empty[DIGEST_LEN] = {
		0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb,
		0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24, 0x27, 0xae, 0x41, 0xe4,
		0x64, 0x9b, 0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52,
		0xb8, 0x55,
	};
	uint8_t out[DIGEST_LEN];
	struct digest *d;

	ck_assert_int_eq(digest_new(&d), 0);
	ck_assert_int_eq(digest_start(d), 0);
	digest_add(d, "a", 1);
	digest_add(d, "bc", 2);
	ck_assert_int_eq(digest_end(d, out), 0);
	ck_assert_int_eq(memcmp(out, abc, DIGEST_LEN), 0);
	ck_assert_int_eq(digest_start(d), 0);
	ck_assert_int_eq(digest_end(d, out), 0);
	ck_assert_int_eq(memcmp(out, empty, DIGEST_LEN), 0);
	checkutil_write("abc", "abc");
	ck_assert_int_eq(digest_file_at(d, AT_FDCWD, checkutil_at("abc"), out),
	    0);
	ck_assert_int_eq(memcmp(out, abc, DIGEST_LEN), 0);
	ck_assert_int_eq(digest_file_at(d, AT_FDCWD, checkutil_at("none"), out),
	    -ENOENT);
	digest_free(d);
}
END_TEST

static Suite *
feed_suite(void)
{
	Suite *s = suite_create("feed");
	TCase *tc;

	tc = checkutil_scratch_tcase(s, "feed", NULL, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_feed_in_order);
	tcase_add_test(tc, test_feed_abandon);
	tcase_add_test(tc, test_feed_find_skip);
	tcase_add_test(tc, test_feed_corrupt);
	tcase_add_test(tc, test_feed_blocks);
	tcase_add_test(tc, test_feed_blocks_corrupt);
	tcase_add_test(tc, test_digest_known);
	return s;
}

int
main(void)
{
	return checkutil_run(feed_suite());
}
