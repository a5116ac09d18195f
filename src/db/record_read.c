/* SPDX-License-Identifier: MIT */
/* Reading installed-package records: the parser of the format in record.c. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "db/record.h"
#include "db/record_int.h"

/* Reading. */

struct record_reader {
	FILE *fp;
	const char *name;
	struct dbp_error *err;
	char *line;		/* the current line, without its newline */
	size_t cap, len;
	size_t lineno;		/* of the current line, from 1 */
	bool dpkg_db;		/* the header says RECORD_DPKG_DB */
	bool diverted;		/* version 2: lines may say DIVERT_FROM */
};

static int
record_bad(struct record_reader *rd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
record_bad(struct record_reader *rd, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return dbp_err(rd->err, 0, rd->name, "line %zu: %s", rd->lineno, msg);
}

static int
record_nomem(struct record_reader *rd)
{
	return dbp_err(rd->err, ENOMEM, rd->name, "cannot read record");
}

/*
 * The next line, without its newline, into RD->line.  Returns 1, or 0 at
 * the end of the file (RD->lineno is then the line that is missing), or
 * an error.  getline: a line of any length fits.
 */
static int
record_next(struct record_reader *rd)
{
	ssize_t n;

	errno = 0;
	n = getline(&rd->line, &rd->cap, rd->fp);
	rd->lineno++;
	if (n < 0) {
		if (ferror(rd->fp))
			return dbp_err(rd->err, errno != 0 ? errno : EIO,
			    rd->name, "cannot read record");
		if (errno == ENOMEM)
			return record_nomem(rd);
		return 0;
	}
	if (memchr(rd->line, '\0', (size_t)n) != NULL)
		return record_bad(rd, "NUL byte");
	if (rd->line[n - 1] != '\n')
		return record_bad(rd, "no newline at the end (truncated file?)");
	rd->line[--n] = '\0';
	rd->len = (size_t)n;
	return 1;
}

static int
record_read_header(struct record_reader *rd)
{
	char want[16], want2[16], shown[64];
	const char *v;
	int r;

	if ((r = record_next(rd)) <= 0)
		return r < 0 ? r : record_bad(rd, "empty file, not a record");
	snprintf(want, sizeof(want), "%d", RECORD_VERSION);
	snprintf(want2, sizeof(want2), "%d", RECORD_VERSION_DIVERTED);
	if (strncmp(rd->line, RECORD_MAGIC, strlen(RECORD_MAGIC)) != 0)
		return record_bad(rd, "not a record: no \"%s%s\" header",
		    RECORD_MAGIC, want);
	v = rd->line + strlen(RECORD_MAGIC);
	/* Version 2 is version 1 with diverted paths: read as one. */
	if (strncmp(v, want2, strlen(want2)) == 0 &&
	    (v[strlen(want2)] == '\0' || v[strlen(want2)] == ' ')) {
		rd->diverted = true;
		snprintf(want, sizeof(want), "%s", want2);
	}
	if (strcmp(v, want) == 0)
		return 0;
	if (strncmp(v, want, strlen(want)) == 0 &&
	    strcmp(v + strlen(want), " " RECORD_DPKG_DB) == 0) {
		rd->dpkg_db = true;
		return 0;
	}
	if (v[0] != '\0' && strspn(v, "0123456789") == strlen(v))
		return record_bad(rd, "unsupported record version %s",
		    record_show(v, shown));
	return record_bad(rd, "not a record: bad header");
}

/*
 * The control stanza up to the empty line, through control_parse.  Its
 * errors do not say which line: they are reported on the stanza's first.
 */
static int
record_read_control(struct record_reader *rd, struct control **ctl)
{
	struct dbp_error cerr;
	size_t len = 0, cap = 0, first = rd->lineno + 1;
	char *buf = NULL, *nbuf;
	int r;

	for (;;) {
		if ((r = record_next(rd)) < 0)
			goto out;
		if (r == 0) {
			r = record_bad(rd, "end of file in the control stanza");
			goto out;
		}
		if (rd->len == 0)
			break;
		/* control_parse would drop it: a value would change. */
		if (rd->line[rd->len - 1] == '\r') {
			r = record_bad(rd, "carriage return at the end of a "
			    "line");
			goto out;
		}
		if (rd->len + 1 > cap - len) {
			if (rd->len + 1 > SIZE_MAX / 2 - len) {
				r = record_nomem(rd);
				goto out;
			}
			cap = 2 * (len + rd->len + 1);
			if ((nbuf = realloc(buf, cap)) == NULL) {
				r = record_nomem(rd);
				goto out;
			}
			buf = nbuf;
		}
		memcpy(buf + len, rd->line, rd->len);
		len += rd->len;
		buf[len++] = '\n';
	}
	dbp_err_clear(&cerr);
	r = control_parse(buf != NULL ? buf : "", len, ctl, &cerr);
	if (r == -ENOMEM)
		r = record_nomem(rd);
	else if (r != 0) {
		rd->lineno = first;
		r = record_bad(rd, "bad control stanza: %s", cerr.msg);
	}
out:
	free(buf);
	return r;
}

/* Decimal S, no sign nor leading zero, at most MAX. */
static bool
record_decimal(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	unsigned d;

	if (s[0] == '\0' || (s[0] == '0' && s[1] != '\0'))
		return false;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return false;
		d = (unsigned)(*s - '0');
		if (v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

/*
 * Lower-case hex digits' values + 1 (0: not one).  Every line of every
 * record holds a SHA-256, and every call of apt's reads them all.
 */
static const unsigned char record_hex[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6,
	['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12,
	['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
};

/* HEX, 2 * N lower-case hex digits and its end, into OUT: false if not. */
static bool
record_unhex(const char *hex, unsigned char *out, size_t n)
{
	const unsigned char *h = (const unsigned char *)hex;
	unsigned hi, lo;
	size_t i;

	for (i = 0; i < n; i++, h += 2) {
		if ((hi = record_hex[h[0]]) == 0 || (lo = record_hex[h[1]]) == 0)
			return false;
		out[i] = (unsigned char)((hi - 1) << 4 | (lo - 1));
	}
	return *h == '\0';
}

/* Parse the path line in RD and append it to REC. */
static int
record_read_entry(struct record_reader *rd, struct record *rec)
{
	struct record_entry e;
	char *col[9], *p, *sep, shown[64], why[128];
	const char *prob, *from = NULL;
	size_t ncol = 0, want, i;
	uint64_t a, b;
	int r;

	memset(&e, 0, sizeof(e));
	if (rd->len == 0)
		return record_bad(rd, "empty line among the paths");
	for (p = rd->line;; p++) {
		if (ncol < 9)
			col[ncol] = p;
		ncol++;
		if ((p = strchr(p, '\t')) == NULL)
			break;
		*p = '\0';
	}
	if (strlen(col[0]) != 1 || strchr(record_types, col[0][0]) == NULL)
		return record_bad(rd, "unknown type '%s'",
		    record_show(col[0], shown));
	e.type = col[0][0];
	/* Version 2: a path the filters left out, which dpkg lists. */
	if (rd->diverted && ncol == 7 && strcmp(col[1], "x") == 0) {
		for (i = 2; i < 6; i++)
			if (strcmp(col[i], "-") != 0)
				return record_bad(rd, "a left-out path with"
				    " attributes");
		if ((prob = escape_parse_field(col[6])) != NULL)
			return record_bad(rd, "%s in the path", prob);
		if (col[6][0] != '/')
			return record_bad(rd, "a left-out path that is not"
			    " absolute");
		return record_add_filtered(rec, col[6], e.type) != 0 ?
		    record_nomem(rd) : 0;
	}
	want = record_has_target(e.type) ? 8 : 7;
	/* Version 2: a diverted path's line ends with DIVERT_FROM. */
	if (rd->diverted && ncol == want + 1) {
		if ((prob = escape_parse_field(col[want])) != NULL)
			return record_bad(rd, "%s in the diverted-from path",
			    prob);
		from = col[want];
		ncol--;
	}
	if (ncol == 7 && want == 8)
		return record_bad(rd, "no target for type '%c'", e.type);
	if (ncol == 8 && want == 7)
		return record_bad(rd, "target on type '%c'", e.type);
	if (ncol != want)
		return record_bad(rd, "%zu columns, expected %zu", ncol, want);

	if (strcmp(col[1], "c") == 0)
		e.conffile = true;
	else if (strcmp(col[1], "o") == 0)
		e.conffile = e.obsolete = true;
	else if (strcmp(col[1], "s") == 0)
		e.skipped = true;
	else if (strcmp(col[1], "-") != 0)
		return record_bad(rd, "bad flags '%s'",
		    record_show(col[1], shown));
	if (strlen(col[2]) != 4 || strspn(col[2], "01234567") != 4)
		return record_bad(rd, "bad mode '%s'",
		    record_show(col[2], shown));
	e.mode = (mode_t)strtoul(col[2], NULL, 8);
	if ((sep = strchr(col[3], ':')) == NULL)
		return record_bad(rd, "bad owner '%s'",
		    record_show(col[3], shown));
	*sep = '\0';
	if (!record_decimal(col[3], (uid_t)-1, &a) ||
	    !record_decimal(sep + 1, (gid_t)-1, &b)) {
		*sep = ':';
		return record_bad(rd, "bad owner '%s'",
		    record_show(col[3], shown));
	}
	e.uid = (uid_t)a;
	e.gid = (gid_t)b;

	if (!record_has_data(e.type)) {
		if (strcmp(col[4], "-") != 0)
			return record_bad(rd, "size on type '%c'", e.type);
		if (strcmp(col[5], "-") != 0)
			return record_bad(rd, "sha256 on type '%c'", e.type);
	} else if (strcmp(col[4], "-") == 0)
		return record_bad(rd, "no size for type '%c'", e.type);
	else if (!record_decimal(col[4], UINT64_MAX, &e.size))
		return record_bad(rd, "bad size '%s'",
		    record_show(col[4], shown));
	else if (strcmp(col[5], "-") == 0)
		return record_bad(rd, "no sha256 for type '%c'", e.type);
	else if (!record_unhex(col[5], e.sha256, sizeof(e.sha256)))
		return record_bad(rd, "bad sha256 '%s'",
		    record_show(col[5], shown));

	if ((prob = escape_parse_field(col[6])) != NULL)
		return record_bad(rd, "%s in the path", prob);
	e.path = col[6];
	if (record_is_device(e.type)) {
		if ((sep = strchr(col[7], ',')) == NULL)
			return record_bad(rd, "bad device number '%s'",
			    record_show(col[7], shown));
		*sep = '\0';
		if (!record_decimal(col[7], UINT_MAX, &a) ||
		    !record_decimal(sep + 1, UINT_MAX, &b)) {
			*sep = ',';
			return record_bad(rd, "bad device number '%s'",
			    record_show(col[7], shown));
		}
		e.major = (unsigned)a;
		e.minor = (unsigned)b;
	} else if (want == 8) {
		if ((prob = escape_parse_field(col[7])) != NULL)
			return record_bad(rd, "%s in the target", prob);
		e.target = col[7];
	}
	e.divert_from = (char *)from;
	if (!record_entry_ok(&e, why, sizeof(why)))
		return record_bad(rd, "%s", why);

	/* col[] lives in the line buffer, which the next line reuses. */
	e.path = strdup(e.path);
	e.target = e.target != NULL ? strdup(e.target) : NULL;
	e.divert_from = from != NULL ? strdup(from) : NULL;
	if (e.path == NULL || (want == 8 && !record_is_device(e.type) &&
	    e.target == NULL) || (from != NULL && e.divert_from == NULL) ||
	    (r = record_push(rec, &e)) != 0) {
		record_entry_clear(&e);
		return record_nomem(rd);
	}
	return 0;
}

int
record_read(FILE *fp, const char *name, struct record **out,
    struct dbp_error *err)
{
	struct record_reader rd = { .fp = fp, .name = name, .err = err };
	const struct record_entry *dup, *first;
	struct record *rec = NULL;
	struct control *ctl = NULL;
	size_t line0;
	int r;

	if ((r = record_read_header(&rd)) != 0 ||
	    (r = record_read_control(&rd, &ctl)) != 0)
		goto out;
	if (record_new(&rec, ctl) != 0) {
		control_free(ctl);
		r = record_nomem(&rd);
		goto out;
	}
	rec->dpkg_db = rd.dpkg_db;
	line0 = rd.lineno + 1;
	while ((r = record_next(&rd)) > 0)
		if ((r = record_read_entry(&rd, rec)) != 0)
			goto out;
	if (r < 0)
		goto out;
	/* The index find needs anyway; building it finds duplicates. */
	if ((rec->index = record_sorted(rec)) == NULL) {
		r = record_nomem(&rd);
		goto out;
	}
	rec->nindex = rec->n;
	if ((dup = record_first_duplicate(rec->index, rec->n, &first)) !=
	    NULL) {
		rd.lineno = line0 + (size_t)(dup - rec->v);
		r = record_bad(&rd, "duplicate path, first on line %zu",
		    line0 + (size_t)(first - rec->v));
		goto out;
	}
	*out = rec;
	rec = NULL;
out:
	record_free(rec);
	free(rd.line);
	return r;
}
