/* SPDX-License-Identifier: MIT */
/* Unit tests of escape.c: archive names made safe to print on a terminal. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "checkutil.h"
#include "util/escape.h"

/* Escape S into a buffer of N bytes and compare with WANT. */
static void
assert_escaped(const char *s, size_t n, const char *want)
{
	char buf[512];

	ck_assert_uint_le(n, sizeof(buf));
	memset(buf, 'Z', sizeof(buf));
	ck_assert_ptr_eq(escape_name(s, buf, n), buf);
	ck_assert_str_eq(buf, want);
	ck_assert_uint_lt(strlen(buf), n);
}

/* No byte of S may reach a terminal as a C0, DEL or UTF-8 C1 control. */
static void
assert_no_controls(const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		ck_assert_msg(*p >= 0x20 && *p != 0x7f,
		    "control byte 0x%02x in output", *p);
		ck_assert_msg(!(p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f),
		    "C1 control 0xc2 0x%02x in output", p[1]);
	}
}

START_TEST(test_escape_plain_unchanged)
{
	assert_escaped("usr/bin/ls", 64, "usr/bin/ls");
	assert_escaped("", 64, "");
	assert_escaped("a b ~!@#$%^&*()", 64, "a b ~!@#$%^&*()");
}
END_TEST

START_TEST(test_escape_specials)
{
	assert_escaped("a\\b", 64, "a\\\\b");
	assert_escaped("a\nb", 64, "a\\nb");
	assert_escaped("a\tb", 64, "a\\tb");
	assert_escaped("\x1b[2J", 64, "\\x1b[2J");
	assert_escaped("\r\x07\x01", 64, "\\x0d\\x07\\x01");
	assert_escaped("del\x7f", 64, "del\\x7f");
}
END_TEST

START_TEST(test_escape_utf8_c1)
{
	/* U+009B (CSI) is 0xc2 0x9b in UTF-8: both bytes are escaped. */
	assert_escaped("x\xc2\x9b" "31m", 64, "x\\xc2\\x9b31m");
	assert_escaped("\xc2\x80\xc2\x9f", 64, "\\xc2\\x80\\xc2\\x9f");
}
END_TEST

START_TEST(test_escape_utf8_text_kept)
{
	/* Printable UTF-8, U+00A0 and U+00E9 included, goes through as is. */
	assert_escaped("caf\xc3\xa9", 64, "caf\xc3\xa9");
	assert_escaped("nb\xc2\xa0sp", 64, "nb\xc2\xa0sp");
	assert_escaped("\xe2\x82\xac", 64, "\xe2\x82\xac");
	/* A lone 0x9b is CSI to a terminal in 8-bit mode; broken UTF-8 too. */
	assert_escaped("a\x9b" "31m", 64, "a\\x9b31m");
	assert_escaped("\xe9t\xe9", 64, "\\xe9t\\xe9");
	assert_escaped("\xe2\x82", 64, "\\xe2\\x82");
	assert_escaped("\xc0\xaf", 64, "\\xc0\\xaf");
	assert_escaped("\xed\xa0\x80", 64, "\\xed\\xa0\\x80");
	assert_escaped("\xf4\x90\x80\x80", 64, "\\xf4\\x90\\x80\\x80");
	assert_escaped("\xf0\x9f\x98\x80", 64, "\xf0\x9f\x98\x80");
}
END_TEST

START_TEST(test_escape_every_byte)
{
	char in[3], out[64];
	int b, c;

	for (b = 1; b < 256; b++) {
		in[0] = (char)b;
		in[1] = '\0';
		assert_no_controls(escape_name(in, out, sizeof(out)));
		for (c = 1; c < 256; c++) {
			in[1] = (char)c;
			in[2] = '\0';
			assert_no_controls(escape_name(in, out, sizeof(out)));
		}
	}
}
END_TEST

START_TEST(test_escape_zero_size)
{
	char buf[4] = "abc";

	ck_assert_ptr_eq(escape_name("xyz", buf, 0), buf);
	ck_assert_str_eq(buf, "abc");
}
END_TEST

START_TEST(test_escape_truncated)
{
	char buf[512];
	char *s;

	s = malloc(1000);
	ck_assert_ptr_nonnull(s);
	memset(s, 'a', 999);
	s[999] = '\0';
	escape_name(s, buf, sizeof(buf));
	ck_assert_uint_eq(strlen(buf), sizeof(buf) - 1);
	ck_assert_str_eq(buf + strlen(buf) - 3, "...");
	free(s);
	assert_escaped("abcdefghij", 8, "abcd...");
	assert_escaped("abcdefghij", 4, "...");
}
END_TEST

START_TEST(test_escape_truncated_whole_escapes)
{
	/* An escape sequence is never cut in half by the "...". */
	assert_escaped("\x1b\x1b\x1b", 10, "\\x1b...");
	assert_escaped("\x1b\x1b\x1b", 11, "\\x1b...");
	assert_escaped("\n\n\n\n\n", 9, "\\n\\n...");
	assert_escaped("a\xc2\x9b" "bcdefgh", 12, "a\\xc2...");
}
END_TEST

START_TEST(test_escape_tiny_buffers)
{
	char buf[4];

	escape_name("abcdef", buf, 1);
	ck_assert_str_eq(buf, "");
	escape_name("abcdef", buf, 2);
	ck_assert_uint_lt(strlen(buf), 2);
	escape_name("abcdef", buf, 3);
	ck_assert_uint_lt(strlen(buf), 3);
}
END_TEST

/*
 * Output that fits is not cut: "Output that does not fit is cut and ends
 * in '...'" (escape.h).  A name of N-1 printable bytes fits in N bytes.
 */
START_TEST(test_escape_exact_fit)
{
	assert_escaped("abcdefg", 8, "abcdefg");
	assert_escaped("abc", 4, "abc");
	assert_escaped("a", 2, "a");
	assert_escaped("ab\\n", 6, "ab\\\\n");
	assert_escaped("\x1b", 5, "\\x1b");
}
END_TEST

static Suite *
escape_suite(void)
{
	Suite *s = suite_create("escape");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_test(tc, test_escape_plain_unchanged);
	tcase_add_test(tc, test_escape_specials);
	tcase_add_test(tc, test_escape_utf8_c1);
	tcase_add_test(tc, test_escape_utf8_text_kept);
	tcase_add_test(tc, test_escape_every_byte);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_test(tc, test_escape_zero_size);
	tcase_add_test(tc, test_escape_truncated);
	tcase_add_test(tc, test_escape_truncated_whole_escapes);
	tcase_add_test(tc, test_escape_tiny_buffers);
	tcase_add_test(tc, test_escape_exact_fit);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return checkutil_run(escape_suite());
}
