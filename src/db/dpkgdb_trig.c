/* SPDX-License-Identifier: MIT */
/* dpkg's database: the run's trigger activations in the status, as dpkg keeps them. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/dpkgdb.h"
#include "db/dpkgdb_int.h"
#include "db/dpkgfmt.h"
#include "db/dpkgstatus.h"
#include "db/dpkgtrig.h"

/*
 * dpkg notes an activation in the status at once, --no-triggers or not
 * (that option only holds back the processing): the interested package,
 * if configured (installed, triggers-pending or triggers-awaited), gets
 * the trigger in Triggers-Pending and the state triggers-pending
 * (triggers-awaited while it awaits others itself); the activating
 * package lists it in Triggers-Awaited, and leaves installed or
 * triggers-pending for triggers-awaited.  A package of the run is never
 * left pending: dpkg clears the triggers of a package it unpacks, and
 * drops it from the lists of the packages that awaited it.
 *
 * dpkg reads Triggers-Pending into a list by prepending each name, and
 * writes the list from its head: every run it writes the field it read
 * reversed, the names it added since first.  The status written here
 * follows it, name for name.
 */

/* One package whose trigger fields the run may change. */
struct trigst {
	const char *name, *arch;
	struct dpkgstatus_stanza *o;	/* outside the run: its stanza */
	struct dpkgdb_new *p;		/* of the run */
	size_t re;			/* its db->restanza, or SIZE_MAX */
	char state[32];			/* outside the run */
	char **pend;			/* Triggers-Pending, dpkg's list order */
	size_t npend;
	char **aw;			/* Triggers-Awaited */
	size_t naw;
	bool read, changed;
	bool cversion;			/* its stanza has a Config-Version */
};

struct trigst_set {
	struct trigst *v;
	size_t n;
};

static void
trigst_words_free(char **w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(w[i]);
	free(w);
}

static void
trigst_set_free(struct trigst_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		trigst_words_free(s->v[i].pend, s->v[i].npend);
		trigst_words_free(s->v[i].aw, s->v[i].naw);
	}
	free(s->v);
}

/* Add word W (LEN bytes) to *V: at its head when FRONT, else at its end. */
static int
trigst_word_add(char ***v, size_t *n, const char *w, size_t len, bool front)
{
	char **nv, *copy;

	if ((copy = strndup(w, len)) == NULL)
		return -ENOMEM;
	if ((nv = realloc(*v, (*n + 1) * sizeof(*nv))) == NULL) {
		free(copy);
		return -ENOMEM;
	}
	*v = nv;
	if (front) {
		memmove(nv + 1, nv, *n * sizeof(*nv));
		nv[0] = copy;
	} else
		nv[*n] = copy;
	(*n)++;
	return 0;
}

static bool
trigst_word_has(char **v, size_t n, const char *w)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], w) == 0)
			return true;
	return false;
}

/* The words of VALUE (LEN bytes) added to *V, each at its head if FRONT. */
static int
trigst_words(char ***v, size_t *n, const char *value, size_t len, bool front)
{
	const char *p = value, *end = value + len;
	size_t wl;
	int r;

	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\n'))
			p++;
		for (wl = 0; p + wl < end && p[wl] != ' ' && p[wl] != '\t' &&
		    p[wl] != '\n'; wl++)
			;
		if (wl > 0 && (r = trigst_word_add(v, n, p, wl, front)) != 0)
			return r;
		p += wl;
	}
	return 0;
}

/* The text stanza X has now: the one the run rewrote, or the old one. */
static const char *
trigst_text(const struct dpkgdb *db, const struct trigst *x, size_t *len)
{
	if (x->p != NULL) {
		*len = x->p->stanza_len;
		return x->p->stanza;
	}
	if (x->re != SIZE_MAX) {
		*len = strlen(db->restanza[x->re].text);
		return db->restanza[x->re].text;
	}
	*len = x->o->len;
	return x->o->text;
}

static int
trigst_read_field(const struct dpkgfmt_field *f, void *ctx)
{
	struct trigst *x = ctx;
	const char *st, *sp;

	if (x->p == NULL && dpkgfmt_field_is(f, "Status")) {
		/* "WANT EFLAG STATE": the state is the last word. */
		for (st = f->value, sp = st; sp < f->value + f->firstlen; sp++)
			if (*sp == ' ')
				st = sp + 1;
		snprintf(x->state, sizeof(x->state), "%.*s",
		    (int)(f->value + f->firstlen - st), st);
	} else if (dpkgfmt_field_is(f, "Config-Version"))
		x->cversion = true;
	else if (dpkgfmt_field_is(f, "Triggers-Pending"))
		return trigst_words(&x->pend, &x->npend, f->value, f->len,
		    true);
	else if (dpkgfmt_field_is(f, "Triggers-Awaited"))
		return trigst_words(&x->aw, &x->naw, f->value, f->len, false);
	return 0;
}

/*
 * X's fields read in: from its stanza before the run; for a package of
 * the run, the Triggers-Awaited of the version it replaces, which dpkg
 * keeps through the unpack.
 */
static int
trigst_read(const struct dpkgdb *db, struct trigst *x)
{
	const char *text;
	size_t len;

	if (x->read)
		return 0;
	x->read = true;
	if (x->p != NULL) {
		/* Removed, it awaits nothing (dpkg clears it then). */
		if (x->p->old == NULL || x->p->removal)
			return 0;
		text = x->p->old->text;
		len = x->p->old->len;
	} else
		text = trigst_text(db, x, &len);
	return dpkgfmt_fields(text, len, trigst_read_field, x);
}

static struct trigst *
trigst_push(struct trigst_set *s)
{
	struct trigst *v;

	if ((v = realloc(s->v, (s->n + 1) * sizeof(*v))) == NULL)
		return NULL;
	s->v = v;
	memset(&v[s->n], 0, sizeof(v[0]));
	v[s->n].re = SIZE_MAX;
	return &v[s->n++];
}

/* Every package of the run, and every other with trigger fields. */
static int
trigst_collect(struct dpkgdb *db, struct trigst_set *s)
{
	struct dpkgstatus_stanza *o;
	struct trigst *x;
	size_t i, k;
	int r;

	for (i = 0; i < db->nrun; i++) {
		if ((x = trigst_push(s)) == NULL)
			return -ENOMEM;
		x->p = &db->run[i];
		x->name = control_get(x->p->rec->ctl, "Package");
		x->arch = control_get(x->p->rec->ctl, "Architecture");
		/* What its old version awaited, its new stanza keeps. */
		if ((r = trigst_read(db, x)) != 0)
			return r;
	}
	for (i = 0; i < db->status.n; i++) {
		o = &db->status.v[i];
		for (k = 0; k < db->nrestanza; k++)
			if (db->restanza[k].name == o->name &&
			    db->restanza[k].arch == o->arch)
				break;
		if (o->replaced && k == db->nrestanza)
			continue;	/* a package of the run */
		if ((x = trigst_push(s)) == NULL)
			return -ENOMEM;
		x->o = o;
		x->name = o->name;
		x->arch = o->arch;
		x->re = k < db->nrestanza ? k : SIZE_MAX;
		/* Only stanzas with trigger fields are read now. */
		if (memmem(o->text, o->len, "\nTriggers-", 10) != NULL &&
		    (r = trigst_read(db, x)) != 0)
			return r;
	}
	return 0;
}

/* The package SPEC ("NAME" or "NAME:ARCH") names, read in; NULL: none. */
static struct trigst *
trigst_find(const struct dpkgdb *db, struct trigst_set *s, const char *spec,
    int *r)
{
	size_t i, len = strcspn(spec, ":");
	const char *arch = spec[len] == ':' ? spec + len + 1 : NULL;
	struct trigst *x;

	*r = 0;
	for (i = 0; i < s->n; i++) {
		x = &s->v[i];
		if (x->name == NULL || strlen(x->name) != len ||
		    strncmp(x->name, spec, len) != 0 || (arch != NULL &&
		    (x->arch == NULL || strcmp(x->arch, arch) != 0)))
			continue;
		*r = db != NULL ? trigst_read(db, x) : 0;
		return x;
	}
	return NULL;
}

static bool
trigst_configured(const struct trigst *x)
{
	return strcmp(x->state, "installed") == 0 ||
	    strcmp(x->state, "triggers-pending") == 0 ||
	    strcmp(x->state, "triggers-awaited") == 0;
}

/* Note N of the run's activations, as dpkg records it. */
static int
trigst_note(const struct dpkgdb *db, struct trigst_set *s,
    const struct dpkgtrig_note *n)
{
	struct trigst *pend, *aw;
	int r;

	if ((pend = trigst_find(db, s, n->pend, &r)) == NULL || r != 0)
		return r;
	/* Unpacked by the run (its triggers cleared), or not configured. */
	if (pend->p != NULL || !trigst_configured(pend))
		return 0;
	if (!trigst_word_has(pend->pend, pend->npend, n->trig)) {
		if ((r = trigst_word_add(&pend->pend, &pend->npend, n->trig,
		    strlen(n->trig), true)) != 0)
			return r;
		snprintf(pend->state, sizeof(pend->state), "%s", pend->naw > 0 ?
		    "triggers-awaited" : "triggers-pending");
		pend->changed = true;
	}
	if (n->aw == NULL || (aw = trigst_find(db, s, n->aw, &r)) == NULL ||
	    r != 0)
		return r;
	/* dpkg forgets what a package not installed awaits. */
	if (trigst_word_has(aw->aw, aw->naw, n->pend) || (aw->p == NULL &&
	    (strcmp(aw->state, "config-files") == 0 ||
	    strcmp(aw->state, "not-installed") == 0 || aw->state[0] == '\0')))
		return 0;
	if ((r = trigst_word_add(&aw->aw, &aw->naw, n->pend, strlen(n->pend),
	    false)) != 0)
		return r;
	aw->changed = true;
	if (aw->p == NULL && (strcmp(aw->state, "installed") == 0 ||
	    strcmp(aw->state, "triggers-pending") == 0))
		snprintf(aw->state, sizeof(aw->state), "triggers-awaited");
	return 0;
}

/*
 * The packages of the run, their triggers cleared, await nothing and
 * are awaited by none: dpkg takes them off the lists, and a package left
 * awaiting nothing goes back to triggers-pending or installed.
 */
static void
trigst_unawait(struct trigst_set *s, struct trigst *x)
{
	struct trigst *y;
	size_t i, k;
	int r;

	for (i = k = 0; i < x->naw; i++) {
		if ((y = trigst_find(NULL, s, x->aw[i], &r)) != NULL &&
		    y->p != NULL) {
			free(x->aw[i]);
			x->changed = true;
			continue;
		}
		x->aw[k++] = x->aw[i];
	}
	x->naw = k;
	if (k == 0 && x->p == NULL &&
	    strcmp(x->state, "triggers-awaited") == 0) {
		snprintf(x->state, sizeof(x->state), "%s", x->npend > 0 ?
		    "triggers-pending" : "installed");
		x->changed = true;
	}
}

/* How trigst_write copies a stanza. */
struct trigst_out {
	FILE *fp;
	const struct trigst *x;
	bool done;		/* the trigger fields written */
};

static void
trigst_fields(struct trigst_out *w)
{
	size_t i;

	if (w->done)
		return;
	w->done = true;
	if (w->x->npend > 0) {
		fputs("Triggers-Pending:", w->fp);
		for (i = 0; i < w->x->npend; i++)
			fprintf(w->fp, " %s", w->x->pend[i]);
		fputc('\n', w->fp);
	}
	if (w->x->naw > 0) {
		fputs("Triggers-Awaited:", w->fp);
		for (i = 0; i < w->x->naw; i++)
			fprintf(w->fp, " %s", w->x->aw[i]);
		fputc('\n', w->fp);
	}
}

static int
trigst_write_field(const struct dpkgfmt_field *f, void *ctx)
{
	struct trigst_out *w = ctx;
	char name[64];
	size_t k;

	if (dpkgfmt_field_is(f, "Triggers-Pending") ||
	    dpkgfmt_field_is(f, "Triggers-Awaited"))
		return 0;
	if (f->name == NULL)
		trigst_fields(w);	/* the stanza's end */
	else {
		/* dpkg writes its own fields first, the package's after. */
		snprintf(name, sizeof(name), "%.*s", (int)f->namelen, f->name);
		if (dpkgstatus_field(name) == NULL)
			trigst_fields(w);
	}
	/*
	 * dpkg writes the configured version as Config-Version in every
	 * state but installed and triggers-pending (then it is Version).
	 */
	if (w->x->p == NULL && dpkgfmt_field_is(f, "Config-Version") &&
	    (strcmp(w->x->state, "installed") == 0 ||
	    strcmp(w->x->state, "triggers-pending") == 0))
		return 0;
	if (w->x->p == NULL && dpkgfmt_field_is(f, "Version") &&
	    !w->x->cversion && strcmp(w->x->state, "triggers-awaited") == 0) {
		fwrite(f->text, 1, f->textlen, w->fp);
		fprintf(w->fp, "Config-Version: %.*s\n", (int)f->firstlen,
		    f->value);
		return 0;
	}
	if (w->x->p == NULL && dpkgfmt_field_is(f, "Status")) {
		/* The want and the eflag stay; the state is the last word. */
		for (k = f->firstlen; k > 0 && f->value[k - 1] != ' '; k--)
			;
		fprintf(w->fp, "Status: %.*s%s\n", (int)k, f->value,
		    w->x->state);
		return 0;
	}
	fwrite(f->text, 1, f->textlen, w->fp);
	return 0;
}

/* X's stanza with its trigger fields and state as they are now, in *OUT. */
static int
trigst_write(const struct dpkgdb *db, const struct trigst *x, char **out,
    size_t *outlen)
{
	struct trigst_out w = { .x = x };
	const char *text;
	size_t len;

	text = trigst_text(db, x, &len);
	if ((w.fp = open_memstream(out, outlen)) == NULL)
		return -ENOMEM;
	dpkgfmt_fields(text, len, trigst_write_field, &w);
	trigst_fields(&w);
	if (fclose(w.fp) != 0) {
		free(*out);
		return -ENOMEM;
	}
	return 0;
}

/* X's new stanza where the status file takes it. */
static int
trigst_store(struct dpkgdb *db, struct trigst *x)
{
	struct dpkgstatus_add *v;
	char *text;
	size_t len;
	int r;

	if ((r = trigst_write(db, x, &text, &len)) != 0)
		return r;
	if (x->p != NULL) {
		free(x->p->stanza);
		x->p->stanza = text;
		x->p->stanza_len = len;
		return 0;
	}
	if (x->re != SIZE_MAX) {
		free((char *)db->restanza[x->re].text);
		db->restanza[x->re].text = text;
		return 0;
	}
	if ((v = realloc(db->restanza, (db->nrestanza + 1) * sizeof(*v))) ==
	    NULL) {
		free(text);
		return -ENOMEM;
	}
	db->restanza = v;
	v[db->nrestanza].name = x->o->name;
	v[db->nrestanza].arch = x->o->arch;
	v[db->nrestanza].text = text;
	x->re = db->nrestanza++;
	x->o->replaced = true;
	return 0;
}

int
dpkgdb_trig_status(struct dpkgdb *db, const struct dpkgtrig *t,
    struct dbp_error *err)
{
	struct trigst_set s = { NULL, 0 };
	const struct dpkgtrig_note *n;
	struct trigst *x;
	size_t i, nn;
	int r;

	n = dpkgtrig_notes(t, &nn);
	if ((r = trigst_collect(db, &s)) != 0)
		goto out;
	for (i = 0; r == 0 && i < nn; i++)
		r = trigst_note(db, &s, &n[i]);
	for (i = 0; r == 0 && i < s.n; i++) {
		x = &s.v[i];
		if (!x->read)
			continue;
		trigst_unawait(&s, x);
		/*
		 * Read and written by dpkg, a list of two names turns.  The
		 * run's new stanzas have no trigger fields yet.
		 */
		if (x->p != NULL ? !x->p->removal && x->naw > 0 :
		    x->changed || x->npend > 1)
			r = trigst_store(db, x);
	}
out:
	trigst_set_free(&s);
	if (r != 0)
		return dbp_err(err, -r, DPKGDB_DIR "/status", "cannot write");
	return 0;
}
