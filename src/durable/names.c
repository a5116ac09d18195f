/* SPDX-License-Identifier: MIT */
/* The names a run gives its own files in the root, and the paths it accepts from a package. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>

#include "durable/fileat.h"
#include "durable/names.h"

/* Whether component COMP (LEN bytes) is one of the run's own names. */
static bool
names_reserved_comp(const char *comp, size_t len)
{
	static const char *const suffixes[] = {
		NAMES_TMP_SUFFIX, NAMES_OLD_SUFFIX,
	}, *const prefixes[] = {
		NAMES_TMP_PREFIX, NAMES_OLD_PREFIX,
	};
	size_t i, l;

	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		l = strlen(suffixes[i]);
		if (len >= l && memcmp(comp + len - l, suffixes[i], l) == 0)
			return true;
		l = strlen(prefixes[i]);
		if (len >= l && memcmp(comp, prefixes[i], l) == 0)
			return true;
	}
	return false;
}

bool
names_reserved(const char *name)
{
	return names_reserved_comp(name, strlen(name));
}

int
names_tmp(const char *name, unsigned long *seq, char *buf, size_t n)
{
	int len;

	if (strlen(name) + strlen(NAMES_TMP_SUFFIX) <= NAME_MAX)
		len = snprintf(buf, n, "%s" NAMES_TMP_SUFFIX, name);
	else if (seq != NULL)
		len = snprintf(buf, n, NAMES_TMP_PREFIX "%lu", (*seq)++);
	else
		return -ENAMETOOLONG;
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

void
names_old(const char *tmp, char *buf, size_t n)
{
	char *p, *last = NULL;

	/* The last "-new": in .debunpack-new.N it is not at the end. */
	snprintf(buf, n, "%s", tmp);
	for (p = buf; (p = strstr(p, "debunpack-new")) != NULL; p++)
		last = p;
	if (last != NULL)
		memcpy(last + strlen("debunpack-"), "old", 3);
}

int
names_aside(const char *name, char *buf, size_t n)
{
	int len = snprintf(buf, n, "%s" NAMES_OLD_SUFFIX, name);

	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

bool
names_is_aside(const char *entry, const char *name)
{
	size_t len = strlen(name);

	return strncmp(entry, name, len) == 0 &&
	    strcmp(entry + len, NAMES_OLD_SUFFIX) == 0;
}

int
names_path(const char *raw, char *out, size_t n, struct dbp_error *err)
{
	const char *p = raw, *c, *slash;
	size_t len;

	if (raw == NULL)
		return dbp_err(err, 0, "", "entry without a name");
	if (strchr(raw, '\n') != NULL)
		return dbp_err(err, 0, raw, "name contains a newline");
	/* "./usr/bin/x", "/usr/bin/x" and "usr/bin/x" are the same path. */
	for (;;) {
		if (p[0] == '/')
			p++;
		else if (p[0] == '.' && p[1] == '/')
			p += 2;
		else
			break;
	}
	if (strcmp(p, ".") == 0)
		p += 1;
	len = strlen(p);
	while (len > 0 && p[len - 1] == '/')
		len--;
	if (len >= n || len >= PATH_MAX)
		return dbp_err(err, ENAMETOOLONG, raw, "path too long");
	memcpy(out, p, len);
	out[len] = '\0';
	if (len == 0) {
		if (raw[0] == '\0')
			return dbp_err(err, 0, "", "entry with an empty name");
		return 0;
	}
	for (c = out; c != NULL; c = slash != NULL ? slash + 1 : NULL) {
		size_t cl;

		slash = strchr(c, '/');
		cl = slash != NULL ? (size_t)(slash - c) : strlen(c);
		if (cl == 0)
			return dbp_err(err, 0, raw, "empty path component");
		if ((cl == 1 && c[0] == '.') ||
		    (cl == 2 && c[0] == '.' && c[1] == '.'))
			return dbp_err(err, 0, raw,
			    "path contains a '%.*s' component", (int)cl, c);
		if (cl > NAME_MAX)
			return dbp_err(err, ENAMETOOLONG, raw,
			    "path component too long");
		if (names_reserved_comp(c, cl))
			return dbp_err(err, 0, raw,
			    "name reserved for temporary files");
	}
	return 0;
}

int
names_undo(int dfd, const char *name, const char *tmp, bool hadold)
{
	char old[NAME_MAX + 1];
	int n = 0, r;

	if (!hadold) {
		/*
		 * With the temporary gone, NAME is the new one; with both there
		 * and one inode, NAME is a link made to the temporary (the
		 * batch links new names), and goes first.
		 */
		if (!fileat_exists(dfd, tmp))
			return (r = fileat_unlink(dfd, name)) != 0 ? r : 1;
		if (fileat_same(dfd, tmp, name)) {
			if ((r = fileat_unlink(dfd, name)) != 0)
				return r;
			n = 1;
		}
		return (r = fileat_unlink(dfd, tmp)) != 0 ? r : n;
	}
	names_old(tmp, old, sizeof(old));
	if (fileat_is_dir(dfd, old)) {
		/* An empty directory a file replaced: the file goes. */
		if (fileat_exists(dfd, name) && !fileat_is_dir(dfd, name) &&
		    (r = fileat_unlink(dfd, name)) != 0)
			return r;
		if (renameat(dfd, old, dfd, name) != 0)
			return -errno;
		n = 1;
	} else if (fileat_exists(dfd, old)) {
		/*
		 * The backup holds the old version whether or not the rename
		 * happened; if it did not, both names are one inode and
		 * renameat does nothing, so the backup is removed after.
		 */
		if (renameat(dfd, old, dfd, name) != 0)
			return -errno;
		if ((r = fileat_unlink(dfd, old)) != 0)
			return r;
		n = 1;
	}
	return (r = fileat_unlink(dfd, tmp)) != 0 ? r : n;
}
