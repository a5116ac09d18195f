/* Records of the paths a run installs: which package, which entry, which type. */
#ifndef DEBUNPACK_MANIFEST_H
#define DEBUNPACK_MANIFEST_H

#include <stddef.h>

/*
 * A non-directory path installed by this run.  Paths are keyed by the
 * directory they land in (an index of the run's directory table, so
 * "bin/ls" and "usr/bin/ls" on a merged-/usr root are the same path) and
 * their last component.
 */
struct manifest_entry {
	size_t dir;
	char *name;
	size_t item;		/* syncbatch item holding its temporary */
	unsigned pkg;		/* index of the package on the command line */
	unsigned type;		/* AE_IFREG, AE_IFLNK, ... (archive_entry.h) */
};

struct manifest;

int manifest_new(struct manifest **out);
void manifest_free(struct manifest *m);

/* The entry for NAME in directory DIR, or NULL. */
struct manifest_entry *manifest_find(struct manifest *m, size_t dir,
    const char *name);

/*
 * Record NAME in DIR; when already recorded (a later package replaces an
 * earlier one's path) the entry is updated in place.  -ENOMEM on failure.
 */
int manifest_put(struct manifest *m, size_t dir, const char *name,
    size_t item, unsigned pkg, unsigned type);

/* Number of paths recorded. */
size_t manifest_count(const struct manifest *m);

#endif
