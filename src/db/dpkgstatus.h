/* SPDX-License-Identifier: MIT */
/* dpkg's status file: its fields (one table), its stanzas, the merged file. */
#ifndef DEBUNPACK_DPKGSTATUS_H
#define DEBUNPACK_DPKGSTATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "deb/control.h"
#include "db/dpkgfmt.h"
#include "db/record.h"
#include "util/error.h"

/* One stanza of the status file as it was before the run. */
struct dpkgstatus_stanza {
	char *text;		/* the stanza, lines ending in '\n', verbatim */
	size_t len;
	char *name, *arch, *ma, *status, *version, *cversion;
	const char *conffiles;	/* its Conffiles value in TEXT, or NULL */
	size_t conffiles_len;
	bool replaced;		/* a package of the run takes its place */
};

struct dpkgstatus {
	struct dpkgstatus_stanza *v;
	size_t n;
};

/*
 * The MD5 dpkg keeps for conffile PATH of a package whose new version
 * does not install it (another package has it, or it is flagged
 * remove-on-upgrade): the one it carried over from before the run, or
 * NULL for none (dpkg's "newconffile").
 */
typedef const unsigned char *dpkgstatus_carried_fn(void *ctx,
    const char *path);

/*
 * What a stanza is written from: package CTL as dpkg unpacks it, its
 * STATUS ("install ok unpacked"), CONFIG_VERSION (NULL: none), CONFFILES
 * (the text of control.tar's conffiles, or NULL) with their MD5s from
 * REC (may be NULL), or from CARRIED (with CTX; NULL: none) for those REC
 * does not have.
 */
struct dpkgstatus_src {
	const struct control *ctl;
	const char *status;
	const char *config_version;
	const char *conffiles;
	struct record *rec;
	dpkgstatus_carried_fn *carried;
	void *ctx;
};

/* A field is a list of dependencies: dpkg parses it and writes it so. */
#define DPKGSTATUS_DEPENDS	0x1

/*
 * dpkg's status fields, one table in dpkg's order (its parsedump.h
 * fieldinfos[]): READ keeps the value of a stanza read from the status
 * file in the stanza (NULL: only its text keeps it; a string reader
 * fills the string at offset OFF); WRITE writes the field of a stanza
 * made from SRC, or nothing when SRC has no value for it (NULL: dpkg
 * knows the field, but the status of an unpacked package never has it).
 * A field the table does not have is the package's own: written after
 * these, as it came.
 */
struct dpkgstatus_field {
	const char *name;
	int (*read)(struct dpkgstatus_stanza *o,
	    const struct dpkgstatus_field *f, const struct dpkgfmt_field *v);
	void (*write)(FILE *fp, const struct dpkgstatus_field *f,
	    const struct dpkgstatus_src *src);
	size_t off;
	unsigned flags;		/* DPKGSTATUS_DEPENDS */
};

extern const struct dpkgstatus_field dpkgstatus_fields[];
extern const size_t dpkgstatus_nfields;

/* The table's field NAME (compared as dpkg does, without case), or NULL. */
const struct dpkgstatus_field *dpkgstatus_field(const char *name);

/*
 * The stanza of SRC as dpkg writes it: the table's fields in its order
 * (Essential and Protected only when "yes", dependency fields and the
 * version in dpkg's canonical form, a Conffiles block with the
 * conffiles of SRC->CONFFILES, then those REC keeps as obsolete), then
 * the package's own fields in its order.  Ends with an empty line.  0
 * or -errno (a write error of FP).
 */
int dpkgstatus_write(FILE *fp, const struct dpkgstatus_src *src);

/* Field NAME of the table alone, written from SRC as dpkgstatus_write does. */
void dpkgstatus_write_field(FILE *fp, const char *name,
    const struct dpkgstatus_src *src);

/*
 * Whether dpkg can keep package CTL in its status and read it back:
 * dependency fields that parse, Essential and Protected yes or no, a
 * known Multi-Arch.  0, or -EINVAL with ERR filled.
 */
int dpkgstatus_check(const struct control *ctl, struct dbp_error *err);

/*
 * Split status file TEXT (LEN bytes) into S's stanzas, kept verbatim,
 * each read through the table.  0, -ENOMEM, or -EINVAL for a stanza
 * without a Package field.
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
 * The package's name in BUF (N bytes, cut to fit), as dpkg-query shows
 * it (-l, -S, -W's ${binary:Package}): NAME:ARCH for Multi-Arch: same,
 * and for an architecture neither "all" nor the host dpkg's
 * (dpkgarch_builtin); BUF is returned.
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
