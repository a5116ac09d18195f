/* SPDX-License-Identifier: MIT */
/* Unit tests of control.c: parsing one stanza, looking up its fields. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkutil.h"
#include "deb/control.h"

#define MINIMAL	"Package: hello\nVersion: 2.10-3\nArchitecture: amd64\n"

/* Parse a NUL-terminated TEXT; the length excludes the terminator. */
static int
parse(const char *text, struct control **c, struct dbp_error *err)
{
	dbp_err_clear(err);
	*c = NULL;
	return control_parse(text, strlen(text), c, err);
}

/* Parse TEXT that must be rejected, and check what the error says. */
static void
assert_rejected(const char *text, const char *msg_part)
{
	struct dbp_error err;
	struct control *c;
	int r;

	r = parse(text, &c, &err);
	ck_assert_msg(r == -EINVAL, "accepted or wrong error %d for \"%s\"",
	    r, text);
	ck_assert_ptr_null(c);
	ck_assert_str_eq(err.path, "control");
	ck_assert_msg(strstr(err.msg, msg_part) != NULL,
	    "message \"%s\" does not say \"%s\"", err.msg, msg_part);
}

START_TEST(test_control_minimal)
{
	struct dbp_error err;
	struct control *c;

	ck_assert_int_eq(parse(MINIMAL, &c, &err), 0);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->nfields, 3);
	ck_assert_str_eq(control_get(c, "Package"), "hello");
	ck_assert_str_eq(control_get(c, "Version"), "2.10-3");
	ck_assert_str_eq(control_get(c, "Architecture"), "amd64");
	ck_assert_str_eq(c->fields[0].name, "Package");
	ck_assert_ptr_null(control_get(c, "Depends"));
	control_free(c);
}
END_TEST

START_TEST(test_control_get_case_insensitive)
{
	struct dbp_error err;
	struct control *c;

	ck_assert_int_eq(parse("package: a\nVERSION: 1\narchitecture: all\n"
	    "Multi-Arch: foreign\n", &c, &err), 0);
	ck_assert_str_eq(control_get(c, "Package"), "a");
	ck_assert_str_eq(control_get(c, "version"), "1");
	ck_assert_str_eq(control_get(c, "ARCHITECTURE"), "all");
	ck_assert_str_eq(control_get(c, "multi-arch"), "foreign");
	/* The name is kept as written. */
	ck_assert_str_eq(c->fields[0].name, "package");
	control_free(c);
}
END_TEST

START_TEST(test_control_continuation_lines)
{
	struct dbp_error err;
	struct control *c;

	ck_assert_int_eq(parse(MINIMAL "Description: short text\n"
	    " first line of the long text\n .\n\tafter a tab\n"
	    "Depends: libc6\n", &c, &err), 0);
	ck_assert_str_eq(control_get(c, "Description"), "short text\n"
	    "first line of the long text\n.\nafter a tab");
	ck_assert_str_eq(control_get(c, "Depends"), "libc6");
	control_free(c);
}
END_TEST

START_TEST(test_control_value_trimmed)
{
	struct dbp_error err;
	struct control *c;

	ck_assert_int_eq(parse("Package:hello\nVersion: \t 1.0 \t\n"
	    "Architecture:   all   \nEmpty:\n", &c, &err), 0);
	ck_assert_str_eq(control_get(c, "Package"), "hello");
	ck_assert_str_eq(control_get(c, "Version"), "1.0");
	ck_assert_str_eq(control_get(c, "Architecture"), "all");
	ck_assert_str_eq(control_get(c, "Empty"), "");
	control_free(c);
}
END_TEST

START_TEST(test_control_crlf)
{
	struct dbp_error err;
	struct control *c;

	ck_assert_int_eq(parse("Package: a\r\nVersion: 1\r\nArchitecture: all\r\n"
	    "Description: x\r\n more\r\n", &c, &err), 0);
	ck_assert_str_eq(control_get(c, "Package"), "a");
	ck_assert_str_eq(control_get(c, "Architecture"), "all");
	ck_assert_str_eq(control_get(c, "Description"), "x\nmore");
	control_free(c);
}
END_TEST

/* As dpkg: blanks are trimmed at the end of a whole value, not per line. */
START_TEST(test_control_value_end)
{
	struct dbp_error err;
	struct control *c;

	ck_assert_int_eq(parse("Package: a  \nVersion: 1\t\nArchitecture: all\n"
	    "Description: synopsis \n more \n last  \n", &c, &err), 0);
	ck_assert_str_eq(control_get(c, "Package"), "a");
	ck_assert_str_eq(control_get(c, "Version"), "1");
	ck_assert_str_eq(control_get(c, "Description"),
	    "synopsis \nmore \nlast");
	control_free(c);
}
END_TEST

START_TEST(test_control_trailing_blank_lines)
{
	struct dbp_error err;
	struct control *c;

	ck_assert_int_eq(parse(MINIMAL "\n\n \n\t\n", &c, &err), 0);
	ck_assert_uint_eq(c->nfields, 3);
	control_free(c);
}
END_TEST

START_TEST(test_control_no_final_newline)
{
	struct dbp_error err;
	struct control *c;

	ck_assert_int_eq(parse("Package: a\nVersion: 1\nArchitecture: all",
	    &c, &err), 0);
	ck_assert_str_eq(control_get(c, "Architecture"), "all");
	control_free(c);
}
END_TEST

START_TEST(test_control_free_null)
{
	control_free(NULL);
}
END_TEST

START_TEST(test_control_missing_required)
{
	assert_rejected("Version: 1\nArchitecture: all\n", "'Package'");
	assert_rejected("Package: a\nArchitecture: all\n", "'Version'");
	assert_rejected("Package: a\nVersion: 1\n", "'Architecture'");
	assert_rejected("", "'Package'");
	assert_rejected("\n", "'Package'");
}
END_TEST

START_TEST(test_control_empty_required)
{
	assert_rejected("Package:\nVersion: 1\nArchitecture: all\n",
	    "'Package'");
	assert_rejected("Package: a\nVersion:   \nArchitecture: all\n",
	    "'Version'");
}
END_TEST

/* Accepted when VERSION is the Version field, with Package and Architecture. */
static int
parse_version(const char *version)
{
	char text[256];
	struct dbp_error err;
	struct control *c;
	int r;

	snprintf(text, sizeof(text), "Package: a\nVersion: %s\n"
	    "Architecture: all\n", version);
	/* Parsing is lax (records keep what they hold); the check is not. */
	ck_assert_int_eq(parse(text, &c, &err), 0);
	r = control_check_syntax(c, &err);
	control_free(c);
	return r;
}

START_TEST(test_control_version_syntax)
{
	static const char *const good[] = { "1", "1.0-1", "2:1.2.3-4",
	    "1.0~rc1+dfsg-2.1", "1:2:3-4", "1.2-3-4", "0", "a1",
	    "2147483647:1" };
	static const char *const bad[] = { "1.0\x1b[31m", "1.0 x", ":1",
	    "x:1", "1:", "1-", "-1", "1:-1", "1.0_1", "1.0-1:2", "1/2",
	    "1\xc3\xa9", "2147483648:1", "12345678901:1" };
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(parse_version(good[i]) == 0, "'%s' refused",
		    good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(parse_version(bad[i]) == -EINVAL,
		    "'%s' accepted", bad[i]);
}
END_TEST

/* Accepted when ARCH is the Architecture field. */
static int
parse_arch(const char *arch)
{
	char text[256];
	struct dbp_error err;
	struct control *c;
	int r;

	snprintf(text, sizeof(text), "Package: a\nVersion: 1\n"
	    "Architecture: %s\n", arch);
	ck_assert_int_eq(parse(text, &c, &err), 0);
	r = control_check_syntax(c, &err);
	if (r != 0)
		ck_assert_ptr_nonnull(strstr(err.msg, "invalid Architecture"));
	control_free(c);
	return r;
}

START_TEST(test_control_blank_continuation)
{
	static const char *const bad[] = { "Description: a\n \n b\n",
	    "Description: a\n  \n b\n", "Description: a\n \t\n b\n" };
	struct dbp_error err;
	struct control *c;
	char text[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "Package: a\nVersion: 1\n"
		    "Architecture: all\n%s", bad[i]);
		ck_assert_int_eq(parse(text, &c, &err), 0);
		ck_assert_int_eq(control_check_syntax(c, &err), -EINVAL);
		ck_assert_str_eq(err.msg,
		    "blank line in value of field 'Description'");
		control_free(c);
	}
	/* dpkg's blank line, " .", and indented lines are values. */
	snprintf(text, sizeof(text), "Package: a\nVersion: 1\n"
	    "Architecture: all\nDescription: a\n .\n   b\n");
	ck_assert_int_eq(parse(text, &c, &err), 0);
	ck_assert_int_eq(control_check_syntax(c, &err), 0);
	control_free(c);
}
END_TEST

START_TEST(test_control_arch_syntax)
{
	ck_assert_int_eq(parse_arch("all"), 0);
	ck_assert_int_eq(parse_arch("amd64"), 0);
	ck_assert_int_eq(parse_arch("musl-linux-arm64"), 0);
	ck_assert_int_eq(parse_arch("all\x1b[2J"), -EINVAL);
	ck_assert_int_eq(parse_arch("a/b"), -EINVAL);
	ck_assert_int_eq(parse_arch("-x"), -EINVAL);
}
END_TEST

START_TEST(test_control_duplicate_field)
{
	assert_rejected(MINIMAL "Package: other\n", "duplicate");
	/* Field names compare case-insensitively (deb-control(5)). */
	assert_rejected(MINIMAL "package: other\n", "duplicate");
	assert_rejected("Depends: a\nDEPENDS: b\n" MINIMAL, "duplicate");
}
END_TEST

START_TEST(test_control_bad_lines)
{
	assert_rejected(" leading continuation\n" MINIMAL, "continuation");
	assert_rejected(MINIMAL "no colon here\n", "without a field name");
	assert_rejected(MINIMAL ": value\n", "invalid field name");
	assert_rejected(MINIMAL "#Comment: x\n", "invalid field name");
	assert_rejected(MINIMAL "-Dash: x\n", "invalid field name");
	assert_rejected(MINIMAL "Two Words: x\n", "invalid field name");
	assert_rejected(MINIMAL "Caf\xc3\xa9: x\n", "invalid field name");
}
END_TEST

START_TEST(test_control_nul_byte)
{
	static const char text[] = "Package: a\0b\nVersion: 1\nArchitecture: all\n";
	struct dbp_error err;
	struct control *c = NULL;

	dbp_err_clear(&err);
	ck_assert_int_eq(control_parse(text, sizeof(text) - 1, &c, &err),
	    -EINVAL);
	ck_assert_ptr_null(c);
	ck_assert_ptr_nonnull(strstr(err.msg, "NUL"));
}
END_TEST

START_TEST(test_control_two_stanzas)
{
	assert_rejected(MINIMAL "\nPackage: b\nVersion: 1\nArchitecture: all\n",
	    "more than one stanza");
	assert_rejected(MINIMAL "\n\n\nx\n", "more than one stanza");
}
END_TEST

/* LEN bounds the parse: nothing past it is read, no terminator needed. */
START_TEST(test_control_length_bounded)
{
	static const char full[] = MINIMAL "Garbage without colon\n";
	size_t len = strlen(MINIMAL) - 1;	/* no final newline either */
	struct dbp_error err;
	struct control *c = NULL;
	char *buf;

	buf = malloc(len);
	ck_assert_ptr_nonnull(buf);
	memcpy(buf, full, len);
	dbp_err_clear(&err);
	ck_assert_int_eq(control_parse(buf, len, &c, &err), 0);
	ck_assert_str_eq(control_get(c, "Architecture"), "amd64");
	control_free(c);
	free(buf);
}
END_TEST

START_TEST(test_control_many_fields)
{
	struct dbp_error err;
	struct control *c;
	size_t cap = 600 * 40, n = 0;
	char *text, name[32];
	int i;

	text = malloc(cap);
	ck_assert_ptr_nonnull(text);
	n += (size_t)snprintf(text + n, cap - n, "%s", MINIMAL);
	for (i = 0; i < 500; i++)
		n += (size_t)snprintf(text + n, cap - n,
		    "X-Field-%d: value %d\n continued %d\n", i, i, i);
	ck_assert_uint_lt(n, cap);
	ck_assert_int_eq(control_parse(text, n, &c, &err), 0);
	ck_assert_uint_eq(c->nfields, 503);
	for (i = 0; i < 500; i += 37) {
		char want[64];

		snprintf(name, sizeof(name), "x-field-%d", i);
		snprintf(want, sizeof(want), "value %d\ncontinued %d", i, i);
		ck_assert_str_eq(control_get(c, name), want);
	}
	control_free(c);
	free(text);
}
END_TEST

START_TEST(test_control_long_value)
{
	struct dbp_error err;
	struct control *c;
	size_t vlen = 100000, n;
	char *text;

	text = malloc(vlen + 200);
	ck_assert_ptr_nonnull(text);
	n = (size_t)sprintf(text, MINIMAL "Description: ");
	memset(text + n, 'v', vlen);
	n += vlen;
	text[n++] = '\n';
	ck_assert_int_eq(control_parse(text, n, &c, &err), 0);
	ck_assert_uint_eq(strlen(control_get(c, "Description")), vlen);
	control_free(c);
	free(text);
}
END_TEST

static Suite *
control_suite(void)
{
	Suite *s = suite_create("control");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_test(tc, test_control_minimal);
	tcase_add_test(tc, test_control_get_case_insensitive);
	tcase_add_test(tc, test_control_continuation_lines);
	tcase_add_test(tc, test_control_value_trimmed);
	tcase_add_test(tc, test_control_crlf);
	tcase_add_test(tc, test_control_value_end);
	tcase_add_test(tc, test_control_trailing_blank_lines);
	tcase_add_test(tc, test_control_no_final_newline);
	tcase_add_test(tc, test_control_free_null);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_test(tc, test_control_missing_required);
	tcase_add_test(tc, test_control_empty_required);
	tcase_add_test(tc, test_control_version_syntax);
	tcase_add_test(tc, test_control_arch_syntax);
	tcase_add_test(tc, test_control_blank_continuation);
	tcase_add_test(tc, test_control_duplicate_field);
	tcase_add_test(tc, test_control_bad_lines);
	tcase_add_test(tc, test_control_nul_byte);
	tcase_add_test(tc, test_control_two_stanzas);
	tcase_add_test(tc, test_control_length_bounded);
	tcase_add_test(tc, test_control_many_fields);
	tcase_add_test(tc, test_control_long_value);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return checkutil_run(control_suite());
}
