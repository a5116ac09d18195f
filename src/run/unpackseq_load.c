/* SPDX-License-Identifier: MIT */
/* unpackseq: the call's packages read, and judged against the root, before any script runs. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/dpkgarch.h"
#include "db/dpkgdb.h"
#include "db/dpkgfmt.h"
#include "db/dpkgstatus.h"
#include "deb/deb.h"
#include "durable/fileat.h"
#include "run/pkgfiles.h"
#include "run/unpackseq.h"
#include "run/unpackseq_int.h"

/* Read P's control and control files; P->ctl NULL and MSG on failure. */
static int
seq_read(struct seq_pkg *p, struct dbp_error *err)
{
	struct deb *d;
	const char *e;
	char buf[256];
	int r;

	if ((r = deb_open(&d, p->file, err)) != 0)
		return r;
	deb_keep_info(d);
	if ((r = deb_read_control(d, &p->ctl, err)) == 0 &&
	    (r = dpkgstatus_check(p->ctl, err)) != 0) {
		control_free(p->ctl);
		p->ctl = NULL;
	}
	if (r == 0)
		deb_take_info(d, &p->info, &p->ninfo);
	deb_close(d);
	if (r != 0)
		return r;
	p->name = control_get(p->ctl, "Package");
	p->arch = control_get(p->ctl, "Architecture");
	p->ma = control_get(p->ctl, "Multi-Arch");
	p->version = control_get(p->ctl, "Version");
	if (p->name == NULL || p->version == NULL)
		return dbp_err(err, 0, "", "no Package or Version field");
	e = control_get(p->ctl, "Essential");
	p->essential = e != NULL && strcmp(e, "yes") == 0;
	pkgfiles_name(p->ctl, buf, sizeof(buf));
	snprintf(p->shown, sizeof(p->shown), "%s", buf);
	if ((p->infoname = dpkgstatus_infoname(p->name, p->arch, p->ma)) ==
	    NULL)
		return dbp_err(err, ENOMEM, NULL, "cannot read package");
	return 0;
}

/*
 * Whether the root takes P's architecture (dpkg's check comes right after
 * it read the control, before a word of the package is said): refused
 * alone, or with --force-architecture taken, told as dpkg tells it.
 */
static bool
seq_arch(struct seq *s, const struct dpkgarch *arch, struct seq_pkg *p)
{
	char msg[256], line[300];

	if (dpkgarch_check(arch, p->arch, msg, sizeof(msg)) == 0)
		return true;
	if (!s->o->force_architecture) {
		seq_fail(s, p, msg);
		return false;
	}
	seq_say(s, UNPACKSEQ_NOTICE, NULL, "warning: " DPKGARCH_FORCED);
	snprintf(line, sizeof(line), "warning: %s", msg);
	seq_say(s, UNPACKSEQ_NOTICE, NULL, line);
	return true;
}

/*
 * Before any script: every package read, its old state from dpkg's
 * status, the root's dpkg version (DPKG_RUNNING_VERSION).  A package
 * that cannot be read fails alone, as with dpkg.
 */
int
seq_load(struct seq *s, struct dbp_error *err)
{
	struct dpkgstatus status = { NULL, 0 };
	const struct dpkgstatus_stanza *d;
	struct dpkgarch arch;
	struct dbp_error perr;
	char *text = NULL, line[3 * PATH_MAX];
	size_t len = 0, i;
	int r;

	/* Before any script: the batch would refuse it after them. */
	if ((r = dpkgdb_check_updates(s->adfd, err)) != 0 ||
	    (r = dpkgarch_load(&arch, &s->rf, s->o->architecture, err)) != 0)
		return r;
	/* Judged and told here, package by package: not again in the batch. */
	s->in.arch_judged = true;
	if (s->in.architecture == NULL && arch.native != NULL &&
	    (s->native = strdup(arch.native)) != NULL)
		s->in.architecture = s->native;
	if ((r = fileat_read(s->adfd, "status", &text, &len)) != 0 &&
	    r != -ENOENT) {
		dpkgarch_clear(&arch);
		return dbp_err(err, -r, SEQ_ADMIN "/status", "cannot read");
	}
	r = dpkgstatus_parse(&status, text != NULL ? text : "", len);
	free(text);
	if (r != 0) {
		dpkgarch_clear(&arch);
		return dbp_err(err, -r, SEQ_ADMIN "/status", "cannot parse");
	}
	s->ninstalled = seq_count_files(s, &status);
	if ((d = dpkgstatus_peek(&status, "dpkg", NULL, NULL)) != NULL &&
	    d->version != NULL)
		s->running = strdup(dpkgfmt_version(d->version));
	for (i = 0; r == 0 && i < s->n; i++) {
		struct seq_pkg *p = &s->v[i];

		dbp_err_clear(&perr);
		if (seq_read(p, &perr) != 0) {
			snprintf(line, sizeof(line), "%s%s%s%s", perr.path[0] !=
			    '\0' ? perr.path : "", perr.path[0] != '\0' ?
			    ": " : "", perr.msg, "");
			if (perr.errnum != 0)
				snprintf(line + strlen(line), sizeof(line) -
				    strlen(line), ": %s", strerror(perr.errnum));
			seq_fail(s, p, line);
			continue;
		}
		if (!seq_arch(s, &arch, p))
			continue;
		/* Before its scripts: the batch would refuse it after them. */
		if (dpkgarch_coinstance(NULL, &status, p->ctl, line,
		    sizeof(line)) != 0) {
			seq_fail(s, p, line);
			continue;
		}
		if ((r = seq_old(p, &status)) != 0)
			r = dbp_err(err, -r, NULL, "cannot read status");
	}
	dpkgarch_clear(&arch);
	dpkgstatus_clear(&status);
	return r;
}
