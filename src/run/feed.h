/* SPDX-License-Identifier: MIT */
/* Decompressing the packages of a run ahead of their extraction, in threads. */
#ifndef DEBUNPACK_FEED_H
#define DEBUNPACK_FEED_H

#include <stddef.h>
#include <sys/types.h>

struct feed;

/*
 * Start JOBS threads that decompress the data members of FILES[0..N-1],
 * in that order, each into a queue of its own, at most BUDGET bytes
 * queued in all (the package being read may always queue up to a quarter
 * of it, so that its reader never waits for later ones).  The reader
 * takes the packages in order: feed_read for package I, then feed_done.
 * Errors (-errno) only for what stops the threads from starting.
 */
int feed_new(struct feed **out, char *const *files, size_t n, unsigned jobs,
    size_t budget);

/*
 * Next decompressed block of package I (a deb_feed_fn): its length, 0 at
 * the end, -1 with *WHY the decompressor's message.  *BUF stays valid
 * until the next call.  Waits for the block if it is not there yet.
 */
ssize_t feed_read(void *pkg, const void **buf, const char **why);

/*
 * The context feed_read takes for package I, which the reader opened as
 * FD: the thread opened the same path on its own, and feed_read fails if
 * that was not the same file (replaced in between).
 */
void *feed_pkg(struct feed *f, size_t i, int fd);

/*
 * The index of FILE (the same pointer, or the same name) among the
 * packages not yet done, or FEED_NOT_FED: a package read once already
 * (a batch tried again) is decoded by its reader.
 */
#define FEED_NOT_FED	((size_t)-1)
size_t feed_find(struct feed *f, const char *file);

/* Package I is read, or abandoned: its queue goes, the next one starts. */
void feed_done(struct feed *f, size_t i);

/* How many packages the decoding process gave decoded (ahead.h). */
unsigned long feed_ahead_count(struct feed *f);

/* Stop the threads (abandoning what they do) and free everything. */
void feed_free(struct feed *f);

#endif
