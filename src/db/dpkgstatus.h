/* SPDX-License-Identifier: MIT */
/* dpkg's status file: its stanzas, and the file merged with the run's. */
#ifndef DEBUNPACK_DPKGSTATUS_H
#define DEBUNPACK_DPKGSTATUS_H

#include <stdbool.h>
#include <stddef.h>

/* One stanza of the status file as it was before the run. */
struct dpkgstatus_stanza {
	char *text;		/* the stanza, lines ending in '\n', verbatim */
	size_t len;
	char *name, *arch, *ma, *status, *version, *cversion;
	bool replaced;		/* a package of the run takes its place */
};

struct dpkgstatus {
	struct dpkgstatus_stanza *v;
	size_t n;
};

/*
 * Split status file TEXT (LEN bytes) into S's stanzas, kept verbatim.
 * 0, -ENOMEM, or -EINVAL for a stanza without a Package field.
 */
int dpkgstatus_parse(struct dpkgstatus *s, const char *text, size_t len);
void dpkgstatus_clear(struct dpkgstatus *s);

/* Whether Multi-Arch value MA (may be NULL) is "same". */
bool dpkgstatus_ma_same(const char *ma);

/*
 * The stanza package NAME (ARCH, Multi-Arch MA) replaces: one of that
 * name (of the same arch when both are Multi-Arch: same), of the same
 * arch if there is one; NULL when there is none.  dpkgstatus_take marks
 * it and the others it cannot stand beside replaced.
 */
struct dpkgstatus_stanza *dpkgstatus_peek(struct dpkgstatus *s,
    const char *name, const char *arch, const char *ma);
struct dpkgstatus_stanza *dpkgstatus_take(struct dpkgstatus *s,
    const char *name, const char *arch, const char *ma);

/* The state in a stanza's Status ("installed"), "not-installed" without. */
const char *dpkgstatus_state(const struct dpkgstatus_stanza *o);

/* Whether stanza O's package is installed: unpacked at least. */
bool dpkgstatus_installed(const struct dpkgstatus_stanza *o);

/*
 * NAME, or NAME:ARCH for a Multi-Arch: same package (MA), as dpkg names
 * its info files; the caller frees it.  NULL when out of memory.
 */
char *dpkgstatus_infoname(const char *name, const char *arch, const char *ma);

/*
 * The same name in BUF (N bytes, cut to fit), as dpkg-query shows it
 * (-l, -S, -W's ${binary:Package}); BUF is returned.
 */
const char *dpkgstatus_name(const char *name, const char *arch,
    const char *ma, char *buf, size_t n);

/* A stanza to add: its package's name and arch, its text. */
struct dpkgstatus_add {
	const char *name, *arch, *text;
};

/*
 * The new status file: S's stanzas not replaced and the NADD of ADD,
 * sorted by name and arch as dpkg writes them.  *OUT (*LEN bytes) is the
 * caller's.  0 or -ENOMEM.
 */
int dpkgstatus_merge(const struct dpkgstatus *s,
    const struct dpkgstatus_add *add, size_t nadd, char **out, size_t *len);

#endif
