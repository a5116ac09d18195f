/* SPDX-License-Identifier: MIT */
/* Progress of an install run: a line redrawn on a terminal, and dpkg-style status lines. */
#ifndef DEBUNPACK_PROGRESS_H
#define DEBUNPACK_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The terminal line, "debunpack: extracting 12/88 packages, 48.1 MiB,
 * 31.2 MiB/s, libc6", is redrawn in place ("\r" ... "\033[K") at most
 * every PROGRESS_INTERVAL seconds, and at once on a phase change or
 * after progress_clear.  It is cut to one column less than the terminal
 * is wide so that it never wraps, and package names on it are escaped
 * (escape.h).
 *
 * The status fd gets one line per event.  Where dpkg --status-fd has a
 * form for the event, it is dpkg's, so that a front end reading dpkg
 * reads these too:
 *
 *   processing: install: NAME      a package starts being unpacked
 *                                  ("upgrade" when it replaces an
 *                                  installed version, as in dpkg)
 *   status: NAME: half-installed   at the same point
 *   status: NAME: unpacked         the run committed: the package is in place
 *   status: NAME : error : MSG     NAME (or the archive's path) failed
 *
 * and two forms of debunpack's own, which dpkg never writes:
 *
 *   progress: PHASE: DONE/TOTAL: BYTES
 *       when the run starts, after each package is extracted and on each
 *       phase change.  PHASE is "extracting", "syncing", "renaming",
 *       "preinst" or "done"; DONE is the count of packages extracted,
 *       TOTAL the count in the run, BYTES the data written so far.
 *       For example "progress: extracting: 12/88: 50462720".
 *   progress: error: MSG
 *       an error of the whole run rather than of one package.
 *
 * NAME is dpkg's non-ambiguous name: "name", or "name:arch" for
 * Multi-Arch: same packages.  Bytes below 0x20 and DEL in NAME and MSG
 * are written as spaces (dpkg turns newlines into spaces): an event is
 * always exactly one line.
 */

#define PROGRESS_INTERVAL	0.1	/* seconds between two redraws */

enum progress_phase {
	PROGRESS_EXTRACTING,	/* packages' data is being written */
	PROGRESS_SYNCING,	/* the batch is being made durable */
	PROGRESS_RENAMING,	/* files are being moved into place */
	PROGRESS_PREINST,	/* preinst scripts run; no terminal line */
	PROGRESS_DONE		/* the run is over; no terminal line */
};

/* The functions below that take P do nothing when it is NULL. */
struct progress;

/*
 * Start showing the progress of a run of TOTAL packages.  TTY: the
 * stream for the terminal line, or NULL for none (the caller decides:
 * a terminal, and not --no-progress).  STATUS_FD: the fd for status
 * lines, or -1 for none; it stays the caller's to close, and the caller
 * ignores SIGPIPE so that a front end that went away shows as a failed
 * write.  NOW: the clock in seconds, NULL for stats_now().
 * Writes "progress: extracting: 0/TOTAL: 0".  0 or -ENOMEM.
 */
int progress_new(struct progress **out, FILE *tty, int status_fd,
    size_t total, double (*now)(void));

/* Erase the terminal line if one is shown, and free P (NULL is fine). */
void progress_free(struct progress *p);

/*
 * Package NAME starts being unpacked; UPGRADE when another version of it
 * is installed (in dpkg's terms, in any state but not-installed or
 * config-files).
 */
void progress_unpacking(struct progress *p, const char *name, bool upgrade);

/*
 * Package NAME was extracted: its data is written, not yet committed.
 * BYTES: the data written so far in the whole run.
 */
void progress_extracted(struct progress *p, const char *name,
    uint64_t bytes);

/*
 * The run moves on to PH.  Entering PROGRESS_PREINST or PROGRESS_DONE
 * erases the terminal line: preinst scripts write to the same terminal.
 */
void progress_phase(struct progress *p, enum progress_phase ph);

/*
 * The run committed: call once per package NAME, now in dpkg's STATE
 * ("unpacked"; a removed one "config-files" or "not-installed").
 */
void progress_committed(struct progress *p, const char *name,
    const char *state);

/*
 * The packages will take about BYTES once unpacked (their Installed-Size):
 * the terminal line shows a share and an ETA, the status lines
 * "BYTES/EXPECTED".
 */
void progress_expect(struct progress *p, uint64_t bytes);

/* Package NAME is removed next: WHAT is "remove" or "purge", as dpkg says. */
void progress_removing(struct progress *p, const char *name, const char *what);

/*
 * Report error MSG of package NAME, or of the archive at path NAME when
 * its package is not known, or of the whole run when NAME is NULL.
 * Erases the terminal line, so that the caller can print the message.
 */
void progress_error(struct progress *p, const char *name, const char *msg);

/*
 * Erase the terminal line before anything else is printed on the
 * terminal (a warning, a child's output); the next update redraws it.
 */
void progress_clear(struct progress *p);

/*
 * The states of packages come from progress_processing and
 * progress_state alone (--maintscripts, whose sequence knows them):
 * progress_unpacking and progress_committed send no status lines.
 */
void progress_set_seq(struct progress *p);
/* dpkg's "processing: ACTION: NAME" line. */
void progress_processing(struct progress *p, const char *action,
    const char *name);
/* dpkg's "status: NAME: STATE" line. */
void progress_state(struct progress *p, const char *name, const char *state);

/*
 * Draw the terminal line COLS columns wide instead of asking the
 * terminal (TIOCGWINSZ, 80 when it cannot tell); 0 asks again.
 */
void progress_set_width(struct progress *p, unsigned int cols);

/*
 * 0, or -errno of the first write to the status fd that failed: status
 * lines stop there, and the run goes on.  The caller may warn once.
 */
int progress_status_error(const struct progress *p);

/*
 * BYTES as "512 B", "1.5 KiB", "48.1 MiB", "2.0 GiB" ... (one decimal,
 * binary units up to EiB) into BUF of size N.  Returns BUF.
 */
char *progress_format_bytes(uint64_t bytes, char *buf, size_t n);

#endif
