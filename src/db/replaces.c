/* SPDX-License-Identifier: MIT */
/* Whether a package's Replaces field lets it take another's files (deb-control(5)). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "db/replaces.h"
#include "db/version.h"

/* Skip blanks, newlines included (a field may go on over lines). */
static const char *
replaces_blank(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return p;
}

bool
replaces_pkg(const struct control *ctl, const char *name,
    const char *version)
{
	const char *p = control_get(ctl, "Replaces"), *s;
	char pkg[256], op[3], ref[256];
	size_t len;

	if (p == NULL)
		return false;
	while (*(p = replaces_blank(p)) != '\0') {
		/* NAME[:ARCH] [(OP VERSION)] up to the next comma. */
		for (s = p; *s != '\0' && *s != ',' && *s != ' ' && *s != '\t' &&
		    *s != '\n' && *s != '(' && *s != ':'; s++)
			;
		len = (size_t)(s - p) < sizeof(pkg) - 1 ? (size_t)(s - p) :
		    sizeof(pkg) - 1;
		memcpy(pkg, p, len);
		pkg[len] = '\0';
		/* An architecture qualifier (":any") does not change the name. */
		if (*s == ':')
			s += strcspn(s, ", \t\n(");
		s = replaces_blank(s);
		op[0] = '\0';
		ref[0] = '\0';
		if (*s == '(') {
			s = replaces_blank(s + 1);
			len = strspn(s, "<=>");
			if (len == 0 || len > 2)
				return false;	/* dpkg would not read it */
			memcpy(op, s, len);
			op[len] = '\0';
			s = replaces_blank(s + len);
			len = strcspn(s, ") \t\n");
			if (len == 0 || len >= sizeof(ref))
				return false;
			memcpy(ref, s, len);
			ref[len] = '\0';
			s = strchr(s, ')');
			if (s == NULL)
				return false;
			s++;
		}
		if (strcmp(pkg, name) == 0 && (op[0] == '\0' ||
		    version_satisfies(version, op, ref)))
			return true;
		p = strchr(s, ',');
		if (p == NULL)
			break;
		p++;
	}
	return false;
}
