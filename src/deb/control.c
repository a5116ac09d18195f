/* SPDX-License-Identifier: MIT */
/* Parsing a package's control file (RFC 822 style fields). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "deb/control.h"

static const char *const control_required[] = {
	"Package", "Version", "Architecture",
};

static int
control_add(struct control *c, const char *name, size_t nlen,
    const char *val, size_t vlen)
{
	struct control_field *f;

	f = realloc(c->fields, (c->nfields + 1) * sizeof(*f));
	if (f == NULL)
		return -ENOMEM;
	c->fields = f;
	f = &c->fields[c->nfields];
	f->name = strndup(name, nlen);
	f->value = strndup(val, vlen);
	if (f->name == NULL || f->value == NULL) {
		free(f->name);
		free(f->value);
		return -ENOMEM;
	}
	c->nfields++;
	return 0;
}

/* Append a continuation line to the last field. */
static int
control_continue(struct control *c, const char *line, size_t len)
{
	struct control_field *f = &c->fields[c->nfields - 1];
	size_t old = strlen(f->value);
	char *v;

	v = realloc(f->value, old + 1 + len + 1);
	if (v == NULL)
		return -ENOMEM;
	v[old] = '\n';
	memcpy(v + old + 1, line, len);
	v[old + 1 + len] = '\0';
	f->value = v;
	return 0;
}

/*
 * Why VERSION is not a Debian version, or NULL: dpkg's rules, [EPOCH:]
 * UPSTREAM[-REVISION] with a numeric epoch and only letters, digits and
 * ".+~" (and "-" and ":" in UPSTREAM).  dpkg refuses such a package too;
 * here it also keeps control sequences out of records and messages.
 */
const char *
control_bad_version(const char *v)
{
	const char *up = v, *colon = strchr(v, ':'), *hyphen, *p;

	if (*v == '\0')
		return "empty";
	if (colon != NULL) {
		if (colon == v)
			return "empty epoch";
		for (p = v; p < colon; p++)
			if (*p < '0' || *p > '9')
				return "epoch is not a number";
		/* dpkg's limit: an int. */
		if (strtol(v, NULL, 10) > INT_MAX || colon - v > 10)
			return "epoch too large";
		up = colon + 1;
	}
	hyphen = strrchr(up, '-');
	if (*up == '\0' || hyphen == up)
		return "empty upstream version";
	if (hyphen != NULL && hyphen[1] == '\0')
		return "empty revision";
	for (p = up; *p != '\0'; p++) {
		unsigned char c = (unsigned char)*p;

		if (isascii(c) && isalnum(c))
			continue;
		if (strchr(".+~", c) != NULL)
			continue;
		if ((c == '-' || c == ':') && (hyphen == NULL || p < hyphen))
			continue;
		if (c == '-' && p == hyphen)
			continue;
		return "invalid character";
	}
	return NULL;
}

bool
control_valid_arch(const char *a)
{
	const char *p;

	if (!isascii((unsigned char)*a) || !isalnum((unsigned char)*a))
		return false;
	for (p = a; *p != '\0'; p++)
		if (!isascii((unsigned char)*p) ||
		    (!isalnum((unsigned char)*p) && *p != '-'))
			return false;
	return true;
}

static int
control_valid_name(const char *name, size_t len)
{
	size_t i;

	/* deb-control(5): printable ASCII, not starting with '#' or '-'. */
	if (len == 0 || name[0] == '#' || name[0] == '-')
		return 0;
	for (i = 0; i < len; i++)
		if (name[i] <= ' ' || name[i] > '~' || name[i] == ':')
			return 0;
	return 1;
}

static size_t
control_trim(const char **s, size_t len)
{
	while (len > 0 && (**s == ' ' || **s == '\t')) {
		(*s)++;
		len--;
	}
	return len;
}

/*
 * As dpkg's parser: blanks end a value only at its very end, so that a
 * multi-line value keeps a blank at the end of its first line (dpkg's
 * database shows it so: Description: SYNOPSIS \n ...).
 */
static void
control_trim_end(struct control *c)
{
	size_t i, n;

	for (i = 0; i < c->nfields; i++) {
		n = strlen(c->fields[i].value);
		while (n > 0 && isspace((unsigned char)c->fields[i].value[n - 1]))
			n--;
		c->fields[i].value[n] = '\0';
	}
}

static int
control_parse_line(struct control *c, const char *line, size_t len,
    struct dbp_error *err)
{
	const char *colon, *val;
	size_t nlen, vlen;

	if (line[0] == ' ' || line[0] == '\t') {
		if (c->nfields == 0)
			return dbp_err(err, 0, "control",
			    "continuation line before the first field");
		return control_continue(c, line + 1, len - 1);
	}
	colon = memchr(line, ':', len);
	if (colon == NULL)
		return dbp_err(err, 0, "control",
		    "line without a field name");
	nlen = (size_t)(colon - line);
	if (!control_valid_name(line, nlen))
		return dbp_err(err, 0, "control", "invalid field name");
	val = colon + 1;
	vlen = control_trim(&val, len - nlen - 1);
	for (size_t i = 0; i < c->nfields; i++)
		if (strlen(c->fields[i].name) == nlen &&
		    strncasecmp(c->fields[i].name, line, nlen) == 0)
			return dbp_err(err, 0, "control",
			    "duplicate field '%.*s'", (int)nlen, line);
	return control_add(c, line, nlen, val, vlen);
}

int
control_parse(const char *text, size_t len, struct control **out,
    struct dbp_error *err)
{
	struct control *c;
	const char *p = text, *end = text + len, *nl;
	size_t i;
	int r = 0;

	if (memchr(text, '\0', len) != NULL)
		return dbp_err(err, 0, "control", "contains a NUL byte");
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	/* Blank lines before the stanza are skipped, as dpkg does. */
	while (p < end && (*p == '\n' || *p == '\r'))
		p++;
	for (; p < end && r == 0; p = nl + 1) {
		size_t ll;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		ll = (size_t)(nl - p);
		if (ll > 0 && p[ll - 1] == '\r')
			ll--;
		if (ll == 0) {
			/* One stanza only: a blank line ends it, anything after is an error. */
			const char *q = nl;

			while (q < end && isspace((unsigned char)*q))
				q++;
			if (q < end)
				r = dbp_err(err, 0, "control",
				    "more than one stanza");
			break;
		}
		r = control_parse_line(c, p, ll, err);
	}
	if (r == 0)
		control_trim_end(c);
	for (i = 0; r == 0 && i < sizeof(control_required) /
	    sizeof(control_required[0]); i++) {
		const char *v = control_get(c, control_required[i]);

		if (v == NULL || v[0] == '\0')
			r = dbp_err(err, 0, "control",
			    "missing field '%s'", control_required[i]);
	}
	if (r == -ENOMEM)
		dbp_err(err, ENOMEM, "control", "cannot parse");
	if (r != 0) {
		control_free(c);
		return r;
	}
	*out = c;
	return 0;
}

int
control_check_syntax(const struct control *c, struct dbp_error *err)
{
	const char *v = control_get(c, "Version"), *why;

	if ((why = control_bad_version(v)) != NULL)
		return dbp_err(err, 0, "control", "invalid Version '%s': %s",
		    v, why);
	if (!control_valid_arch(control_get(c, "Architecture")))
		return dbp_err(err, 0, "control", "invalid Architecture '%s'",
		    control_get(c, "Architecture"));
	/*
	 * A continuation line of blanks alone: dpkg refuses it in a
	 * package's control (" ." is a blank line), as dpkg-deb builds none.
	 */
	for (size_t i = 0; i < c->nfields; i++) {
		const char *l = c->fields[i].value;

		while ((l = strchr(l, '\n')) != NULL) {
			l++;
			if (l[strspn(l, " \t")] == '\n' ||
			    l[strspn(l, " \t")] == '\0')
				return dbp_err(err, 0, "control", "blank line"
				    " in value of field '%s'",
				    c->fields[i].name);
		}
	}
	return 0;
}

const char *
control_get(const struct control *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nfields; i++)
		if (strcasecmp(c->fields[i].name, name) == 0)
			return c->fields[i].value;
	return NULL;
}

void
control_free(struct control *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nfields; i++) {
		free(c->fields[i].name);
		free(c->fields[i].value);
	}
	free(c->fields);
	free(c);
}
