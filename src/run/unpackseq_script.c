/* SPDX-License-Identifier: MIT */
/* unpackseq: the control area, scripts kept aside, running them with dpkg's fallback. */
#include "config.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/dpkgfmt.h"
#include "durable/fileat.h"
#include "run/maintscript.h"
#include "run/unpackseq_int.h"

/* Remove directory NAME of the admin directory and the files it holds. */
void
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
int
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

const struct deb_info *
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
int
seq_script(struct seq *s, struct seq_pkg *p, const char *script,
    const char *where, const char *a1, const char *a2, const char *a3,
    char *msg, size_t msglen, struct dbp_error *err)
{
	return seq_script4(s, p, script, where, a1, a2, a3, NULL, msg, msglen,
	    err);
}

/* seq_script with a fourth argument: "remove in-favour PKG VERSION". */
int
seq_script4(struct seq *s, struct seq_pkg *p, const char *script,
    const char *where, const char *a1, const char *a2, const char *a3,
    const char *a4, char *msg, size_t msglen, struct dbp_error *err)
{
	struct maintscript_env e = { .root = s->root,
	    .chrootless = s->o->script_chrootless, .pkg = p->name,
	    .arch = p->arch, .script = script,
	    .running_version = s->running, .force = s->o->dpkg_force,
	    .debconf = strcmp(where, "new") == 0,
	    .admindir = s->o->dpkg_admindir, .emu = &s->emu,
	    .refcount = p->others + 1 };
	char path[PATH_MAX], why[128];
	char *argv[6] = { path, (char *)a1, (char *)a2, (char *)a3,
	    a3 != NULL ? (char *)a4 : NULL, NULL };
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
	if ((r = seq_settle(s, false, err)) != 0)
		return r;
	s->scripts++;
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
int
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

/*
 * Copy info/INFONAME.WHAT aside, into SEQ_OLD: the batch replaces or
 * removes info/.  1 when there is none, 0 when copied, or -errno with ERR.
 */
int
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
