/* SPDX-License-Identifier: MIT */
/* The store's state and manifest model, which store.c, storeman.c and storeprune.c share. */
#ifndef DEBUNPACK_STORE_INT_H
#define DEBUNPACK_STORE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "store/store.h"

struct store {
	int dfd;		/* DIR */
	int lockfd;		/* DIR/lock, flocked shared */
	bool clone;		/* FICLONE still worth trying */
	/*
	 * The store filled by clones of the root's files (until one is
	 * copied: then by a copy of each content as it is decoded, one
	 * copy from memory instead of one from the root's file).
	 */
	bool fill_clones;
	bool wrote;		/* a content written from data, not cloned */
	bool cfr;		/* copy_file_range still worth trying */
	bool sendfile;		/* sendfile still worth trying */
	bool verify;
	bool fill;		/* filled by this run (not under debunpack-nosync) */
	uint64_t max_size;
	store_note_fn *note;
	void *ctx;
	struct digest *sha, *md5;
	char **pending;		/* manifests written in DIR/tmp, to link */
	uint8_t (*pending_key)[DIGEST_LEN];
	size_t npending;
};

/* One data.tar entry as a manifest line has it. */
struct store_ent {
	char type;		/* f d l h c b p */
	unsigned perm;
	int64_t uid, gid;
	char *uname, *gname;	/* or NULL */
	int64_t mtime;
	long nsec;
	int64_t size;
	bool has_sha, has_md5;
	uint8_t sha[DIGEST_LEN];
	uint8_t md5[DIGEST_MD5_LEN];
	unsigned major, minor;
	char *path;
	char *link;		/* symlink or hardlink target, or NULL */
};

struct store_ents {
	struct store_ent *v;
	size_t n, cap;
};

#define STORE_MAGIC	"debunpack-store 1"

void store_note(struct store *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void store_ents_free(struct store_ents *es);
/* Append a zeroed entry; NULL without memory. */
struct store_ent *store_ents_add(struct store_ents *es);

/* "objects/XX/HEX" of a content into BUF (at least 76 bytes). */
void store_object_name(const uint8_t sha[DIGEST_LEN], char *buf);
/* Lowercase hex of a digest into BUF (2 * LEN + 1 bytes). */
void store_hex(const uint8_t *d, size_t len, char *buf);
/* The mtime every stored content of digest SHA has (its stamp). */
time_t store_stamp(const uint8_t sha[DIGEST_LEN]);
/* Whether the object named NAME at DFD is there as stored: 0 or -errno. */
int store_object_ok(int dfd, const char *name, const struct store_ent *e);

/*
 * SRC's SIZE bytes into the empty DST (at its offset 0): cloned, else
 * copied in the kernel, else read and written; *HOW says which.  0, or
 * -errno (-EIO: SRC is shorter than SIZE).
 */
int store_copy_fd(struct store *s, int dst, int src, uint64_t size,
    enum store_how *how);
/* store_info on the open DIR, its lock held (exclusive to PRUNE). */
int store_info_at(int dfd, bool prune, uint64_t max_size,
    struct store_info *info, struct dbp_error *err);

/* The manifest text of ES into a new temporary of DIR/tmp: *NAME. */
int store_manifest_write(struct store *s, const struct store_ents *es,
    char **name);
/* Manifest FD parsed into ES: 0, or -EINVAL (with WHY) for a bad one. */
int store_manifest_read(int fd, struct store_ents *es, const char **why);

#endif
