/* SPDX-License-Identifier: MIT */
/* Making archive-supplied names safe to print on a terminal. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "util/escape.h"

/*
 * Length of the well-formed UTF-8 sequence at P (2 to 4 bytes, no
 * overlong forms, surrogates or code points past U+10FFFF), or 0.
 */
static size_t
escape_utf8_len(const unsigned char *p)
{
	size_t len, i;
	unsigned char lo = 0x80, hi = 0xbf;

	if (*p >= 0xc2 && *p <= 0xdf)
		len = 2;
	else if (*p >= 0xe0 && *p <= 0xef) {
		len = 3;
		if (*p == 0xe0)
			lo = 0xa0;
		else if (*p == 0xed)
			hi = 0x9f;
	} else if (*p >= 0xf0 && *p <= 0xf4) {
		len = 4;
		if (*p == 0xf0)
			lo = 0x90;
		else if (*p == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

/*
 * The printable form of what starts at P into TMP; *USED gets the bytes
 * of P it covers.  Returns the length of TMP.  Controls (C0, DEL, and C1
 * in UTF-8) and bytes that are not well-formed UTF-8 are escaped: a lone
 * 0x9b is CSI to a terminal in 8-bit mode.
 */
static size_t
escape_one(const unsigned char *p, char tmp[16], size_t *used)
{
	size_t len;

	*used = 1;
	if (*p == '\\')
		return (size_t)snprintf(tmp, 16, "\\\\");
	if (*p == '\n')
		return (size_t)snprintf(tmp, 16, "\\n");
	if (*p == '\t')
		return (size_t)snprintf(tmp, 16, "\\t");
	if (*p >= 0x20 && *p < 0x7f) {
		tmp[0] = (char)*p;
		tmp[1] = '\0';
		return 1;
	}
	if ((len = escape_utf8_len(p)) == 0 || (*p == 0xc2 && p[1] <= 0x9f))
		return (size_t)snprintf(tmp, 16, "\\x%02x", *p);
	*used = len;
	memcpy(tmp, p, len);
	tmp[len] = '\0';
	return len;
}

char *
escape_name(const char *s, char *buf, size_t n)
{
	const unsigned char *p;
	size_t total = 0, o = 0, len, used;
	char tmp[16];

	if (n == 0)
		return buf;
	for (p = (const unsigned char *)s; *p != '\0'; p += used)
		total += escape_one(p, tmp, &used);
	for (p = (const unsigned char *)s; *p != '\0'; p += used) {
		len = escape_one(p, tmp, &used);
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
	unsigned char *in = (unsigned char *)s, *out;
	int hi, lo, b;

	/*
	 * Up to the first byte that needs a look, the field is its own
	 * value: most paths have none (every installed path is read so at
	 * every run).
	 */
	while (*in >= 0x20 && *in != 0x7f && *in != '\\')
		in++;
	for (out = in; *in != '\0'; in++) {
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

bool
escape_put_json(FILE *fp, const char *s)
{
	const unsigned char *p;
	size_t len;
	int r;

	r = putc('"', fp);
	for (p = (const unsigned char *)s; *p != '\0' && r >= 0; p += len) {
		len = 1;
		if (*p == '"' || *p == '\\')
			r = fprintf(fp, "\\%c", *p);
		else if (*p == '\n')
			r = fputs("\\n", fp);
		else if (*p == '\t')
			r = fputs("\\t", fp);
		else if (*p < 0x20 || *p == 0x7f)
			r = fprintf(fp, "\\u%04x", *p);
		else if (*p < 0x80)
			r = putc(*p, fp);
		else if ((len = escape_utf8_len(p)) != 0)
			r = fwrite(p, 1, len, fp) == len ? 0 : -1;
		else {
			/* Not UTF-8, which JSON must be: the byte as U+00NN. */
			len = 1;
			r = fprintf(fp, "\\u%04x", *p);
		}
	}
	if (r >= 0)
		r = putc('"', fp);
	return r >= 0;
}
