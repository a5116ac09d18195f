/* Making archive-supplied names safe to print on a terminal. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "escape.h"

char *
escape_name(const char *s, char *buf, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;
	char tmp[5];
	const char *rep;
	int c1_next = 0;

	if (n == 0)
		return buf;
	for (; *p != '\0'; p++) {
		size_t len;

		rep = NULL;
		if (*p == '\\')
			rep = "\\\\";
		else if (*p == '\n')
			rep = "\\n";
		else if (*p == '\t')
			rep = "\\t";
		else if (*p < 0x20 || *p == 0x7f || c1_next) {
			snprintf(tmp, sizeof(tmp), "\\x%02x", *p);
			rep = tmp;
			c1_next = 0;
		} else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			/* C1 controls are two bytes in UTF-8: escape both. */
			snprintf(tmp, sizeof(tmp), "\\x%02x", *p);
			rep = tmp;
			c1_next = 1;
		}
		len = rep != NULL ? strlen(rep) : 1;
		if (o + len + 4 > n) {
			/* Room for "..." and the terminator is kept above. */
			if (p[0] != '\0' && n >= 4) {
				memcpy(buf + (o < n - 4 ? o : n - 4), "...", 4);
				return buf;
			}
			break;
		}
		if (rep != NULL)
			memcpy(buf + o, rep, len);
		else
			buf[o] = (char)*p;
		o += len;
	}
	buf[o] = '\0';
	return buf;
}
