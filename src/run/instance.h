/* SPDX-License-Identifier: MIT */
/* Which instance of its name a package is: its record's key, and whether it may sit beside the others. */
#ifndef DEBUNPACK_INSTANCE_H
#define DEBUNPACK_INSTANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "deb/control.h"
#include "db/dpkgstatus.h"
#include "manifest.h"
#include "util/error.h"

/*
 * The key of package CTL's record (record_key) into KEY (N bytes): its
 * name, or NAME:ARCH where, Multi-Arch: same with dpkg's database kept
 * (DPKG_DB), it is an instance beside the one its name stands for
 * (installed, MAN's), or is installed under that key already.  An
 * instance beside another of the same run is refused: the two would
 * write their shared paths in one batch (--maintscripts puts them in
 * batches of their own).  0, or -errno with ERR set.
 */
int instance_key(struct manifest *man, bool dpkg_db,
    const struct control *ctl, char *key, size_t n, struct dbp_error *err);

/*
 * Whether CTL may be unpacked beside the instances of its name: the
 * installed record of its name in MAN, dpkg's STATUS (NULL: no dpkg
 * database), as dpkgarch_coinstance judges them.  0, or the refusal in
 * ERR.
 */
int instance_check(struct manifest *man, const struct dpkgstatus *status,
    const struct control *ctl, struct dbp_error *err);

#endif
