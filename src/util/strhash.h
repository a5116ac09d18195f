/* SPDX-License-Identifier: MIT */
/* The hash of a name for the tables that look paths and lines up (FNV-1a). */
#ifndef DEBUNPACK_STRHASH_H
#define DEBUNPACK_STRHASH_H

#include <stddef.h>

/*
 * FNV-1a: every byte counts, where glibc's hsearch_r keeps little more
 * than a name's first eight bytes, which most paths share.  Callers mask
 * it to a table of a power of two.
 */
static inline size_t
strhash_n(const char *s, size_t len)
{
	size_t h = 2166136261u, i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* Of the string S. */
static inline size_t
strhash(const char *s)
{
	size_t h = 2166136261u;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

#endif
