/* SPDX-License-Identifier: MIT */
/* Reading the .deb container: debian-binary, control.tar.*, data.tar.*. */
#ifndef DEBUNPACK_DEB_H
#define DEBUNPACK_DEB_H

#include <stdbool.h>
#include <sys/types.h>

#include "deb/control.h"
#include "util/error.h"

struct archive;
struct deb;

/*
 * Open FILENAME and check that it starts with a "debian-binary" member of
 * format 2.x.  Errors name the problem; ERR->pkg is left to the caller.
 */
int deb_open(struct deb **out, const char *filename, struct dbp_error *err);

/*
 * Read the control member and parse its "control" file.  Must be called
 * once, right after deb_open.  *CTL is owned by the caller.
 */
int deb_read_control(struct deb *d, struct control **ctl,
    struct dbp_error *err);

/*
 * A file of control.tar other than "control" (maintainer scripts,
 * md5sums, conffiles, triggers, ...): dpkg keeps them in its database.
 */
struct deb_info {
	char *name;		/* "postinst" */
	mode_t mode;		/* permission bits */
	time_t mtime;		/* as control.tar has it, as dpkg keeps it */
	char *data;
	size_t len;
};

/*
 * Have deb_read_control keep the info files (deb_take_info), at most
 * DEB_INFO_MAX bytes of them in all.
 */
void deb_keep_info(struct deb *d);
#define DEB_INFO_MAX	(16 * 1024 * 1024)

/*
 * The info files kept by deb_read_control: *INFO (N of them, NULL when
 * none) becomes the caller's (deb_info_free).
 */
void deb_take_info(struct deb *d, struct deb_info **info, size_t *n);
void deb_info_free(struct deb_info *info, size_t n);

/* Whether deb_read_control kept an info file NAME. */
bool deb_has_info(const struct deb *d, const char *name);

/*
 * The text of control.tar's "conffiles" (one absolute path per line), read
 * by deb_read_control, or NULL when the package has none.  Owned by D.
 */
const char *deb_conffiles(const struct deb *d);

/*
 * Move to the data member and return a libarchive reader of its tar
 * stream, decompressed as it is read (nothing is held in memory beyond
 * libarchive's buffers).  The reader stays owned by D.
 */
int deb_data_open(struct deb *d, struct archive **tar, struct dbp_error *err);

/*
 * Where the decompressed bytes of the data member come from when another
 * thread decompresses them: the next block's length (*BUF, valid until
 * the next call), 0 at the end, or -1 with *WHY saying what the
 * decompressor said.
 */
typedef ssize_t deb_feed_fn(void *ctx, const void **buf, const char **why);

/*
 * deb_data_open, but the member's bytes, decompressed, come from FN: the
 * member's name is checked here, the decompression is done elsewhere
 * (deb_data_raw and deb_data_read on another reader of the same file).
 */
int deb_data_open_fed(struct deb *d, struct archive **tar, deb_feed_fn *fn,
    void *ctx, struct dbp_error *err);

/*
 * For the decompressing side: move to the data member (the control
 * member unread, unless deb_read_control was called) and decompress it
 * without parsing, block by block, with deb_data_read.
 */
int deb_data_raw(struct deb *d, struct dbp_error *err);

/*
 * For the decompressing side: move to the data member (as deb_data_raw)
 * and, when it is an xz stream whose bytes are where the container says
 * (data.tar.xz, its magic checked there), give their offset in the file
 * and their length; -1 in both otherwise.  deb_data_raw may follow.
 */
int deb_data_xz(struct deb *d, off_t *off, off_t *size, struct dbp_error *err);

/*
 * Next decompressed block of the data member: its length (*BUF owned by
 * D, valid until the next call), 0 at the end, -1 with *WHY set.
 */
ssize_t deb_data_read(struct deb *d, const void **buf, const char **why);

/*
 * After the tar reader of the data member failed on the data it was given
 * (a damaged header, say): whether the decompressor fails too, further
 * on, which is then the cause (corrupt compressed data decodes to garbage
 * before its check fails).  Fills ERR and returns its -errno if so; 0
 * when the tar error stands.
 */
int deb_data_check(struct deb *d, struct dbp_error *err);

/*
 * After the data tar reached its end: decompress the member to its end
 * (its compressed stream must end well, as with dpkg) and check that only
 * ignorable members ('_' prefix, dpkg's rule) follow.
 */
int deb_finish(struct deb *d, struct dbp_error *err);

/* The package file's descriptor, owned by D (to tell which file it is). */
int deb_fd(const struct deb *d);

/* Name of the data member ("data.tar.xz"), for messages and statistics. */
const char *deb_data_member(const struct deb *d);

void deb_close(struct deb *d);

#endif
