/* SPDX-License-Identifier: MIT */
/* The real dpkg's calls with its syncs suppressed and one barrier after, where that is sound. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/shimconf.h"
#include "cli/shimsync.h"
#include "durable/fskind.h"
#include "run/binfmtns.h"

#ifndef DPKGSHIM_NOSYNC
#define DPKGSHIM_NOSYNC		"/usr/libexec/debunpack/debunpack-nosync"
#endif

/*
 * Why this is sound, and where.  dpkg --configure makes each status
 * change durable before it goes on: the package's stanza in a new file
 * of updates/ (written, fsynced, renamed, the directory fsynced), the
 * status file now and then by a rename over it, its data fsynced first;
 * conffiles are renamed into place from their .dpkg-new, which the
 * unpack made durable; the maintainer scripts' own writes dpkg does not
 * sync at all.  Suppressed, those syncs leave the order of the changes
 * to the filesystem.  On ext4 with a journal (in data=ordered mode, with
 * auto_da_alloc: the defaults) the changes reach the disk in the order
 * they were made, jbd2 committing whole transactions in turn, a file's
 * new blocks before the commit that holds them, and a file renamed over
 * another with its data: the status file is never left empty.  What a
 * power cut leaves is then a state some moment of dpkg's run had, but
 * that an update file's name may be there without its data, if its
 * writeback had not begun: dpkg reads an empty update file as no change,
 * so that package's last step is as if not done, and `dpkg --configure
 * -a` does it again, as after a power cut that hit durable dpkg just
 * before it; a maintainer script runs again, which Policy asks them to
 * bear.  The power-loss matrix checks it (tests/crash/crash.sh,
 * "configure"): every state is one that `dpkg --configure -a` finishes
 * to what durable dpkg leaves.
 *
 * xfs logs a rename before the data it names is written (an empty
 * status file), and btrfs does not promise the order of unsynced
 * changes.  Both keep their metadata in order, in whole transactions,
 * and neither shows a file's unwritten blocks (fskind_orders_metadata).
 * There the call is guarded (shimsync.c): each sync of a file of dpkg's
 * database, which dpkg makes before it renames the file over the old
 * one, puts that file on the disk ahead of every change after it,
 * without a commit: written back and waited for on xfs, which logs a
 * write's size as it completes, settled on btrfs (Linux 6.2 and later:
 * fskind_settles), whose fiemap waits for the file's extents.  Its
 * rename is then in the same transaction or a later one, so the new
 * status is whole whenever its rename is durable, and everything it
 * records (conffiles renamed, the scripts' metadata) is durable with
 * it, in the same transaction or an earlier one; no fsync of the call
 * logs anything alone on btrfs, the filter answering them all.  Where
 * the file cannot be put ahead so, the whole filesystem is synced
 * instead.  Every other sync does nothing.  Those are the update
 * files', one per status change, and the maintainer scripts' own, whose
 * files dpkg does not make durable either.  An update file may then
 * come back empty, which dpkg reads as no change (the step is done
 * again), never ahead of the metadata changes made before it.  The
 * barrier after the call is its one commit.
 * Durable dpkg is weaker there: on btrfs its fsync of an update file
 * carries no other change, so a power cut just after the call can leave
 * a package configured in the status with its conffile still at
 * .dpkg-new and its postinst's changes gone (the matrix finds it with
 * the real dpkg alone).  Not ext4 without auto_da_alloc, whose journal
 * can hold an update file's size before its blocks (it reads as zeros,
 * which dpkg refuses to parse: the matrix finds that too).  Where the
 * filesystem is not known, or the database is not on the root's, dpkg
 * keeps its own syncs.  The barrier follows every call.
 */

static const char *
shimconf_root(const struct shim *s)
{
	return s->instdir[0] != '\0' ? s->instdir : "/";
}

/* What the filesystem of a directory keeps in order, and its device. */
struct shimconf_fs {
	bool replacements;	/* fskind_orders_replacements */
	bool metadata;		/* fskind_orders_metadata */
	dev_t dev;
};

/* F for PATH, opened once: false when it cannot be opened. */
static bool
shimconf_fs(const char *path, struct shimconf_fs *f)
{
	struct stat st;
	bool ok;
	int fd;

	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return false;
	if ((ok = fstat(fd, &st) == 0)) {
		f->dev = st.st_dev;
		f->replacements = fskind_orders_replacements(fd);
		f->metadata = fskind_orders_metadata(fd);
	}
	close(fd);
	return ok;
}

enum shimconf_how
shimconf_how(const struct shim *s, const char *action, char *why, size_t n)
{
	const char *env = getenv("DEBUNPACK_DPKG_CONFIGURE");
	struct shimconf_fs root, admin;
	const char *name;
	size_t i;

	if (strcmp(action, "configure") != 0 &&
	    strcmp(action, "triggers-only") != 0) {
		snprintf(why, n, "action --%s", action);
		return SHIMCONF_EXEC;
	}
	if (env != NULL && strcmp(env, "dpkg") == 0) {
		snprintf(why, n, "DEBUNPACK_DPKG_CONFIGURE=%s", env);
		return SHIMCONF_EXEC;
	}
	for (i = 0; i < s->a.nuse; i++) {
		name = s->a.use[i].def->name;
		if (name != NULL && (strcmp(name, "no-act") == 0 ||
		    strcmp(name, "dry-run") == 0 ||
		    strcmp(name, "simulate") == 0)) {
			snprintf(why, n, "--%s", name);
			return SHIMCONF_EXEC;
		}
	}
	if (s->instdir == NULL || s->admindir == NULL) {
		snprintf(why, n, "the root is not known");
		return SHIMCONF_EXEC;
	}
	if (env != NULL && strcmp(env, "batched") != 0 &&
	    strcmp(env, "guarded") != 0) {
		snprintf(why, n, "DEBUNPACK_DPKG_CONFIGURE=%s", env);
		return SHIMCONF_BARRIER;
	}
	if (!shimconf_fs(shimconf_root(s), &root) ||
	    !shimconf_fs(s->admindir, &admin))
		root.replacements = root.metadata = false;
	if ((env == NULL || strcmp(env, "batched") == 0) &&
	    root.replacements && admin.replacements)
		return SHIMCONF_BATCHED;
	if (!root.metadata || !admin.metadata) {
		snprintf(why, n, "'%s' is not on a filesystem that keeps its"
		    " metadata in order (xfs, btrfs)", shimconf_root(s));
		return SHIMCONF_BARRIER;
	}
	if (root.dev != admin.dev) {
		snprintf(why, n, "'%s' is not on the filesystem of '%s'",
		    s->admindir, shimconf_root(s));
		return SHIMCONF_BARRIER;
	}
	snprintf(why, n, "'%s' keeps its metadata in order, not a replaced"
	    " file's data", shimconf_root(s));
	return SHIMCONF_GUARDED;
}

/* The filesystems one barrier has synced, by device. */
struct shimconf_synced {
	dev_t dev[64];
	size_t n;
};

/*
 * syncfs of the filesystem of PATH, unless DONE has it (the database on
 * the root's filesystem, bind mounts of it: a second syncfs would cost
 * the device one more flush for nothing): 0, or -errno (a PATH gone is 0).
 */
static int
shimconf_syncfs(struct shimconf_synced *done, const char *path)
{
	struct stat st;
	int fd, r = 0;
	size_t i;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &st) == 0) {
		for (i = 0; i < done->n && done->dev[i] != st.st_dev; i++)
			continue;
		if (i < done->n) {
			close(fd);
			return 0;
		}
		if (done->n < sizeof(done->dev) / sizeof(done->dev[0]))
			done->dev[done->n++] = st.st_dev;
	}
	if (syncfs(fd) != 0)
		r = -errno;
	close(fd);
	return r;
}

/* A mountinfo path (octal escapes for space, tab, newline, backslash) in place. */
static void
shimconf_unescape(char *p)
{
	char *q = p;

	while (*p != '\0') {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' &&
		    p[2] >= '0' && p[2] <= '7' && p[3] >= '0' && p[3] <= '7') {
			*q++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 +
			    (p[3] - '0'));
			p += 4;
		} else
			*q++ = *p++;
	}
	*q = '\0';
}

/*
 * The barrier: the root's filesystem and the database's, then every
 * filesystem mounted whole inside the root, where the maintainer scripts
 * may have written (a separate /boot, /var); their failure to sync is
 * the call's only for a writeback error.  Without /proc, sync(2).  A
 * bind mount of a directory of another filesystem (sbuild's build
 * directory, schroot's /home, a container's volumes and /etc/hosts, a
 * local mirror) is the host's, not the root's: dpkg writes nothing
 * there, and a syncfs of the host's filesystem at every call would wait
 * for whatever the host has in flight.  EARLY (or -1), the database's
 * directory opened before dpkg ran, syncs its filesystem first: syncfs
 * reports a writeback error only to descriptors older than it, and a
 * guarded call's database files were waited for, not synced
 * (shimsync.c).
 */
static int
shimconf_barrier(const struct shim *s, int early, const char **what)
{
	struct shimconf_synced done = { .n = 0 };
	char root[PATH_MAX], line[4096], *fsroot, *mp, *end, *fstype, *subvol;
	struct stat st;
	size_t len;
	bool whole;
	FILE *fp;
	int r;

	*what = s->admindir;
	if (early >= 0 && fstat(early, &st) == 0) {
		done.dev[done.n++] = st.st_dev;
		if (syncfs(early) != 0)
			return -errno;
	}
	*what = shimconf_root(s);
	if (realpath(shimconf_root(s), root) == NULL)
		return -errno;
	if ((r = shimconf_syncfs(&done, root)) != 0)
		return r;
	*what = s->admindir;
	if ((r = shimconf_syncfs(&done, s->admindir)) != 0)
		return r;
	len = strcmp(root, "/") == 0 ? 0 : strlen(root);
	if ((fp = fopen("/proc/self/mountinfo", "re")) == NULL) {
		sync();
		return 0;
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... */
		fsroot = line;
		for (int f = 0; f < 3 && fsroot != NULL; f++)
			if ((fsroot = strchr(fsroot, ' ')) != NULL)
				fsroot++;
		if (fsroot == NULL || (mp = strchr(fsroot, ' ')) == NULL)
			continue;
		*mp++ = '\0';
		if ((end = strchr(mp, ' ')) == NULL)
			continue;
		*end = '\0';
		/*
		 * A btrfs subvolume's mount names the subvolume, which its
		 * options name too (subvol=/@var): whole all the same.
		 */
		whole = strcmp(fsroot, "/") == 0;
		if (!whole && (fstype = strstr(end + 1, " - btrfs ")) != NULL &&
		    (subvol = strstr(fstype, "subvol=")) != NULL) {
			subvol += 7;
			subvol[strcspn(subvol, ", \n")] = '\0';
			whole = strcmp(subvol, fsroot) == 0;
		}
		shimconf_unescape(mp);
		if (!whole || strncmp(mp, root, len) != 0 ||
		    (mp[len] != '/' && mp[len] != '\0') ||
		    strcmp(mp, root) == 0)
			continue;
		r = shimconf_syncfs(&done, mp);
		if (r == -EIO || r == -ENOSPC || r == -EDQUOT) {
			static char where[PATH_MAX];

			snprintf(where, sizeof(where), "%s", mp);
			*what = where;
			fclose(fp);
			return r;
		}
	}
	fclose(fp);
	return 0;
}

void
shimconf_say(const struct shim *s, const char *action, const char *where,
    enum shimconf_how how, const char *why)
{
	static const char *const runs[] = {
		[SHIMCONF_BATCHED] = " under debunpack-nosync",
		[SHIMCONF_GUARDED] = " with its database's syncs only",
		[SHIMCONF_BARRIER] = " with its own syncs",
	};

	if (!s->verbose || how == SHIMCONF_EXEC)
		return;
	fprintf(stderr, "debunpack-dpkg: --%s%s: %s%s, then one barrier%s%s\n",
	    action, where, s->dpkg, runs[how], how == SHIMCONF_BATCHED ?
	    "" : ": ", how == SHIMCONF_BATCHED ? "" : why);
}

int
shimconf_run(struct shim *s, char *const *argv, enum shimconf_how how)
{
	const char *nosync = getenv("DEBUNPACK_NOSYNC") != NULL ?
	    getenv("DEBUNPACK_NOSYNC") : DPKGSHIM_NOSYNC;
	struct sigaction ign, oint, oquit;
	struct shimsync ss;
	struct emulate em;
	struct binfmtns ns;
	bool guarded = false, own;
	const char *what;
	char **nargv;
	size_t argc;
	int st, r, early = -1;
	pid_t pid;

	/* The real dpkg with its arguments, after the helper. */
	for (argc = 0; argv[argc] != NULL; argc++)
		continue;
	if ((nargv = calloc(argc + 2, sizeof(*nargv))) == NULL) {
		fprintf(stderr, "dpkg: error: out of memory\n");
		return 2;
	}
	nargv[0] = (char *)nosync;
	memcpy(nargv + 1, argv, argc * sizeof(*nargv));
	/* No filter to be had: dpkg with its own syncs. */
	if (how == SHIMCONF_GUARDED)
		guarded = shimsync_init(&ss, s->admindir) == 0;
	/* As system(3): the barrier follows whatever dpkg did. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	/* A foreign root no entry of the host's runs: dpkg's own binfmt_misc. */
	own = shim_emulated(s, &em) && binfmtns_open(&ns) == 0;
	fflush(NULL);
	if ((pid = fork()) < 0) {
		fprintf(stderr, "dpkg: error: cannot fork: %s\n",
		    strerror(errno));
		sigaction(SIGINT, &oint, NULL);
		sigaction(SIGQUIT, &oquit, NULL);
		if (guarded)
			shimsync_free(&ss);
		if (own)
			binfmtns_close(&ns);
		free(nargv);
		return 2;
	}
	if (pid == 0) {
		sigaction(SIGINT, &oint, NULL);
		sigaction(SIGQUIT, &oquit, NULL);
		/* First: the filters below are made in that namespace. */
		if (own)
			binfmtns_child_or_exit(&ns, em.line, "dpkg: error: ",
			    em.source, 2);
		if (how == SHIMCONF_BATCHED) {
			setenv("DEBUNPACK_NOSYNC_FALLBACK", "1", 1);
			execv(nosync, nargv);
			unsetenv("DEBUNPACK_NOSYNC_FALLBACK");
		} else if (guarded)
			(void)shimsync_child(&ss);
		execv(argv[0], argv);
		fprintf(stderr, "dpkg: error: cannot execute '%s': %s\n",
		    argv[0], strerror(errno));
		_exit(2);
	}
	free(nargv);
	/* A failure here is the child's too: it says so and exits. */
	if (own) {
		(void)binfmtns_parent(&ns, pid);
		binfmtns_close(&ns);
	}
	if (guarded) {
		if (shimsync_serve(&ss, pid, &st) != 0)
			st = -1;
		if (s->verbose)
			fprintf(stderr, "debunpack-dpkg: of dpkg's syncs,"
			    " %lu put their file ahead of later changes,"
			    " %lu synced '%s', %lu did nothing\n", ss.settled,
			    ss.synced, s->admindir, ss.skipped);
		/* Older than dpkg's writes: it hears of their errors. */
		early = fcntl(ss.admin, F_DUPFD_CLOEXEC, 0);
		shimsync_free(&ss);
	} else
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR) {
				st = -1;
				break;
			}
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	r = shimconf_barrier(s, early, &what);
	if (early >= 0)
		close(early);
	if (r != 0) {
		fprintf(stderr, "dpkg: error: cannot make '%s' durable: %s\n",
		    what, strerror(-r));
		return 2;
	}
	if (st != -1 && WIFSIGNALED(st)) {
		/* Killed: so is its caller's dpkg, as apt would see it. */
		signal(WTERMSIG(st), SIG_DFL);
		raise(WTERMSIG(st));
	}
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}
