/* SPDX-License-Identifier: MIT */
/* Unit tests of emulate.c: how a foreign root's scripts run, judged and placed. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkutil.h"
#include "run/emulate.h"

/* qemu-user-static's aarch64 entry, as the kernel shows it. */
#define EMU_MAGIC	"magic 7f454c460201010000000000000000000200b700\n" \
			"mask ffffffffffffff00fffffffffffffffffeffffff\n"

/* An ELF header: CLASS 1/2, little-endian, ET_EXEC, machine EM. */
static void
emu_elf(const char *rel, int class, unsigned em)
{
	unsigned char h[64] = { 0x7f, 'E', 'L', 'F' };
	int fd;

	h[4] = (unsigned char)class;
	h[5] = 1;
	h[6] = 1;
	h[16] = 2;
	h[18] = (unsigned char)em;
	h[19] = (unsigned char)(em >> 8);
	fd = open(checkutil_at(rel), O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, h, sizeof(h)), (int)sizeof(h));
	close(fd);
}

/* A binfmt_misc directory "bm" with one aarch64 entry of FLAGS, or none. */
static void
emu_binfmt(const char *status, const char *state, const char *flags,
    const char *interp)
{
	char text[1024];

	ck_assert(mkdir(checkutil_at("bm"), 0755) == 0 || errno == EEXIST);
	(void)unlink(checkutil_at("bm/qemu-aarch64"));
	checkutil_write("bm/status", status);
	checkutil_write("bm/register", "");
	/* An extension entry matches no ELF. */
	checkutil_write("bm/jar", "enabled\ninterpreter /usr/bin/jexec\n"
	    "flags: \nextension .jar\n");
	if (state != NULL) {
		snprintf(text, sizeof(text), "%s\ninterpreter %s\nflags: %s\n"
		    "offset 0\n" EMU_MAGIC, state, interp, flags);
		checkutil_write("bm/qemu-aarch64", text);
	}
	setenv("DEBUNPACK_BINFMT_MISC", checkutil_at("bm"), 1);
}

/* qemu-user-static's 32-bit arm and i386 entries, as the kernel shows them. */
#define EMU_ARM		"magic 7f454c4601010100000000000000000002002800\n" \
			"mask ffffffffffffff00fffffffffffffffffeffffff\n"
#define EMU_I386	"magic 7f454c4601010100000000000000000002000300\n" \
			"mask fffffffffffefe00fffffffffffffffffeffffff\n"

/* One more enabled entry NAME in "bm", of MAGIC (its mask too) and FLAGS. */
static void
emu_entry(const char *name, const char *magic, const char *flags,
    const char *interp)
{
	char text[1024], rel[64];

	snprintf(text, sizeof(text), "enabled\ninterpreter %s\nflags: %s\n"
	    "offset 0\n%s", interp, flags, magic);
	snprintf(rel, sizeof(rel), "bm/%s", name);
	checkutil_write(rel, text);
}

static void
emu_root(void)
{
	checkutil_mkdir("r");
	checkutil_mkdir("r/bin");
	checkutil_mkdir("r/usr");
}

START_TEST(test_emulate_native)
{
	struct dbp_error err;
	struct emulate em;
	char self[64];
	int fd;

	emu_root();
	emu_binfmt("enabled\n", NULL, NULL, NULL);
	/* The host's own header: nothing to emulate, no entry needed. */
	fd = open("/proc/self/exe", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, self, sizeof(self)), (int)sizeof(self));
	close(fd);
	checkutil_write("r/bin/dash", "");
	fd = open(checkutil_at("r/bin/dash"), O_WRONLY);
	ck_assert_int_eq(write(fd, self, sizeof(self)), (int)sizeof(self));
	close(fd);
	checkutil_symlink("dash", "r/bin/sh");
	ck_assert_int_eq(emulate_judge(&em, checkutil_at("r"), "arm64", NULL,
	    &err), 0);
	ck_assert(!em.foreign);
#if defined(__x86_64__)
	/* The compat layer runs i386 itself: no qemu-i386 is registered. */
	emu_elf("r/bin/dash", 1, 3);
	ck_assert_int_eq(emulate_judge(&em, checkutil_at("r"), "i386", NULL,
	    &err), 0);
	ck_assert(!em.foreign);
#endif
	unsetenv("DEBUNPACK_BINFMT_MISC");
}
END_TEST

START_TEST(test_emulate_fixed)
{
	struct dbp_error err;
	struct emulate em;

	emu_root();
	emu_binfmt("enabled\n", "enabled", "PF", "/usr/libexec/q/aarch64");
	/* An absolute link is the root's: resolved inside it. */
	emu_elf("r/bin/busybox", 2, 183);
	checkutil_symlink("/bin/busybox", "r/bin/sh");
	ck_assert_int_eq(emulate_judge(&em, checkutil_at("r"), NULL, NULL,
	    &err), 0);
	ck_assert(em.foreign);
	ck_assert_str_eq(em.machine, "aarch64");
	ck_assert_str_eq(em.entry, "qemu-aarch64");
	ck_assert_str_eq(em.interp, "");
	/* A new root: its dpkg architecture tells. */
	ck_assert_int_eq(unlink(checkutil_at("r/bin/sh")), 0);
	ck_assert_int_eq(emulate_judge(&em, checkutil_at("r"), "arm64", NULL,
	    &err), 0);
	ck_assert(em.foreign);
	ck_assert_str_eq(em.machine, "aarch64");
	unsetenv("DEBUNPACK_BINFMT_MISC");
}
END_TEST

/*
 * A 32-bit little-endian root (armhf: ELFCLASS32, EM_ARM) goes to the
 * qemu-arm entry; the aarch64 entry's magic does not take it.  On an
 * arm64 host, whose kernel could run it itself, the entry is still asked
 * first, as the kernel asks binfmt_misc before its own ELF loader.
 */
START_TEST(test_emulate_arm32)
{
	struct dbp_error err;
	struct emulate em;
	char root[4096];

	emu_root();
	emu_binfmt("enabled\n", "enabled", "PF", "/usr/libexec/q/aarch64");
	emu_elf("r/bin/dash", 1, 40);
	checkutil_symlink("dash", "r/bin/sh");
	snprintf(root, sizeof(root), "%s", checkutil_at("r"));
	memset(&err, 0, sizeof(err));
	/* Only the aarch64 entry: none for these binaries. */
#if !defined(__arm__)
#if defined(__aarch64__)
	/* The compat layer runs it. */
	ck_assert_int_eq(emulate_judge(&em, root, "armhf", NULL, &err), 0);
	ck_assert(!em.foreign);
#else
	ck_assert_int_eq(emulate_judge(&em, root, "armhf", NULL, &err),
	    -ENOEXEC);
	ck_assert_ptr_nonnull(strstr(err.msg, "for arm,"));
#endif
	emu_entry("qemu-arm", EMU_ARM, "PF", "/usr/libexec/q/arm");
	ck_assert_msg(emulate_judge(&em, root, "armhf", NULL, &err) == 0,
	    "%s", err.msg);
	ck_assert(em.foreign);
	ck_assert_str_eq(em.machine, "arm");
	ck_assert_str_eq(em.entry, "qemu-arm");
	ck_assert_str_eq(em.interp, "");
	/* Without F: a static qemu-arm (an ELF without PT_INTERP) placed. */
	emu_entry("qemu-arm", EMU_ARM, "P", "/usr/libexec/q/arm");
	emu_elf("qemu", 1, 62);
	ck_assert_msg(emulate_judge(&em, root, "armhf", checkutil_at("qemu"),
	    &err) == 0, "%s", err.msg);
	ck_assert(em.foreign);
	ck_assert_str_eq(em.interp, "/usr/libexec/q/arm");
	/* A new root: armhf's table entry is that same 32-bit header. */
	ck_assert_int_eq(unlink(checkutil_at("r/bin/sh")), 0);
	ck_assert_int_eq(emulate_judge(&em, root, "armhf", checkutil_at("qemu"),
	    &err), 0);
	ck_assert(em.foreign);
	ck_assert_str_eq(em.machine, "arm");
	ck_assert_str_eq(em.entry, "qemu-arm");
#endif
	unsetenv("DEBUNPACK_BINFMT_MISC");
}
END_TEST

#if defined(__x86_64__)
/*
 * i386 on amd64: the compat layer runs it while no entry takes it; a
 * qemu-i386 entry someone registered takes it first, and one without F
 * needs its interpreter in the root.
 */
START_TEST(test_emulate_compat_entry)
{
	struct dbp_error err;
	struct emulate em;
	char root[4096];

	emu_root();
	emu_binfmt("enabled\n", NULL, NULL, NULL);
	emu_elf("r/bin/sh", 1, 3);
	snprintf(root, sizeof(root), "%s", checkutil_at("r"));
	ck_assert_int_eq(emulate_judge(&em, root, "i386", NULL, &err), 0);
	ck_assert(!em.foreign);
	ck_assert_str_eq(em.entry, "");
	emu_entry("qemu-i386", EMU_I386, "P", "/usr/libexec/q/i386");
	emu_elf("qemu", 2, 62);
	ck_assert_msg(emulate_judge(&em, root, "i386", checkutil_at("qemu"),
	    &err) == 0, "%s", err.msg);
	ck_assert(em.foreign);
	ck_assert_str_eq(em.machine, "i386");
	ck_assert_str_eq(em.entry, "qemu-i386");
	ck_assert_str_eq(em.interp, "/usr/libexec/q/i386");
	unsetenv("DEBUNPACK_BINFMT_MISC");
}
END_TEST
#endif

START_TEST(test_emulate_none)
{
	static const char *const cases[][2] = {
		{ "enabled\n", NULL },		/* no entry */
		{ "enabled\n", "disabled" },	/* the entry off */
		{ "disabled\n", "enabled" },	/* binfmt_misc off */
	};
	struct dbp_error err;
	struct emulate em;
	char root[4096];
	size_t i;

	emu_root();
	emu_elf("r/bin/sh", 2, 183);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		emu_binfmt(cases[i][0], cases[i][1], "PF", "/q");
		memset(&err, 0, sizeof(err));
		ck_assert_int_eq(emulate_judge(&em, checkutil_at("r"), NULL,
		    NULL, &err), -ENOEXEC);
		ck_assert_str_eq(err.path, checkutil_at("r"));
		ck_assert_ptr_nonnull(strstr(err.msg, "for aarch64"));
		ck_assert_ptr_nonnull(strstr(err.msg, "qemu-user-static"));
	}
	/* binfmt_misc not mounted: told so. */
	setenv("DEBUNPACK_BINFMT_MISC", checkutil_at("nothing"), 1);
	ck_assert_int_eq(emulate_judge(&em, checkutil_at("r"), NULL, NULL,
	    &err), -ENOEXEC);
	ck_assert_ptr_nonnull(strstr(err.msg, "binfmt_misc cannot be read"));
	emu_binfmt("enabled\n", NULL, NULL, NULL);
	/*
	 * No entry, an emulator named: registered in a binfmt_misc of the
	 * scripts' own user namespace, tried at once (as root here; a user
	 * may lack the ids to map, and is then told), or refused in one
	 * line when it is no static executable.
	 */
	emu_elf("qemu", 2, 62);
	memset(&err, 0, sizeof(err));
	snprintf(root, sizeof(root), "%s", checkutil_at("r"));
	if (emulate_judge(&em, root, NULL, checkutil_at("qemu"), &err) == 0) {
		ck_assert(em.foreign && em.own);
		ck_assert_str_eq(em.entry, "debunpack-aarch64");
		ck_assert_str_eq(em.interp, "");
		ck_assert_ptr_nonnull(strstr(em.line, ":debunpack-aarch64:M::"
		    "\\x7f\\x45\\x4c\\x46\\x02\\x01\\x01\\x00"));
		ck_assert_ptr_nonnull(strstr(em.line, "\\xb7\\x00:"));
		ck_assert_ptr_nonnull(strstr(em.line, "/qemu:F"));
	} else {
		ck_assert_msg(geteuid() != 0, "as root: %s", err.msg);
		ck_assert_ptr_nonnull(strstr(err.msg, "cannot be registered"));
	}
	checkutil_write("notelf", "#!/bin/sh\n");
	ck_assert_int_eq(emulate_judge(&em, root, NULL, checkutil_at("notelf"),
	    &err), -ENOEXEC);
	ck_assert_ptr_nonnull(strstr(err.msg, "not a static executable"));
	/* A machine no table names is told by its number. */
	emu_elf("r/bin/sh", 2, 9999);
	ck_assert_int_eq(emulate_judge(&em, checkutil_at("r"), NULL, NULL,
	    &err), -ENOEXEC);
	ck_assert_ptr_nonnull(strstr(err.msg, "ELF machine 9999"));
	unsetenv("DEBUNPACK_BINFMT_MISC");
}
END_TEST

START_TEST(test_emulate_placed)
{
	struct timespec old[2] = { { 1000000, 0 }, { 1000000, 0 } };
	struct emulate_left left;
	struct dbp_error err;
	struct emulate em;
	struct stat st;
	char root[4096];

	emu_root();
	emu_elf("r/bin/sh", 2, 183);
	/* A static interpreter: an ELF without PT_INTERP. */
	emu_elf("qemu", 2, 62);
	emu_binfmt("enabled\n", "enabled", "P", "/usr/libexec/q/aarch64");
	/* checkutil_at's buffer is one: the root's path kept apart. */
	snprintf(root, sizeof(root), "%s", checkutil_at("r"));
	ck_assert_msg(emulate_judge(&em, root, NULL, checkutil_at("qemu"),
	    &err) == 0, "%s", err.msg);
	ck_assert_str_eq(em.interp, "/usr/libexec/q/aarch64");
	ck_assert_str_eq(em.source, checkutil_at("qemu"));
	ck_assert_int_eq(utimensat(AT_FDCWD, checkutil_at("r/usr"), old, 0), 0);
	ck_assert_int_eq(emulate_enter(&em, checkutil_at("r"), &left, &err), 0);
	ck_assert_int_eq(stat(checkutil_at("r/usr/libexec/q/aarch64"), &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0755);
	ck_assert_int_eq(st.st_size, 64);
	ck_assert_int_eq(emulate_leave(checkutil_at("r"), &left, &err), 0);
	ck_assert(!checkutil_exists("r/usr/libexec"));
	ck_assert_int_eq(stat(checkutil_at("r/usr"), &st), 0);
	ck_assert_int_eq(st.st_mtim.tv_sec, 1000000);
	/* A link on the way out of the root is not followed. */
	checkutil_mkdir("out");
	checkutil_symlink("../../out", "r/usr/libexec");
	ck_assert_int_eq(emulate_enter(&em, checkutil_at("r"), &left, &err),
	    -ENOTDIR);
	ck_assert(!checkutil_exists("out/q"));
	ck_assert_int_eq(unlink(checkutil_at("r/usr/libexec")), 0);
	ck_assert_int_eq(utimensat(AT_FDCWD, checkutil_at("r/usr"), old, 0), 0);
	/* The root's own file at that path serves and stays. */
	checkutil_mkdir("r/usr/libexec");
	checkutil_mkdir("r/usr/libexec/q");
	checkutil_write("r/usr/libexec/q/aarch64", "own");
	ck_assert_int_eq(emulate_enter(&em, checkutil_at("r"), &left, &err), 0);
	ck_assert_int_eq(emulate_leave(checkutil_at("r"), &left, &err), 0);
	checkutil_assert_content("r/usr/libexec/q/aarch64", "own");
	unsetenv("DEBUNPACK_BINFMT_MISC");
}
END_TEST

START_TEST(test_emulate_dynamic)
{
	struct dbp_error err;
	struct emulate em;
	char root[4096];

	emu_root();
	emu_elf("r/bin/sh", 2, 183);
	/* This test program has a loader: it cannot run inside a root. */
	emu_binfmt("enabled\n", "enabled", "P", "/proc/self/exe");
	ck_assert_int_eq(emulate_judge(&em, checkutil_at("r"), NULL, NULL,
	    &err), -ENOEXEC);
	ck_assert_ptr_nonnull(strstr(err.msg, "not a static executable"));
	ck_assert_ptr_nonnull(strstr(err.msg, "--emulator"));
	/* A named emulator that is not there. */
	snprintf(root, sizeof(root), "%s", checkutil_at("r"));
	ck_assert_int_eq(emulate_judge(&em, root, NULL,
	    checkutil_at("nothing"), &err), -ENOENT);
	ck_assert_str_eq(err.path, checkutil_at("nothing"));
	unsetenv("DEBUNPACK_BINFMT_MISC");
}
END_TEST

static Suite *
emulate_suite(void)
{
	Suite *s = suite_create("emulate");
	TCase *tc;

	tc = checkutil_scratch_tcase(s, "emulate", NULL, NULL);
	tcase_add_test(tc, test_emulate_native);
	tcase_add_test(tc, test_emulate_fixed);
	tcase_add_test(tc, test_emulate_none);
	tcase_add_test(tc, test_emulate_arm32);
#if defined(__x86_64__)
	tcase_add_test(tc, test_emulate_compat_entry);
#endif
	tcase_add_test(tc, test_emulate_placed);
	tcase_add_test(tc, test_emulate_dynamic);
	return s;
}

int
main(void)
{
	return checkutil_run(emulate_suite());
}
