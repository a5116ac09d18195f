/* SPDX-License-Identifier: MIT */
/* The architectures a root takes, as dpkg decides them. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/dpkgarch.h"
#include "db/dpkgstatus.h"
#include "deb/control.h"
#include "durable/fileat.h"

/*
 * dpkg's ARCHITECTURE is what its build's compiler targets (dpkg's
 * configure maps the GNU triplet through its cputable and ostable); the
 * same compiler macros name it here, so that a debunpack built beside a
 * dpkg agrees with `dpkg --print-architecture` without running it.
 */
#if defined(__x86_64__) && defined(__ILP32__)
#define DPKGARCH_CPU	"x32"
#elif defined(__x86_64__)
#define DPKGARCH_CPU	"amd64"
#elif defined(__i386__)
#define DPKGARCH_CPU	"i386"
#elif defined(__aarch64__)
#define DPKGARCH_CPU	"arm64"
#elif defined(__arm__) && defined(__ARM_PCS_VFP)
#define DPKGARCH_CPU	"armhf"
#elif defined(__arm__)
#define DPKGARCH_CPU	"armel"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define DPKGARCH_CPU	"ppc64el"
#elif defined(__powerpc64__)
#define DPKGARCH_CPU	"ppc64"
#elif defined(__powerpc__)
#define DPKGARCH_CPU	"powerpc"
#elif defined(__s390x__)
#define DPKGARCH_CPU	"s390x"
#elif defined(__riscv) && __riscv_xlen == 64
#define DPKGARCH_CPU	"riscv64"
#elif defined(__loongarch64)
#define DPKGARCH_CPU	"loong64"
#elif defined(__mips64) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define DPKGARCH_CPU	"mips64el"
#elif defined(__mips__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define DPKGARCH_CPU	"mipsel"
#elif defined(__mips__)
#define DPKGARCH_CPU	"mips"
#elif defined(__sparc__) && defined(__arch64__)
#define DPKGARCH_CPU	"sparc64"
#elif defined(__alpha__)
#define DPKGARCH_CPU	"alpha"
#elif defined(__hppa__)
#define DPKGARCH_CPU	"hppa"
#elif defined(__ia64__)
#define DPKGARCH_CPU	"ia64"
#elif defined(__m68k__)
#define DPKGARCH_CPU	"m68k"
#elif defined(__sh__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define DPKGARCH_CPU	"sh4"
#endif

/* dpkg's ostable: Linux goes unnamed, the others before the CPU. */
#if defined(__GNU__)
#define DPKGARCH_OS	"hurd-"
#elif defined(__FreeBSD_kernel__) || defined(__FreeBSD__)
#define DPKGARCH_OS	"kfreebsd-"
#else
#define DPKGARCH_OS	""
#endif

const char *
dpkgarch_builtin(void)
{
#ifdef DPKGARCH_CPU
	return DPKGARCH_OS DPKGARCH_CPU;
#else
	return NULL;
#endif
}

void
dpkgarch_clear(struct dpkgarch *a)
{
	size_t i;

	for (i = 0; i < a->nforeign; i++)
		free(a->foreign[i]);
	free(a->foreign);
	free(a->native);
	memset(a, 0, sizeof(*a));
}

static bool
dpkgarch_is_foreign(const struct dpkgarch *a, const char *arch)
{
	size_t i;

	for (i = 0; i < a->nforeign; i++)
		if (strcmp(a->foreign[i], arch) == 0)
			return true;
	return false;
}

/* Line NAME of the arch file: foreign when dpkg would mark it so. */
static int
dpkgarch_add(struct dpkgarch *a, const char *name)
{
	char **v;

	if (!control_valid_arch(name) || strcmp(name, "all") == 0 ||
	    strcmp(name, "any") == 0 || strcmp(name, a->native) == 0 ||
	    dpkgarch_is_foreign(a, name))
		return 0;
	if ((v = realloc(a->foreign, (a->nforeign + 1) * sizeof(*v))) == NULL)
		return -ENOMEM;
	a->foreign = v;
	if ((v[a->nforeign] = strdup(name)) == NULL)
		return -ENOMEM;
	a->nforeign++;
	return 0;
}

/*
 * The Architecture of the dpkg installed in the status TEXT (LEN bytes),
 * into *OUT (NULL when no stanza of dpkg is installed there, or it says
 * none).  Only dpkg's stanzas are parsed, found by their first line:
 * dpkg writes Package first.  0 or -ENOMEM.
 */
static int
dpkgarch_status_native(const char *text, size_t len, char **out)
{
	static const char key[] = "Package: dpkg\n";
	const char *p = text, *end = text + len, *e;
	struct dpkgstatus st = { NULL, 0 };
	size_t i;
	int r = 0;

	*out = NULL;
	while (*out == NULL && r == 0 && p < end &&
	    (p = memmem(p, (size_t)(end - p), key, sizeof(key) - 1)) != NULL) {
		if (p != text && p[-1] != '\n') {
			p += sizeof(key) - 1;
			continue;
		}
		if ((e = memmem(p, (size_t)(end - p), "\n\n", 2)) == NULL)
			e = end;
		else
			e++;
		if (dpkgstatus_parse(&st, p, (size_t)(e - p)) == 0)
			for (i = 0; i < st.n && *out == NULL; i++)
				if (strcmp(st.v[i].name, "dpkg") == 0 &&
				    dpkgstatus_installed(&st.v[i]) &&
				    st.v[i].arch != NULL &&
				    control_valid_arch(st.v[i].arch) &&
				    strcmp(st.v[i].arch, "all") != 0 &&
				    strcmp(st.v[i].arch, "any") != 0 &&
				    (*out = strdup(st.v[i].arch)) == NULL)
					r = -ENOMEM;
		dpkgstatus_clear(&st);
		p = e;
	}
	return r;
}

int
dpkgarch_load(struct dpkgarch *a, const struct rootfs *rf,
    const char *native, struct dbp_error *err)
{
	char *text = NULL, *own = NULL, *p, *nl;
	size_t len;
	int dfd, r;

	memset(a, 0, sizeof(*a));
	if ((dfd = rootfs_resolve(rf, "var/lib/dpkg", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0 && dfd != -ENOENT && dfd != -ENOTDIR)
		return dbp_err(err, -dfd, "var/lib/dpkg", "cannot open");
	/*
	 * Without --architecture, the root's own dpkg decides, as it will
	 * when it runs there (chroot R dpkg --print-architecture): a root
	 * of another architecture takes its packages as native ones.
	 * Where the root has no dpkg installed, the host's, as with dpkg
	 * --root.
	 */
	if (native == NULL && dfd >= 0) {
		r = fileat_read(dfd, "status", &text, &len);
		if (r == 0)
			r = dpkgarch_status_native(text, len, &own);
		free(text);
		text = NULL;
		if (r != 0 && r != -ENOENT) {
			close(dfd);
			return dbp_err(err, -r, "var/lib/dpkg/status",
			    "cannot read");
		}
		native = own;
	}
	if (native == NULL)
		native = dpkgarch_builtin();
	/* No Debian architecture: only "all" fits, as nothing else names it. */
	a->native = strdup(native != NULL ? native : "");
	free(own);
	if (a->native == NULL) {
		if (dfd >= 0)
			close(dfd);
		return dbp_err(err, ENOMEM, NULL, "cannot start");
	}
	if (dfd < 0)
		return 0;
	r = fileat_read(dfd, "arch", &text, &len);
	close(dfd);
	if (r == -ENOENT)
		return 0;
	if (r != 0) {
		dpkgarch_clear(a);
		return dbp_err(err, -r, "var/lib/dpkg/arch", "cannot read");
	}
	for (p = text; r == 0 && *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			nl = p + strlen(p) - 1;
		else
			*nl = '\0';
		r = dpkgarch_add(a, p);
	}
	free(text);
	if (r != 0) {
		dpkgarch_clear(a);
		return dbp_err(err, -r, "var/lib/dpkg/arch", "cannot read");
	}
	return 0;
}

int
dpkgarch_check(const struct dpkgarch *a, const char *arch, char *msg,
    size_t n)
{
	if (arch != NULL && (strcmp(arch, "all") == 0 ||
	    (a->native[0] != '\0' && strcmp(arch, a->native) == 0) ||
	    dpkgarch_is_foreign(a, arch)))
		return 0;
	snprintf(msg, n, "package architecture (%s) does not match system"
	    " (%s)", arch != NULL && arch[0] != '\0' ? arch : "<empty>",
	    a->native);
	return -EINVAL;
}

bool
dpkgarch_other(const char *name, const char *arch, const char *ma,
    const struct control *ctl)
{
	return name != NULL && arch != NULL &&
	    strcmp(name, control_get(ctl, "Package")) == 0 &&
	    strcmp(arch, control_get(ctl, "Architecture")) != 0 &&
	    dpkgstatus_ma_same(ma);
}

int
dpkgarch_coinstance(const struct control *installed,
    const struct dpkgstatus *status, const struct control *ctl, char *msg,
    size_t n)
{
	const char *other = NULL, *name = control_get(ctl, "Package");
	const char *ma = control_get(ctl, "Multi-Arch");
	bool same = dpkgstatus_ma_same(ma);
	size_t i, k = 0;

	/*
	 * With dpkg's database an instance's record is NAME:ARCH's beside
	 * the other's; debunpack's own records hold one a name.
	 */
	if (same && status == NULL && installed != NULL &&
	    dpkgarch_other(control_get(installed, "Package"),
	    control_get(installed, "Architecture"), control_get(installed,
	    "Multi-Arch"), ctl))
		other = control_get(installed, "Architecture");
	/*
	 * dpkg counts a name's installed instances whatever their arch:
	 * with more than one, only a Multi-Arch: same package joins them.
	 */
	for (i = 0; !same && status != NULL && i < status->n; i++)
		if (strcmp(dpkgstatus_state(&status->v[i]),
		    "not-installed") != 0 && status->v[i].name != NULL &&
		    name != NULL && strcmp(status->v[i].name, name) == 0 &&
		    ++k > 1)
			other = "*";
	if (other == NULL)
		return 0;
	if (!same) {
		/* dpkg's refusal, in its words. */
		snprintf(msg, n, "package %s:%s (%s) with field 'Multi-Arch:"
		    " %s' is not co-installable with %s which has multiple"
		    " installed instances", name, control_get(ctl,
		    "Architecture"), control_get(ctl, "Version") != NULL ?
		    control_get(ctl, "Version") : "", ma != NULL ? ma : "no",
		    name);
		return -EEXIST;
	}
	snprintf(msg, n, "'%s:%s' would sit beside '%s:%s': without dpkg's"
	    " database (--dpkg-db) debunpack keeps one instance of a package",
	    name, control_get(ctl, "Architecture"), name, other);
	return -EEXIST;
}
