/* SPDX-License-Identifier: MIT */
/* Counters and phase timers of one run, and their text and JSON forms. */
#ifndef DEBUNPACK_STATS_H
#define DEBUNPACK_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum stats_entry {
	ST_FILE, ST_HARDLINK, ST_SYMLINK, ST_DIR, ST_CHAR, ST_BLOCK, ST_FIFO,
	ST_SKIPPED, ST_NENTRY
};

enum stats_call {
	SC_SYNC_FILE_RANGE_WRITE, SC_SYNC_FILE_RANGE_WAIT, SC_FADVISE,
	SC_FDATASYNC, SC_FSYNC, SC_SYNCFS, SC_RENAME, SC_LINK, SC_REOPEN, SC_FIEMAP, SC_NCALL
};

enum stats_phase {
	PH_EXTRACT, PH_WAIT, PH_FDATASYNC, PH_RENAME, PH_DIRSYNC, PH_NPHASE
};

#define STATS_MAXFS	8

/* How one package was installed with --cache, and what that saved. */
struct stats_pkg {
	char *name;
	int how;		/* enum store_how: decoded, cloned, copied */
	uint64_t saved;		/* bytes of regular files not decoded */
	bool filled;		/* its entry was added to the store */
};

struct stats {
	const char *mode;
	/*
	 * Run under debunpack-nosync (which sets DEBUNPACK_NOSYNC_ACTIVE):
	 * the mode's sync calls were made and did nothing.
	 */
	bool nosync;
	unsigned long packages;
	unsigned long entries[ST_NENTRY];
	uint64_t bytes;
	unsigned long calls[SC_NCALL];
	double phase[PH_NPHASE];	/* seconds */
	/*
	 * The filesystems the syncfs mode synced, and how each is made
	 * durable and why (fskind.h): both fixed strings.
	 */
	struct {
		char type[16];
		const char *how;
		const char *why;
	} fs[STATS_MAXFS];
	size_t nfs;
	/*
	 * The disk under the root during the run (devstat.h): everything
	 * written there, by anyone, is counted.  No name: not a disk.
	 */
	/*
	 * --cache: the packages installed from the store, cloned or
	 * copied, and decoded (enum store_how's order), the bytes of
	 * regular files they did not decode, the entries filled.
	 */
	bool cache;
	unsigned long cache_pkgs[3];
	uint64_t cache_saved;
	unsigned long cache_filled;
	/* Packages whose data member decode-ahead gave decoded (ahead.h). */
	unsigned long ahead;
	/* --cache: each package as dpkg names it, in the order installed. */
	struct stats_pkg *pkg;
	size_t npkg;
	struct {
		char name[64];
		uint64_t flushes;
		uint64_t flush_ms;
		uint64_t written;	/* bytes */
	} dev;
};

/* Note package NAME's way in (HOW, SAVED, FILLED): 0 or -ENOMEM. */
int stats_add_pkg(struct stats *st, const char *name, int how,
    uint64_t saved, bool filled);

/* What stats_add_pkg allocated. */
void stats_free(struct stats *st);

/* Monotonic clock in seconds, for phase timers. */
double stats_now(void);

/* Human-readable report, several lines. */
void stats_write_text(FILE *fp, const struct stats *st);

/* The same as one JSON object and a newline. */
void stats_write_json(FILE *fp, const struct stats *st);

#endif
