/* SPDX-License-Identifier: MIT */
/* unpackseq: dpkg --unpack's maintainer scripts and states around debunpack's batch. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/dpkgdb.h"
#include "db/dpkgfmt.h"
#include "db/dpkgstatus.h"
#include "db/version.h"
#include "deb/deb.h"
#include "durable/fileat.h"
#include "durable/rootfs.h"
#include "run/maintscript.h"
#include "run/pkgfiles.h"
#include "run/unpackseq.h"

/*
 * dpkg --unpack runs, for each package in turn: the old prerm, the new
 * preinst, the files, the old postrm (src/main/unpack.c).  debunpack
 * puts the files of all the packages of a call in one batch, made
 * durable by one barrier, so the scripts are grouped around it: every
 * prerm and preinst of a group first, then the batch, then every
 * postrm.  Debian Policy allows it:
 *
 *   - a preinst may rely only on Essential packages and on its
 *     Pre-Depends (§3.5, §7.2), and apt configures Pre-Depends in an
 *     earlier dpkg call; an Essential package works while merely
 *     unpacked, and its old version works until its files are replaced;
 *   - a postrm may rely only on Essential packages (§6.5);
 *   - a prerm runs while its package's files are all there, whatever
 *     the other packages of the call do.
 *
 * So no script of a group can tell whether another package of the group
 * was unpacked before it ran, except where a package of the call is
 * Essential (the old version of an Essential package is gone once its
 * batch commits, and a later preinst expects the new one) or is
 * Pre-Depended on by a later package of the call (which apt does not do,
 * but dpkg would honour the order).  Such a package ends its group: the
 * packages after it form the next group, with a batch of their own, so
 * that their scripts see it unpacked, as with dpkg.
 */

#define SEQ_ADMIN	DPKGDB_DIR
#define SEQ_CI		"tmp.ci"		/* dpkg's name for it */
#define SEQ_OLD		"tmp.debunpack-old"	/* old postrms, kept */

enum seq_state {
	SEQ_TODO,	/* not yet run */
	SEQ_FAILED,	/* failed, unwound as dpkg unwinds it */
	SEQ_READY,	/* its preinst ran: into the batch */
	SEQ_DONE,	/* committed */
};

struct seq_pkg {
	const char *file;
	struct control *ctl;
	const char *name, *arch, *ma, *version;	/* owned by CTL */
	char *infoname;		/* info/ file stem */
	char shown[256];	/* as dpkg names it: NAME[:ARCH] */
	struct deb_info *info;
	size_t ninfo;
	bool essential;
	/* Before the call: its stanza verbatim, its state, its version. */
	char *old_text;
	char *old_version;	/* as dpkg prints it, or NULL */
	char *old_cversion;
	const char *old_state;	/* static: "installed", ..., "not-installed" */
	bool upgrade;		/* an old version's files are there */
	bool prerm_ran;
	bool keep_postrm;	/* its old postrm copied aside */
	enum seq_state state;
};

/* A package the batch makes disappear: its postrm and list kept aside. */
struct seq_gone {
	char *name, *arch, *infoname, *version;
	char shown[256];
	bool postrm;		/* SEQ_OLD/INFONAME.postrm is there */
	char *list;		/* its file list, or NULL */
};

/* A package a package of the call Replaces: its file list before the batch. */
struct seq_repl {
	size_t by;		/* the replacing package, in seq.v */
	char shown[256];
	char *version, *list;
};

struct seq {
	const struct install_opts *o;
	struct install_opts in;	/* the batches' options */
	struct stats *st;
	char root[PATH_MAX];
	struct rootfs rf;
	int adfd;		/* ROOT/var/lib/dpkg */
	char *running;		/* the root's dpkg version, or NULL */
	struct seq_pkg *v;
	size_t n;
	unsigned failed;
	long ninstalled;	/* paths dpkg's file lists hold, or -1 */
	struct seq_repl *repl;	/* what the batch's packages replace */
	size_t nrepl;
	struct seq_gone *gone;	/* the batch's disappearing packages */
	size_t ngone;
	bool said_db;		/* the count was told */
};

static void
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

static void
seq_status(struct seq *s, const struct seq_pkg *p, const char *state)
{
	seq_say(s, UNPACKSEQ_STATUS, p, state);
}

/* Package P failed: MSG (dpkg's words) told, the failure counted. */
static void
seq_fail(struct seq *s, struct seq_pkg *p, const char *msg)
{
	p->state = SEQ_FAILED;
	s->failed++;
	seq_say(s, UNPACKSEQ_FAILED, p, msg);
}

/*
 * dpkg's status file rewritten with the stanza of each package in P (N)
 * replaced by TEXT[i] (NULL: left out), written and synced before it
 * replaces the old one, and the directory synced: one barrier for all.
 */
static int
seq_status_write(struct seq *s, struct seq_pkg *const *p, char *const *text,
    size_t n, struct dbp_error *err)
{
	struct dpkgstatus status = { NULL, 0 };
	struct dpkgstatus_add *add;
	char *old = NULL, *out = NULL;
	size_t len = 0, olen, nadd = 0, i;
	int fd = -1, r;

	if ((r = fileat_read(s->adfd, "status", &old, &len)) != 0 &&
	    r != -ENOENT)
		return dbp_err(err, -r, SEQ_ADMIN "/status", "cannot read");
	if ((r = dpkgstatus_parse(&status, old != NULL ? old : "", len)) != 0) {
		free(old);
		return dbp_err(err, -r, SEQ_ADMIN "/status", "cannot parse");
	}
	free(old);
	if ((add = calloc(n + 1, sizeof(*add))) == NULL) {
		dpkgstatus_clear(&status);
		return dbp_err(err, ENOMEM, NULL, "cannot write status");
	}
	for (i = 0; i < n; i++) {
		(void)dpkgstatus_take(&status, p[i]->name, p[i]->arch,
		    p[i]->ma);
		if (text[i] != NULL) {
			add[nadd].name = p[i]->name;
			add[nadd].arch = p[i]->arch;
			add[nadd++].text = text[i];
		}
	}
	r = dpkgstatus_merge(&status, add, nadd, &out, &olen);
	free(add);
	dpkgstatus_clear(&status);
	if (r != 0)
		return dbp_err(err, -r, NULL, "cannot write status");
	/* dpkg's own temporary name: dpkg removes it if we leave it. */
	if ((fd = openat(s->adfd, "status-new", O_WRONLY | O_CREAT | O_TRUNC |
	    O_CLOEXEC | O_NOFOLLOW, 0644)) < 0)
		r = -errno;
	else {
		const char *q = out;
		size_t left = olen;
		ssize_t w;

		while (r == 0 && left > 0) {
			if ((w = write(fd, q, left)) < 0) {
				if (errno != EINTR)
					r = -errno;
				continue;
			}
			q += w;
			left -= (size_t)w;
		}
		if (r == 0 && fdatasync(fd) != 0)
			r = -errno;
		if (close(fd) != 0 && r == 0)
			r = -errno;
		if (r == 0 && renameat(s->adfd, "status-new", s->adfd,
		    "status") != 0)
			r = -errno;
		if (r == 0 && fsync(s->adfd) != 0)
			r = -errno;
	}
	free(out);
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
static char *
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
			fwrite(line, 1, (size_t)(end - line), fp);
			if (strncmp(line, "Version: ", 9) == 0 &&
			    base == p->old_text && p->old_cversion == NULL &&
			    strcmp(p->old_state, "installed") == 0)
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
static char *
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

/* What dpkg leaves of a package whose new install was undone. */
static char *
seq_not_installed(const struct seq_pkg *p)
{
	char *t;

	if (p->old_text != NULL && strcmp(p->old_state, "not-installed") != 0)
		return strdup(p->old_text);
	if (asprintf(&t, "Package: %s\nStatus: install ok not-installed\n"
	    "Architecture: %s\n", p->name, p->arch != NULL ? p->arch : "") < 0)
		return NULL;
	return t;
}

/* Write one package's stanza: TEXT taken (freed), NULL out of memory. */
static int
seq_status_one(struct seq *s, struct seq_pkg *p, char *text,
    struct dbp_error *err)
{
	int r;

	if (text == NULL)
		return dbp_err(err, ENOMEM, NULL, "cannot write status");
	r = seq_status_write(s, &p, &text, 1, err);
	free(text);
	return r;
}

/* Remove directory NAME of the admin directory and the files it holds. */
static void
seq_rmdir(struct seq *s, const char *name)
{
	struct dirent *de;
	DIR *dir;
	int dfd;

	if ((dfd = openat(s->adfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return;
	if ((dir = fdopendir(dfd)) == NULL) {
		close(dfd);
		return;
	}
	/* Only files are made there: control files, kept scripts. */
	while ((de = readdir(dir)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			(void)unlinkat(dirfd(dir), de->d_name, 0);
	closedir(dir);
	(void)unlinkat(s->adfd, name, AT_REMOVEDIR);
}

/*
 * The new package's control area, where dpkg runs its new scripts from:
 * ADMIN/tmp.ci with P's control files.
 */
static int
seq_ci(struct seq *s, struct seq_pkg *p, struct dbp_error *err)
{
	size_t i;
	int dfd, fd, r = 0;

	seq_rmdir(s, SEQ_CI);
	if (mkdirat(s->adfd, SEQ_CI, 0755) != 0)
		return dbp_err(err, errno, SEQ_ADMIN "/" SEQ_CI, "cannot create");
	if ((dfd = openat(s->adfd, SEQ_CI, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) < 0)
		return dbp_err(err, errno, SEQ_ADMIN "/" SEQ_CI, "cannot open");
	/* The control file too, as the package has it: debconf reads it. */
	if ((fd = openat(dfd, "control", O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0644)) < 0)
		r = dbp_err(err, errno, "control", "cannot write control file");
	else {
		FILE *fp = fdopen(fd, "w");

		for (i = 0; fp != NULL && i < p->ctl->nfields; i++)
			fprintf(fp, "%s: %s\n", p->ctl->fields[i].name,
			    p->ctl->fields[i].value);
		if (fp == NULL || fclose(fp) != 0)
			r = dbp_err(err, errno != 0 ? errno : EIO, "control",
			    "cannot write control file");
		if (fp == NULL)
			close(fd);
	}
	for (i = 0; r == 0 && i < p->ninfo; i++) {
		const struct deb_info *f = &p->info[i];

		if (strchr(f->name, '/') != NULL)
			continue;
		if ((fd = openat(dfd, f->name, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, f->mode & 0777)) < 0 ||
		    write(fd, f->data, f->len) != (ssize_t)f->len ||
		    fchmod(fd, f->mode & 0777) != 0)
			r = dbp_err(err, errno != 0 ? errno : EIO, f->name,
			    "cannot write control file");
		if (fd >= 0)
			close(fd);
	}
	close(dfd);
	return r;
}

static const struct deb_info *
seq_info(const struct seq_pkg *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->ninfo; i++)
		if (strcmp(p->info[i].name, name) == 0)
			return &p->info[i];
	return NULL;
}

/* dpkg's words for a script: "pre-installation". */
static const char *
seq_desc(const char *script)
{
	return strcmp(script, "preinst") == 0 ? "pre-installation" :
	    strcmp(script, "postinst") == 0 ? "post-installation" :
	    strcmp(script, "prerm") == 0 ? "pre-removal" : "post-removal";
}

/*
 * Run script SCRIPT of P, WHERE: the new one ("new", from tmp.ci, which
 * the caller made), the installed one ("info", or "old" for the old
 * version's: info/ too, dpkg's words differ), or "kept": the old postrm
 * copied aside before the batch replaced info/.  With up to three
 * arguments.  1 when it is not there, 0 when it ran and succeeded, -1
 * when it failed (MSG: dpkg's words), or -errno with ERR.
 */
static int
seq_script(struct seq *s, struct seq_pkg *p, const char *script,
    const char *where, const char *a1, const char *a2, const char *a3,
    char *msg, size_t msglen, struct dbp_error *err)
{
	struct maintscript_env e = { .root = s->root,
	    .chrootless = s->o->script_chrootless, .pkg = p->name,
	    .arch = p->arch, .script = script,
	    .running_version = s->running, .force = s->o->dpkg_force,
	    .debconf = strcmp(where, "new") == 0 };
	char path[PATH_MAX], why[128];
	char *argv[5] = { path, (char *)a1, (char *)a2, (char *)a3, NULL };
	struct stat st;
	int status, r;

	if (strcmp(where, "new") == 0)
		snprintf(path, sizeof(path), "/" SEQ_ADMIN "/" SEQ_CI "/%s",
		    script);
	else
		snprintf(path, sizeof(path), "/" SEQ_ADMIN "/%s/%s.%s",
		    strcmp(where, "kept") == 0 ? SEQ_OLD : "info",
		    p->infoname, script);
	if (fstatat(s->adfd, path + sizeof(SEQ_ADMIN) + 1, &st, 0) != 0)
		return errno == ENOENT ? 1 : dbp_err(err, errno, path + 1,
		    "cannot find script");
	if ((r = maintscript_run(&e, path, argv, &status, err)) != 0)
		return r;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	maintscript_status_text(status, why, sizeof(why));
	snprintf(msg, msglen, "%s %s package %s script subprocess %s",
	    strcmp(where, "info") == 0 ? "installed" : where[0] == 'n' ?
	    "new" : "old", p->shown, seq_desc(script), why);
	return -1;
}

/*
 * dpkg's maintscript_fallback: the old SCRIPT with "IFOK NEWVER"; if that
 * fails, the new one with "IFFALLBACK OLDVER NEWVER".  As seq_script.
 */
static int
seq_fallback(struct seq *s, struct seq_pkg *p, const char *script,
    const char *old_where, const char *ifok, const char *iffallback,
    char *msg, size_t msglen, struct dbp_error *err)
{
	const char *nv = dpkgfmt_version(p->version);
	int r;

	if ((r = seq_script(s, p, script, old_where, ifok, nv, NULL, msg,
	    msglen, err)) >= 0 || r != -1)
		return r == 1 ? 0 : r;
	{
		char warn[600];

		snprintf(warn, sizeof(warn), "warning: %s", msg);
		seq_say(s, UNPACKSEQ_NOTICE, p, warn);
	}
	seq_say(s, UNPACKSEQ_NOTICE, p, "trying script from the new package"
	    " instead ...");
	if ((r = seq_ci(s, p, err)) != 0)
		return r;
	r = seq_script(s, p, script, "new", iffallback, p->old_version, nv,
	    msg, msglen, err);
	if (r == 1) {
		snprintf(msg, msglen, "there is no script in the new version"
		    " of the package - giving up");
		return -1;
	}
	if (r == 0)
		seq_say(s, UNPACKSEQ_NOTICE, p, "... it looks like that went"
		    " OK");
	return r;
}

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

/* P's state before the call, from dpkg's status S. */
static int
seq_old(struct seq_pkg *p, struct dpkgstatus *s)
{
	const struct dpkgstatus_stanza *o;

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

static int
seq_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * How many paths the file lists of the packages in S hold, each once, as
 * dpkg counts them when it reads them ("N files and directories
 * currently installed"): -1 when a list cannot be read.
 */
static long
seq_count_files(struct seq *s, const struct dpkgstatus *st)
{
	char **v = NULL, **nv, *text, *line, *nl, *infoname, file[NAME_MAX + 1];
	char **texts = NULL, **nt;
	size_t n = 0, ntexts = 0, i, len;
	long count = 0;
	int r;

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
		if ((r = fileat_read(s->adfd, file, &text, &len)) == -ENOENT)
			continue;
		if (r != 0 || (nt = realloc(texts, (ntexts + 1) *
		    sizeof(*nt))) == NULL) {
			if (r == 0)
				free(text);
			count = -1;
			break;
		}
		texts = nt;
		texts[ntexts++] = text;
		for (line = text; count >= 0 && *line != '\0'; line = nl + 1) {
			if ((nl = strchr(line, '\n')) == NULL)
				break;
			*nl = '\0';
			/* The root itself, "/.", is no entry of dpkg's. */
			if (*line == '\0' || strcmp(line, "/.") == 0)
				continue;
			if ((nv = realloc(v, (n + 1) * sizeof(*v))) == NULL)
				count = -1;
			else {
				v = nv;
				v[n++] = line;
			}
		}
	}
	if (count >= 0 && n > 0) {
		qsort(v, n, sizeof(*v), seq_cmp_str);
		for (i = 0; i < n; i++)
			if (i == 0 || strcmp(v[i], v[i - 1]) != 0)
				count++;
	}
	for (i = 0; i < ntexts; i++)
		free(texts[i]);
	free(texts);
	free(v);
	return count;
}

/*
 * Before any script: every package read, its old state from dpkg's
 * status, the root's dpkg version (DPKG_RUNNING_VERSION).  A package
 * that cannot be read fails alone, as with dpkg.
 */
static int
seq_load(struct seq *s, struct dbp_error *err)
{
	struct dpkgstatus status = { NULL, 0 };
	const struct dpkgstatus_stanza *d;
	struct dbp_error perr;
	char *text = NULL, line[3 * PATH_MAX];
	size_t len = 0, i;
	int r;

	/* Before any script: the batch would refuse it after them. */
	if ((r = dpkgdb_check_updates(s->adfd, err)) != 0)
		return r;
	if ((r = fileat_read(s->adfd, "status", &text, &len)) != 0 &&
	    r != -ENOENT)
		return dbp_err(err, -r, SEQ_ADMIN "/status", "cannot read");
	r = dpkgstatus_parse(&status, text != NULL ? text : "", len);
	free(text);
	if (r != 0)
		return dbp_err(err, -r, SEQ_ADMIN "/status", "cannot parse");
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
		if ((r = seq_old(p, &status)) != 0)
			r = dbp_err(err, -r, NULL, "cannot read status");
	}
	dpkgstatus_clear(&status);
	return r;
}

/*
 * Whether P must end its group (see the top of the file): it is
 * Essential, or a later package of the call Pre-Depends on it.
 */
static bool
seq_ends_group(const struct seq *s, size_t i)
{
	const struct seq_pkg *p = &s->v[i];
	size_t j, l;

	if (p->essential)
		return true;
	l = strlen(p->name);
	for (j = i + 1; j < s->n; j++) {
		const char *pd = s->v[j].ctl != NULL ?
		    control_get(s->v[j].ctl, "Pre-Depends") : NULL;
		const char *q;

		for (q = pd; q != NULL && (q = strstr(q, p->name)) != NULL;
		    q += l)
			if ((q == pd || strchr(" ,|\t\n", q[-1]) != NULL) &&
			    strchr(" ,|(:\t\n", q[l]) != NULL)
				return true;
	}
	return false;
}

/*
 * The unwind of an upgrade whose prerm ran: the old postinst
 * abort-upgrade NEWVER (dpkg's cu_prermupgrade), the stanza back as it
 * was, or left half-configured when that fails too.
 */
static int
seq_unwind_prerm(struct seq *s, struct seq_pkg *p, struct dbp_error *err)
{
	char msg[512];
	int r;

	if (!p->prerm_ran)
		return 0;
	r = seq_script(s, p, "postinst", "info", "abort-upgrade",
	    dpkgfmt_version(p->version), NULL, msg, sizeof(msg), err);
	if (r < -1)
		return r;
	if (r == -1) {
		seq_say(s, UNPACKSEQ_CLEANUP, p, msg);
		seq_status(s, p, "half-configured");
		return seq_status_one(s, p, seq_stanza(p, NULL, "half-configured"),
		    err);
	}
	seq_status(s, p, p->old_state);
	return seq_status_one(s, p, strdup(p->old_text), err);
}

/*
 * Step 1 of a group: the old prerm upgrade of each upgrade of an
 * installed (configured) version, with dpkg's fallback and unwind.
 */
static int
seq_prerms(struct seq *s, size_t from, size_t to, struct dbp_error *err)
{
	char msg[512];
	size_t i;
	int r;

	for (i = from; i < to; i++) {
		struct seq_pkg *p = &s->v[i];

		if (p->state != SEQ_TODO)
			continue;
		/* dpkg selects what was not wanted (its want, Status' first word). */
		if (p->old_text == NULL || (strstr(p->old_text,
		    "\nStatus: install ") == NULL && strstr(p->old_text,
		    "\nStatus: hold ") == NULL))
			seq_say(s, UNPACKSEQ_SELECTING, p, NULL);
		/* dpkg reads its file lists for the first package it unpacks. */
		if (!s->said_db && s->ninstalled >= 0) {
			struct install_note n = { .event = INSTALL_SEQ,
			    .seq = UNPACKSEQ_DATABASE,
			    .count = (size_t)s->ninstalled };

			s->said_db = true;
			if (s->o->note != NULL)
				s->o->note(s->o->ctx, &n);
		}
		if (p->upgrade && p->old_version != NULL &&
		    strstr(p->old_text, " reinstreq ") == NULL &&
		    strcmp(p->old_state, "half-installed") != 0 &&
		    version_cmp(p->version, p->old_version) < 0) {
			snprintf(msg, sizeof(msg), "warning: downgrading %s"
			    " from %s to %s", p->shown, p->old_version,
			    dpkgfmt_version(p->version));
			seq_say(s, UNPACKSEQ_NOTICE, p, msg);
		}
		seq_say(s, UNPACKSEQ_PREPARING, p, NULL);
		seq_say(s, UNPACKSEQ_PROCESSING, p, NULL);
		/* dpkg runs it over a version that was configured. */
		if (strcmp(p->old_state, "installed") != 0 &&
		    strcmp(p->old_state, "half-configured") != 0 &&
		    strncmp(p->old_state, "triggers-", 9) != 0)
			continue;
		seq_status(s, p, "half-configured");
		p->prerm_ran = true;
		r = seq_fallback(s, p, "prerm", "old", "upgrade",
		    "failed-upgrade", msg, sizeof(msg), err);
		if (r < -1)
			return r;
		if (r == -1) {
			seq_fail(s, p, msg);
			if ((r = seq_unwind_prerm(s, p, err)) != 0)
				return r;
			continue;
		}
		seq_status(s, p, "unpacked");
	}
	return 0;
}

/*
 * Step 2: every package of the group half-installed in dpkg's status,
 * in one write and one barrier, before any preinst can change anything.
 */
static int
seq_half_installed(struct seq *s, size_t from, size_t to,
    struct dbp_error *err)
{
	struct seq_pkg **pv;
	char **tv;
	size_t i, n = 0;
	int r = 0;

	pv = calloc(to - from + 1, sizeof(*pv));
	tv = calloc(to - from + 1, sizeof(*tv));
	for (i = from; pv != NULL && tv != NULL && r == 0 && i < to; i++) {
		if (s->v[i].state != SEQ_TODO)
			continue;
		pv[n] = &s->v[i];
		if ((tv[n++] = seq_stanza(&s->v[i], NULL,
		    "half-installed")) == NULL)
			r = -ENOMEM;
	}
	if (pv == NULL || tv == NULL || r != 0)
		r = dbp_err(err, ENOMEM, NULL, "cannot write status");
	else if (n > 0 && (r = seq_status_write(s, pv, tv, n, err)) == 0)
		for (i = 0; i < n; i++)
			seq_status(s, pv[i], "half-installed");
	for (i = 0; tv != NULL && i < n; i++)
		free(tv[i]);
	free(pv);
	free(tv);
	return r;
}

/*
 * Undo P's new version before its files: the new postrm abort-install
 * or abort-upgrade (dpkg's cu_preinst*), the status back, then the
 * prerm's unwind.
 */
static int
seq_unwind_preinst(struct seq *s, struct seq_pkg *p, struct dbp_error *err)
{
	const char *nv = dpkgfmt_version(p->version);
	char msg[512];
	int r;

	if ((r = seq_ci(s, p, err)) != 0)
		return r;
	if (p->upgrade)
		r = seq_script(s, p, "postrm", "new", "abort-upgrade",
		    p->old_version, nv, msg, sizeof(msg), err);
	else
		r = seq_script(s, p, "postrm", "new", "abort-install",
		    p->old_version != NULL ? p->old_version : NULL,
		    p->old_version != NULL ? nv : NULL, msg, sizeof(msg), err);
	seq_rmdir(s, SEQ_CI);
	if (r < -1)
		return r;
	if (r == -1) {
		/* dpkg leaves it half-installed, to be reinstalled. */
		seq_say(s, UNPACKSEQ_CLEANUP, p, msg);
		return 0;
	}
	if (p->prerm_ran) {
		seq_status(s, p, "unpacked");
		return seq_unwind_prerm(s, p, err);
	}
	seq_status(s, p, p->upgrade ? p->old_state : strcmp(p->old_state,
	    "config-files") == 0 ? "config-files" : "not-installed");
	return seq_status_one(s, p, seq_not_installed(p), err);
}

/*
 * Copy info/INFONAME.WHAT aside, into SEQ_OLD: the batch replaces or
 * removes info/.  1 when there is none, 0 when copied, or -errno with ERR.
 */
static int
seq_keep(struct seq *s, const char *infoname, const char *what,
    struct dbp_error *err)
{
	char from[PATH_MAX], to[PATH_MAX], *text;
	size_t len;
	int fd, r;

	snprintf(from, sizeof(from), "info/%s.%s", infoname, what);
	if ((r = fileat_read(s->adfd, from, &text, &len)) == -ENOENT)
		return 1;
	if (r != 0)
		return dbp_err(err, -r, from, "cannot read");
	if (mkdirat(s->adfd, SEQ_OLD, 0755) != 0 && errno != EEXIST) {
		free(text);
		return dbp_err(err, errno, SEQ_ADMIN "/" SEQ_OLD,
		    "cannot create");
	}
	snprintf(to, sizeof(to), SEQ_OLD "/%s.%s", infoname, what);
	(void)unlinkat(s->adfd, to, 0);
	r = 0;
	if ((fd = openat(s->adfd, to, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0755)) < 0 ||
	    write(fd, text, len) != (ssize_t)len)
		r = dbp_err(err, errno != 0 ? errno : EIO, to, "cannot write");
	if (fd >= 0)
		close(fd);
	free(text);
	return r;
}

/* Copy P's installed postrm aside: the batch replaces info/ with the new. */
static int
seq_keep_postrm(struct seq *s, struct seq_pkg *p, struct dbp_error *err)
{
	int r = seq_keep(s, p->infoname, "postrm", err);

	p->keep_postrm = r == 0;
	return r < 0 ? r : 0;
}

static void
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
static void
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
static int
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

/* Step 3: the new preinsts, each from its control area. */
static int
seq_preinsts(struct seq *s, size_t from, size_t to, struct dbp_error *err)
{
	const char *nv;
	char msg[512];
	size_t i;
	int r;

	for (i = from; i < to; i++) {
		struct seq_pkg *p = &s->v[i];

		if (p->state != SEQ_TODO)
			continue;
		nv = dpkgfmt_version(p->version);
		r = 1;
		if (seq_info(p, "preinst") != NULL) {
			if ((r = seq_ci(s, p, err)) != 0)
				return r;
			if (p->upgrade)
				r = seq_script(s, p, "preinst", "new",
				    "upgrade", p->old_version, nv, msg,
				    sizeof(msg), err);
			else
				r = seq_script(s, p, "preinst", "new",
				    "install", p->old_version,
				    p->old_version != NULL ? nv : NULL,
				    msg, sizeof(msg), err);
			seq_rmdir(s, SEQ_CI);
		}
		if (r < -1)
			return r;
		if (r == -1) {
			seq_fail(s, p, msg);
			if ((r = seq_unwind_preinst(s, p, err)) != 0)
				return r;
			continue;
		}
		if (p->upgrade && (r = seq_keep_postrm(s, p, err)) != 0)
			return r;
		p->state = SEQ_READY;
		seq_say(s, UNPACKSEQ_UNPACKING, p, NULL);
	}
	return 0;
}

static void
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

/*
 * Before a batch: the file lists of the installed packages that the
 * batch's packages Replace, to tell afterwards whose files were taken.
 */
static void
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
			    strcmp(name, s->v[i].name) == 0)
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

/* Whether LIST has line LINE (LEN bytes, "/path"). */
static bool
seq_list_has(const char *list, const char *line, size_t len)
{
	const char *hit;

	for (hit = strstr(list, "\n/") != NULL || list[0] == '/' ? list :
	    NULL; hit != NULL && (hit = strstr(hit, line)) != NULL; hit++)
		if ((hit == list || hit[-1] == '\n') && (hit[len] == '\n' ||
		    hit[len] == '\0'))
			return true;
	return false;
}

/*
 * After a batch: dpkg's "Replacing files in old package" for each
 * package whose non-directory path a package of the batch took.
 */
static void
seq_repl_tell(struct seq *s)
{
	char file[PATH_MAX], line[600], *list, *l, *nl;
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
			took = seq_list_has(list, l, (size_t)(nl - l));
		}
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

/*
 * Step 4: the batch of the group's ready packages.  A package the batch
 * blames (a file conflict, a damaged archive) fails alone: unwound as
 * after its preinst, and the batch is run again without it, as dpkg
 * goes on with the next package.  Any other error stops the call.
 */
static int
seq_batch(struct seq *s, size_t from, size_t to, struct dbp_error *err)
{
	struct dbp_error berr;
	char **files, line[3 * PATH_MAX];
	size_t i, n;
	int r;

	if ((files = calloc(to - from + 1, sizeof(*files))) == NULL)
		return dbp_err(err, ENOMEM, NULL, "cannot start");
	for (;;) {
		struct seq_pkg *blamed = NULL;

		for (i = from, n = 0; i < to; i++)
			if (s->v[i].state == SEQ_READY)
				files[n++] = (char *)s->v[i].file;
		if (n == 0) {
			r = 0;
			break;
		}
		dbp_err_clear(&berr);
		seq_gone_clear(s);
		seq_repl_load(s, from, to);
		if ((r = install_run(&s->in, files, n, s->st, &berr)) == 0) {
			for (i = from; i < to; i++)
				if (s->v[i].state == SEQ_READY)
					s->v[i].state = SEQ_DONE;
			seq_repl_tell(s);
			break;
		}
		for (i = from; berr.pkg[0] != '\0' && i < to; i++)
			if (s->v[i].state == SEQ_READY &&
			    strcmp(s->v[i].file, berr.pkg) == 0)
				blamed = &s->v[i];
		if (blamed == NULL) {
			*err = berr;
			break;
		}
		snprintf(line, sizeof(line), "%s%s%s%s", berr.path[0] != '\0' ?
		    "'" : "", berr.path, berr.path[0] != '\0' ? "': " : "",
		    berr.msg);
		if (berr.errnum != 0)
			snprintf(line + strlen(line), sizeof(line) -
			    strlen(line), ": %s", strerror(berr.errnum));
		seq_fail(s, blamed, line);
		if ((r = seq_unwind_preinst(s, blamed, err)) != 0)
			break;
	}
	free(files);
	return r;
}

/*
 * Step 5, past the commit: the old postrm upgrade NEWVER, or the new
 * postrm failed-upgrade OLDVER NEWVER.  When both fail dpkg would undo
 * the unpack, putting the old files back; this run's are committed, so
 * the package is left half-installed and reinstreq, to be installed
 * again, and fails.
 */
static int
seq_postrms(struct seq *s, size_t from, size_t to, struct dbp_error *err)
{
	char msg[512];
	size_t i;
	int r;

	for (i = from; i < to; i++) {
		struct seq_pkg *p = &s->v[i];

		if (p->state != SEQ_DONE)
			continue;
		/* Without an old postrm, dpkg runs no new one either. */
		if (p->upgrade && p->keep_postrm) {
			r = seq_fallback(s, p, "postrm", "kept", "upgrade",
			    "failed-upgrade", msg, sizeof(msg), err);
			seq_rmdir(s, SEQ_CI);
			if (r < -1)
				return r;
			if (r == -1) {
				seq_fail(s, p, msg);
				char *now = seq_current(s, p);

				seq_status(s, p, "half-installed");
				r = seq_status_one(s, p, seq_stanza(p, now,
				    "half-installed"), err);
				free(now);
				if (r != 0)
					return r;
				continue;
			}
		}
		seq_status(s, p, "unpacked");
	}
	return 0;
}

static void
seq_free(struct seq *s)
{
	size_t i;

	for (i = 0; s->v != NULL && i < s->n; i++) {
		struct seq_pkg *p = &s->v[i];

		control_free(p->ctl);
		deb_info_free(p->info, p->ninfo);
		free(p->infoname);
		free(p->old_text);
		free(p->old_version);
		free(p->old_cversion);
	}
	free(s->v);
	free(s->running);
	seq_gone_clear(s);
	seq_repl_clear(s);
	if (s->adfd >= 0)
		close(s->adfd);
	rootfs_close(&s->rf);
}

int
unpackseq_run(const struct install_opts *o, char *const *all, size_t nall,
    struct stats *st, unsigned *failed, struct dbp_error *err)
{
	struct seq s = { .o = o, .st = st, .rf = { -1, false }, .adfd = -1 };
	char **files = NULL;
	size_t nfiles = 0, i, from;
	int r;

	*failed = 0;
	s.in = *o;
	s.in.dpkg_db = true;
	s.in.run_preinst = false;
	s.in.note = seq_note;
	s.in.ctx = &s;
	if ((r = pkgfiles_last(o, all, nall, &files, &nfiles, err)) != 0)
		return r;
	if (realpath(o->root, s.root) == NULL) {
		free(files);
		return dbp_err(err, errno, o->root, "cannot open root");
	}
	if ((r = rootfs_open(&s.rf, s.root, err)) != 0)
		goto out;
	/* dpkg's database, made as --dpkg-db makes it for a new root. */
	(void)mkdirat(s.rf.fd, "var", 0755);
	(void)mkdirat(s.rf.fd, "var/lib", 0755);
	(void)mkdirat(s.rf.fd, SEQ_ADMIN, 0755);
	if ((s.adfd = rootfs_resolve(&s.rf, SEQ_ADMIN, O_RDONLY |
	    O_DIRECTORY)) < 0) {
		r = dbp_err(err, -s.adfd, SEQ_ADMIN, "cannot open");
		goto out;
	}
	if ((s.v = calloc(nfiles + 1, sizeof(*s.v))) == NULL) {
		r = dbp_err(err, ENOMEM, NULL, "cannot start");
		goto out;
	}
	s.n = nfiles;
	for (i = 0; i < nfiles; i++)
		s.v[i].file = files[i];
	/* What an interrupted call left aside is of no use now. */
	seq_rmdir(&s, SEQ_CI);
	seq_rmdir(&s, SEQ_OLD);
	if ((r = seq_load(&s, err)) != 0)
		goto out;
	for (from = 0; r == 0 && from < s.n; from = i) {
		for (i = from; i < s.n; i++)
			if (s.v[i].state == SEQ_TODO && seq_ends_group(&s, i)) {
				i++;
				break;
			}
		if ((r = seq_prerms(&s, from, i, err)) != 0 ||
		    (r = seq_half_installed(&s, from, i, err)) != 0 ||
		    (r = seq_preinsts(&s, from, i, err)) != 0 ||
		    (r = seq_batch(&s, from, i, err)) != 0 ||
		    (r = seq_postrms(&s, from, i, err)) != 0 ||
		    (r = seq_disappear(&s, from, i, err)) != 0)
			break;
	}
	*failed = s.failed;
out:
	if (s.adfd >= 0) {
		seq_rmdir(&s, SEQ_CI);
		seq_rmdir(&s, SEQ_OLD);
	}
	seq_free(&s);
	free(files);
	return r;
}
