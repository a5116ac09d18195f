/* SPDX-License-Identifier: MIT */
/* unpackconflict: the conflictors' scripts (prerm remove in-favour, its unwind) and their removal. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/dpkgfmt.h"
#include "durable/fileat.h"
#include "run/unpackconflict.h"

/*
 * dpkg removes a conflictor after the new package's files are in
 * (src/main/unpack.c, removal_bulk), and so does this: in a batch of its
 * own after the group's, then its postrm remove.  Until the group's
 * batch commits, the new package may still fail (its preinst, a path
 * the batch refuses) and the conflictor must then be put back whole
 * (postinst abort-remove in-favour), which it is: nothing of it was
 * touched but its state.  Between the two batches it is half-installed
 * in dpkg's status, as dpkg leaves it while it works: a crash there
 * leaves it for dpkg to remove or reinstall, never files of it listed
 * and gone.  Its files could go in the group's batch (dropped with
 * the package a failure takes out of it) for one barrier less; install_run
 * either extracts or removes, so the cost is one more barrier, in calls
 * with a conflict only.
 */

/*
 * C's stanza before the call in STATE, its flags kept (CVERSION: "ok",
 * as a removal leaves it); NULL: no memory.
 */
static char *
cf_stanza(const struct seq_pkg *c, const char *state, bool cversion)
{
	const char *line, *end;
	char *t = NULL;
	size_t len;
	FILE *fp;

	if ((fp = open_memstream(&t, &len)) == NULL)
		return NULL;
	for (line = c->old_text; *line != '\0'; line = end) {
		end = line + strcspn(line, "\n");
		end += *end == '\n';
		if (strncmp(line, "Status: ", 8) == 0) {
			const char *w = line + 8;
			size_t wl = strcspn(w, " \n"), fl;

			fl = strcspn(w + wl + (w[wl] == ' '), " \n");
			fprintf(fp, "Status: %.*s %.*s %s\n", (int)wl, w,
			    cversion ? 2 : (int)fl, cversion ? "ok" :
			    w + wl + 1, state);
			continue;
		}
		fwrite(line, 1, (size_t)(end - line), fp);
		/*
		 * No state written here is "installed": dpkg shows the
		 * version it was configured at in each.
		 */
		if (strncmp(line, "Version: ", 9) == 0 &&
		    c->old_cversion == NULL && unpackconflict_configured(c->old_state))
			fprintf(fp, "Config-Version: %s\n", c->old_version);
	}
	if (fclose(fp) != 0) {
		free(t);
		return NULL;
	}
	return t;
}

int
unpackconflict_prerms(struct seq *s, struct seq_pkg *p, char *msg,
    size_t msglen, struct dbp_error *err)
{
	size_t i;
	int r;

	for (i = 0; i < p->ncf; i++) {
		struct seq_pkg *c = &p->cf[i];

		if (!unpackconflict_configured(c->old_state))
			continue;
		seq_status(s, c, "half-configured");
		if ((r = seq_status_one(s, c, cf_stanza(c, "half-configured",
		    false), err)) != 0)
			return r;
		/* dpkg's unwind covers the prerm that fails too. */
		c->prerm_ran = true;
		r = seq_script4(s, c, "prerm", "info", "remove", "in-favour",
		    p->shown, dpkgfmt_version(p->version), msg, msglen, err);
		if (r < 0)
			return r;
		seq_status(s, c, "half-installed");
		if ((r = seq_status_one(s, c, cf_stanza(c, "half-installed",
		    false), err)) != 0)
			return r;
	}
	return 0;
}

int
unpackconflict_unwind(struct seq *s, struct seq_pkg *p, struct dbp_error *err)
{
	char msg[512];
	size_t i;
	int r;

	for (i = p->ncf; i-- > 0;) {
		struct seq_pkg *c = &p->cf[i];

		if (!c->prerm_ran || c->unwound)
			continue;
		c->unwound = true;
		r = seq_script4(s, c, "postinst", "info", "abort-remove",
		    "in-favour", p->shown, dpkgfmt_version(p->version), msg,
		    sizeof(msg), err);
		if (r < -1)
			return r;
		if (r == -1) {
			seq_say(s, UNPACKSEQ_CLEANUP, c, msg);
			continue;
		}
		seq_status(s, c, c->old_state);
		if ((r = seq_status_one(s, c, strdup(c->old_text), err)) != 0)
			return r;
	}
	return 0;
}

/* The removal batch's events: its warnings only, the steps are ours. */
static void
cf_note(void *ctx, const struct install_note *n)
{
	struct seq *s = ctx;

	if ((n->event == INSTALL_WARN || n->event == INSTALL_WARN_PATH) &&
	    s->o->note != NULL)
		s->o->note(s->o->ctx, n);
	if (n->event == INSTALL_STANDS) {
		s->stands = true;
		/* A status write the batch committed is owed no more. */
		if (n->covered)
			s->owed = false;
		s->owed |= n->deferred;
	}
}

/*
 * What dpkg leaves of removed conflictor C that had a postrm or
 * conffiles: config-files, its postrm (KEPT, when it had one) and its
 * file list in info/.
 */
static int
cf_config_files(struct seq *s, struct seq_pkg *c, bool kept,
    struct dbp_error *err)
{
	char from[PATH_MAX], to[PATH_MAX], *text = NULL;
	struct stat st;
	size_t len;
	int fd, r = 0;

	snprintf(to, sizeof(to), "info/%s.list", c->infoname);
	if (fstatat(s->adfd, to, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if ((fd = openat(s->adfd, to, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0644)) < 0 || fsync(fd) != 0)
			r = dbp_err(err, errno, to, "cannot write");
		if (fd >= 0 && close(fd) != 0 && r == 0)
			r = dbp_err(err, errno, to, "cannot write");
	}
	snprintf(from, sizeof(from), SEQ_OLD "/%s.postrm", c->infoname);
	snprintf(to, sizeof(to), "info/%s.postrm", c->infoname);
	/*
	 * The removal's batch keeps the postrm of a package whose conffiles
	 * stay: only one it did not keep is put back, from the copy, under
	 * a temporary name first, so that a failure leaves none rather
	 * than a part of it.
	 */
	if (r == 0 && kept && fstatat(s->adfd, to, &st, AT_SYMLINK_NOFOLLOW) == 0)
		kept = false;
	if (r == 0 && kept && (r = fileat_read(s->adfd, from, &text,
	    &len)) != 0)
		return dbp_err(err, -r, from, "cannot read");
	if (r == 0 && kept) {
		char tmp[PATH_MAX + 16];

		snprintf(tmp, sizeof(tmp), "%s.dpkg-new", to);
		(void)unlinkat(s->adfd, tmp, 0);
		if ((fd = openat(s->adfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0755)) < 0 ||
		    write(fd, text, len) != (ssize_t)len || fsync(fd) != 0)
			r = dbp_err(err, errno != 0 ? errno : EIO, to,
			    "cannot write");
		if (fd >= 0 && close(fd) != 0 && r == 0)
			r = dbp_err(err, errno, to, "cannot write");
		if (r == 0 && renameat(s->adfd, tmp, s->adfd, to) != 0)
			r = dbp_err(err, errno, to, "cannot write");
		if (r != 0)
			(void)unlinkat(s->adfd, tmp, 0);
	}
	free(text);
	if (r == 0 && fsync(s->adfd) != 0)
		r = dbp_err(err, errno, SEQ_ADMIN "/info", "cannot sync");
	if (r != 0)
		return r;
	return seq_status_one(s, c, cf_stanza(c, "config-files", true), err);
}

int
unpackconflict_remove(struct seq *s, size_t from, size_t to,
    struct dbp_error *err)
{
	struct install_opts rin = s->in;
	char **names, line[800], msg[512];
	size_t i, k, n = 0, all = 0;
	int r = 0;

	for (i = from; i < to; i++)
		if (s->v[i].state == SEQ_DONE)
			all += s->v[i].ncf;
	if (all == 0)
		return 0;
	if ((names = calloc(all + 1, sizeof(*names))) == NULL)
		return dbp_err(err, ENOMEM, NULL, "cannot remove");
	for (i = from; r == 0 && i < to; i++) {
		struct seq_pkg *p = &s->v[i];

		for (k = 0; p->state == SEQ_DONE && k < p->ncf; k++) {
			struct seq_pkg *c = &p->cf[k];

			snprintf(line, sizeof(line), "Removing %s (%s), to allow"
			    " configuration of %s (%s) ...", c->shown,
			    c->old_version != NULL ? c->old_version : "",
			    p->shown, dpkgfmt_version(p->version));
			seq_say(s, UNPACKSEQ_SAY, p, line);
			/* The removal takes info/: its postrm runs after. */
			if ((r = seq_keep(s, c->infoname, "postrm", err)) < 0)
				break;
			c->keep_postrm = r == 0;
			r = 0;
			names[n++] = (char *)c->name;
		}
	}
	rin.remove = true;
	rin.rm.purge = false;
	/* Judged already, as dpkg judges a conflictor; its scripts are ours. */
	rin.rm.no_scripts = true;
	rin.rm.force_depends = true;
	rin.rm.force_essential = true;
	rin.note = cf_note;
	rin.ctx = s;
	s->stands = false;
	if (r == 0 && (r = install_run(&rin, names, n, s->st, err)) != 0 &&
	    s->stands) {
		/* The files are gone for good: their postrms still run. */
		if (s->late == 0) {
			s->late = r;
			s->late_err = *err;
		}
		r = 0;
	}
	free(names);
	for (i = from; r == 0 && i < to; i++) {
		struct seq_pkg *p = &s->v[i];

		for (k = 0; r == 0 && p->state == SEQ_DONE && k < p->ncf;
		    k++) {
			struct seq_pkg *c = &p->cf[k];
			const char *cf = control_get(c->ctl, "Conffiles");

			if (c->keep_postrm) {
				r = seq_script(s, c, "postrm", "kept",
				    "remove", NULL, NULL, msg, sizeof(msg),
				    err);
				if (r < -1)
					break;
				if (r == -1)
					seq_say(s, UNPACKSEQ_CLEANUP, c, msg);
				r = 0;
			}
			if (c->keep_postrm || (cf != NULL && *cf != '\0')) {
				r = cf_config_files(s, c, c->keep_postrm, err);
				seq_status(s, c, "config-files");
			} else {
				/* dpkg's removal, then its purge. */
				seq_status(s, c, "config-files");
				seq_status(s, c, "not-installed");
			}
		}
	}
	seq_rmdir(s, SEQ_OLD);
	return r;
}
