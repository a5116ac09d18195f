/* SPDX-License-Identifier: MIT */
/* A run's package files read ahead: the last of several versions stands, what they take, how many threads. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/dpkgstatus.h"
#include "deb/control.h"
#include "deb/deb.h"
#include "run/pkgfiles.h"
#include "run/query.h"

/*
 * Threads only for what they can speed up: none when a package is not a
 * regular file (a pipe cannot be read twice: a thread reads each
 * package's data on its own descriptor).  One package is no reason for
 * one thread: its blocks are decoded by all.
 */
unsigned
pkgfiles_jobs(unsigned jobs, char *const *files, size_t n)
{
	struct stat st;
	size_t i;

	for (i = 0; i < n && jobs > 1; i++)
		if (stat(files[i], &st) != 0 || !S_ISREG(st.st_mode))
			jobs = 1;
	return jobs;
}

/* CTL's package as dpkg names it: NAME, or NAME:ARCH for Multi-Arch: same. */
const char *
pkgfiles_name(const struct control *ctl, char *buf, size_t n)
{
	return dpkgstatus_name(control_get(ctl, "Package"),
	    control_get(ctl, "Architecture"), control_get(ctl, "Multi-Arch"),
	    buf, n);
}

/* A package file's name as dpkg tells packages apart, and its version. */
struct pkgfiles_id {
	char *name;		/* pkgfiles_name's */
	char *version;
	uint64_t size;		/* Installed-Size in bytes; 0: not said */
};

static void
pkgfiles_id(const char *file, struct pkgfiles_id *id)
{
	struct dbp_error e;
	struct control *ctl = NULL;
	struct deb *d;
	char name[512];

	dbp_err_clear(&e);
	if (deb_open(&d, file, &e) != 0)
		return;
	if (deb_read_control(d, &ctl, &e) == 0) {
		const char *is = control_get(ctl, "Installed-Size");
		unsigned long long kib;
		char *end;

		id->name = strdup(pkgfiles_name(ctl, name, sizeof(name)));
		id->version = strdup(control_get(ctl, "Version"));
		if (is != NULL && (kib = strtoull(is, &end, 10)) > 0 &&
		    *end == '\0' && kib < (1ULL << 40))
			id->size = (uint64_t)kib * 1024;
		control_free(ctl);
	}
	deb_close(d);
}

/*
 * The start of each package file, where its control member is, asked of
 * the disk at once: on a cold cache the reads below then wait for the
 * disk's answers together, not one package after the other.  Only a
 * start (PKGFILES_AHEAD bytes): the rest is read, or not, as the run
 * goes.
 */
#define PKGFILES_AHEAD	(128 * 1024)

static void
pkgfiles_ahead(char *const *files, size_t n)
{
	struct stat st;
	size_t i;
	int fd;

	/*
	 * Regular files only: opening a FIFO, even to close it at once,
	 * would let its writer's open return, and its writes then fail.
	 */
	for (i = 0; i < n; i++)
		if (stat(files[i], &st) == 0 && S_ISREG(st.st_mode) &&
		    (fd = open(files[i], O_RDONLY | O_CLOEXEC | O_NOCTTY |
		    O_NONBLOCK)) >= 0) {
			(void)posix_fadvise(fd, 0, PKGFILES_AHEAD,
			    POSIX_FADV_WILLNEED);
			close(fd);
		}
}

/*
 * Several versions of one package in the run (an apt cache given as
 * *.deb): dpkg unpacks them in command-line order, so the last one
 * stands; the earlier ones are left out here, each told.  *KEPT (*NKEPT
 * files) is FILES without them, the caller's to free.  A file whose
 * control cannot be read, or that is not a regular file, stays: its own
 * step says what is wrong.
 */
int
pkgfiles_last(const struct install_opts *o, char *const *files,
    size_t n, char ***kept, size_t *nkept, struct dbp_error *err)
{
	struct install_note total = { .event = INSTALL_EXPECTED };
	struct pkgfiles_id *ids;
	struct stat st;
	bool known = true;
	size_t i, j;
	int r = 0;

	*nkept = 0;
	if ((*kept = calloc(n + 1, sizeof(**kept))) == NULL ||
	    (ids = calloc(n + 1, sizeof(*ids))) == NULL) {
		free(*kept);
		*kept = NULL;
		return dbp_err(err, ENOMEM, NULL, "cannot start");
	}
	/*
	 * A pipe cannot be read twice: only regular files are looked at.
	 * Their controls are read up front anyway (small, at the start of
	 * each file): the Installed-Size they add up to is the progress's.
	 */
	pkgfiles_ahead(files, n);
	for (i = 0; i < n; i++)
		if (stat(files[i], &st) == 0 && S_ISREG(st.st_mode))
			pkgfiles_id(files[i], &ids[i]);
	for (i = 0; i < n; i++) {
		/* The note names the version that stands: the last one. */
		for (j = n - 1; ids[i].name != NULL && j > i; j--)
			if (ids[j].name != NULL &&
			    strcmp(ids[i].name, ids[j].name) == 0)
				break;
		if (ids[i].name != NULL && j > i) {
			struct install_note note = {
			    .event = INSTALL_SUPERSEDED, .pkg = files[i],
			    .name = ids[i].name, .msg = ids[i].version,
			    .path = files[j], .old_version = ids[j].version };

			/*
			 * dpkg would fail on it before the later one: it is
			 * read through (its data, its names) all the same.
			 */
			if ((r = query_sound(files[i], err)) != 0) {
				dbp_err_pkg(err, files[i]);
				break;
			}
			if (o->note != NULL)
				o->note(o->ctx, &note);
			continue;
		}
		(*kept)[(*nkept)++] = files[i];
		known = known && ids[i].size > 0;
		total.bytes += ids[i].size;
	}
	/* What the packages say they take, when every one says it. */
	if (r == 0 && known && total.bytes > 0)
		if (o->note != NULL)
		o->note(o->ctx, &total);
	for (i = 0; i < n; i++) {
		free(ids[i].name);
		free(ids[i].version);
	}
	free(ids);
	if (r != 0) {
		free(*kept);
		*kept = NULL;
	}
	return r;
}
