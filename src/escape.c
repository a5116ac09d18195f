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
