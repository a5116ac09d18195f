/* SPDX-License-Identifier: MIT */
/* dpkgarch: the architectures a root takes, as dpkg decides them. */
#ifndef DEBUNPACK_DPKGARCH_H
#define DEBUNPACK_DPKGARCH_H

#include <stdbool.h>
#include <stddef.h>

#include "durable/rootfs.h"
#include "util/error.h"

/*
 * dpkg's native architecture is built into it (lib/dpkg/arch.c): a root
 * takes the one of the dpkg installed in it, which is what runs there.
 * The root's var/lib/dpkg/arch adds the foreign ones (dpkg
 * --add-architecture).  A package installs when its Architecture is
 * "all", the native one or a foreign one.
 */
struct dpkgarch {
	char *native;
	char **foreign;
	size_t nforeign;
};

/*
 * The architecture the host's dpkg is built for ("amd64", "arm64",
 * "hurd-i386"...), as this build's compiler targets it, or NULL where
 * no Debian architecture matches.
 */
const char *dpkgarch_builtin(void);

/*
 * A's native architecture NATIVE (NULL: the Architecture of the dpkg
 * installed in the root RF's var/lib/dpkg/status, else
 * dpkgarch_builtin's) and the foreign ones the root's
 * var/lib/dpkg/arch lists (none when it is not there), read as dpkg reads the file: a line names one, the native
 * one, "all", "any" and what is no architecture name among them count
 * for nothing.  0, or -errno with ERR naming the file; A is then empty.
 * dpkgarch_clear frees it.
 */
int dpkgarch_load(struct dpkgarch *a, const struct rootfs *rf,
    const char *native, struct dbp_error *err);
void dpkgarch_clear(struct dpkgarch *a);

/*
 * Whether a package of architecture ARCH installs in A's root: 0, or
 * -EINVAL with dpkg's words for the refusal in MSG (N bytes; "package
 * architecture (i386) does not match system (amd64)").
 */
int dpkgarch_check(const struct dpkgarch *a, const char *arch, char *msg,
    size_t n);

/*
 * Whether package CTL may be unpacked where its name has instances: not
 * Multi-Arch: same, it must not meet several installed instances of its
 * name (of any arch) in STATUS, dpkg's, which dpkg refuses in the words
 * MSG then holds ("package lib:i386 (1) with field 'Multi-Arch: no' is
 * not co-installable with lib which has multiple installed instances").
 * Multi-Arch: same, it sits beside an instance of another architecture
 * where dpkg's database is kept (STATUS non-NULL: the record of the
 * second instance is NAME:ARCH's), and not without it: there debunpack
 * keeps one record a name, and INSTALLED (the control of the record of
 * its name, or NULL) of another architecture refuses it.  0, or -EEXIST
 * with the refusal in MSG (N bytes).
 */
struct control;
struct dpkgstatus;
int dpkgarch_coinstance(const struct control *installed,
    const struct dpkgstatus *status, const struct control *ctl, char *msg,
    size_t n);

/*
 * Whether NAME of ARCH, Multi-Arch MA, is a Multi-Arch: same instance of
 * CTL's package of another architecture than CTL's.
 */
bool dpkgarch_other(const char *name, const char *arch, const char *ma,
    const struct control *ctl);

/* dpkg's words before a refusal a force overrides (forcibleerr). */
#define DPKGARCH_FORCED	"overriding problem because --force enabled:"

#endif
