/* SPDX-License-Identifier: MIT */
/* The store of unpacked files (--cache): packages' entries and their contents, cloned instead of decoded. */
#ifndef DEBUNPACK_STORE_H
#define DEBUNPACK_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/digest.h"
#include "util/error.h"

struct archive;
struct archive_entry;
struct store;
struct store_pkg;
struct store_fill;
struct stream_tee;

/*
 * Layout of a store directory DIR:
 *   DIR/objects/XX/HASH  each content once, named by its SHA-256 (XX: its
 *                        first two hex digits), read-only, its mtime a
 *                        stamp made from HASH (store_stamp)
 *   DIR/entries/KEY      a package's manifest, KEY the SHA-256 of its
 *                        .deb: every data.tar entry's metadata in archive
 *                        order, regular files with their content's hash;
 *                        its mtime says when it was last used (LRU)
 *   DIR/tmp/             manifests being written (unique names)
 *   DIR/lock             flock: shared while a run uses the store,
 *                        exclusive while entries are evicted
 *   DIR/hits             one byte a package looked up: 'h' hit, 'm' miss
 */

/* How a package was installed, for --stats. */
enum store_how { STORE_DECODED, STORE_CLONED, STORE_COPIED, STORE_NHOW };

/* A note for the user about the store (never an error of the run). */
typedef void store_note_fn(void *ctx, const char *msg);

/*
 * Open (making it when missing) the store DIR.  On the root's
 * filesystem its contents are cloned where it has reflinks, else
 * copied, as they are from any other filesystem.  A store that cannot be made or locked is not an
 * error of the run: *OUT is NULL and NOTE says why.  MAX_SIZE: evict
 * least recently used entries at store_commit past that many bytes (0:
 * no limit).  VERIFY: store_lookup hashes each content of an entry
 * before it calls it complete.
 */
void store_open(struct store **out, const char *dir, uint64_t max_size,
    bool verify, store_note_fn *note, void *ctx);

/*
 * The manifests of packages filled in this run made durable and
 * visible: one syncfs of the store's filesystem covers every content
 * they name before their names exist.  SYNCED: one came already, after
 * every content was written (the run's data barrier, on the store's
 * filesystem).  Then eviction past the size limit.  Failures are notes.
 */
void store_commit(struct store *s, bool synced);

/*
 * Whether what the run stored is settled (durable/fskind.h): every
 * content a clone of a root's file, which the clone waited to be
 * written (btrfs does), and each manifest's writeback waited for here.
 * All of it is then in the filesystem's running transaction or an
 * earlier one, and a commit that carries the manifests' names, after
 * store_commit, carries it too (syncbatch_cover_settled).  0; -1 when
 * a content was written from data (copied, or as it was decoded) or a
 * manifest cannot be settled: the store syncs itself then.
 */
int store_settle(struct store *s);

/* The store's directory: what tells its filesystem. */
int store_dirfd(const struct store *s);

/* Whether the run filled entries, which store_commit names. */
bool store_filled(const struct store *s);

/* Release the lock and everything; S may be NULL. */
void store_close(struct store *s);

/*
 * Look package file FD up: its key computed (SHA-256 of the whole file,
 * into KEY).  A complete, intact entry whose contents the root can take
 * (same filesystem) is *OUT (the caller's: store_pkg_free); otherwise
 * *OUT is NULL (a damaged entry is told as a note).
 */
void store_lookup(struct store *s, int fd, uint8_t key[DIGEST_LEN],
    struct store_pkg **out);

/*
 * store_lookup, safe to run for several packages at once on one store:
 * hashing with SHA (the caller's), and a damaged entry's note left in
 * NOTE (empty when there is none) for store_tell to tell, in the order
 * the caller chooses.
 */
#define STORE_NOTE_MAX	256
void store_lookup_quiet(struct store *s, int fd, uint8_t key[DIGEST_LEN],
    struct store_pkg **out, struct digest *sha, char note[STORE_NOTE_MAX]);
void store_tell(struct store *s, const char *note);
void store_pkg_free(struct store_pkg *p);

/* The bytes of P's regular files: what its install did not decode. */
uint64_t store_pkg_bytes(const struct store_pkg *p);

/* Entries of P, in archive order: *AE (P's, valid until the next call). */
size_t store_pkg_count(const struct store_pkg *p);
struct archive_entry *store_pkg_entry(struct store_pkg *p, size_t i);
/* Entry I's path as the archive has it, and whether it is a directory. */
const char *store_pkg_path(const struct store_pkg *p, size_t i, bool *dir);

/*
 * Write entry I's content (a regular file of P) into the empty file FD:
 * cloned, or copied in the kernel.  SHA gets the content's SHA-256 (as
 * the manifest says; with VERIFY, store_lookup hashed it), MD5 its
 * MD5 when not NULL (from the manifest, or computed from the content).
 * Adds to *HOW what was done.  0 or -errno with ERR filled.
 */
int store_pkg_write(struct store *s, struct store_pkg *p, size_t i, int fd,
    const char *path, uint8_t sha[DIGEST_LEN], uint8_t *md5,
    enum store_how *how, struct dbp_error *err);

/*
 * Start the entry of the package with KEY as its data member is
 * extracted.  NULL when the store is not filled (S NULL, no memory).
 */
struct store_fill *store_fill_new(struct store *s, const uint8_t key[DIGEST_LEN]);

/* The next data.tar entry, AE as the archive gave it. */
void store_fill_entry(struct store_fill *f, struct archive_entry *ae);

/*
 * Before the last entry's content is written: where the store copies
 * (the root and the store do not share a filesystem with reflinks, as
 * the first content filled showed), the file the content is written to
 * as well, as it is decoded (store_fill_data names it).  NULL: the
 * written file is cloned instead, or nothing is stored.
 */
struct stream_tee *store_fill_tee(struct store_fill *f);

/*
 * The content of the last entry: the file FD (readable) as written,
 * SIZE bytes with digest SHA and MD5 (or NULL).  FD is duplicated and
 * cloned only STORE_FILL_DELAY files later (or at store_fill_end): a
 * clone waits for the file's writeback, which the batch started, and
 * by then it is mostly done.  A caller keeps that many descriptors
 * spare.
 */
#define STORE_FILL_DELAY	64
void store_fill_data(struct store_fill *f, int fd, uint64_t size,
    const uint8_t sha[DIGEST_LEN], const uint8_t *md5);

/*
 * After the last entry was handled: when its content was not read (a
 * path left out or kept by another package), read it from A now.
 */
void store_fill_rest(struct store_fill *f, struct archive *a);

/*
 * The package's data member was read to its end and checked: its
 * manifest is written (not yet visible: store_commit).  Frees F.
 * Whether the entry will be kept (nothing failed).
 */
bool store_fill_end(struct store_fill *f);

/* Abandon an entry (the package failed); F may be NULL. */
void store_fill_free(struct store_fill *f);

/* What --cache-info prints. */
struct store_info {
	uint64_t bytes;		/* contents and manifests, as allocated */
	unsigned long entries;
	unsigned long objects;
	unsigned long hits, misses;
};

/*
 * The store DIR's size, entries and hits (ERR: cannot read it), and with
 * PRUNE, under the exclusive lock: entries evicted least recently used
 * first until at most MAX_SIZE bytes (0: all of them), contents no entry
 * names and leftovers of interrupted runs removed.
 */
int store_info(const char *dir, bool prune, uint64_t max_size,
    struct store_info *info, struct dbp_error *err);

#endif
