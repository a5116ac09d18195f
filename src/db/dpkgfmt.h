/* SPDX-License-Identifier: MIT */
/* dpkg's database formats: the status stanza of a package, its .list file. */
#ifndef DEBUNPACK_DPKGFMT_H
#define DEBUNPACK_DPKGFMT_H

#include <stdio.h>

#include "deb/control.h"
#include "util/error.h"
#include "db/record.h"

/*
 * The MD5 dpkg keeps for conffile PATH of a package whose new version
 * does not install it (another package has it, or it is flagged
 * remove-on-upgrade): the one it carried over from before the run, or
 * NULL for none (dpkg's "newconffile").
 */
typedef const unsigned char *dpkgfmt_carried_fn(void *ctx, const char *path);

/*
 * The status stanza of package CTL as dpkg writes it: its fields in
 * dpkg's order (unknown ones last, in the package's order), Essential and
 * Protected only when "yes", dependency fields and the version in dpkg's
 * canonical form, STATUS ("install ok unpacked"), CONFIG_VERSION (NULL:
 * none) and a Conffiles block with the conffiles of CONFFILES (the text
 * of control.tar's conffiles) and their MD5s from REC, or from CARRIED
 * (with CTX; NULL: none) for those REC does not have.  Ends with an
 * empty line.  0 or -errno (a write error of FP).
 */
int dpkgfmt_stanza(FILE *fp, const struct control *ctl,
    const char *status, const char *config_version, const char *conffiles,
    struct record *rec, dpkgfmt_carried_fn *carried, void *ctx);

/*
 * Dependency field VALUE in dpkg's form: "a (>= 1), b | c:any".  *OUT is
 * the caller's (free).  -EINVAL when VALUE does not parse (then dpkg's
 * form is the value itself, trimmed), -ENOMEM.
 */
int dpkgfmt_depends(const char *value, char **out);

/*
 * The MD5 of entry E of REC (E may be NULL; a hardlink's is its
 * target's), or NULL when the run did not compute one.
 */
const unsigned char *dpkgfmt_entry_md5(struct record *rec,
    const struct record_entry *e);

/* VERSION as dpkg writes it: without a "0:" epoch. */
const char *dpkgfmt_version(const char *version);

/*
 * Whether dpkg can keep package CTL in its database: dependency fields
 * that parse, Essential and Protected yes or no, a known Multi-Arch.
 * 0, or -EINVAL with ERR filled.
 */
int dpkgfmt_check(const struct control *ctl, struct dbp_error *err);

/*
 * The .list text of REC: "/." (unless !ROOT: a removed package whose
 * root directory another package has), then its paths in REC's order,
 * symlinks last, as dpkg lists them.
 */
int dpkgfmt_list(FILE *fp, const struct record *rec, bool root);

/*
 * The same paths, one call of FN each in that order: "/." (E NULL),
 * then each path with its entry E.  Stops at FN's first non-zero
 * return, which it returns; 0 after the last.
 */
typedef int dpkgfmt_path_fn(const char *path, const struct record_entry *e,
    void *ctx);
int dpkgfmt_list_walk(const struct record *rec, bool root,
    dpkgfmt_path_fn *fn, void *ctx);

#endif
