/* SPDX-License-Identifier: MIT */
/* Unit tests of debctl.c: the control file of package files built here, byte for byte, and the forms it leaves to the full reader; deb.c reading a control member again (ctlcache.c). */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lzma.h>
#include <zlib.h>

#include "checkutil.h"
#include "deb/control.h"
#include "deb/ctlcache.h"
#include "deb/deb.h"
#include "deb/debctl.h"
#include "util/error.h"

#define CONTROL	"Package: p\nVersion: 1.0\nArchitecture: all\n" \
		"Description: d\n"

struct buf {
	unsigned char *p;
	size_t len;
};

static void
buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = 0;
}

static void
put(struct buf *b, const void *p, size_t len)
{
	b->p = realloc(b->p, b->len + len);
	ck_assert_ptr_nonnull(b->p);
	memcpy(b->p + b->len, p, len);
	b->len += len;
}

/* A tar entry: NAME (with PREFIX in a ustar header), TYPE, DATA. */
static void
tar_entry(struct buf *t, const char *prefix, const char *name, char type,
    const char *data, size_t len, bool gnu)
{
	unsigned char h[512], pad[512] = { 0 };
	unsigned sum = 0;
	size_t i;

	memset(h, 0, sizeof(h));
	memcpy(h, name, strnlen(name, 100));
	snprintf((char *)h + 100, 8, "%07o", 0644);
	snprintf((char *)h + 108, 8, "%07o", 0);
	snprintf((char *)h + 116, 8, "%07o", 0);
	snprintf((char *)h + 124, 12, "%011zo", len);
	snprintf((char *)h + 136, 12, "%011o", 0);
	h[156] = (unsigned char)type;
	if (gnu)
		memcpy(h + 257, "ustar  ", 8);
	else {
		memcpy(h + 257, "ustar", 6);
		memcpy(h + 263, "00", 2);
		if (prefix != NULL)
			memcpy(h + 345, prefix, strlen(prefix));
	}
	memset(h + 148, ' ', 8);
	for (i = 0; i < sizeof(h); i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	put(t, h, sizeof(h));
	put(t, data, len);
	put(t, pad, (512 - len % 512) % 512);
}

static void
tar_end(struct buf *t)
{
	unsigned char z[1024] = { 0 };

	put(t, z, sizeof(z));
}

/* The usual control.tar: ./, ./control, ./md5sums, ./postinst. */
static struct buf
tar_usual(void)
{
	struct buf t = { NULL, 0 };

	tar_entry(&t, NULL, "./", '5', "", 0, true);
	tar_entry(&t, NULL, "./control", '0', CONTROL, strlen(CONTROL), true);
	tar_entry(&t, NULL, "./md5sums", '0', "x  usr/x\n", 9, true);
	tar_entry(&t, NULL, "./postinst", '0', "#!/bin/sh\n", 10, true);
	tar_end(&t);
	return t;
}

static struct buf
gz(const struct buf *in)
{
	struct buf out = { NULL, 0 };
	z_stream zs;

	memset(&zs, 0, sizeof(zs));
	ck_assert_int_eq(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8,
	    Z_DEFAULT_STRATEGY), Z_OK);
	out.p = malloc(in->len + 1024);
	ck_assert_ptr_nonnull(out.p);
	zs.next_in = in->p;
	zs.avail_in = (uInt)in->len;
	zs.next_out = out.p;
	zs.avail_out = (uInt)(in->len + 1024);
	ck_assert_int_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	out.len = zs.total_out;
	deflateEnd(&zs);
	return out;
}

static struct buf
xz(const struct buf *in)
{
	struct buf out = { NULL, 0 };
	size_t pos = 0;

	out.p = malloc(in->len + 1024);
	ck_assert_ptr_nonnull(out.p);
	ck_assert_int_eq(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL,
	    in->p, in->len, out.p, &pos, in->len + 1024), LZMA_OK);
	out.len = pos;
	return out;
}

static void
ar_member(struct buf *a, const char *name, const struct buf *m)
{
	char h[61];

	snprintf(h, sizeof(h), "%-16s%-12d%-6d%-6d%-8o%-10zu`\n", name, 0, 0,
	    0, 0100644, m->len);
	put(a, h, 60);
	put(a, m->p, m->len);
	if (m->len & 1)
		put(a, "\n", 1);
}

/* A package file at REL: debian-binary, then MEMBER named NAME, then data. */
static const char *
deb_write(const char *rel, const char *version, const char *extra,
    const char *name, const struct buf *member)
{
	struct buf a = { NULL, 0 }, v = { NULL, 0 }, e = { NULL, 0 };
	struct buf d = { NULL, 0 };
	FILE *fp;

	put(&a, "!<arch>\n", 8);
	put(&v, version, strlen(version));
	ar_member(&a, "debian-binary", &v);
	if (extra != NULL) {
		put(&e, "local", 5);
		ar_member(&a, extra, &e);
	}
	ar_member(&a, name, member);
	tar_end(&d);
	ar_member(&a, "data.tar", &d);
	fp = fopen(checkutil_at(rel), "wb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(a.p, 1, a.len, fp), a.len);
	ck_assert_int_eq(fclose(fp), 0);
	free(a.p);
	free(v.p);
	free(e.p);
	free(d.p);
	return checkutil_at(rel);
}

/* debctl_read gives CONTROL, as the full reader parses it. */
static void
assert_control(const char *path)
{
	struct control *c = NULL;
	struct dbp_error err;
	struct deb *d;
	size_t len = 0;
	char *text = NULL;

	ck_assert_int_eq(debctl_read(path, &text, &len), 0);
	ck_assert_uint_eq(len, strlen(CONTROL));
	ck_assert_str_eq(text, CONTROL);
	free(text);
	ck_assert_int_eq(deb_open(&d, path, &err), 0);
	ck_assert_int_eq(deb_read_control(d, &c, &err), 0);
	ck_assert_str_eq(control_get(c, "Package"), "p");
	control_free(c);
	deb_close(d);
}

static void
assert_left(const char *path)
{
	size_t len = 0;
	char *text = NULL;

	ck_assert_int_eq(debctl_read(path, &text, &len), 1);
	ck_assert_ptr_null(text);
}

START_TEST(test_debctl_forms)
{
	struct buf t = tar_usual(), g = gz(&t), x = xz(&t);

	assert_control(deb_write("none.deb", "2.0\n", NULL, "control.tar", &t));
	assert_control(deb_write("gz.deb", "2.0\n", NULL, "control.tar.gz", &g));
	assert_control(deb_write("xz.deb", "2.0\n", NULL, "control.tar.xz", &x));
	/* GNU ar's names end with '/'; '_' members are skipped. */
	assert_control(deb_write("slash.deb", "2.0\n", NULL, "control.tar.xz/",
	    &x));
	assert_control(deb_write("under.deb", "2.0\n", "_local", "control.tar.gz",
	    &g));
	free(t.p);
	free(g.p);
	free(x.p);
}
END_TEST

START_TEST(test_debctl_names)
{
	struct buf t = { NULL, 0 };
	char pax[64];
	int n;

	/* A ustar prefix, a GNU long name, a pax path. */
	tar_entry(&t, ".", "control", '0', CONTROL, strlen(CONTROL), false);
	tar_end(&t);
	assert_control(deb_write("prefix.deb", "2.0\n", NULL, "control.tar", &t));
	buf_free(&t);
	tar_entry(&t, NULL, "././@LongLink", 'L', "./control", 10, true);
	tar_entry(&t, NULL, "./contr", '0', CONTROL, strlen(CONTROL), true);
	tar_end(&t);
	assert_control(deb_write("long.deb", "2.0\n", NULL, "control.tar", &t));
	buf_free(&t);
	n = snprintf(pax, sizeof(pax), "%d path=./control\n", 18);
	ck_assert_int_eq(n, 18);
	tar_entry(&t, NULL, "PaxHeader", 'x', pax, (size_t)n, false);
	tar_entry(&t, NULL, "./other", '0', CONTROL, strlen(CONTROL), false);
	tar_end(&t);
	assert_control(deb_write("pax.deb", "2.0\n", NULL, "control.tar", &t));
	free(t.p);
}
END_TEST

/* What the full reader must judge: the caller is told, nothing is guessed. */
START_TEST(test_debctl_left)
{
	struct buf t = tar_usual(), g = gz(&t), z = { NULL, 0 };
	size_t len;
	char *text;

	assert_left(deb_write("zst.deb", "2.0\n", NULL, "control.tar.zst", &g));
	assert_left(deb_write("v3.deb", "3.0\n", NULL, "control.tar", &t));
	assert_left(deb_write("order.deb", "2.0\n", "data.tar", "control.tar",
	    &t));
	/* Damaged: a flipped byte in the gzip stream, a bad tar checksum. */
	g.p[g.len / 2] ^= 0x55;
	assert_left(deb_write("badgz.deb", "2.0\n", NULL, "control.tar.gz", &g));
	t.p[512 + 10] ^= 1;
	assert_left(deb_write("badsum.deb", "2.0\n", NULL, "control.tar", &t));
	buf_free(&t);
	/* control twice, or as a symlink, or not at all. */
	tar_entry(&t, NULL, "./control", '0', CONTROL, strlen(CONTROL), true);
	tar_entry(&t, NULL, "control", '0', CONTROL, strlen(CONTROL), true);
	tar_end(&t);
	assert_left(deb_write("twice.deb", "2.0\n", NULL, "control.tar", &t));
	buf_free(&t);
	tar_entry(&t, NULL, "./control", '2', "", 0, true);
	tar_end(&t);
	assert_left(deb_write("link.deb", "2.0\n", NULL, "control.tar", &t));
	tar_end(&z);
	assert_left(deb_write("empty.deb", "2.0\n", NULL, "control.tar", &z));
	/* Not an ar container; a member cut short; no such file. */
	checkutil_write("text.deb", "just text\n");
	assert_left(checkutil_at("text.deb"));
	checkutil_write("cut.deb", "!<arch>\ndebian-binary   0           0     "
	    "0     100644  4         `\n2.0\ncontrol.tar     0           0     "
	    "0     100644  9999      `\nxx");
	assert_left(checkutil_at("cut.deb"));
	text = NULL;
	ck_assert_int_eq(debctl_read(checkutil_at("none.deb"), &text, &len),
	    -ENOENT);
	free(t.p);
	free(g.p);
	free(z.p);
}
END_TEST

/*
 * deb_read_control of PATH, keeping the info files: the package's name
 * in NAME (a buffer of 8), and how many info files came; or its error
 * message in MSG (a buffer of 256) and -1.
 */
static int
read_full(const char *path, char *name, char *msg)
{
	struct control *c = NULL;
	struct deb_info *info;
	struct dbp_error err;
	struct deb *d;
	size_t n;
	int r;

	dbp_err_clear(&err);
	ck_assert_int_eq(deb_open(&d, path, &err), 0);
	deb_keep_info(d);
	if ((r = deb_read_control(d, &c, &err)) != 0) {
		snprintf(msg, 256, "%s", err.msg);
		deb_close(d);
		return -1;
	}
	snprintf(name, 8, "%s", control_get(c, "Package"));
	control_free(c);
	deb_take_info(d, &info, &n);
	deb_info_free(info, n);
	deb_close(d);
	return (int)n;
}

/*
 * A member read again is not decoded again: what its first read gave is
 * given for the same bytes, and only for them.
 */
START_TEST(test_deb_control_again)
{
	struct buf t = tar_usual(), q = { NULL, 0 }, forms[3], qx;
	static const char *const names[] = { "control.tar", "control.tar.gz",
	    "control.tar.xz" };
	char name[8], msg[256], msg2[256], qc[] = CONTROL;
	const char *path;
	size_t len, i;

	/* Without fork, the tests before have read these bytes. */
	ctlcache_clear();
	forms[0] = t;
	forms[1] = gz(&t);
	forms[2] = xz(&t);
	for (i = 0; i < 3; i++) {
		path = deb_write("p.deb", "2.0\n", NULL, names[i], &forms[i]);
		ck_assert_ptr_null(ctlcache_find(forms[i].p, forms[i].len,
		    &len));
		ck_assert_int_eq(read_full(path, name, msg), 2);
		ck_assert_str_eq(name, "p");
		/* Kept: what the tar reader took, decoded. */
		ck_assert_ptr_nonnull(ctlcache_find(forms[i].p, forms[i].len,
		    &len));
		ck_assert_uint_ge(len, t.len - 1024);
		ck_assert_int_eq(read_full(path, name, msg), 2);
		ck_assert_str_eq(name, "p");
	}
	/* The same file rewritten in place, same size, other bytes. */
	tar_entry(&q, NULL, "./", '5', "", 0, true);
	qc[strlen("Package: ")] = 'q';
	tar_entry(&q, NULL, "./control", '0', qc, strlen(qc), true);
	tar_end(&q);
	qx = xz(&q);
	path = deb_write("p.deb", "2.0\n", NULL, "control.tar.xz", &qx);
	ck_assert_int_eq(read_full(path, name, msg), 0);
	ck_assert_str_eq(name, "q");
	/* Damaged: the same error each time, nothing kept. */
	qx.p[qx.len / 2] ^= 0x55;
	path = deb_write("bad.deb", "2.0\n", NULL, "control.tar.xz", &qx);
	ck_assert_int_eq(read_full(path, name, msg), -1);
	ck_assert_int_eq(read_full(path, name, msg2), -1);
	ck_assert_str_eq(msg, msg2);
	ck_assert_ptr_null(ctlcache_find(qx.p, qx.len, &len));
	ctlcache_clear();
	ck_assert_ptr_null(ctlcache_find(forms[2].p, forms[2].len, &len));
	for (i = 0; i < 3; i++)
		free(forms[i].p);
	free(q.p);
	free(qx.p);
}
END_TEST

/* Bounded: past CTLCACHE_MAX nothing more is kept. */
START_TEST(test_ctlcache_bound)
{
	size_t chunk = CTLCACHE_MAX / 4, len, i;
	char key[4][8] = { "k0", "k1", "k2", "k3" };

	ctlcache_clear();
	for (i = 0; i < 4; i++) {
		void *buf = malloc(chunk);

		ck_assert_ptr_nonnull(buf);
		ck_assert_int_eq(ctlcache_room(chunk), i < 3);
		ctlcache_add(key[i], sizeof(key[i]), buf, chunk);
	}
	ck_assert_ptr_nonnull(ctlcache_find(key[2], sizeof(key[2]), &len));
	ck_assert_uint_eq(len, chunk);
	/* The fourth did not fit beside its key. */
	ck_assert_ptr_null(ctlcache_find(key[3], sizeof(key[3]), &len));
	ctlcache_clear();
	ck_assert_int_eq(ctlcache_room(CTLCACHE_MAX), 1);
}
END_TEST

static Suite *
debctl_suite(void)
{
	Suite *s = suite_create("debctl");
	TCase *tc;

	tc = checkutil_scratch_tcase(s, "core", NULL, NULL);
	tcase_add_test(tc, test_debctl_forms);
	tcase_add_test(tc, test_debctl_names);
	tcase_add_test(tc, test_debctl_left);
	tcase_add_test(tc, test_deb_control_again);
	tcase_add_test(tc, test_ctlcache_bound);
	return s;
}

int
main(void)
{
	return checkutil_run(debctl_suite());
}
