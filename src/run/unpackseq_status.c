/* SPDX-License-Identifier: MIT */
/* unpackseq: dpkg's status file through the sequence (states, stanzas, counts). */
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
#include "durable/fskind.h"
#include "run/unpackseq_int.h"
#include "util/strhash.h"

/*
 * TEXT with the Priority and Section of P's new control, where it has
 * them, in dpkg's place for them (after Status): they are the package's,
 * not a version's, and dpkg takes them from the archive as soon as it
 * reads its control, so every stanza it writes from then on has them,
 * that of an undone install or upgrade too.  The caller frees it; NULL
 * when out of memory.
 */
static char *
seq_classified(const struct seq_pkg *p, const char *text)
{
	const char *prio = control_get(p->ctl, "Priority");
	const char *sect = control_get(p->ctl, "Section");
	const char *line, *end;
	char *t = NULL;
	size_t len;
	FILE *fp;

	if ((fp = open_memstream(&t, &len)) == NULL)
		return NULL;
	for (line = text; *line != '\0'; line = end) {
		end = strchr(line, '\n');
		end = end != NULL ? end + 1 : line + strlen(line);
		if ((prio != NULL && strncmp(line, "Priority: ", 10) == 0) ||
		    (sect != NULL && strncmp(line, "Section: ", 9) == 0))
			continue;
		fwrite(line, 1, (size_t)(end - line), fp);
		if (strncmp(line, "Status: ", 8) != 0)
			continue;
		if (prio != NULL)
			fprintf(fp, "Priority: %s\n", prio);
		if (sect != NULL)
			fprintf(fp, "Section: %s\n", sect);
	}
	if (fclose(fp) != 0) {
		free(t);
		return NULL;
	}
	return t;
}

/*
 * The new status file's data on the disk before its rename can be: where
 * the filesystem orders the rest after it (fskind_writeback_orders),
 * written back and waited for, and the one commit of the directory's
 * fsync makes both durable.  On btrfs settled (fskind_settles): its
 * extents and size are then in the running transaction, before the
 * rename, and the call's next syncfs, which its rename waits for
 * (seq_status_owes), commits both; the fdatasync's log-tree sync, two
 * device flushes, is saved (syncfs.c, syncfs_wait_data, says why no log
 * of another program's can carry the rename alone).  Not with
 * --sync-mode none, where no syncfs comes.  Else its own fdatasync
 * first, as dpkg's.  0, or -1 with errno set.
 */
static int
seq_status_data(struct seq *s, int fd)
{
	int r;

	if (s->ad_order && (r = fileat_writeback(fd)) <= 0)
		return r;
	if (s->ad_settle && (r = fileat_writeback_mapped(fd)) <= 0) {
		if (r == 0)
			s->st->calls[SC_FIEMAP]++;
		return r;
	}
	return fdatasync(fd);
}

/*
 * The batches leave their commit here where the filesystem keeps its
 * changes in order (syncbatch_defer_end): a crash before it keeps a
 * prefix of the call's changes, each batch whole or repaired from its
 * journal, as its own barriers would.  Before a script runs, so that a
 * script always starts from a durable root, as with dpkg; and before the
 * call returns.  Every batch of the call writes dpkg's status, so the
 * one filesystem it changed is the one of dpkg's directory.
 * What is owed is a commit: the data under it was written back and
 * waited for already (syncfs.c, syncfs_wait_data; seq_status_data).
 * Where one fsync commits every earlier change (xfs, a journaled ext4:
 * fskind_fsync_commits_all), the directory's fsync is that commit, once
 * its times are touched: xfs forces its log up to the inode's last
 * change, which must come after the call's; ext4 commits the running
 * transaction, after every earlier one.  A syncfs there would also write
 * back whatever else is dirty on the filesystem (apt's logs, a script's
 * files), and ext4 then commits twice where those writes allocate
 * blocks: two device flushes more, in some calls and not others.
 */
int
seq_settle(struct seq *s, bool end, struct dbp_error *err)
{
	if (!s->owed && !(end && s->owed_end))
		return 0;
	if (s->ad_fsync_all && futimens(s->adfd, NULL) == 0) {
		s->st->calls[SC_FSYNC]++;
		if (fsync(s->adfd) != 0)
			return dbp_err(err, errno, SEQ_ADMIN, "cannot sync");
	} else {
		s->st->calls[SC_SYNCFS]++;
		if (syncfs(s->adfd) != 0)
			return dbp_err(err, errno, SEQ_ADMIN, "cannot sync");
	}
	s->owed = s->owed_end = false;
	return 0;
}

/*
 * Whether a write of dpkg's status may leave its rename's commit to the
 * call (OWED), where syncfs is trusted: its data is on the disk before
 * the rename (seq_status_data), and every change that must not be
 * durable before it waits for a syncfs of the filesystem, which commits
 * it too.  A script is preceded by seq_settle, a batch's first rename by
 * its data barrier or a syncfs of its own (install's cover_admin), the
 * call's return by seq_settle; what comes between is the call's own
 * bookkeeping, or a later write of the status, which holds this one's
 * changes.
 * Where the directory's fsync commits every change of the filesystem
 * (xfs, a journaled ext4), it is one commit, cheaper than a syncfs
 * there (which can take two, and a flush more): the write keeps it, and
 * settles what the call owed, unless the batch comes next (CARRIED: the
 * half-installed stanzas before a group whose only script was a prerm),
 * whose commit before the postrms makes both durable, the journal
 * keeping the rename before the batch's.  On btrfs, where that fsync
 * is a log-tree sync of its own, the call's next syncfs carries it
 * always: the batch's data barrier, or the one before a script or the
 * return.  Elsewhere (an overlay, a filesystem syncfs does not reach):
 * the directory's fsync, as dpkg; and with --sync-mode none, where the
 * tree is not synced at all and the call's syncfs would sync it.
 */
static bool
seq_status_owes(const struct seq *s, bool carried)
{
	return (s->in.mode == NULL || strcmp(s->in.mode, "none") != 0) &&
	    s->ad_syncfs && (carried || !s->ad_fsync_all);
}

/*
 * The new status: dpkg's status OLD (LEN) with the stanza of each
 * package in P (N) replaced by TEXT[i] (NULL: left out), in *OUT (*OLEN,
 * the caller frees it).  0 or -errno.
 */
static int
seq_status_merge(struct seq_pkg *const *p, char *const *text, size_t n,
    const char *old, size_t len, char **out, size_t *olen)
{
	struct dpkgstatus status = { NULL, 0 };
	struct dpkgstatus_add *add;
	char **mine;
	size_t nadd = 0, i;
	int r;

	if ((r = dpkgstatus_parse(&status, old != NULL ? old : "", len)) != 0)
		return r;
	add = calloc(n + 1, sizeof(*add));
	mine = calloc(n + 1, sizeof(*mine));
	if (add == NULL || mine == NULL)
		r = -ENOMEM;
	for (i = 0; r == 0 && i < n; i++) {
		(void)dpkgstatus_take(&status, p[i]->name, p[i]->arch,
		    p[i]->ma);
		if (text[i] == NULL)
			continue;
		/* A package of the call, read from its archive. */
		if (p[i]->ctl != NULL && p[i]->file != NULL &&
		    (mine[i] = seq_classified(p[i], text[i])) == NULL)
			r = -ENOMEM;
		add[nadd].name = p[i]->name;
		add[nadd].arch = p[i]->arch;
		add[nadd++].text = mine[i] != NULL ? mine[i] : text[i];
	}
	if (r == 0)
		r = dpkgstatus_merge(&status, add, nadd, out, olen);
	for (i = 0; mine != NULL && i < n; i++)
		free(mine[i]);
	free(mine);
	free(add);
	dpkgstatus_clear(&status);
	return r;
}

/*
 * OUT (LEN) into status-new, dpkg's own temporary name (dpkg removes it
 * if we leave it); with DATA, its data on the disk (seq_status_data).
 * 0 or -errno.
 */
static int
seq_status_put(struct seq *s, const char *out, size_t len, bool data)
{
	ssize_t w;
	int fd, r = 0;

	if ((fd = openat(s->adfd, "status-new", O_WRONLY | O_CREAT | O_TRUNC |
	    O_CLOEXEC | O_NOFOLLOW, 0644)) < 0)
		return -errno;
	while (r == 0 && len > 0) {
		if ((w = write(fd, out, len)) < 0) {
			if (errno != EINTR)
				r = -errno;
			continue;
		}
		out += w;
		len -= (size_t)w;
	}
	if (r == 0 && data && seq_status_data(s, fd) != 0)
		r = -errno;
	if (close(fd) != 0 && r == 0)
		r = -errno;
	return r;
}

void
seq_pre_clear(struct seq *s)
{
	size_t i;

	for (i = 0; i < s->pre.n; i++)
		free(s->pre.text[i]);
	free(s->pre.text);
	free(s->pre.pkg);
	free(s->pre.base);
	memset(&s->pre, 0, sizeof(s->pre));
}

/*
 * The write after the postrms (seq_unpacked) made ahead, while the
 * batch's names barrier is still to come: its stanzas are known once
 * the batch has renamed dpkg's status (they are held back, not
 * invented), and nothing but this call changes that status meanwhile
 * (the postrms cannot run dpkg, whose lock the call holds).  Where that
 * barrier is a syncfs (btrfs), it makes status-new's data durable with
 * the names, and the write after the postrms only renames it: on btrfs
 * its fdatasync, a log-tree sync of two device flushes, is saved; on xfs
 * and a journaled ext4 its writeback finds nothing left.  The packages
 * and stanzas are those seq_take_held will hand out, in seq_unpacked's
 * order; the status they were merged into is kept, so that any other
 * write in between (a postrm that failed, a disappearing package, a
 * conflicting one removed) makes the file stale, not wrong.  A failure
 * here is that write's: the next write of the status says it and fails.
 * Only where it saves that fdatasync: on xfs and a journaled ext4 the
 * status is written back, not synced, and its dirty pages would instead
 * reach the syncfs before the postrms, where ext4's allocation of them
 * takes a second commit (measured: two device flushes more per call).
 * Not with --sync-mode none, which syncs no tree to carry it.
 */
void
seq_prewrite(struct seq *s)
{
	struct seq_pre pre = { NULL, 0, NULL, NULL, 0, 0 };
	const char **taken;
	char *out = NULL;
	size_t olen = 0, i, k;
	int r = -ENOMEM;

	seq_pre_clear(s);
	if (s->ad_order || !s->ad_syncfs || (s->in.mode != NULL &&
	    strcmp(s->in.mode, "none") == 0))
		return;
	taken = calloc(s->to - s->from + 1, sizeof(*taken));
	pre.pkg = calloc(s->to - s->from + 1, sizeof(*pre.pkg));
	pre.text = calloc(s->to - s->from + 1, sizeof(*pre.text));
	if (taken == NULL || pre.pkg == NULL || pre.text == NULL)
		goto out;
	r = 0;
	/* As seq_take_held: each stanza to the first package of its name. */
	for (k = 0; k < s->in.npending; k++)
		for (i = s->from; s->in.pending[k].held != NULL && i < s->to;
		    i++)
			if (s->v[i].state == SEQ_READY &&
			    taken[i - s->from] == NULL &&
			    strcmp(s->v[i].name, s->in.pending[k].name) == 0) {
				taken[i - s->from] = s->in.pending[k].held;
				break;
			}
	for (i = s->from; i < s->to; i++) {
		if (s->v[i].state != SEQ_READY || !seq_postrm_after(&s->v[i]) ||
		    taken[i - s->from] == NULL)
			continue;
		pre.pkg[pre.n] = &s->v[i];
		if ((pre.text[pre.n++] = strdup(taken[i - s->from])) == NULL) {
			r = -ENOMEM;
			goto out;
		}
	}
	if (pre.n > 0 && (r = fileat_read(s->adfd, "status", &pre.base,
	    &pre.blen)) == -ENOENT)
		r = 0;	/* none to write over: left to that write */
	if (r != 0 || pre.n == 0 || pre.base == NULL ||
	    (r = seq_status_merge(pre.pkg, pre.text, pre.n, pre.base,
	    pre.blen, &out, &olen)) != 0)
		goto out;
	r = seq_status_put(s, out, olen, false);
	free(out);
	if (r == 0) {
		s->pre = pre;
		pre = (struct seq_pre){ NULL, 0, NULL, NULL, 0, 0 };
	}
out:
	s->pre.err = r;
	free(taken);
	for (i = 0; i < pre.n; i++)
		free(pre.text[i]);
	free(pre.text);
	free(pre.pkg);
	free(pre.base);
}

/* Whether status-new holds this write already (seq_prewrite). */
static bool
seq_pre_fits(const struct seq *s, struct seq_pkg *const *p, char *const *text,
    size_t n, const char *old, size_t len)
{
	size_t i;

	if (s->pre.base == NULL || old == NULL || n != s->pre.n ||
	    len != s->pre.blen || memcmp(old, s->pre.base, len) != 0)
		return false;
	for (i = 0; i < n; i++)
		if (p[i] != s->pre.pkg[i] || text[i] == NULL ||
		    strcmp(text[i], s->pre.text[i]) != 0)
			return false;
	return true;
}

/* status-new as seq_prewrite left it, its data on the disk.  0 or -errno. */
static int
seq_pre_data(struct seq *s)
{
	int fd, r = 0;

	if ((fd = openat(s->adfd, "status-new", O_WRONLY | O_CLOEXEC |
	    O_NOFOLLOW)) < 0)
		return -errno;
	if (seq_status_data(s, fd) != 0)
		r = -errno;
	if (close(fd) != 0 && r == 0)
		r = -errno;
	return r;
}

/*
 * dpkg's status file rewritten with the stanza of each package in P (N)
 * replaced by TEXT[i] (NULL: left out), its data on the disk before it
 * replaces the old one; the rename then committed by the directory's
 * fsync, or left to the call's next syncfs (seq_status_owes, CARRIED:
 * the call's batch comes next).  Where seq_prewrite wrote it already,
 * only its data is seen to.
 */
int
seq_status_write(struct seq *s, struct seq_pkg *const *p, char *const *text,
    size_t n, bool carried, struct dbp_error *err)
{
	char *old = NULL, *out = NULL;
	size_t len = 0, olen = 0;
	bool pre;
	int r;

	/* Its early write failed: it did (seq_prewrite). */
	if ((r = s->pre.err) != 0) {
		seq_pre_clear(s);
		return dbp_err(err, -r, SEQ_ADMIN "/status", "cannot write");
	}
	if ((r = fileat_read(s->adfd, "status", &old, &len)) != 0 &&
	    r != -ENOENT) {
		seq_pre_clear(s);
		return dbp_err(err, -r, SEQ_ADMIN "/status", "cannot read");
	}
	pre = seq_pre_fits(s, p, text, n, old, len);
	seq_pre_clear(s);
	r = pre ? 0 : seq_status_merge(p, text, n, old, len, &out, &olen);
	free(old);
	if (r == -ENOMEM)
		return dbp_err(err, ENOMEM, NULL, "cannot write status");
	if (r != 0)
		return dbp_err(err, -r, SEQ_ADMIN "/status", "cannot parse");
	r = pre ? seq_pre_data(s) : seq_status_put(s, out, olen, true);
	free(out);
	if (r == 0 && renameat(s->adfd, "status-new", s->adfd, "status") != 0)
		r = -errno;
	if (r == 0 && seq_status_owes(s, carried))
		s->owed = true;
	else if (r == 0 && fsync(s->adfd) != 0)
		r = -errno;
	/* It committed every change before it (seq_settle's too). */
	else if (r == 0 && s->ad_fsync_all)
		s->owed = s->owed_end = false;
	return r != 0 ? dbp_err(err, -r, SEQ_ADMIN "/status", "cannot write")
	    : 0;
}

/*
 * P's stanza in STATE (dpkg's "half-installed", ...), with the eflag
 * reinstreq as dpkg sets it while it works on a package: over stanza
 * BASE (P's before the call when NULL), or (not installed before) the
 * few fields dpkg keeps then.  A configured version becomes
 * Config-Version, as dpkg notes it once the package is no longer
 * installed.  The caller frees it; NULL when out of memory.
 */
char *
seq_stanza(const struct seq_pkg *p, const char *base, const char *state)
{
	const char *line, *end;
	char *t = NULL;
	size_t len;
	FILE *fp;

	if (base == NULL && strcmp(p->old_state, "not-installed") != 0)
		base = p->old_text;
	if ((fp = open_memstream(&t, &len)) == NULL)
		return NULL;
	if (base == NULL) {
		fprintf(fp, "Package: %s\nStatus: install reinstreq %s\n"
		    "Architecture: %s\n", p->name, state, p->arch != NULL ?
		    p->arch : "");
		if (p->ma != NULL)
			fprintf(fp, "Multi-Arch: %s\n", p->ma);
		fprintf(fp, "Version: %s\n", p->version);
	} else
		for (line = base; *line != '\0'; line = end) {
			end = strchr(line, '\n');
			end = end != NULL ? end + 1 : line + strlen(line);
			if (strncmp(line, "Status: ", 8) == 0) {
				/* The want stays, the eflag is dpkg's. */
				fprintf(fp, "Status: %.*s reinstreq %s\n",
				    (int)strcspn(line + 8, " \n"), line + 8,
				    state);
				continue;
			}
			if (strncmp(line, "Config-Version: ", 16) == 0 &&
			    base != p->old_text)
				continue;
			/* dpkg clears the triggers of a package it works on. */
			if (strncmp(line, "Triggers-Pending:", 17) == 0)
				continue;
			fwrite(line, 1, (size_t)(end - line), fp);
			if (strncmp(line, "Version: ", 9) == 0 &&
			    base == p->old_text && p->old_cversion == NULL &&
			    (strcmp(p->old_state, "installed") == 0 ||
			    strcmp(p->old_state, "triggers-pending") == 0))
				fprintf(fp, "Config-Version: %s\n",
				    p->old_version);
		}
	if (fclose(fp) != 0) {
		free(t);
		return NULL;
	}
	return t;
}

/* P's stanza in dpkg's status as it is now, or NULL.  The caller frees it. */
char *
seq_current(struct seq *s, const struct seq_pkg *p)
{
	struct dpkgstatus status = { NULL, 0 };
	const struct dpkgstatus_stanza *o;
	char *text = NULL, *t = NULL;
	size_t len = 0;

	if (fileat_read(s->adfd, "status", &text, &len) != 0)
		return NULL;
	if (dpkgstatus_parse(&status, text, len) == 0 &&
	    (o = dpkgstatus_peek(&status, p->name, p->arch, p->ma)) != NULL)
		t = strndup(o->text, o->len);
	dpkgstatus_clear(&status);
	free(text);
	return t;
}

/*
 * What dpkg leaves of a package whose new install was undone.  Once its
 * half-installed stanza was written (WRITTEN), dpkg's record of the
 * package keeps the Multi-Arch it had there.
 */
char *
seq_not_installed(const struct seq_pkg *p, bool written)
{
	bool ma = written && p->ma != NULL && strcmp(p->ma, "no") != 0;
	char *t;

	if (p->old_text != NULL && strcmp(p->old_state, "not-installed") != 0)
		return strdup(p->old_text);
	if (asprintf(&t, "Package: %s\nStatus: install ok not-installed\n"
	    "Architecture: %s\n%s%s%s", p->name, p->arch != NULL ? p->arch : "",
	    ma ? "Multi-Arch: " : "", ma ? p->ma : "", ma ? "\n" : "") < 0)
		return NULL;
	return t;
}

/* Write one package's stanza: TEXT taken (freed), NULL out of memory. */
int
seq_status_one(struct seq *s, struct seq_pkg *p, char *text,
    struct dbp_error *err)
{
	int r;

	if (text == NULL)
		return dbp_err(err, ENOMEM, NULL, "cannot write status");
	r = seq_status_write(s, &p, &text, 1, false, err);
	free(text);
	return r;
}

/* The names counted so far (seq_count_files), each in a text it keeps. */
struct seq_names {
	char **v;
	size_t n, cap;
	char **texts;
	size_t ntexts;
};

/*
 * NAME as dpkg's file table keys it: leading slashes and "./" pairs
 * skipped, a trailing slash dropped ("/." stays ".": the root, which
 * dpkg counts as any name).  -1 when out of memory.
 */
static int
seq_names_add(struct seq_names *nm, char *name)
{
	char **nv;
	size_t len;

	for (;;) {
		if (*name == '/')
			name++;
		else if (name[0] == '.' && name[1] == '/')
			name += 2;
		else
			break;
	}
	len = strlen(name);
	if (len > 0 && name[len - 1] == '/')
		name[len - 1] = '\0';
	if (*name == '\0')
		return 0;
	/* Tens of thousands of names: the array doubles, never one more. */
	if (nm->n == nm->cap) {
		if ((nv = reallocarray(nm->v, nm->cap != 0 ? 2 * nm->cap :
		    4096, sizeof(*nv))) == NULL)
			return -1;
		nm->v = nv;
		nm->cap = nm->cap != 0 ? 2 * nm->cap : 4096;
	}
	nm->v[nm->n++] = name;
	return 0;
}

/*
 * The text of admin file FILE kept in NM, in *TEXT (NULL when there is
 * none): 0, or -1 when it cannot be read.
 */
static int
seq_names_read(struct seq *s, struct seq_names *nm, const char *file,
    char **text)
{
	char **nt;
	size_t len;
	int r;

	*text = NULL;
	if ((r = fileat_read(s->adfd, file, text, &len)) == -ENOENT)
		return 0;
	if (r != 0)
		return -1;
	if ((nt = realloc(nm->texts, (nm->ntexts + 1) * sizeof(*nt))) == NULL) {
		free(*text);
		*text = NULL;
		return -1;
	}
	nm->texts = nt;
	nm->texts[nm->ntexts++] = *text;
	return 0;
}

/*
 * The lines of TEXT (NULL: none) into NM, as KIND has them: 'l' a file
 * list's, each line; 'd' diversions', the first two of each three (the
 * third names a package); 's' statoverride's, the path after the owner,
 * group and mode; 't' triggers/File's, the path before the package.  -1
 * when out of memory.
 */
static int
seq_names_lines(struct seq_names *nm, char *text, char kind)
{
	bool statov = kind == 's';
	char *line, *nl, *p;
	size_t nth;
	int k;

	for (line = text, nth = 0; line != NULL && *line != '\0';
	    line = nl + 1, nth++) {
		if ((nl = strchr(line, '\n')) == NULL)
			nl = line + strlen(line) - 1;
		else
			*nl = '\0';
		if (kind == 'd' && nth % 3 == 2)
			continue;
		for (p = line, k = 0; statov && k < 3 && p != NULL; k++)
			if ((p = strchr(p, ' ')) != NULL)
				p++;
		if (statov && p == NULL)
			continue;
		if (kind == 't' && (p = strchr(line, ' ')) != NULL)
			*p = '\0';
		if (seq_names_add(nm, statov ? p : line) != 0)
			return -1;
	}
	return 0;
}

/*
 * How many of NM's names differ, each looked up once in a table of
 * twice as many slots (strhash.h, open addressing): sorting the tens
 * of thousands of a big root's lists cost as much as reading them, in
 * every call apt makes.
 * -1 when out of memory.
 */
static long
seq_names_distinct(const struct seq_names *nm)
{
	const char **slot;
	size_t size = 16, i, h;
	long count = 0;

	while (size < 2 * nm->n)
		size *= 2;
	if ((slot = calloc(size, sizeof(*slot))) == NULL)
		return -1;
	for (i = 0; i < nm->n; i++) {
		for (h = strhash(nm->v[i]) & (size - 1); slot[h] != NULL &&
		    strcmp(slot[h], nm->v[i]) != 0; h = (h + 1) & (size - 1))
			continue;
		if (slot[h] == NULL) {
			slot[h] = nm->v[i];
			count++;
		}
	}
	free(slot);
	return count;
}

/*
 * How many names dpkg's file table holds when it says "N files and
 * directories currently installed": the paths of dpkg-divert's
 * diversions, dpkg-statoverride's overrides and the file triggers'
 * interests (triggers/File), which it reads first,
 * and every line of the file lists of the packages in S that are
 * installed in any way, "/." included, each name once.  -1 when a file
 * cannot be read.
 */
long
seq_count_files(struct seq *s, const struct dpkgstatus *st)
{
	struct seq_names nm = { NULL, 0, 0, NULL, 0 };
	char *infoname, *text, file[NAME_MAX + 1];
	long count = 0;
	size_t i;

	if (seq_names_read(s, &nm, "diversions", &text) != 0 ||
	    seq_names_lines(&nm, text, 'd') != 0 ||
	    seq_names_read(s, &nm, "statoverride", &text) != 0 ||
	    seq_names_lines(&nm, text, 's') != 0 ||
	    seq_names_read(s, &nm, "triggers/File", &text) != 0 ||
	    seq_names_lines(&nm, text, 't') != 0)
		count = -1;
	for (i = 0; count >= 0 && i < st->n; i++) {
		if (strcmp(dpkgstatus_state(&st->v[i]), "not-installed") == 0)
			continue;
		if ((infoname = dpkgstatus_infoname(st->v[i].name,
		    st->v[i].arch, st->v[i].ma)) == NULL) {
			count = -1;
			break;
		}
		snprintf(file, sizeof(file), "info/%s.list", infoname);
		free(infoname);
		if (seq_names_read(s, &nm, file, &text) != 0 ||
		    seq_names_lines(&nm, text, 'l') != 0)
			count = -1;
	}
	if (count >= 0)
		count = seq_names_distinct(&nm);
	for (i = 0; i < nm.ntexts; i++)
		free(nm.texts[i]);
	free(nm.texts);
	free(nm.v);
	return count;
}

/* P's state before the call, from dpkg's status S. */
unsigned
seq_instances(const struct dpkgstatus *s, const char *name, const char *but)
{
	unsigned n = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i].name, name) == 0 && (but == NULL ||
		    (s->v[i].arch != NULL && strcmp(s->v[i].arch, but) != 0)) &&
		    strcmp(dpkgstatus_state(&s->v[i]), "not-installed") != 0)
			n++;
	return n;
}

void
seq_count_others(struct seq_pkg *p, const struct dpkgstatus *s)
{
	p->others = p->arch != NULL ? seq_instances(s, p->name, p->arch) : 0;
}

int
seq_old(struct seq_pkg *p, struct dpkgstatus *s)
{
	const struct dpkgstatus_stanza *o;

	seq_count_others(p, s);
	p->old_state = "not-installed";
	if ((o = dpkgstatus_peek(s, p->name, p->arch, p->ma)) == NULL)
		return 0;
	if ((p->old_text = strndup(o->text, o->len)) == NULL)
		return -ENOMEM;
	{
		static const char *const states[] = { "installed",
		    "config-files", "unpacked", "half-installed",
		    "half-configured", "triggers-awaited",
		    "triggers-pending" };
		size_t k;

		for (k = 0; k < sizeof(states) / sizeof(states[0]); k++)
			if (strcmp(dpkgstatus_state(o), states[k]) == 0)
				p->old_state = states[k];
	}
	if (o->version != NULL &&
	    (p->old_version = strdup(dpkgfmt_version(o->version))) == NULL)
		return -ENOMEM;
	if (o->cversion != NULL && (p->old_cversion = strdup(o->cversion)) ==
	    NULL)
		return -ENOMEM;
	p->upgrade = dpkgstatus_installed(o);
	return 0;
}
