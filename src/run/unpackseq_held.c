/* SPDX-License-Identifier: MIT */
/* unpackseq: the stanzas a batch holds back until the old postrms ran. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "db/dpkgdb.h"
#include "run/unpackseq_int.h"

/*
 * dpkg installs a package's new status only once its old postrm upgrade
 * ran (src/main/unpack.c): until then the stanza is its old version's,
 * reinstreq half-installed.  The batch commits that one for such a
 * package (dpkgdb_set_pending), the new one held back, and the sequence
 * writes the new one after the group's postrms.
 */

/*
 * Whether P's old postrm runs after the batch (step 5): until it has,
 * dpkg's status keeps P half-installed and reinstreq, as dpkg's does, so
 * that a kill or a power cut before its end leaves P to be installed
 * again, not configured (seq_unpacked writes it unpacked after).
 */
bool
seq_postrm_after(const struct seq_pkg *p)
{
	return p->upgrade && p->keep_postrm;
}

/*
 * V (*N of them): the stanzas the batch holds back, of the packages of
 * [FROM, TO) ready for it whose old postrm runs after it: each commits
 * its half-installed one, that of its old version, as dpkg's status has
 * it while that script runs.  What V held before is freed.  0 or -ENOMEM.
 */
int
seq_hold_back(struct seq *s, size_t from, size_t to, struct dpkgdb_pending *v,
    size_t *n)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		free(v[i].now);
		free(v[i].held);
	}
	*n = 0;
	for (i = from; i < to; i++) {
		struct seq_pkg *p = &s->v[i];

		if (p->state != SEQ_READY || !seq_postrm_after(p))
			continue;
		v[*n].name = p->name;
		v[*n].held = NULL;
		if ((v[(*n)++].now = seq_stanza(p, NULL, "half-installed")) ==
		    NULL)
			return -ENOMEM;
	}
	return 0;
}

/* The new stanzas the committed batch held back (V, N), to their packages. */
void
seq_take_held(struct seq *s, size_t from, size_t to, struct dpkgdb_pending *v,
    size_t n)
{
	size_t i, k;

	for (k = 0; k < n; k++)
		for (i = from; v[k].held != NULL && i < to; i++)
			if (s->v[i].state == SEQ_DONE && s->v[i].held == NULL &&
			    strcmp(s->v[i].name, v[k].name) == 0) {
				s->v[i].held = v[k].held;
				v[k].held = NULL;
			}
}

/*
 * Step 6, once the group's scripts after the batch ran: the packages
 * whose old postrm ran (seq_postrm_after) unpacked in dpkg's status, in
 * one write, as dpkg notes each once its unpack is done.
 */
int
seq_unpacked(struct seq *s, size_t from, size_t to, struct dbp_error *err)
{
	struct seq_pkg **pv;
	char **tv;
	size_t i, n = 0;
	int r = 0;

	pv = calloc(to - from + 1, sizeof(*pv));
	tv = calloc(to - from + 1, sizeof(*tv));
	if (pv == NULL || tv == NULL)
		r = dbp_err(err, ENOMEM, NULL, "cannot write status");
	for (i = from; r == 0 && i < to; i++) {
		if (s->v[i].state != SEQ_DONE || !seq_postrm_after(&s->v[i]))
			continue;
		if (s->v[i].held == NULL) {
			/* Nothing of it stays in the status: nothing held. */
			seq_status(s, &s->v[i], "unpacked");
			continue;
		}
		pv[n] = &s->v[i];
		tv[n++] = s->v[i].held;
	}
	if (r == 0 && n > 0 && (r = seq_status_write(s, pv, tv, n, false, err)) == 0)
		for (i = 0; i < n; i++)
			seq_status(s, pv[i], "unpacked");
	for (i = 0; i < n; i++) {
		free(pv[i]->held);
		pv[i]->held = NULL;
	}
	free(pv);
	free(tv);
	return r;
}
