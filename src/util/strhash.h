/* SPDX-License-Identifier: MIT */
/* The hash of a name for the tables that look paths and lines up. */
#ifndef DEBUNPACK_STRHASH_H
#define DEBUNPACK_STRHASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Eight bytes a step, each step a multiply, then a final mix so that the
 * low bits (callers mask the hash to a table of a power of two) depend
 * on every byte: where glibc's hsearch_r keeps little more than a name's
 * first eight bytes, which most paths share.  Every apt call hashes
 * each installed path once or twice; byte by byte (FNV-1a) that was a
 * few percent of a small package's call.  The values stay in memory:
 * no file holds them.
 */
static inline size_t
strhash_n(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15u ^ len, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		h = ((h << 27 | h >> 37) ^ w) * 0xff51afd7ed558ccdu;
	}
	if (i < len) {
		w = 0;
		memcpy(&w, s + i, len - i);
		h = ((h << 27 | h >> 37) ^ w) * 0xff51afd7ed558ccdu;
	}
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53u;
	h ^= h >> 33;
	return (size_t)h;
}

/* Of the string S. */
static inline size_t
strhash(const char *s)
{
	return strhash_n(s, strlen(s));
}

#endif
