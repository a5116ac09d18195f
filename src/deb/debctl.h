/* SPDX-License-Identifier: MIT */
/* A package file's control file, read without libarchive: for programs that start in every dpkg call apt makes. */
#ifndef DEBUNPACK_DEBCTL_H
#define DEBUNPACK_DEBCTL_H

#include <stddef.h>

/*
 * libarchive links libxml2 and with it ICU: about 10 ms of loading and
 * relocation at every start, which the dpkg for apt pays in each of
 * apt's dpkg calls (more than 160 in an upgrade of a buildd root) when
 * all it reads is one small file.  This reader knows the forms dpkg-deb
 * writes: an ar container whose control member is control.tar,
 * control.tar.gz or control.tar.xz, a tar with ustar, GNU long-name and
 * pax path headers.  Anything else (another compression, a member out of
 * order, a header it does not read, "control" given twice or not as a
 * plain file) is not an error here: it says so, and the caller reads the
 * file the full way.
 */

/* At most this much control.tar, compressed or not. */
#define DEBCTL_MAX	(64 * 1024 * 1024)

/*
 * The control file of the package FILE, NUL-terminated, in *TEXT (LEN
 * bytes; the caller frees it): 0.  1 when this reader does not know the
 * file's form, -errno when FILE cannot be opened or read.
 */
int debctl_read(const char *file, char **text, size_t *len);

#endif
