/* SPDX-License-Identifier: MIT */
/* Unit tests of progress.c: the terminal line and the status fd's lines. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checkutil.h"
#include "cli/progress.h"

static FILE *tty;		/* a file standing for the terminal */
static off_t tty_off;		/* what tty_take has returned so far */
static int sfd[2];		/* the status pipe: [0] non-blocking */
static double fake_t;

static double
fake_now(void)
{
	return fake_t;
}

static void
setup(void)
{
	tty = tmpfile();
	ck_assert_ptr_nonnull(tty);
	tty_off = 0;
	ck_assert_int_eq(pipe(sfd), 0);
	ck_assert_int_ne(fcntl(sfd[0], F_SETFL, O_NONBLOCK), -1);
	fake_t = 100.0;
}

static void
teardown(void)
{
	fclose(tty);
	if (sfd[0] >= 0)
		close(sfd[0]);
	if (sfd[1] >= 0)
		close(sfd[1]);
}

/* What was written on the terminal since the last call; the caller frees it. */
static char *
tty_take(void)
{
	struct stat st;
	char *buf;
	ssize_t n;

	ck_assert_int_eq(fflush(tty), 0);
	ck_assert_int_eq(fstat(fileno(tty), &st), 0);
	ck_assert_int_ge(st.st_size, tty_off);
	buf = malloc((size_t)(st.st_size - tty_off) + 1);
	ck_assert_ptr_nonnull(buf);
	/* pread: the stream's own position is the one progress writes at. */
	n = pread(fileno(tty), buf, (size_t)(st.st_size - tty_off), tty_off);
	ck_assert_int_eq(n, st.st_size - tty_off);
	buf[n] = '\0';
	tty_off = st.st_size;
	return buf;
}

static void
assert_tty(const char *want)
{
	char *got = tty_take();

	ck_assert_str_eq(got, want);
	free(got);
}

/* Every status line written so far and not yet taken; the caller frees it. */
static char *
status_take(void)
{
	size_t len = 0, size = 4096;
	char *buf = malloc(size);
	ssize_t n;

	ck_assert_ptr_nonnull(buf);
	for (;;) {
		if (size - len < 1024) {
			size *= 2;
			buf = realloc(buf, size);
			ck_assert_ptr_nonnull(buf);
		}
		n = read(sfd[0], buf + len, size - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	ck_assert_msg(n == 0 || errno == EAGAIN, "read: %s", strerror(errno));
	buf[len] = '\0';
	return buf;
}

static void
assert_status(const char *want)
{
	char *got = status_take();

	ck_assert_str_eq(got, want);
	free(got);
}

static size_t
count_char(const char *s, char c)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		n += *s == c;
	return n;
}

static struct progress *
new_progress(FILE *t, int fd, size_t total)
{
	struct progress *p;

	ck_assert_int_eq(progress_new(&p, t, fd, total, fake_now), 0);
	ck_assert_ptr_nonnull(p);
	return p;
}

START_TEST(test_progress_status_run)
{
	struct progress *p = new_progress(NULL, sfd[1], 2);

	progress_unpacking(p, "base-files", false);
	progress_extracted(p, "base-files", 1000);
	progress_unpacking(p, "libc6:amd64", true);
	progress_extracted(p, "libc6:amd64", 50462720);
	progress_phase(p, PROGRESS_SYNCING);
	progress_phase(p, PROGRESS_RENAMING);
	progress_committed(p, "base-files", "unpacked");
	progress_committed(p, "libc6:amd64", "unpacked");
	progress_phase(p, PROGRESS_PREINST);
	progress_phase(p, PROGRESS_DONE);
	assert_status(
	    "progress: extracting: 0/2: 0\n"
	    "processing: install: base-files\n"
	    "status: base-files: half-installed\n"
	    "progress: extracting: 1/2: 1000\n"
	    "processing: upgrade: libc6:amd64\n"
	    "status: libc6:amd64: half-installed\n"
	    "progress: extracting: 2/2: 50462720\n"
	    "progress: syncing: 2/2: 50462720\n"
	    "progress: renaming: 2/2: 50462720\n"
	    "status: base-files: unpacked\n"
	    "status: libc6:amd64: unpacked\n"
	    "progress: preinst: 2/2: 50462720\n"
	    "progress: done: 2/2: 50462720\n");
	/* The same phase again is no event. */
	progress_phase(p, PROGRESS_DONE);
	ck_assert_int_eq(progress_status_error(p), 0);
	progress_free(p);
	assert_status("");
}
END_TEST

/* The packages' Installed-Size: a share and an ETA, and the total in the status. */
START_TEST(test_progress_expected)
{
	struct progress *p = new_progress(tty, sfd[1], 2);

	progress_set_width(p, 200);
	progress_expect(p, 10000);
	assert_status(
	    "progress: extracting: 0/2: 0\n"
	    "progress: extracting: 0/2: 0/10000\n");
	assert_tty("\rdebunpack: extracting 0/2 packages, 0 B (0%)\033[K");
	fake_t = 100.5;
	progress_unpacking(p, "a", false);
	assert_tty("\rdebunpack: extracting 0/2 packages, 0 B (0%), a\033[K");
	fake_t = 102.5;
	progress_extracted(p, "a", 2500);
	/* 2500 B in 2 s: 1.2 KiB/s, 7500 B to go, 6 s. */
	assert_tty("\rdebunpack: extracting 1/2 packages, 2.4 KiB (25%),"
	    " 1.2 KiB/s, ETA 0:06, a\033[K");
	fake_t = 103;
	/* Installed-Size is an estimate: past it, 99 % and no ETA. */
	progress_extracted(p, "b", 20000);
	assert_tty("\rdebunpack: extracting 2/2 packages, 19.5 KiB (99%),"
	    " 7.8 KiB/s, b\033[K");
	assert_status(
	    "processing: install: a\n"
	    "status: a: half-installed\n"
	    "progress: extracting: 1/2: 2500/10000\n"
	    "progress: extracting: 2/2: 20000/10000\n");
	progress_free(p);
}
END_TEST

START_TEST(test_progress_status_error)
{
	struct progress *p = new_progress(NULL, sfd[1], 2);

	progress_unpacking(p, "a", false);
	progress_extracted(p, "a", 4096);
	progress_unpacking(p, "b", false);
	progress_error(p, "b",
	    "cannot write 'usr/bin/b': No space left on device");
	progress_error(p, "/tmp/c.deb", "not a Debian package");
	progress_error(p, NULL, "the run was undone");
	assert_status(
	    "progress: extracting: 0/2: 0\n"
	    "processing: install: a\n"
	    "status: a: half-installed\n"
	    "progress: extracting: 1/2: 4096\n"
	    "processing: install: b\n"
	    "status: b: half-installed\n"
	    "status: b : error : cannot write 'usr/bin/b': No space left on device\n"
	    "status: /tmp/c.deb : error : not a Debian package\n"
	    "progress: error: the run was undone\n");
	progress_free(p);
}
END_TEST

START_TEST(test_progress_status_newline)
{
	struct progress *p = new_progress(NULL, sfd[1], 1);

	progress_unpacking(p, "evil\nstatus: x: installed", false);
	progress_error(p, "evil\r\n", "line\none\ttab\033[2J\177end");
	progress_committed(p, "\n", "unpacked");
	assert_status(
	    "progress: extracting: 0/1: 0\n"
	    "processing: install: evil status: x: installed\n"
	    "status: evil status: x: installed: half-installed\n"
	    "status: evil   : error : line one tab [2J end\n"
	    "status:  : unpacked\n");
	progress_free(p);
}
END_TEST

/* A front end that went away: writes fail, the run goes on, nothing crashes. */
START_TEST(test_progress_status_closed)
{
	struct sigaction ign, old;
	struct progress *p;
	int fd;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	ck_assert_int_eq(sigaction(SIGPIPE, &ign, &old), 0);
	close(sfd[0]);
	sfd[0] = -1;
	p = new_progress(tty, sfd[1], 1);
	ck_assert_int_eq(progress_status_error(p), -EPIPE);
	progress_unpacking(p, "a", false);
	progress_extracted(p, "a", 1);
	progress_phase(p, PROGRESS_DONE);
	progress_committed(p, "a", "unpacked");
	progress_error(p, "a", "failed");
	ck_assert_int_eq(progress_status_error(p), -EPIPE);
	progress_free(p);
	ck_assert_int_eq(sigaction(SIGPIPE, &old, NULL), 0);

	/* An fd that is not open: the first error is kept. */
	fd = dup(sfd[1]);
	ck_assert_int_ge(fd, 0);
	close(fd);
	p = new_progress(NULL, fd, 1);
	ck_assert_int_eq(progress_status_error(p), -EBADF);
	progress_unpacking(p, "a", false);
	ck_assert_int_eq(progress_status_error(p), -EBADF);
	progress_free(p);
}
END_TEST

/*
 * A line longer than the pipe holds, on a non-blocking fd, read slowly
 * by another process: it arrives whole, through short writes and EAGAIN.
 */
START_TEST(test_progress_status_short_writes)
{
	static char msg[256 * 1024];
	struct progress *p;
	FILE *out;
	char *got, buf[4096];
	ssize_t n;
	pid_t pid;
	int status;
	long size;

	memset(msg, 'm', sizeof(msg) - 1);
	out = tmpfile();
	ck_assert_ptr_nonnull(out);
	ck_assert_int_ne(fcntl(sfd[1], F_SETPIPE_SZ, 4096), -1);
	ck_assert_int_ne(fcntl(sfd[1], F_SETFL, O_NONBLOCK), -1);
	ck_assert_int_ne(fcntl(sfd[0], F_SETFL, 0), -1);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(sfd[1]);
		while ((n = read(sfd[0], buf, 1000)) > 0) {
			if (write(fileno(out), buf, (size_t)n) != n)
				_exit(1);
			usleep(100);
		}
		_exit(n == 0 ? 0 : 1);
	}
	close(sfd[0]);
	sfd[0] = -1;
	p = new_progress(NULL, sfd[1], 1);
	progress_error(p, "big", msg);
	ck_assert_int_eq(progress_status_error(p), 0);
	progress_free(p);
	close(sfd[1]);
	sfd[1] = -1;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	ck_assert_int_eq(fseek(out, 0, SEEK_END), 0);
	size = ftell(out);
	ck_assert_int_eq(size, (long)(strlen("progress: extracting: 0/1: 0\n") +
	    strlen("status: big : error : \n") + sizeof(msg) - 1));
	got = malloc((size_t)size + 1);
	ck_assert_ptr_nonnull(got);
	ck_assert_int_eq(pread(fileno(out), got, (size_t)size, 0), size);
	got[size] = '\0';
	ck_assert_uint_eq(count_char(got, '\n'), 2);
	ck_assert_int_eq(got[size - 1], '\n');
	ck_assert(strncmp(strchr(got, '\n') + 1, "status: big : error : mmm",
	    25) == 0);
	free(got);
	fclose(out);
}
END_TEST

START_TEST(test_progress_tty_redraw)
{
	struct progress *p = new_progress(tty, -1, 2);

	progress_set_width(p, 200);
	assert_tty("");
	progress_unpacking(p, "a", false);
	assert_tty("\rdebunpack: extracting 0/2 packages, 0 B, a\033[K");
	/* Within PROGRESS_INTERVAL of the last redraw: not drawn. */
	fake_t = 100.05;
	progress_extracted(p, "a", 1000);
	assert_tty("");
	fake_t = 100.2;
	progress_unpacking(p, "b", false);
	assert_tty("\rdebunpack: extracting 1/2 packages, 1000 B, 4.9 KiB/s, b"
	    "\033[K");
	fake_t = 100.25;
	progress_extracted(p, "b", 3000000);
	assert_tty("");
	/* A phase change is drawn at once. */
	fake_t = 100.26;
	progress_phase(p, PROGRESS_SYNCING);
	assert_tty("\rdebunpack: syncing 2/2 packages, 2.9 MiB\033[K");
	fake_t = 100.27;
	progress_phase(p, PROGRESS_RENAMING);
	assert_tty("\rdebunpack: renaming 2/2 packages, 2.9 MiB\033[K");
	progress_committed(p, "a", "unpacked");
	progress_committed(p, "b", "unpacked");
	assert_tty("");
	/* Preinst scripts write on the terminal: no line while they run. */
	progress_phase(p, PROGRESS_PREINST);
	assert_tty("\r\033[K");
	fake_t = 101;
	progress_clear(p);
	progress_phase(p, PROGRESS_DONE);
	progress_free(p);
	assert_tty("");
}
END_TEST

START_TEST(test_progress_tty_rate)
{
	struct progress *p = new_progress(tty, -1, 1);

	progress_set_width(p, 200);
	progress_unpacking(p, "big", false);
	assert_tty("\rdebunpack: extracting 0/1 packages, 0 B, big\033[K");
	fake_t = 102;
	progress_extracted(p, "big", UINT64_C(3) << 30);
	assert_tty("\rdebunpack: extracting 1/1 packages, 3.0 GiB, "
	    "1.5 GiB/s, big\033[K");
	progress_free(p);
	assert_tty("\r\033[K");
}
END_TEST

/* However many updates come, at most one redraw per PROGRESS_INTERVAL. */
START_TEST(test_progress_tty_rate_limited)
{
	struct progress *p = new_progress(tty, -1, 1000);
	const double step = 1.0 / 64;	/* exact in binary */
	char *got, name[32];
	int i;

	progress_set_width(p, 200);
	for (i = 0; i < 640; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		progress_unpacking(p, name, false);
		progress_extracted(p, name, (uint64_t)i * 1000);
		fake_t += step;
	}
	got = tty_take();
	/* 10 seconds: 1 + 10 / PROGRESS_INTERVAL redraws at the very most. */
	ck_assert_uint_le(count_char(got, '\r'), 101);
	ck_assert_uint_ge(count_char(got, '\r'), 50);
	free(got);
	/* A phase change right after a redraw is drawn anyway. */
	fake_t += 1;
	progress_extracted(p, "last", 1);
	got = tty_take();
	ck_assert_uint_eq(count_char(got, '\r'), 1);
	free(got);
	progress_phase(p, PROGRESS_SYNCING);
	assert_tty("\rdebunpack: syncing 641/1000 packages, 1 B\033[K");
	progress_free(p);
}
END_TEST

START_TEST(test_progress_tty_clear)
{
	struct progress *p = new_progress(tty, -1, 3);

	progress_set_width(p, 200);
	progress_clear(p);
	assert_tty("");
	progress_unpacking(p, "a", false);
	assert_tty("\rdebunpack: extracting 0/3 packages, 0 B, a\033[K");
	progress_clear(p);
	assert_tty("\r\033[K");
	progress_clear(p);
	assert_tty("");
	/* Cleared: the next update redraws even within PROGRESS_INTERVAL. */
	progress_extracted(p, "a", 10);
	assert_tty("\rdebunpack: extracting 1/3 packages, 10 B, a\033[K");
	/* An error erases the line for the caller's message. */
	progress_error(p, "a", "failed");
	assert_tty("\r\033[K");
	fake_t += 0.01;
	progress_unpacking(p, "b", false);
	assert_tty("\rdebunpack: extracting 1/3 packages, 10 B, 1000 B/s, b"
	    "\033[K");
	/* progress_free erases a line still shown. */
	progress_free(p);
	assert_tty("\r\033[K");
}
END_TEST

START_TEST(test_progress_tty_width)
{
	const char *prefix = "debunpack: extracting 0/1 packages, 0 B, ";
	struct progress *p = new_progress(tty, -1, 1);
	char want[256];

	progress_set_width(p, 20);
	progress_unpacking(p, "a", false);
	/* One column short of the width, so that the line never wraps. */
	assert_tty("\rdebunpack: extracti\033[K");
	progress_clear(p);
	assert_tty("\r\033[K");
	progress_set_width(p, 1);
	progress_unpacking(p, "a", false);
	assert_tty("\r\033[K");
	progress_clear(p);
	assert_tty("\r\033[K");

	/* Not cut inside a character; one outside ASCII counts as two. */
	progress_set_width(p, (unsigned int)strlen(prefix) + 2);
	progress_unpacking(p, "\xc3\xa9t\xc3\xa9", false);
	snprintf(want, sizeof(want), "\r%s\033[K", prefix);
	assert_tty(want);
	progress_clear(p);
	assert_tty("\r\033[K");
	progress_set_width(p, (unsigned int)strlen(prefix) + 4);
	progress_unpacking(p, "\xc3\xa9t\xc3\xa9", false);
	snprintf(want, sizeof(want), "\r%s\xc3\xa9t\033[K", prefix);
	assert_tty(want);
	progress_free(p);
	assert_tty("\r\033[K");
}
END_TEST

/* A file is not a terminal: 80 columns. */
START_TEST(test_progress_tty_default_width)
{
	struct progress *p = new_progress(tty, -1, 1);
	char name[201], *got;

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	progress_unpacking(p, name, false);
	got = tty_take();
	ck_assert_uint_eq(strlen(got), 1 + 79 + 3);
	ck_assert(strncmp(got, "\rdebunpack: extracting 0/1 packages, 0 B, xxx",
	    45) == 0);
	ck_assert_str_eq(got + 1 + 79, "\033[K");
	free(got);
	progress_free(p);
}
END_TEST

/* Read from pty MASTER until WANT has arrived (or 5 s passed), and compare. */
static void
assert_pty(int master, const char *want)
{
	struct pollfd pfd = { .fd = master, .events = POLLIN };
	size_t len = 0, n = strlen(want);
	char buf[512];
	ssize_t r;

	ck_assert_uint_lt(n, sizeof(buf));
	while (len < n && poll(&pfd, 1, 5000) == 1) {
		r = read(master, buf + len, n - len);
		ck_assert_int_gt(r, 0);
		len += (size_t)r;
	}
	buf[len] = '\0';
	ck_assert_str_eq(buf, want);
}

/* On a terminal, its width (TIOCGWINSZ), asked at each redraw. */
START_TEST(test_progress_tty_winsize)
{
	struct winsize ws;
	struct progress *p;
	FILE *term;
	int master, slave;

	master = posix_openpt(O_RDWR | O_NOCTTY);
	ck_assert_int_ge(master, 0);
	ck_assert_int_eq(grantpt(master), 0);
	ck_assert_int_eq(unlockpt(master), 0);
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	ck_assert_int_ge(slave, 0);
	memset(&ws, 0, sizeof(ws));
	ws.ws_col = 30;
	ws.ws_row = 24;
	ck_assert_int_eq(ioctl(slave, TIOCSWINSZ, &ws), 0);
	term = fdopen(slave, "w");
	ck_assert_ptr_nonnull(term);
	p = new_progress(term, -1, 1);
	progress_unpacking(p, "a", false);
	assert_pty(master, "\rdebunpack: extracting 0/1 pac\033[K");
	/* The terminal was resized: the next redraw fits the new width. */
	ws.ws_col = 12;
	ck_assert_int_eq(ioctl(slave, TIOCSWINSZ, &ws), 0);
	progress_clear(p);
	progress_unpacking(p, "a", false);
	assert_pty(master, "\r\033[K\rdebunpack: \033[K");
	progress_free(p);
	assert_pty(master, "\r\033[K");
	fclose(term);
	close(master);
}
END_TEST

/* A package's name cannot send escape sequences to the terminal. */
START_TEST(test_progress_tty_escaped)
{
	struct progress *p = new_progress(tty, -1, 1);

	progress_set_width(p, 200);
	progress_unpacking(p, "a\033[2J\nb\xc2\x9b", false);
	assert_tty("\rdebunpack: extracting 0/1 packages, 0 B, "
	    "a\\x1b[2J\\nb\\xc2\\x9b\033[K");
	progress_free(p);
	assert_tty("\r\033[K");
}
END_TEST

START_TEST(test_progress_format_bytes)
{
	static const struct {
		uint64_t bytes;
		const char *want;
	} cases[] = {
		{ 0, "0 B" },
		{ 1, "1 B" },
		{ 1023, "1023 B" },
		{ 1024, "1.0 KiB" },
		{ 1536, "1.5 KiB" },
		{ 1048575, "1.0 MiB" },
		{ 1048576, "1.0 MiB" },
		{ 50462720, "48.1 MiB" },
		{ UINT64_C(1) << 30, "1.0 GiB" },
		{ (UINT64_C(5) << 30) / 2, "2.5 GiB" },
		{ UINT64_C(1) << 40, "1.0 TiB" },
		{ UINT64_MAX, "16.0 EiB" },
	};
	char buf[32];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_str_eq(progress_format_bytes(cases[i].bytes, buf,
		    sizeof(buf)), cases[i].want);
	/* A short buffer is cut, still terminated. */
	ck_assert_str_eq(progress_format_bytes(50462720, buf, 4), "48.");
}
END_TEST

/* Neither a terminal nor a status fd, or no progress at all: no-ops. */
START_TEST(test_progress_nothing)
{
	struct progress *p = new_progress(NULL, -1, 0);

	progress_unpacking(p, "a", false);
	progress_extracted(p, "a", 1);
	progress_phase(p, PROGRESS_SYNCING);
	progress_committed(p, "a", "unpacked");
	progress_error(p, NULL, "x");
	progress_clear(p);
	ck_assert_int_eq(progress_status_error(p), 0);
	progress_free(p);

	progress_unpacking(NULL, "a", true);
	progress_extracted(NULL, "a", 1);
	progress_phase(NULL, PROGRESS_DONE);
	progress_committed(NULL, "a", "unpacked");
	progress_error(NULL, "a", "x");
	progress_clear(NULL);
	progress_set_width(NULL, 10);
	ck_assert_int_eq(progress_status_error(NULL), 0);
	progress_free(NULL);
	assert_status("");
}
END_TEST

static Suite *
progress_suite(void)
{
	Suite *s = suite_create("progress");
	TCase *tc;

	tc = tcase_create("status");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_progress_status_run);
	tcase_add_test(tc, test_progress_expected);
	tcase_add_test(tc, test_progress_status_error);
	tcase_add_test(tc, test_progress_status_newline);
	suite_add_tcase(s, tc);

	tc = tcase_create("tty");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_progress_tty_redraw);
	tcase_add_test(tc, test_progress_tty_rate);
	tcase_add_test(tc, test_progress_tty_rate_limited);
	tcase_add_test(tc, test_progress_tty_clear);
	tcase_add_test(tc, test_progress_tty_escaped);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_progress_status_closed);
	tcase_add_test(tc, test_progress_status_short_writes);
	tcase_add_test(tc, test_progress_tty_width);
	tcase_add_test(tc, test_progress_tty_default_width);
	tcase_add_test(tc, test_progress_tty_winsize);
	tcase_add_test(tc, test_progress_format_bytes);
	tcase_add_test(tc, test_progress_nothing);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return checkutil_run(progress_suite());
}
