/* SPDX-License-Identifier: MIT */
/* emulate: a foreign root's maintainer scripts run under qemu-user. */
#include "config.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/dpkgarch.h"
#include "durable/rootfs.h"
#include "run/emulate.h"

#define EMULATE_HDR	64	/* an ELF header's bytes: binfmt looks at these */

/*
 * The ELF identity of each Debian architecture, for a root that has no
 * binary yet (a new root: its /bin/sh comes in the batch).
 */
static const struct {
	const char *arch, *machine;
	unsigned char class, data;
	unsigned short em;
} emulate_arch[] = {
	{ "amd64",	"x86_64",	ELFCLASS64, ELFDATA2LSB, EM_X86_64 },
	{ "i386",	"i386",		ELFCLASS32, ELFDATA2LSB, EM_386 },
	{ "arm64",	"aarch64",	ELFCLASS64, ELFDATA2LSB, EM_AARCH64 },
	{ "armhf",	"arm",		ELFCLASS32, ELFDATA2LSB, EM_ARM },
	{ "armel",	"arm",		ELFCLASS32, ELFDATA2LSB, EM_ARM },
	{ "riscv64",	"riscv64",	ELFCLASS64, ELFDATA2LSB, EM_RISCV },
	{ "ppc64el",	"ppc64le",	ELFCLASS64, ELFDATA2LSB, EM_PPC64 },
	{ "ppc64",	"ppc64",	ELFCLASS64, ELFDATA2MSB, EM_PPC64 },
	{ "powerpc",	"ppc",		ELFCLASS32, ELFDATA2MSB, EM_PPC },
	{ "s390x",	"s390x",	ELFCLASS64, ELFDATA2MSB, EM_S390 },
	{ "mips64el",	"mips64el",	ELFCLASS64, ELFDATA2LSB, EM_MIPS },
	{ "mipsel",	"mipsel",	ELFCLASS32, ELFDATA2LSB, EM_MIPS },
	{ "loong64",	"loongarch64",	ELFCLASS64, ELFDATA2LSB, 258 },
	{ "sparc64",	"sparc64",	ELFCLASS64, ELFDATA2MSB, EM_SPARCV9 },
	{ "alpha",	"alpha",	ELFCLASS64, ELFDATA2LSB, EM_ALPHA },
	{ "hppa",	"hppa",		ELFCLASS32, ELFDATA2MSB, EM_PARISC },
	{ "m68k",	"m68k",		ELFCLASS32, ELFDATA2MSB, EM_68K },
	{ "sh4",	"sh4",		ELFCLASS32, ELFDATA2LSB, EM_SH },
	{ "ia64",	"ia64",		ELFCLASS64, ELFDATA2LSB, EM_IA_64 },
};

/*
 * The 32-bit machines a 64-bit kernel runs itself (its compat layer):
 * no binfmt_misc entry is registered for these.
 */
static const struct {
	unsigned short host, guest;
} emulate_compat[] = {
	{ EM_X86_64, EM_386 },
	{ EM_AARCH64, EM_ARM },
	{ EM_PPC64, EM_PPC },
	{ EM_S390, EM_S390 },
	{ EM_SPARCV9, EM_SPARC },
	{ EM_SPARCV9, EM_SPARC32PLUS },
};

static unsigned short
emulate_em(const unsigned char *h)
{
	return h[EI_DATA] == ELFDATA2MSB ? (unsigned short)(h[18] << 8 | h[19]) :
	    (unsigned short)(h[19] << 8 | h[18]);
}

static int
emulate_is_elf(const unsigned char *h, ssize_t n)
{
	return n >= 20 && memcmp(h, ELFMAG, SELFMAG) == 0 &&
	    (h[EI_CLASS] == ELFCLASS32 || h[EI_CLASS] == ELFCLASS64);
}

/* The first bytes of the root's file REL, looked up as the root sees it. */
static ssize_t
emulate_head(const struct rootfs *rf, const char *rel, unsigned char *h)
{
	ssize_t n;
	int fd;

	if ((fd = rootfs_resolve(rf, rel, O_RDONLY)) < 0)
		return -1;
	n = pread(fd, h, EMULATE_HDR, 0);
	close(fd);
	return n;
}

/* A header made from the table for ARCH: the bytes binfmt's masks read. */
static int
emulate_arch_head(const char *arch, unsigned char *h)
{
	size_t i;

	for (i = 0; i < sizeof(emulate_arch) / sizeof(emulate_arch[0]); i++)
		if (strcmp(emulate_arch[i].arch, arch) == 0)
			break;
	if (i == sizeof(emulate_arch) / sizeof(emulate_arch[0]))
		return -1;
	memset(h, 0, EMULATE_HDR);
	memcpy(h, ELFMAG, SELFMAG);
	h[EI_CLASS] = emulate_arch[i].class;
	h[EI_DATA] = emulate_arch[i].data;
	h[EI_VERSION] = EV_CURRENT;
	if (h[EI_DATA] == ELFDATA2MSB) {
		h[17] = ET_EXEC;
		h[18] = (unsigned char)(emulate_arch[i].em >> 8);
		h[19] = (unsigned char)emulate_arch[i].em;
	} else {
		h[16] = ET_EXEC;
		h[18] = (unsigned char)emulate_arch[i].em;
		h[19] = (unsigned char)(emulate_arch[i].em >> 8);
	}
	return 0;
}

static void
emulate_name(const unsigned char *h, char *buf, size_t n)
{
	unsigned short em = emulate_em(h);
	size_t i;

	for (i = 0; i < sizeof(emulate_arch) / sizeof(emulate_arch[0]); i++)
		if (emulate_arch[i].em == em &&
		    emulate_arch[i].class == h[EI_CLASS] &&
		    emulate_arch[i].data == h[EI_DATA]) {
			snprintf(buf, n, "%s", emulate_arch[i].machine);
			return;
		}
	snprintf(buf, n, "ELF machine %u", em);
}

static int
emulate_hex(const char *s, unsigned char *out, size_t max)
{
	size_t n = 0;
	unsigned v;

	while (n < max && sscanf(s, "%2x", &v) == 1) {
		out[n++] = (unsigned char)v;
		s += 2;
		if (*s == '\n' || *s == '\0')
			break;
	}
	return (int)n;
}

/*
 * Whether the binfmt_misc entry DIR/NAME is enabled and takes the header
 * H: 1 with its interpreter in INTERP and F in *FIXED, 0 not, as the
 * kernel matches magic and mask at the offset.
 */
static int
emulate_entry(const char *dir, const char *name, const unsigned char *h,
    char *interp, bool *fixed)
{
	unsigned char magic[128], mask[128];
	char path[PATH_MAX], line[512];
	int nmagic = 0, nmask = -1, i, on = 0, off = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	*fixed = false;
	interp[0] = '\0';
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line, "enabled") == 0)
			on = 1;
		else if (strncmp(line, "interpreter ", 12) == 0)
			snprintf(interp, PATH_MAX, "%s", line + 12);
		else if (strncmp(line, "flags: ", 7) == 0)
			*fixed = strchr(line + 7, 'F') != NULL;
		else if (strncmp(line, "offset ", 7) == 0)
			off = atoi(line + 7);
		else if (strncmp(line, "magic ", 6) == 0)
			nmagic = emulate_hex(line + 6, magic, sizeof(magic));
		else if (strncmp(line, "mask ", 5) == 0)
			nmask = emulate_hex(line + 5, mask, sizeof(mask));
	}
	fclose(f);
	/* An extension entry has no offset nor magic: not an ELF's. */
	if (!on || off < 0 || nmagic == 0 || off + nmagic > EMULATE_HDR ||
	    interp[0] == '\0')
		return 0;
	for (i = 0; i < nmagic; i++) {
		unsigned char m = i < nmask ? mask[i] : 0xff;

		if ((h[off + i] & m) != (magic[i] & m))
			return 0;
	}
	return 1;
}

/*
 * The enabled entry of binfmt_misc that runs header H, in EM: 1, or 0;
 * -1 when binfmt_misc cannot be read at all (not mounted), its status
 * file's path then in EM->source.
 */
static int
emulate_binfmt(struct emulate *em, const unsigned char *h, bool *fixed)
{
	const char *dir = getenv("DEBUNPACK_BINFMT_MISC");
	char line[32] = "";
	struct dirent *de;
	FILE *f;
	DIR *d;
	int found = 0;

	if (dir == NULL)
		dir = "/proc/sys/fs/binfmt_misc";
	snprintf(em->source, sizeof(em->source), "%s/status", dir);
	if ((f = fopen(em->source, "re")) == NULL)
		return -1;
	if (fgets(line, sizeof(line), f) == NULL)
		line[0] = '\0';
	fclose(f);
	if (strncmp(line, "enabled", 7) != 0 || (d = opendir(dir)) == NULL)
		return 0;
	/* The kernel tries the entries newest first; any that fits will do. */
	while (!found && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "status") == 0 ||
		    strcmp(de->d_name, "register") == 0)
			continue;
		if (emulate_entry(dir, de->d_name, h, em->interp, fixed)) {
			snprintf(em->entry, sizeof(em->entry), "%s",
			    de->d_name);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

/*
 * Whether the kernel runs ROOT's /bin/sh, chrooted: where binfmt_misc
 * cannot be read (a container mounts none) its entries may still work.
 * The probe writes nothing.  1 it ran, 0 not.
 */
static int
emulate_probe(const char *root)
{
	int status;
	pid_t pid;

	if ((pid = fork()) < 0)
		return 0;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		if (chroot(root) == 0 && chdir("/") == 0)
			execl("/bin/sh", "sh", "-c", "exit 0", (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * Whether the host file PATH is an ELF that runs without a dynamic
 * loader (no PT_INTERP): only such a file runs inside any root.
 */
static int
emulate_static(const char *path)
{
	unsigned char h[EMULATE_HDR];
	unsigned long long phoff;
	unsigned phentsize, phnum, i;
	int fd, is = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    !emulate_is_elf(h, sizeof(h))) {
		close(fd);
		return 0;
	}
	/* The host's own byte order: a host binary. */
	if (h[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr e;

		memcpy(&e, h, sizeof(e));
		phoff = e.e_phoff;
		phentsize = e.e_phentsize;
		phnum = e.e_phnum;
	} else {
		Elf32_Ehdr e;

		memcpy(&e, h, sizeof(e));
		phoff = e.e_phoff;
		phentsize = e.e_phentsize;
		phnum = e.e_phnum;
	}
	is = 1;
	for (i = 0; i < phnum && phentsize >= 4; i++) {
		uint32_t type;

		if (pread(fd, &type, sizeof(type), (off_t)(phoff +
		    (unsigned long long)i * phentsize)) != (ssize_t)sizeof(type)) {
			is = 0;
			break;
		}
		if (type == PT_INTERP) {
			is = 0;
			break;
		}
	}
	close(fd);
	return is;
}

/*
 * No entry of the host's runs the binaries of header H: EMULATOR does,
 * registered for each script in a binfmt_misc of the script's own, as
 * tried now (else the one-line error, before anything is written).
 */
static int
emulate_own(struct emulate *em, const char *root, const unsigned char *h,
    const char *emulator, struct dbp_error *err)
{
	char path[PATH_MAX], name[64];
	int st;

	/* The kernel opens it at registration, outside the root. */
	if (realpath(emulator, path) == NULL)
		return dbp_err(err, errno, emulator, "cannot open emulator");
	snprintf(em->source, sizeof(em->source), "%s", path);
	if ((st = emulate_static(em->source)) < 0)
		return dbp_err(err, -st, em->source, "cannot open emulator");
	if (st == 0) {
		dbp_err(err, 0, root, "the root's binaries are for %s, which"
		    " binfmt_misc has no entry for, and %s is not a static"
		    " executable (name a static qemu-user with --emulator)",
		    em->machine, em->source);
		return -ENOEXEC;
	}
	snprintf(name, sizeof(name), "debunpack-%s", em->machine);
	/* A machine the table lacks has a space in its name. */
	for (st = 0; name[st] != '\0'; st++)
		if (name[st] == ' ' || name[st] == '/')
			name[st] = '-';
	if ((st = binfmtns_line(em->line, sizeof(em->line), name, h,
	    em->source)) != 0)
		return dbp_err(err, -st, em->source, "cannot register emulator");
	if ((st = binfmtns_try(em->line)) != 0) {
		dbp_err(err, -st, root, "the root's binaries are for %s, which"
		    " binfmt_misc has no entry for, and %s cannot be registered"
		    " in a user namespace of the scripts' own (Linux 6.7 or"
		    " later; else install binfmt-support)", em->machine,
		    em->source);
		return -ENOEXEC;
	}
	em->own = true;
	em->interp[0] = '\0';
	snprintf(em->entry, sizeof(em->entry), "%s", name);
	return 0;
}

int
emulate_judge(struct emulate *em, const char *root, const char *arch,
    const char *emulator, struct dbp_error *err)
{
	unsigned char h[EMULATE_HDR], self[EMULATE_HDR];
	char hint[64], what[160];
	bool fixed;
	size_t i;
	struct rootfs rf;
	int fd, st;
	ssize_t n = -1;

	memset(em, 0, sizeof(*em));
	/* A root not there yet is judged by its architecture. */
	if (rootfs_open(&rf, root, NULL) == 0) {
		n = emulate_head(&rf, "bin/sh", h);
		if (!emulate_is_elf(h, n))
			n = emulate_head(&rf, "usr/bin/dpkg", h);
		rootfs_close(&rf);
	}
	if (!emulate_is_elf(h, n) && (arch == NULL ||
	    emulate_arch_head(arch, h) != 0))
		return 0;	/* nothing to tell by: the host's own */
	/*
	 * The host is what this program is built for; where the table has
	 * no entry for it, its own header says (a chroot may lack /proc:
	 * then nothing tells, and the scripts run as on a native root).
	 */
	if (dpkgarch_builtin() == NULL ||
	    emulate_arch_head(dpkgarch_builtin(), self) != 0) {
		if ((fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) < 0)
			return 0;
		n = pread(fd, self, sizeof(self), 0);
		close(fd);
		if (!emulate_is_elf(self, n))
			return 0;
	}
	if (emulate_em(h) == emulate_em(self) && h[EI_DATA] == self[EI_DATA])
		return 0;
	emulate_name(h, em->machine, sizeof(em->machine));
	st = emulate_binfmt(em, h, &fixed);
	/*
	 * binfmt_misc is asked before the kernel's own ELF loader: a 32-bit
	 * machine the host runs itself (armhf on arm64) still goes to qemu
	 * when an entry takes it, and one without F then needs its
	 * interpreter inside the root.  Only with no entry does the compat
	 * layer run it.
	 */
	for (i = 0; st <= 0 && i < sizeof(emulate_compat) /
	    sizeof(emulate_compat[0]); i++)
		if (emulate_compat[i].host == emulate_em(self) &&
		    emulate_compat[i].guest == emulate_em(h) &&
		    h[EI_DATA] == self[EI_DATA]) {
			memset(em, 0, sizeof(*em));
			return 0;
		}
	em->foreign = true;
	if (st < 0 && n >= 20 &&
	    emulate_probe(root)) {
		/* Run as if by an entry with F: nothing to place. */
		em->interp[0] = '\0';
		snprintf(em->entry, sizeof(em->entry), "unknown");
		return 0;
	}
	/* No entry runs them: the emulator the user names does. */
	if (st <= 0 && emulator != NULL)
		return emulate_own(em, root, h, emulator, err);
	/* Never taken unasked: the user says which emulator runs as root. */
	snprintf(hint, sizeof(hint), "/usr/bin/qemu-%s-static", em->machine);
	if (access(hint, X_OK) == 0)
		snprintf(what, sizeof(what), "name qemu-user-static's %s"
		    " with --emulator, or install binfmt-support", hint);
	else
		snprintf(what, sizeof(what), "install qemu-user-static and"
		    " binfmt-support");
	if (st < 0) {
		dbp_err(err, 0, root, "the root's binaries are for %s, which"
		    " this host runs only through qemu-user, and binfmt_misc"
		    " cannot be read (%s; mount it, %s)", em->machine,
		    em->source, what);
		return -ENOEXEC;
	}
	if (st == 0) {
		dbp_err(err, 0, root, "the root's binaries are for %s, which"
		    " this host runs only through qemu-user, and binfmt_misc"
		    " has no enabled entry for them (%s)", em->machine, what);
		return -ENOEXEC;
	}
	if (fixed) {
		/* The kernel holds the interpreter open: nothing to place. */
		em->interp[0] = '\0';
		return 0;
	}
	snprintf(em->source, sizeof(em->source), "%s", emulator != NULL ?
	    emulator : em->interp);
	if ((st = emulate_static(em->source)) < 0)
		return dbp_err(err, -st, em->source, "cannot open emulator");
	if (st == 0) {
		dbp_err(err, 0, root, "the root's binaries are for %s:"
		    " binfmt_misc's entry '%s' lacks the F flag and runs %s,"
		    " which is not a static executable and cannot run in the"
		    " root (name a static qemu-user with --emulator)",
		    em->machine, em->entry, em->source);
		return -ENOEXEC;
	}
	return 0;
}

/* Copy the host file FROM to TO, executable, as a new file. */
static int
emulate_copy(const char *from, const char *to)
{
	struct stat st;
	int in, out, r = 0;
	ssize_t n;

	if ((in = open(from, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(in, &st) != 0 || (out = open(to, O_WRONLY | O_CREAT |
	    O_EXCL | O_CLOEXEC, 0755)) < 0) {
		r = -errno;
		close(in);
		return r;
	}
	while (r == 0 && (n = sendfile(out, in, NULL, 1 << 30)) != 0)
		if (n < 0 && errno != EINTR)
			r = -errno;
	if (close(out) != 0 && r == 0)
		r = -errno;
	close(in);
	if (r != 0)
		unlink(to);
	return r;
}

int
emulate_enter(const struct emulate *em, const char *root,
    struct emulate_left *left, struct dbp_error *err)
{
	char path[PATH_MAX], *slash;
	struct stat st;
	int r;

	memset(left, 0, sizeof(*left));
	if (em == NULL || !em->foreign || em->interp[0] == '\0')
		return 0;
	if ((size_t)snprintf(path, sizeof(path), "%s%s", root, em->interp) >=
	    sizeof(path))
		return dbp_err(err, ENAMETOOLONG, em->interp, "cannot place"
		    " emulator");
	/* The root has its own there (qemu-user-static in it): it serves. */
	if (lstat(path, &st) == 0)
		return 0;
	/* The directories it lacks, outermost last in the list. */
	snprintf(left->top, sizeof(left->top), "%s", path);
	while ((slash = strrchr(left->top, '/')) != NULL &&
	    slash > left->top + strlen(root)) {
		*slash = '\0';
		if (lstat(left->top, &st) == 0)
			break;
		/* The last slot is the file's. */
		if (left->nmade == (int)(sizeof(left->made) /
		    sizeof(left->made[0])) - 1)
			return dbp_err(err, ENAMETOOLONG, em->interp, "cannot"
			    " place emulator");
		snprintf(left->made[left->nmade++], PATH_MAX, "%s", left->top);
	}
	/*
	 * Every directory on the way is a directory, no symlink: what is
	 * placed stays inside the root.
	 */
	slash = left->top + strlen(root);
	for (slash = *slash == '/' ? strchr(slash + 1, '/') : NULL;
	    slash != NULL; slash = strchr(slash + 1, '/')) {
		char c = *slash;

		*slash = '\0';
		r = lstat(left->top, &st) == 0 && S_ISDIR(st.st_mode);
		*slash = c;
		if (!r)
			break;
	}
	/* The root itself may be reached through a link of the user's. */
	if (slash != NULL || (strlen(left->top) > strlen(root) ?
	    lstat(left->top, &st) : stat(left->top, &st)) != 0 ||
	    !S_ISDIR(st.st_mode)) {
		left->nmade = 0;
		return dbp_err(err, ENOTDIR, left->top, "cannot place"
		    " emulator: not a directory of the root");
	}
	left->times[0] = st.st_atim;
	left->times[1] = st.st_mtim;
	/* Made outermost first; taken away innermost first. */
	for (r = left->nmade - 1; r >= 0; r--)
		if (mkdir(left->made[r], 0755) != 0) {
			int e = errno;

			r = dbp_err(err, e, left->made[r], "cannot create"
			    " directory");
			memmove(left->made, left->made + r + 1,
			    (size_t)(left->nmade - r - 1) * PATH_MAX);
			left->nmade -= r + 1;
			emulate_leave(root, left, NULL);
			return r;
		}
	if ((r = emulate_copy(em->source, path)) != 0) {
		r = dbp_err(err, -r, path, "cannot place emulator %s",
		    em->source);
		emulate_leave(root, left, NULL);
		return r;
	}
	left->file = true;
	snprintf(left->made[sizeof(left->made) / sizeof(left->made[0]) - 1],
	    PATH_MAX, "%s", path);
	return 0;
}

int
emulate_leave(const char *root, struct emulate_left *left,
    struct dbp_error *err)
{
	const char *file = left->made[sizeof(left->made) /
	    sizeof(left->made[0]) - 1];
	int i, r = 0;

	(void)root;
	if (left->file && unlink(file) != 0 && r == 0)
		r = dbp_err(err, errno, file, "cannot remove emulator");
	for (i = 0; r == 0 && i < left->nmade; i++)
		if (rmdir(left->made[i]) != 0)
			r = dbp_err(err, errno, left->made[i], "cannot remove"
			    " directory");
	if (r == 0 && (left->file || left->nmade > 0) &&
	    utimensat(AT_FDCWD, left->top, left->times, AT_SYMLINK_NOFOLLOW) != 0)
		r = dbp_err(err, errno, left->top, "cannot restore times");
	left->file = false;
	left->nmade = 0;
	return r;
}
