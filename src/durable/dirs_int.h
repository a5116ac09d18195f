/* SPDX-License-Identifier: MIT */
/*
 * Inside the directory table: what dirs.c (lookup, creation, the fd
 * cache) and dirsend.c (final metadata, syncs, undo) share.  Not for
 * other modules.
 */
#ifndef DEBUNPACK_DIRS_INT_H
#define DEBUNPACK_DIRS_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "durable/dirs.h"

#define DIR_NONE	SIZE_MAX

struct dir {
	char *path;		/* root-relative path it was first reached by */
	dev_t dev;
	ino_t ino;
	uid_t uid;		/* owner and mode as last found or set */
	gid_t gid;
	mode_t mode;
	size_t parent;		/* for created directories: where to rmdir */
	const char *base;	/* last component, inside path */
	unsigned flags;
	int fd;			/* -1 when not open */
	unsigned long used;	/* LRU stamp of the fd */
	struct dir_meta meta;
	bool meta_set;		/* owner and mode are META's already */
	bool has_mtime;
	struct timespec times[2];	/* atime, mtime before the run */
};

/* Keys of the two lookup trees: by path (aliases too) and by inode. */
struct dir_key {
	const char *path;
	dev_t dev;
	ino_t ino;
	size_t idx;
};

struct dirs {
	const struct rootfs *rf;
	struct dir *v;
	size_t n, cap;
	void *bypath, *byino;
	struct dir_key **keys;	/* every key, to free them */
	size_t nkeys;
	char **aliases;		/* second paths to known directories */
	size_t naliases;
	size_t *created;	/* indexes in creation order */
	size_t ncreated;
	size_t maxfds, nopen;
	unsigned long clock;
	int (*guard)(void *, size_t, const char *);
	void *guard_ctx;
	int (*log)(void *, enum dirs_log, const char *,
	    const struct timespec *, int);
	void *log_ctx;
	int (*displace)(void *, const char *, struct dbp_error *);
	void *displace_ctx;
	const char *top;	/* what to call the top directory in errors */
	bool log_failed;	/* the last error came from the journal */
	bool plan;		/* a dry run: nothing changes on disk */
	char **plinks;		/* its planned links (aliases' strings) */
	size_t nplinks;
	char *admin[2];		/* dirs_set_admin's prefixes */
};

/* PATH as errors name it: the top directory has the empty path. */
const char *dirs_show(const struct dirs *d, const char *path);

/* The table's two orders (struct dir_key): by path, by inode. */
int dirs_cmp_path(const void *a, const void *b);
int dirs_cmp_ino(const void *a, const void *b);
/* Key PATH of directory IDX added to TREE (one of the two orders). */
int dirs_key_add(struct dirs *d, void **tree, size_t idx, const char *path,
    int (*cmp)(const void *, const void *));
/* PATH, which the table takes, a second path to directory IDX. */
int dirs_alias(struct dirs *d, char *path, size_t idx);
/* IDX in the list of directories the run made, in order. */
int dirs_note_created(struct dirs *d, size_t idx);
/* REL from the table, or opened if it exists: 0 with *IDX, or -errno. */
int dirs_find(struct dirs *d, const char *rel, size_t *idx);

/*
 * dirsplan.c: a dry run's directory REL (BASE in directory PIDX), in the
 * table with no descriptor.
 */
int dirs_plan_make(struct dirs *d, size_t pidx, const char *rel,
    const char *base, mode_t mode, size_t *idx, struct dbp_error *err);

/* Put back (UNDO) or drop what was moved aside for directory V. */
int dirs_aside_end(struct dirs *d, struct dir *v, bool undo);

#endif
