/* SPDX-License-Identifier: MIT */
/* unpackseq: the sequence's steps told, which every unpackseq_*.c uses. */
#include "config.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "db/dpkgfmt.h"
#include "run/unpackseq_int.h"

/*
 * Apart from unpackseq.c so that the files of the sequence form a tree:
 * unpackseq.c runs them, they all tell through these.
 */

void
seq_say(struct seq *s, enum unpackseq_step step, const struct seq_pkg *p,
    const char *msg)
{
	struct install_note n = { .event = INSTALL_SEQ, .seq = step,
	    .msg = msg };

	if (p != NULL) {
		n.pkg = p->file;
		n.name = p->shown;
		n.version = p->version != NULL ? dpkgfmt_version(p->version) :
		    NULL;
		n.old_version = p->old_version;
		n.upgrade = p->upgrade;
	}
	if (s->o->note != NULL)
		s->o->note(s->o->ctx, &n);
}

void
seq_status(struct seq *s, const struct seq_pkg *p, const char *state)
{
	seq_say(s, UNPACKSEQ_STATUS, p, state);
}

/* Package P failed: MSG (dpkg's words) told, the failure counted. */
void
seq_fail_err(struct seq *s, struct seq_pkg *p, const struct dbp_error *e)
{
	char line[3 * PATH_MAX];

	snprintf(line, sizeof(line), "%s%s%s%s", e->path[0] != '\0' ? "'" : "",
	    e->path, e->path[0] != '\0' ? "': " : "", e->msg);
	if (e->errnum != 0)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
		    ": %s", strerror(e->errnum));
	seq_fail(s, p, line);
}

void
seq_fail(struct seq *s, struct seq_pkg *p, const char *msg)
{
	p->state = SEQ_FAILED;
	s->failed++;
	seq_say(s, UNPACKSEQ_FAILED, p, msg);
}
