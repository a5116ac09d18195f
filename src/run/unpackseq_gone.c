/* SPDX-License-Identifier: MIT */
/* unpackseq: what the batch takes from other packages (Replaces, disappearance). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/dpkgfmt.h"
#include "durable/fileat.h"
#include "run/unpackseq_int.h"
#include "util/strhash.h"

void
seq_gone_clear(struct seq *s)
{
	size_t i;

	for (i = 0; i < s->ngone; i++) {
		free(s->gone[i].name);
		free(s->gone[i].arch);
		free(s->gone[i].infoname);
		free(s->gone[i].version);
		free(s->gone[i].list);
	}
	free(s->gone);
	s->gone = NULL;
	s->ngone = 0;
}

/*
 * The batch's events, passed on; of a package that disappears, its
 * postrm and file list are kept while dpkg's info files still have them.
 * A copy that fails leaves the package without its postrm disappear,
 * told.
 */
void
seq_note(void *ctx, const struct install_note *n)
{
	struct seq *s = ctx;
	struct seq_gone *v, *g;
	struct dbp_error kerr;
	const char *ma;
	size_t len;
	int r;

	if (s->o->note != NULL)
		s->o->note(s->o->ctx, n);
	if (n->event == INSTALL_STANDS) {
		s->stands = true;
		/* A status write the batch committed is owed no more. */
		if (n->covered)
			s->owed = false;
		s->owed |= n->deferred;
	}
	if (n->event == INSTALL_NAMING && s->in.npending > 0)
		seq_prewrite(s);
	if (n->event != INSTALL_DISAPPEARS || n->ctl == NULL)
		return;
	if ((v = realloc(s->gone, (s->ngone + 1) * sizeof(*v))) == NULL)
		return;
	s->gone = v;
	g = memset(&v[s->ngone], 0, sizeof(*g));
	ma = control_get(n->ctl, "Multi-Arch");
	g->name = strdup(n->name);
	g->arch = control_get(n->ctl, "Architecture") != NULL ?
	    strdup(control_get(n->ctl, "Architecture")) : NULL;
	g->version = control_get(n->ctl, "Version") != NULL ?
	    strdup(dpkgfmt_version(control_get(n->ctl, "Version"))) : NULL;
	g->infoname = dpkgstatus_infoname(n->name, g->arch, ma);
	if (g->name == NULL || g->infoname == NULL)
		return;
	s->ngone++;
	dpkgstatus_name(n->name, g->arch, ma, g->shown, sizeof(g->shown));
	dbp_err_clear(&kerr);
	if ((r = seq_keep(s, g->infoname, "postrm", &kerr)) < 0) {
		struct install_note w = { .event = INSTALL_WARN,
		    .msg = "cannot keep the postrm of a disappearing package:"
		    " it does not run" };

		if (s->o->note != NULL)
			s->o->note(s->o->ctx, &w);
	}
	g->postrm = r == 0;
	{
		char file[PATH_MAX];

		snprintf(file, sizeof(file), "info/%s.list", g->infoname);
		if (fileat_read(s->adfd, file, &g->list, &len) != 0)
			g->list = NULL;
	}
}

/*
 * The package of the group dpkg would name as the one G disappeared in
 * favour of: the last one, in the call's order, whose file list now has
 * a non-directory path G's had.  NULL when none does.
 */
static struct seq_pkg *
seq_infavour(struct seq *s, const struct seq_gone *g, size_t from, size_t to)
{
	char file[PATH_MAX], *list, *line, *nl, *hit;
	struct seq_pkg *found = NULL;
	struct stat st;
	size_t i, len, l;

	for (i = from; g->list != NULL && i < to; i++) {
		if (s->v[i].state != SEQ_DONE)
			continue;
		snprintf(file, sizeof(file), "info/%s.list", s->v[i].infoname);
		if (fileat_read(s->adfd, file, &list, &len) != 0)
			continue;
		for (line = g->list; *line != '\0'; line = nl + 1) {
			if ((nl = strchr(line, '\n')) == NULL)
				break;
			l = (size_t)(nl - line);
			if (l < 2 || line[0] != '/')
				continue;
			snprintf(file, sizeof(file), "%.*s", (int)l - 1,
			    line + 1);
			if (fstatat(s->rf.fd, file, &st, AT_SYMLINK_NOFOLLOW)
			    == 0 && S_ISDIR(st.st_mode))
				continue;
			/* The whole line, in the other list. */
			for (hit = strstr(list, file); hit != NULL;
			    hit = strstr(hit + 1, file))
				if (hit > list && hit[-1] == '/' &&
				    (hit - 1 == list || hit[-2] == '\n') &&
				    hit[l - 1] == '\n')
					break;
			if (hit != NULL) {
				found = &s->v[i];
				break;
			}
		}
		free(list);
	}
	return found;
}

/*
 * Past the commit: each package that disappeared gets its postrm
 * disappear OVERWRITER VERSION, from the copy kept before the batch, as
 * dpkg runs it; a failure is told, the package is gone all the same.
 */
int
seq_disappear(struct seq *s, size_t from, size_t to, struct dbp_error *err)
{
	struct seq_pkg gp, *by;
	char msg[512], line[600];
	size_t i;
	int r;

	for (i = 0; i < s->ngone; i++) {
		struct seq_gone *g = &s->gone[i];

		by = seq_infavour(s, g, from, to);
		memset(&gp, 0, sizeof(gp));
		gp.name = g->name;
		gp.arch = g->arch;
		gp.infoname = g->infoname;
		gp.version = g->version;
		gp.old_state = "installed";
		snprintf(gp.shown, sizeof(gp.shown), "%s", g->shown);
		snprintf(line, sizeof(line), "(Noting disappearance of %s, which"
		    " has been completely replaced.)", g->shown);
		seq_say(s, UNPACKSEQ_SAY, &gp, line);
		seq_say(s, UNPACKSEQ_DISAPPEAR, &gp, NULL);
		if (g->postrm && by != NULL) {
			r = seq_script(s, &gp, "postrm", "kept", "disappear",
			    by->name, dpkgfmt_version(by->version), msg,
			    sizeof(msg), err);
			if (r < -1)
				return r;
			if (r == -1)
				seq_say(s, UNPACKSEQ_CLEANUP, &gp, msg);
		}
		seq_status(s, &gp, "not-installed");
	}
	seq_gone_clear(s);
	seq_rmdir(s, SEQ_OLD);
	return 0;
}

void
seq_repl_clear(struct seq *s)
{
	size_t i;

	for (i = 0; i < s->nrepl; i++) {
		free(s->repl[i].version);
		free(s->repl[i].list);
	}
	free(s->repl);
	s->repl = NULL;
	s->nrepl = 0;
}

/* Whether P removes NAME in favour (dpkg says nothing of its files then). */
static bool
seq_removes(const struct seq_pkg *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->ncf; i++)
		if (strcmp(p->cf[i].name, name) == 0)
			return true;
	return false;
}

/*
 * Before a batch: the file lists of the installed packages that the
 * batch's packages Replace, to tell afterwards whose files were taken.
 */
void
seq_repl_load(struct seq *s, size_t from, size_t to)
{
	struct dpkgstatus status = { NULL, 0 };
	const struct dpkgstatus_stanza *o;
	char *text = NULL, *names, *tok, *save, name[256], file[PATH_MAX];
	struct seq_repl *v;
	size_t len = 0, i;

	seq_repl_clear(s);
	if (fileat_read(s->adfd, "status", &text, &len) != 0 ||
	    dpkgstatus_parse(&status, text, len) != 0) {
		free(text);
		return;
	}
	free(text);
	for (i = from; i < to; i++) {
		const char *rep = s->v[i].state == SEQ_READY ?
		    control_get(s->v[i].ctl, "Replaces") : NULL;

		if (rep == NULL || (names = strdup(rep)) == NULL)
			continue;
		for (tok = strtok_r(names, ",|", &save); tok != NULL;
		    tok = strtok_r(NULL, ",|", &save)) {
			/* "name[:arch] [(op version)]": the name alone. */
			tok += strspn(tok, " \t\n");
			snprintf(name, sizeof(name), "%.*s",
			    (int)strcspn(tok, " \t\n(:"), tok);
			if ((o = dpkgstatus_peek(&status, name, NULL,
			    NULL)) == NULL || !dpkgstatus_installed(o) ||
			    strcmp(name, s->v[i].name) == 0 ||
			    seq_removes(&s->v[i], name))
				continue;
			if ((v = realloc(s->repl, (s->nrepl + 1) *
			    sizeof(*v))) == NULL)
				break;
			s->repl = v;
			v = memset(&v[s->nrepl], 0, sizeof(*v));
			v->by = i;
			dpkgstatus_name(o->name, o->arch, o->ma, v->shown,
			    sizeof(v->shown));
			v->version = o->version != NULL ?
			    strdup(dpkgfmt_version(o->version)) : NULL;
			{
				char *in = dpkgstatus_infoname(o->name,
				    o->arch, o->ma);

				snprintf(file, sizeof(file), "info/%s.list",
				    in != NULL ? in : "");
				free(in);
			}
			if (fileat_read(s->adfd, file, &v->list, &len) != 0)
				v->list = NULL;
			s->nrepl++;
		}
		free(names);
	}
	dpkgstatus_clear(&status);
}

/*
 * A file list's lines, to look lines up in: a table of twice as many
 * slots (strhash.h, open addressing), where searching the list's text for
 * each path of the other package's list cost their product (a package
 * of thousands of files against one of hundreds: a tenth of the call).
 */
struct seq_lines {
	const char **slot;
	size_t size;		/* a power of two */
};

static size_t
seq_lines_hash(const struct seq_lines *t, const char *line, size_t len)
{
	return strhash_n(line, len) & (t->size - 1);
}

/* T for the lines of LIST, which ends each with '\0' instead: 0, -ENOMEM. */
static int
seq_lines_make(struct seq_lines *t, char *list)
{
	size_t n = 0, h;
	char *l, *nl;

	for (l = list; (l = strchr(l, '\n')) != NULL; l++)
		n++;
	for (t->size = 16; t->size < 2 * (n + 1); t->size *= 2)
		continue;
	if ((t->slot = calloc(t->size, sizeof(*t->slot))) == NULL)
		return -ENOMEM;
	for (l = list; *l != '\0'; l = nl + 1) {
		if ((nl = strchr(l, '\n')) != NULL)
			*nl = '\0';
		for (h = seq_lines_hash(t, l, strlen(l)); t->slot[h] != NULL;
		    h = (h + 1) & (t->size - 1))
			continue;
		t->slot[h] = l;
		if (nl == NULL)
			break;
	}
	return 0;
}

/* Whether T has line LINE (LEN bytes, "/path"). */
static bool
seq_lines_has(const struct seq_lines *t, const char *line, size_t len)
{
	size_t h;

	for (h = seq_lines_hash(t, line, len); t->slot[h] != NULL;
	    h = (h + 1) & (t->size - 1))
		if (strncmp(t->slot[h], line, len) == 0 &&
		    t->slot[h][len] == '\0')
			return true;
	return false;
}

/*
 * After a batch: dpkg's "Replacing files in old package" for each
 * package whose non-directory path a package of the batch took.
 */
void
seq_repl_tell(struct seq *s)
{
	char file[PATH_MAX], line[600], *list, *l, *nl;
	struct seq_lines lines;
	struct stat st;
	size_t i, len;

	for (i = 0; i < s->nrepl; i++) {
		struct seq_repl *r = &s->repl[i];
		bool took = false;

		if (r->list == NULL || s->v[r->by].state != SEQ_DONE)
			continue;
		snprintf(file, sizeof(file), "info/%s.list",
		    s->v[r->by].infoname);
		if (fileat_read(s->adfd, file, &list, &len) != 0)
			continue;
		if (seq_lines_make(&lines, list) != 0) {
			free(list);
			continue;
		}
		for (l = r->list; !took && *l != '\0'; l = nl + 1) {
			if ((nl = strchr(l, '\n')) == NULL)
				break;
			if (nl - l < 2 || *l != '/')
				continue;
			snprintf(file, sizeof(file), "%.*s", (int)(nl - l - 1),
			    l + 1);
			if (fstatat(s->rf.fd, file, &st, AT_SYMLINK_NOFOLLOW) ==
			    0 && S_ISDIR(st.st_mode))
				continue;
			took = seq_lines_has(&lines, l, (size_t)(nl - l));
		}
		free(lines.slot);
		free(list);
		if (!took)
			continue;
		snprintf(line, sizeof(line), "Replacing files in old package %s"
		    " (%s) ...", r->shown, r->version != NULL ? r->version :
		    "");
		seq_say(s, UNPACKSEQ_SAY, &s->v[r->by], line);
	}
	seq_repl_clear(s);
}
