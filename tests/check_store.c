/* SPDX-License-Identifier: MIT */
/* Unit tests of the store (src/store): entries filled, looked up, cloned, distrusted when damaged, pruned. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive_entry.h>

#include "checkutil.h"
#include "deb/stream.h"
#include "store/store_int.h"

static char note[512];
static int nnotes;

static void
on_note(void *ctx, const char *msg)
{
	(void)ctx;
	snprintf(note, sizeof(note), "%s", msg);
	nnotes++;
}

static const char odd[] = "usr/share/odd name%\n\x7f";

/* A package file (any bytes: its key is their SHA-256), and its key. */
static int
make_deb(uint8_t key[DIGEST_LEN])
{
	struct digest *d;
	int fd;

	checkutil_write("pkg.deb", "not really a deb, but hashed all the same");
	fd = open(checkutil_at("pkg.deb"), O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(digest_new(&d), 0);
	ck_assert_int_eq(digest_fd(d, fd, key), 0);
	digest_free(d);
	return fd;
}

static void
add(struct store_fill *f, const char *path, unsigned type, const char *link)
{
	struct archive_entry *ae = archive_entry_new();

	archive_entry_copy_pathname(ae, path);
	archive_entry_set_filetype(ae, type);
	archive_entry_set_perm(ae, type == AE_IFDIR ? 02755 : 0644);
	archive_entry_set_uid(ae, 7);
	archive_entry_copy_uname(ae, "a user");
	archive_entry_set_mtime(ae, 1234567890, 5);
	archive_entry_set_size(ae, type == AE_IFREG ? 5 : 0);
	if (link != NULL)
		archive_entry_copy_symlink(ae, link);
	store_fill_entry(f, ae);
	archive_entry_free(ae);
}

/* A store with one entry: a directory, "hello" as ODD, a symlink. */
static struct store *
filled(uint8_t key[DIGEST_LEN], int *debfd)
{
	uint8_t sha[DIGEST_LEN], md5[DIGEST_MD5_LEN];
	struct store_fill *f;
	struct digest *d;
	struct store *s;
	int fd;

	*debfd = make_deb(key);
	checkutil_write("hello", "hello");
	store_open(&s, checkutil_at("store"), 0, false, on_note, NULL);
	ck_assert_ptr_nonnull(s);
	f = store_fill_new(s, key);
	ck_assert_ptr_nonnull(f);
	add(f, "usr/", AE_IFDIR, NULL);
	add(f, odd, AE_IFREG, NULL);
	fd = open(checkutil_at("hello"), O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(digest_new(&d), 0);
	ck_assert_int_eq(digest_fd(d, fd, sha), 0);
	digest_free(d);
	memset(md5, 0x5a, sizeof(md5));
	store_fill_data(f, fd, 5, sha, md5);
	close(fd);
	add(f, "usr/link", AE_IFLNK, "../odd target");
	ck_assert(store_fill_end(f));
	store_commit(s, false);
	return s;
}

/* Entry I of P written from the store into a new file "out": WANT. */
static void
assert_written(struct store *s, struct store_pkg *p, size_t i,
    uint8_t *md5, const char *want)
{
	uint8_t sha[DIGEST_LEN];
	enum store_how how = STORE_CLONED;
	struct dbp_error err;
	int fd;

	(void)unlink(checkutil_at("out"));
	fd = open(checkutil_at("out"), O_RDWR | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(store_pkg_write(s, p, i, fd, "out", sha, md5, &how,
	    &err), 0);
	close(fd);
	checkutil_assert_content("out", want);
}

START_TEST(test_store_round_trip)
{
	uint8_t key[DIGEST_LEN], md5[DIGEST_MD5_LEN];
	struct archive_entry *ae;
	struct store_pkg *p;
	struct store *s;
	int debfd;

	s = filled(key, &debfd);
	store_lookup(s, debfd, key, &p);
	ck_assert_msg(p != NULL, "no hit: %s", note);
	ck_assert_uint_eq(store_pkg_count(p), 3);
	ck_assert_uint_eq(store_pkg_bytes(p), 5);
	ae = store_pkg_entry(p, 0);
	ck_assert_str_eq(archive_entry_pathname(ae), "usr/");
	ck_assert_uint_eq(archive_entry_perm(ae), 02755);
	ae = store_pkg_entry(p, 1);
	ck_assert_str_eq(archive_entry_pathname(ae), odd);
	ck_assert_str_eq(archive_entry_uname(ae), "a user");
	ck_assert_int_eq(archive_entry_uid(ae), 7);
	ck_assert_int_eq(archive_entry_mtime(ae), 1234567890);
	ck_assert_int_eq(archive_entry_mtime_nsec(ae), 5);
	ck_assert_int_eq(archive_entry_size(ae), 5);
	assert_written(s, p, 1, md5, "hello");
	ck_assert_int_eq(md5[0], 0x5a);		/* the manifest's */
	ae = store_pkg_entry(p, 2);
	ck_assert_int_eq(archive_entry_filetype(ae), AE_IFLNK);
	ck_assert_str_eq(archive_entry_symlink(ae), "../odd target");
	store_pkg_free(p);
	store_close(s);
	close(debfd);
}
END_TEST

/*
 * Contents copied from another filesystem (/dev/shm where it is one),
 * twice, the bytes the same either way; a source shorter than the size
 * asked for is an error.
 */
START_TEST(test_store_copy_across)
{
	char path[] = "/dev/shm/debunpack-check-XXXXXX", *want;
	enum store_how how = STORE_CLONED;
	size_t n = 300000, i;
	struct stat a, b;
	struct store *s;
	int src, dst, k;

	if ((src = mkstemp(path)) < 0) {
		/* No /dev/shm: the scratch directory's filesystem. */
		strcpy(path, checkutil_at("src"));
		ck_assert_int_ge(src = open(path, O_RDWR | O_CREAT, 0600), 0);
	}
	unlink(path);
	want = malloc(n);
	ck_assert_ptr_nonnull(want);
	for (i = 0; i < n; i++)
		want[i] = (char)(i * 7 + i / 251);
	ck_assert_int_eq(write(src, want, n), (ssize_t)n);
	store_open(&s, checkutil_at("store"), 0, false, on_note, NULL);
	ck_assert_ptr_nonnull(s);
	for (k = 0; k < 2; k++) {
		char name[16], *got;

		snprintf(name, sizeof(name), "out%d", k);
		dst = open(checkutil_at(name), O_RDWR | O_CREAT | O_EXCL, 0600);
		ck_assert_int_ge(dst, 0);
		ck_assert_int_eq(store_copy_fd(s, dst, src, n, &how), 0);
		ck_assert_int_eq(fstat(src, &a), 0);
		ck_assert_int_eq(fstat(dst, &b), 0);
		ck_assert_int_eq(b.st_size, (off_t)n);
		if (a.st_dev != b.st_dev)
			ck_assert_int_eq(how, STORE_COPIED);
		got = malloc(n);
		ck_assert_ptr_nonnull(got);
		ck_assert_int_eq(pread(dst, got, n, 0), (ssize_t)n);
		ck_assert(memcmp(got, want, n) == 0);
		free(got);
		close(dst);
	}
	/* A clone takes the whole file, whatever the size: copies only. */
	if (a.st_dev != b.st_dev) {
		dst = open(checkutil_at("short"), O_RDWR | O_CREAT | O_EXCL,
		    0600);
		ck_assert_int_ge(dst, 0);
		ck_assert_int_eq(store_copy_fd(s, dst, src, n + 1, &how),
		    -EIO);
		close(dst);
	}
	store_close(s);
	close(src);
	free(want);
}
END_TEST

/*
 * Where the store copies, contents are written to it as they are
 * decoded (the tee): named once, a second of the same content let go,
 * and a failed one (a full store) keeps the entry out, told once.
 */
START_TEST(test_store_fill_tee)
{
	uint8_t key[DIGEST_LEN], sha[DIGEST_LEN], md5[DIGEST_MD5_LEN];
	struct stream_tee *t;
	struct store_fill *f;
	struct store_pkg *p;
	struct digest *d;
	struct store *s;
	int debfd, i;

	debfd = make_deb(key);
	ck_assert_int_eq(digest_new(&d), 0);
	ck_assert_int_eq(digest_start(d), 0);
	digest_add(d, "hello", 5);
	ck_assert_int_eq(digest_end(d, sha), 0);
	digest_free(d);
	store_open(&s, checkutil_at("store"), 0, false, on_note, NULL);
	ck_assert_ptr_nonnull(s);
	s->fill_clones = false;
	f = store_fill_new(s, key);
	ck_assert_ptr_nonnull(f);
	for (i = 0; i < 2; i++) {
		add(f, i == 0 ? "a" : "b", AE_IFREG, NULL);
		t = store_fill_tee(f);
		ck_assert_ptr_nonnull(t);
		ck_assert_int_eq(pwrite(t->fd, "hello", 5, 0), 5);
		/* The root's file is not read where the content was teed. */
		store_fill_data(f, -1, 5, sha, NULL);
	}
	add(f, "empty", AE_IFDIR, NULL);
	ck_assert_ptr_null(store_fill_tee(f));
	ck_assert(store_fill_end(f));
	store_commit(s, false);
	store_lookup(s, debfd, key, &p);
	ck_assert_msg(p != NULL, "no hit: %s", note);
	assert_written(s, p, 1, md5, "hello");
	store_pkg_free(p);

	/* A write to the store failed: no entry, and the run is told. */
	key[0] ^= 1;
	nnotes = 0;
	f = store_fill_new(s, key);
	add(f, "c", AE_IFREG, NULL);
	t = store_fill_tee(f);
	ck_assert_ptr_nonnull(t);
	t->errnum = ENOSPC;
	store_fill_data(f, -1, 5, sha, NULL);
	ck_assert(!store_fill_end(f));
	ck_assert_int_eq(nnotes, 1);
	ck_assert_msg(strstr(note, "cache not filled") != NULL, "%s", note);
	store_close(s);
	close(debfd);
}
END_TEST

/* Each entry's manifest, cut short: never read as a shorter one. */
START_TEST(test_store_truncated)
{
	uint8_t key[DIGEST_LEN];
	char hex[2 * DIGEST_LEN + 1], path[600];
	struct store_pkg *p;
	struct stat st;
	struct store *s;
	int debfd, i;

	s = filled(key, &debfd);
	for (i = 0; i < DIGEST_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	snprintf(path, sizeof(path), "%s/entries/%s", checkutil_at("store"),
	    hex);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(truncate(path, st.st_size - 3), 0);
	nnotes = 0;
	store_lookup(s, debfd, key, &p);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(nnotes, 1);
	ck_assert_msg(strstr(note, "truncated") != NULL, "%s", note);
	/* A line of it changed, its length kept: the checksum says so. */
	store_close(s);
	close(debfd);
	s = filled(key, &debfd);
	{
		int fd = open(path, O_WRONLY);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(pwrite(fd, "l", 1, 20), 1);
		close(fd);
	}
	store_lookup(s, debfd, key, &p);
	ck_assert_ptr_null(p);
	ck_assert_msg(strstr(note, "checksum") != NULL, "%s", note);
	store_close(s);
	close(debfd);
}
END_TEST

START_TEST(test_store_changed_content)
{
	uint8_t key[DIGEST_LEN];
	struct store_pkg *p;
	struct store *s;
	char cmd[1200], dir[512];
	int debfd;

	s = filled(key, &debfd);
	snprintf(dir, sizeof(dir), "%s", checkutil_at("store"));
	snprintf(cmd, sizeof(cmd), "chmod u+w %s/objects/*/* && printf J |"
	    " dd of=$(ls %s/objects/*/*) conv=notrunc 2>/dev/null", dir, dir);
	ck_assert_int_eq(system(cmd), 0);
	store_lookup(s, debfd, key, &p);
	ck_assert_ptr_null(p);
	ck_assert_msg(strstr(note, "changed") != NULL, "%s", note);
	store_close(s);
	close(debfd);
}
END_TEST

/* A regular file whose content never came: no entry. */
START_TEST(test_store_incomplete_not_kept)
{
	uint8_t key[DIGEST_LEN];
	struct store_fill *f;
	struct store *s;
	int debfd;

	debfd = make_deb(key);
	store_open(&s, checkutil_at("store"), 0, false, on_note, NULL);
	ck_assert_ptr_nonnull(s);
	f = store_fill_new(s, key);
	add(f, "a", AE_IFREG, NULL);
	add(f, "b", AE_IFREG, NULL);
	ck_assert(!store_fill_end(f));
	store_close(s);
	close(debfd);
}
END_TEST

START_TEST(test_store_info_prune)
{
	uint8_t key[DIGEST_LEN];
	struct store_info info;
	struct dbp_error err;
	struct store_pkg *p;
	struct store *s;
	int debfd;

	s = filled(key, &debfd);
	store_lookup(s, debfd, key, &p);
	ck_assert_ptr_nonnull(p);
	store_pkg_free(p);
	store_close(s);
	close(debfd);
	ck_assert_int_eq(store_info(checkutil_at("store"), false, 0, &info,
	    &err), 0);
	ck_assert_uint_eq(info.entries, 1);
	ck_assert_uint_eq(info.objects, 1);
	ck_assert_uint_eq(info.hits, 1);
	ck_assert_uint_gt(info.bytes, 0);
	/* Room for everything: nothing goes. */
	ck_assert_int_eq(store_info(checkutil_at("store"), true, 1ULL << 40,
	    &info, &err), 0);
	ck_assert_uint_eq(info.entries, 1);
	ck_assert_uint_eq(info.objects, 1);
	ck_assert_int_eq(store_info(checkutil_at("store"), true, 0, &info,
	    &err), 0);
	ck_assert_uint_eq(info.entries, 0);
	ck_assert_uint_eq(info.objects, 0);
	ck_assert_int_ne(store_info(checkutil_at("nowhere"), false, 0, &info,
	    &err), 0);
}
END_TEST

static Suite *
store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc;

	tc = checkutil_scratch_tcase(s, "core", NULL, NULL);
	tcase_add_test(tc, test_store_round_trip);
	tcase_add_test(tc, test_store_copy_across);
	tcase_add_test(tc, test_store_fill_tee);
	tcase_add_test(tc, test_store_info_prune);
	tc = checkutil_scratch_tcase(s, "limits", NULL, NULL);
	tcase_add_test(tc, test_store_truncated);
	tcase_add_test(tc, test_store_changed_content);
	tcase_add_test(tc, test_store_incomplete_not_kept);
	return s;
}

int
main(void)
{
	return checkutil_run(store_suite());
}
