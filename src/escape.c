/* Making archive-supplied names safe to print on a terminal. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "escape.h"

/*
 * The printable form of the byte at P into TMP; *C1 carries the second
 * byte of a UTF-8 C1 control over to the next call.  Returns its length.
 */
static size_t
escape_one(const unsigned char *p, char tmp[5], int *c1)
{
	if (*p == '\\')
		return (size_t)snprintf(tmp, 5, "\\\\");
	if (*p == '\n')
		return (size_t)snprintf(tmp, 5, "\\n");
	if (*p == '\t')
		return (size_t)snprintf(tmp, 5, "\\t");
	if (*p < 0x20 || *p == 0x7f || *c1 ||
	    (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)) {
		/* C1 controls are two bytes in UTF-8: escape both. */
		*c1 = !*c1 && *p == 0xc2;
		return (size_t)snprintf(tmp, 5, "\\x%02x", *p);
	}
	tmp[0] = (char)*p;
	tmp[1] = '\0';
	return 1;
}

char *
escape_name(const char *s, char *buf, size_t n)
{
	const unsigned char *p;
	size_t total = 0, o = 0, len;
	char tmp[5];
	int c1 = 0;

	if (n == 0)
		return buf;
	for (p = (const unsigned char *)s; *p != '\0'; p++)
		total += escape_one(p, tmp, &c1);
	c1 = 0;
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		len = escape_one(p, tmp, &c1);
		/* Cut only what does not fit, never inside an escape. */
		if (total >= n && o + len + 4 > n) {
			snprintf(buf + o, n - o, "...");
			return buf;
		}
		memcpy(buf + o, tmp, len);
		o += len;
	}
	buf[o] = '\0';
	return buf;
}

/* The stdio calls' results are checked: a memory stream's ferror() is not set. */
bool
escape_put_field(FILE *fp, const char *s)
{
	const unsigned char *p;
	int r = 0;

	for (p = (const unsigned char *)s; *p != '\0' && r >= 0; p++) {
		if (*p == '\\')
			r = fputs("\\\\", fp);
		else if (*p == '\t')
			r = fputs("\\t", fp);
		else if (*p == '\n')
			r = fputs("\\n", fp);
		else if (*p < 0x20 || *p == 0x7f)
			r = fprintf(fp, "\\x%02x", *p);
		else
			r = putc(*p, fp);
	}
	return r >= 0;
}

static int
escape_hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

const char *
escape_parse_field(char *s)
{
	unsigned char *in = (unsigned char *)s, *out = in;
	int hi, lo, b;

	for (; *in != '\0'; in++) {
		if (*in < 0x20 || *in == 0x7f)
			return "raw control byte";
		if (*in != '\\') {
			*out++ = *in;
			continue;
		}
		switch (*++in) {
		case '\\':
			*out++ = '\\';
			break;
		case 't':
			*out++ = '\t';
			break;
		case 'n':
			*out++ = '\n';
			break;
		case 'x':
			if ((hi = escape_hexval(in[1])) < 0 ||
			    (lo = escape_hexval(in[2])) < 0)
				return "bad escape";
			b = hi << 4 | lo;
			if (b == 0)
				return "NUL byte";
			if ((b >= 0x20 && b != 0x7f) || b == '\t' || b == '\n')
				return "bad escape";
			*out++ = (unsigned char)b;
			in += 2;
			break;
		default:	/* '\0' too: a backslash ending the field */
			return "bad escape";
		}
	}
	*out = '\0';
	return NULL;
}
