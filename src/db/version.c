/* SPDX-License-Identifier: MIT */
/* Debian package versions, ordered as dpkg orders them (deb-version(5)). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "db/version.h"

static int
version_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

static int
version_isalpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * The weight of a character of a non-digit run: the end of the run is 0,
 * "~" sorts below it, letters above it, and every other character above
 * the letters.
 */
static int
version_weight(char c)
{
	if (c == '\0' || version_isdigit(c))
		return 0;
	if (c == '~')
		return -1;
	if (version_isalpha(c))
		return (unsigned char)c;
	return (unsigned char)c + 256;
}

/*
 * One part (upstream or revision), [A, AEND) against [B, BEND):
 * alternating runs of non-digits, compared by weight, and of digits,
 * compared as numbers of any length.
 */
static int
version_part(const char *a, const char *aend, const char *b, const char *bend)
{
	while (a < aend || b < bend) {
		int first = 0;

		while ((a < aend && !version_isdigit(*a)) ||
		    (b < bend && !version_isdigit(*b))) {
			int wa = version_weight(a < aend ? *a : '\0');
			int wb = version_weight(b < bend ? *b : '\0');

			if (wa != wb)
				return wa - wb;
			a += a < aend;
			b += b < bend;
		}
		while (a < aend && *a == '0')
			a++;
		while (b < bend && *b == '0')
			b++;
		while (a < aend && version_isdigit(*a) && b < bend &&
		    version_isdigit(*b)) {
			if (first == 0)
				first = *a - *b;
			a++;
			b++;
		}
		/*
		 * The longer number is the larger; at equal length, the
		 * first digit that differs decides.
		 */
		if (a < aend && version_isdigit(*a))
			return 1;
		if (b < bend && version_isdigit(*b))
			return -1;
		if (first != 0)
			return first;
	}
	return 0;
}

struct version_parts {
	unsigned long epoch;
	const char *up, *upend;		/* upstream */
	const char *rev, *revend;	/* revision, empty when there is none */
};

static void
version_split(const char *v, struct version_parts *p)
{
	const char *colon = strchr(v, ':'), *dash;
	char *end;

	p->epoch = 0;
	if (colon != NULL) {
		p->epoch = strtoul(v, &end, 10);
		if (end != colon)
			p->epoch = 0;
		v = colon + 1;
	}
	p->up = v;
	dash = strrchr(v, '-');
	if (dash != NULL) {
		p->upend = dash;
		p->rev = dash + 1;
	} else {
		p->upend = v + strlen(v);
		p->rev = p->upend;
	}
	p->revend = p->rev + strlen(p->rev);
}

int
version_cmp(const char *a, const char *b)
{
	struct version_parts pa, pb;
	int r;

	if (a == NULL || b == NULL)
		return a == NULL ? (b == NULL ? 0 : -1) : 1;
	version_split(a, &pa);
	version_split(b, &pb);
	if (pa.epoch != pb.epoch)
		return pa.epoch < pb.epoch ? -1 : 1;
	if ((r = version_part(pa.up, pa.upend, pb.up, pb.upend)) != 0)
		return r;
	return version_part(pa.rev, pa.revend, pb.rev, pb.revend);
}

bool
version_satisfies(const char *v, const char *op, const char *ref)
{
	int c = version_cmp(v, ref);

	if (strcmp(op, "<<") == 0)
		return c < 0;
	if (strcmp(op, "<=") == 0 || strcmp(op, "<") == 0)
		return c <= 0;
	if (strcmp(op, "=") == 0)
		return c == 0;
	if (strcmp(op, ">=") == 0 || strcmp(op, ">") == 0)
		return c >= 0;
	if (strcmp(op, ">>") == 0)
		return c > 0;
	return false;
}
