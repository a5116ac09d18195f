/* SPDX-License-Identifier: MIT */
/* Progress of an install run: a line redrawn on a terminal, and dpkg-style status lines. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util/escape.h"
#include "cli/progress.h"
#include "util/stats.h"

struct progress {
	FILE *tty;		/* NULL: no terminal line */
	int status_fd;		/* -1: no status lines */
	int status_err;		/* -errno of the first failed write, or 0 */
	bool seq;		/* the states come from progress_state */
	bool tty_failed;	/* a write to TTY failed: draw no more */
	bool shown;		/* the line is on the terminal */
	bool started;		/* a package was started: T_START is set */
	enum progress_phase phase;
	size_t total, extracted;
	uint64_t bytes;
	uint64_t expected;	/* the packages' Installed-Size; 0: unknown */
	double (*now)(void);
	double t_start;		/* the first package started: the rate's origin */
	double t_drawn;		/* the last redraw */
	unsigned int width;	/* 0: ask the terminal */
	char name[128];		/* the latest package, escaped for the terminal */
};

/* The phases' words on the status fd and, while one is drawn, on the terminal. */
static const char *const progress_phase_words[] = {
	"extracting", "syncing", "renaming", "preinst", "done",
};

char *
progress_format_bytes(uint64_t bytes, char *buf, size_t n)
{
	static const char *const units[] = {
		"KiB", "MiB", "GiB", "TiB", "PiB", "EiB",
	};
	size_t u = 0;
	double v;

	if (bytes < 1024) {
		snprintf(buf, n, "%u B", (unsigned int)bytes);
		return buf;
	}
	v = (double)bytes / 1024;
	/* Go up a unit where one decimal would round to "1024.0". */
	while (v >= 1023.95 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, n, "%.1f %s", v, units[u]);
	return buf;
}

/*
 * Write all of BUF to FD, through short writes, EINTR and, on a
 * non-blocking fd, EAGAIN (waiting as a blocking fd would).  0 or -errno.
 */
static int
progress_write_all(int fd, const char *buf, size_t len)
{
	struct pollfd pfd;
	ssize_t r;

	while (len > 0) {
		r = write(fd, buf, len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				return -errno;
			pfd.fd = fd;
			pfd.events = POLLOUT;
			if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
				return -errno;
			continue;
		}
		if (r == 0)
			return -EIO;
		buf += r;
		len -= (size_t)r;
	}
	return 0;
}

/*
 * One status line from FMT, with control bytes as spaces and a newline
 * added.  After the first failure nothing more is written: a front end
 * that went away must not stop the install, and a line cut in the
 * middle must not be followed by more.
 */
static void progress_send(struct progress *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
progress_send(struct progress *p, const char *fmt, ...)
{
	va_list ap;
	char *line;
	int n, i;

	if (p->status_fd < 0 || p->status_err != 0)
		return;
	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0) {
		p->status_err = -ENOMEM;
		return;
	}
	for (i = 0; i < n; i++)
		if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
			line[i] = ' ';
	line[n] = '\n';
	p->status_err = progress_write_all(p->status_fd, line, (size_t)n + 1);
	free(line);
}

static void
progress_send_counts(struct progress *p)
{
	if (p->expected > 0)
		progress_send(p, "progress: %s: %zu/%zu: %" PRIu64 "/%" PRIu64,
		    progress_phase_words[p->phase], p->extracted, p->total,
		    p->bytes, p->expected);
	else
		progress_send(p, "progress: %s: %zu/%zu: %" PRIu64,
		    progress_phase_words[p->phase], p->extracted, p->total,
		    p->bytes);
}

static unsigned int
progress_width(const struct progress *p)
{
	struct winsize ws;

	if (p->width > 0)
		return p->width;
	if (ioctl(fileno(p->tty), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

/*
 * The bytes of S that fit in COLS columns, cut between characters.  A
 * character outside ASCII counts as two columns: it may be a wide one,
 * and a line one column short is better than one that wraps.  S is
 * escape_name's output: controls are escaped, UTF-8 is well-formed.
 */
static size_t
progress_fit(const char *s, size_t cols)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, used = 0, len, w;

	while (u[i] != '\0') {
		len = 1;
		w = 1;
		if (u[i] >= 0x80) {
			w = 2;
			while ((u[i + len] & 0xc0) == 0x80)
				len++;
		}
		if (used + w > cols)
			break;
		used += w;
		i += len;
	}
	return i;
}

static void
progress_append(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
progress_append(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

static void
progress_erase(struct progress *p)
{
	if (!p->shown)
		return;
	p->shown = false;
	if (fputs("\r\033[K", p->tty) == EOF || fflush(p->tty) == EOF)
		p->tty_failed = true;
}

/*
 * Redraw the terminal line, unless it was drawn less than
 * PROGRESS_INTERVAL ago and FORCE is not set: a redraw per package of a
 * run of small packages would cost more than the packages.
 */
static void
progress_draw(struct progress *p, bool force)
{
	char line[512], size[32];
	double t, rate;
	uint64_t per_s;
	size_t len;
	unsigned int cols;

	if (p->tty == NULL || p->tty_failed || p->phase >= PROGRESS_PREINST)
		return;
	t = p->now();
	if (p->shown && !force && t - p->t_drawn < PROGRESS_INTERVAL)
		return;
	snprintf(line, sizeof(line), "debunpack: %s %zu/%zu packages, %s",
	    progress_phase_words[p->phase], p->extracted, p->total,
	    progress_format_bytes(p->bytes, size, sizeof(size)));
	if (p->phase == PROGRESS_EXTRACTING) {
		/*
		 * Installed-Size counts blocks, not bytes: the share is an
		 * estimate, held below 100 until the packages are all in.
		 */
		if (p->expected > 0)
			progress_append(line, sizeof(line), " (%u%%)",
			    p->bytes >= p->expected ? 99u :
			    (unsigned)(p->bytes * 100 / p->expected));
		if (p->started && t > p->t_start && p->bytes > 0) {
			rate = (double)p->bytes / (t - p->t_start);
			per_s = rate < 1.8e19 ? (uint64_t)(rate + 0.5) :
			    UINT64_MAX;
			progress_append(line, sizeof(line), ", %s/s",
			    progress_format_bytes(per_s, size, sizeof(size)));
			/* An ETA once a second of rate is known. */
			if (p->expected > p->bytes && t - p->t_start >= 1.0 &&
			    rate > 0) {
				double left = (double)(p->expected - p->bytes) /
				    rate;

				if (left < 360000)
					progress_append(line, sizeof(line),
					    ", ETA %u:%02u", (unsigned)left / 60,
					    (unsigned)left % 60);
			}
		}
		if (p->name[0] != '\0')
			progress_append(line, sizeof(line), ", %s", p->name);
	}
	/* One column short: a full line leaves some terminals about to wrap. */
	cols = progress_width(p);
	len = progress_fit(line, cols - 1);
	if (fputs("\r", p->tty) == EOF ||
	    fwrite(line, 1, len, p->tty) != len ||
	    fputs("\033[K", p->tty) == EOF || fflush(p->tty) == EOF)
		p->tty_failed = true;
	p->shown = true;
	p->t_drawn = t;
}

int
progress_new(struct progress **out, FILE *tty, int status_fd, size_t total,
    double (*now)(void))
{
	struct progress *p;

	*out = NULL;
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return -ENOMEM;
	p->tty = tty;
	p->status_fd = status_fd;
	p->total = total;
	p->now = now != NULL ? now : stats_now;
	p->phase = PROGRESS_EXTRACTING;
	progress_send_counts(p);
	*out = p;
	return 0;
}

void
progress_expect(struct progress *p, uint64_t bytes)
{
	if (p == NULL)
		return;
	p->expected = bytes;
	progress_send_counts(p);
	progress_draw(p, false);
}

void
progress_free(struct progress *p)
{
	if (p == NULL)
		return;
	progress_erase(p);
	free(p);
}

void
progress_unpacking(struct progress *p, const char *name, bool upgrade)
{
	if (p == NULL)
		return;
	if (!p->started) {
		p->started = true;
		p->t_start = p->now();
	}
	escape_name(name, p->name, sizeof(p->name));
	if (!p->seq) {
		progress_send(p, "processing: %s: %s", upgrade ? "upgrade" :
		    "install", name);
		progress_send(p, "status: %s: half-installed", name);
	}
	progress_draw(p, false);
}

void
progress_extracted(struct progress *p, const char *name, uint64_t bytes)
{
	if (p == NULL)
		return;
	p->extracted++;
	p->bytes = bytes;
	escape_name(name, p->name, sizeof(p->name));
	progress_send_counts(p);
	progress_draw(p, false);
}

void
progress_phase(struct progress *p, enum progress_phase ph)
{
	if (p == NULL || ph == p->phase)
		return;
	p->phase = ph;
	progress_send_counts(p);
	if (ph >= PROGRESS_PREINST)
		progress_erase(p);
	else
		progress_draw(p, true);
}

void
progress_committed(struct progress *p, const char *name, const char *state)
{
	if (p == NULL || p->seq)
		return;
	progress_send(p, "status: %s: %s", name, state);
}

void
progress_set_seq(struct progress *p)
{
	if (p != NULL)
		p->seq = true;
}

void
progress_processing(struct progress *p, const char *action,
    const char *name)
{
	if (p == NULL)
		return;
	progress_erase(p);
	progress_send(p, "processing: %s: %s", action, name);
}

void
progress_state(struct progress *p, const char *name, const char *state)
{
	if (p == NULL)
		return;
	progress_send(p, "status: %s: %s", name, state);
}

void
progress_removing(struct progress *p, const char *name, const char *what)
{
	if (p == NULL)
		return;
	if (!p->started) {
		p->started = true;
		p->t_start = p->now();
	}
	escape_name(name, p->name, sizeof(p->name));
	progress_send(p, "processing: %s: %s", what, name);
	progress_send(p, "status: %s: half-installed", name);
	progress_draw(p, false);
}

void
progress_error(struct progress *p, const char *name, const char *msg)
{
	if (p == NULL)
		return;
	progress_erase(p);
	/* dpkg's spacing, " : error : ", unlike its other status lines. */
	if (name != NULL)
		progress_send(p, "status: %s : error : %s", name, msg);
	else
		progress_send(p, "progress: error: %s", msg);
}

void
progress_clear(struct progress *p)
{
	if (p != NULL)
		progress_erase(p);
}

void
progress_set_width(struct progress *p, unsigned int cols)
{
	if (p != NULL)
		p->width = cols;
}

int
progress_status_error(const struct progress *p)
{
	return p != NULL ? p->status_err : 0;
}
