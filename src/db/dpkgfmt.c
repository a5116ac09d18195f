/* SPDX-License-Identifier: MIT */
/* dpkg's database formats: the status stanza of a package, its .list file. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db/dpkgfmt.h"

/*
 * dpkg reads its database back on every run, and front ends compare it
 * with what dpkg itself writes, so this follows dpkg 1.21
 * (lib/dpkg/dump.c): fields in dpkg's order, values in dpkg's form.
 */

/* Fields in the order dpkg writes them; the others follow as they came. */
static const char *const dpkgfmt_order[] = {
	"Package", "Essential", "Protected", "Status", "Priority", "Section",
	"Installed-Size", "Origin", "Maintainer", "Bugs", "Architecture",
	"Multi-Arch", "Source", "Version", "Config-Version", "Replaces",
	"Provides", "Depends", "Pre-Depends", "Recommends", "Suggests",
	"Breaks", "Conflicts", "Enhances", "Conffiles", "Description",
	"Triggers-Pending", "Triggers-Awaited", NULL
};

/* Known to dpkg but never in the status file of an unpacked package. */
static const char *const dpkgfmt_dropped[] = {
	"Filename", "Size", "MD5sum", "MSDOS-Filename", "Revision",
	"Package-Revision", "Package_Revision", NULL
};

static bool
dpkgfmt_in(const char *const *list, const char *name)
{
	for (; *list != NULL; list++)
		if (strcasecmp(*list, name) == 0)
			return true;
	return false;
}

static bool
dpkgfmt_is_depends(const char *name)
{
	static const char *const deps[] = { "Replaces", "Provides", "Depends",
	    "Pre-Depends", "Recommends", "Suggests", "Breaks", "Conflicts",
	    "Enhances", NULL };

	return dpkgfmt_in(deps, name);
}

const char *
dpkgfmt_version(const char *version)
{
	const char *p = version;

	/* dpkg drops a zero epoch: "0:1.2" and "1.2" are the same version. */
	while (*p == '0')
		p++;
	if (p != version && *p == ':')
		return p + 1;
	return version;
}

static const char *
dpkgfmt_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n'))
		p++;
	return p;
}

/* The token of P up to END made of no character of STOP or blank. */
static const char *
dpkgfmt_token(const char *p, const char *end, const char *stop)
{
	while (p < end && *p != ' ' && *p != '\t' && *p != '\n' &&
	    strchr(stop, *p) == NULL)
		p++;
	return p;
}

/*
 * One "name[:arch] [(op version)]" alternative, S to END, written to OUT
 * in dpkg's form.  Architecture restrictions and build profiles belong
 * to source packages: dpkg refuses them in a binary one, and so does this.
 */
/*
 * Whether NAME (LEN bytes) is "pkg" or "pkg:arch" as dpkg reads them: a
 * package name (letters, digits, "+-.", dpkg's own check being laxer on
 * case) and an architecture name or "any", "native".
 */
static bool
dpkgfmt_valid_name(const char *name, size_t len)
{
	const char *colon = memchr(name, ':', len);
	char arch[64];
	size_t n, i;

	n = colon != NULL ? (size_t)(colon - name) : len;
	if (n == 0 || !isalnum((unsigned char)name[0]))
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) &&
		    strchr("+-.", name[i]) == NULL)
			return false;
	if (colon == NULL)
		return true;
	n = len - n - 1;
	if (n == 0 || n >= sizeof(arch))
		return false;
	memcpy(arch, colon + 1, n);
	arch[n] = '\0';
	return control_valid_arch(arch);
}

/*
 * One "name[:arch] [(op version)]" alternative, S to END, written to OUT
 * in dpkg's form, or -EINVAL where dpkg would not read it back.
 * Architecture restrictions and build profiles belong to source
 * packages: dpkg refuses them in a binary one, and so does this.
 */
static int
dpkgfmt_alt(const char *s, const char *end, FILE *out)
{
	const char *name, *name_end, *op, *op_end, *ver, *ver_end, *p;
	char version[256];
	size_t vlen;

	name = dpkgfmt_blanks(s, end);
	name_end = dpkgfmt_token(name, end, "()[]<>,|");
	if (!dpkgfmt_valid_name(name, (size_t)(name_end - name)))
		return -EINVAL;
	p = dpkgfmt_blanks(name_end, end);
	if (p == end) {
		fprintf(out, "%.*s", (int)(name_end - name), name);
		return 0;
	}
	if (*p != '(')
		return -EINVAL;
	op = dpkgfmt_blanks(p + 1, end);
	for (op_end = op; op_end < end && (*op_end == '<' || *op_end == '>' ||
	    *op_end == '='); op_end++)
		;
	ver = dpkgfmt_blanks(op_end, end);
	ver_end = dpkgfmt_token(ver, end, "()");
	p = dpkgfmt_blanks(ver_end, end);
	vlen = (size_t)(ver_end - ver);
	if (op_end == op || vlen == 0 || vlen >= sizeof(version) || p == end ||
	    *p != ')' || dpkgfmt_blanks(p + 1, end) != end)
		return -EINVAL;
	memcpy(version, ver, vlen);
	version[vlen] = '\0';
	if (control_bad_version(version) != NULL)
		return -EINVAL;
	fprintf(out, "%.*s (", (int)(name_end - name), name);
	/* dpkg reads the obsolete "<" and ">" as "<=" and ">=". */
	if (op_end - op == 1 && *op == '<')
		fputs("<=", out);
	else if (op_end - op == 1 && *op == '>')
		fputs(">=", out);
	else if ((op_end - op == 2 && (strncmp(op, "<<", 2) == 0 ||
	    strncmp(op, "<=", 2) == 0 || strncmp(op, ">=", 2) == 0 ||
	    strncmp(op, ">>", 2) == 0)) || (op_end - op == 1 && *op == '='))
		fprintf(out, "%.*s", (int)(op_end - op), op);
	else
		return -EINVAL;
	fprintf(out, " %s)", dpkgfmt_version(version));
	return 0;
}

int
dpkgfmt_depends(const char *value, char **out)
{
	const char *p = value, *end, *bar;
	size_t len = 0;
	FILE *fp;
	int r = 0;

	if ((fp = open_memstream(out, &len)) == NULL)
		return -ENOMEM;
	while (r == 0) {
		end = strchr(p, ',');
		if (end == NULL)
			end = p + strlen(p);
		/* Alternatives of one dependency, "|" apart. */
		for (;;) {
			bar = memchr(p, '|', (size_t)(end - p));
			if ((r = dpkgfmt_alt(p, bar != NULL ? bar : end,
			    fp)) != 0 || bar == NULL)
				break;
			fputs(" | ", fp);
			p = bar + 1;
		}
		if (r != 0 || *end == '\0')
			break;
		fputs(", ", fp);
		p = end + 1;
	}
	if (fclose(fp) != 0 && r == 0)
		r = -ENOMEM;
	if (r != 0) {
		free(*out);
		*out = NULL;
	}
	return r;
}

/* The priorities dpkg knows, and writes in lower case. */
static const char *const dpkgfmt_priorities[] = { "required", "important",
    "standard", "optional", "extra", NULL };

/* A value dpkg parses into a keyword, which it writes in lower case. */
static void
dpkgfmt_put_lower(FILE *fp, const char *name, const char *value)
{
	fprintf(fp, "%s: ", name);
	for (; *value != '\0'; value++)
		fputc(tolower((unsigned char)*value), fp);
	fputc('\n', fp);
}

/* A field value, continuation lines indented by one space again. */
static void
dpkgfmt_put_value(FILE *fp, const char *name, const char *value)
{
	const char *p;

	fprintf(fp, "%s:", name);
	if (value[0] != '\0' && value[0] != '\n')
		fputc(' ', fp);
	for (p = value; *p != '\0'; p++) {
		fputc(*p, fp);
		if (*p == '\n')
			fputc(' ', fp);
	}
	fputc('\n', fp);
}

const unsigned char *
dpkgfmt_entry_md5(struct record *rec, const struct record_entry *e)
{
	/* A hardlink's data is its target's, and so is its MD5, for dpkg. */
	if (e != NULL && e->type == 'h' && e->target != NULL)
		e = record_find(rec, e->target);
	return e != NULL && e->has_md5 ? e->md5 : NULL;
}

/* " PATH HASH" or " PATH newconffile" (no MD5), then FLAGS, a line. */
static void
dpkgfmt_put_conffile(FILE *fp, const char *path, const unsigned char *md5,
    const char *flags)
{
	size_t i;

	fprintf(fp, " %s ", path);
	if (md5 == NULL)
		fputs("newconffile", fp);
	for (i = 0; md5 != NULL && i < 16; i++)
		fprintf(fp, "%02x", md5[i]);
	fprintf(fp, "%s\n", flags);
}

/* The Conffiles block: the package's conffiles in their file's order. */
static void
dpkgfmt_put_conffiles(FILE *fp, const char *conffiles, struct record *rec,
    dpkgfmt_carried_fn *carried, void *ctx)
{
	const unsigned char *md5;
	const char *p = conffiles, *nl;
	char path[PATH_MAX + 1];
	bool any = false;
	size_t len, i;

	for (; p != NULL && *p != '\0'; p = nl != NULL ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t' ||
		    p[len - 1] == '\r'))
			len--;
		while (len > 0 && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		/*
		 * A flagged line ("remove-on-upgrade /x"): not installed,
		 * listed with the hash dpkg carried over from the version
		 * that had it, or its mark for a conffile it has no hash of.
		 */
		if (len > 18 && strncmp(p, "remove-on-upgrade", 17) == 0 &&
		    (p[17] == ' ' || p[17] == '\t')) {
			size_t skip = 17;

			while (skip < len && (p[skip] == ' ' || p[skip] == '\t'))
				skip++;
			if (len - skip < sizeof(path) && p[skip] == '/') {
				if (!any)
					fputs("Conffiles:\n", fp);
				any = true;
				memcpy(path, p + skip, len - skip);
				path[len - skip] = '\0';
				dpkgfmt_put_conffile(fp, path, carried != NULL ?
				    carried(ctx, path) : NULL,
				    " remove-on-upgrade");
			}
			continue;
		}
		if (len == 0 || *p != '/' || len >= sizeof(path))
			continue;
		memcpy(path, p, len);
		path[len] = '\0';
		if (!any)
			fputs("Conffiles:\n", fp);
		any = true;
		/*
		 * The MD5 of the file as this run extracted it: dpkg's
		 * configure finds no .dpkg-new and keeps it as the
		 * distributed version's.  Without one (not a regular file
		 * of the package), dpkg's own mark for a new conffile.
		 * Another package's (it keeps the path, or took it later
		 * in the run): obsolete, with the hash dpkg carried over.
		 */
		if (rec != NULL && record_find(rec, path) == NULL)
			dpkgfmt_put_conffile(fp, path, carried != NULL ?
			    carried(ctx, path) : NULL, " obsolete");
		else
			dpkgfmt_put_conffile(fp, path, rec != NULL ?
			    dpkgfmt_entry_md5(rec, record_find(rec, path)) :
			    NULL, "");
	}
	/* The conffiles it no longer ships but keeps, as dpkg lists them. */
	for (i = 0; rec != NULL && i < rec->n; i++) {
		if (!rec->v[i].obsolete)
			continue;
		if (!any)
			fputs("Conffiles:\n", fp);
		any = true;
		md5 = rec->v[i].has_md5 ? rec->v[i].md5 : NULL;
		dpkgfmt_put_conffile(fp, rec->v[i].path, md5, " obsolete");
	}
}

int
dpkgfmt_stanza(FILE *fp, const struct control *ctl, const char *status,
    const char *config_version, const char *conffiles, struct record *rec,
    dpkgfmt_carried_fn *carried, void *ctx)
{
	const char *const *f;
	const char *v;
	char *dep;
	size_t i;

	for (f = dpkgfmt_order; *f != NULL; f++) {
		if (strcmp(*f, "Status") == 0) {
			fprintf(fp, "Status: %s\n", status);
			continue;
		}
		if (strcmp(*f, "Config-Version") == 0) {
			if (config_version != NULL)
				fprintf(fp, "Config-Version: %s\n",
				    dpkgfmt_version(config_version));
			continue;
		}
		if (strcmp(*f, "Conffiles") == 0) {
			dpkgfmt_put_conffiles(fp, conffiles, rec, carried,
			    ctx);
			continue;
		}
		if ((v = control_get(ctl, *f)) == NULL || v[0] == '\0')
			continue;
		if (strcmp(*f, "Essential") == 0 || strcmp(*f, "Protected") == 0) {
			if (strcasecmp(v, "yes") == 0)
				fprintf(fp, "%s: yes\n", *f);
		} else if (strcmp(*f, "Multi-Arch") == 0) {
			if (strcasecmp(v, "no") != 0)
				dpkgfmt_put_lower(fp, *f, v);
		} else if (strcmp(*f, "Priority") == 0 &&
		    dpkgfmt_in(dpkgfmt_priorities, v))
			dpkgfmt_put_lower(fp, *f, v);
		else if (strcmp(*f, "Version") == 0)
			fprintf(fp, "Version: %s\n", dpkgfmt_version(v));
		else if (strncmp(*f, "Triggers-", 9) == 0)
			continue;	/* dpkg's own, not the package's */
		else if (dpkgfmt_is_depends(*f) &&
		    dpkgfmt_depends(v, &dep) == 0) {
			fprintf(fp, "%s: %s\n", *f, dep);
			free(dep);
		} else
			dpkgfmt_put_value(fp, *f, v);
	}
	for (i = 0; i < ctl->nfields; i++) {
		const struct control_field *cf = &ctl->fields[i];

		if (!dpkgfmt_in(dpkgfmt_order, cf->name) &&
		    !dpkgfmt_in(dpkgfmt_dropped, cf->name) && cf->value[0] != '\0')
			dpkgfmt_put_value(fp, cf->name, cf->value);
	}
	fputc('\n', fp);
	return ferror(fp) ? -EIO : 0;
}

int
dpkgfmt_list_walk(const struct record *rec, bool root,
    dpkgfmt_path_fn *fn, void *ctx)
{
	size_t i;
	int r;

	if (root && (r = fn("/.", NULL, ctx)) != 0)
		return r;
	/*
	 * dpkg makes symlinks after every other entry of a package (so
	 * that none can lead its files astray) and lists them so.
	 */
	for (i = 0; i < rec->n; i++)
		if (strcmp(rec->v[i].path, "/") != 0 && rec->v[i].type != 'l' &&
		    (r = fn(rec->v[i].path, &rec->v[i], ctx)) != 0)
			return r;
	for (i = 0; i < rec->n; i++)
		if (rec->v[i].type == 'l' &&
		    (r = fn(rec->v[i].path, &rec->v[i], ctx)) != 0)
			return r;
	return 0;
}

static int
dpkgfmt_list_line(const char *path, const struct record_entry *e, void *ctx)
{
	(void)e;
	fprintf(ctx, "%s\n", path);
	return 0;
}

int
dpkgfmt_list(FILE *fp, const struct record *rec, bool root)
{
	dpkgfmt_list_walk(rec, root, dpkgfmt_list_line, fp);
	return ferror(fp) ? -EIO : 0;
}

int
dpkgfmt_check(const struct control *ctl, struct dbp_error *err)
{
	static const char *const bools[] = { "yes", "no", NULL };
	static const char *const ma[] = { "no", "same", "foreign", "allowed",
	    NULL };
	const char *v;
	char *dep;
	size_t i;
	int r;

	/* What dpkg would refuse to read back from its own status file. */
	for (i = 0; i < ctl->nfields; i++) {
		const struct control_field *f = &ctl->fields[i];

		if (!dpkgfmt_is_depends(f->name) || f->value[0] == '\0')
			continue;
		if ((r = dpkgfmt_depends(f->value, &dep)) != 0)
			return dbp_err(err, r == -ENOMEM ? ENOMEM : 0, "control",
			    "'%s' field: syntax error", f->name);
		free(dep);
	}
	if (((v = control_get(ctl, "Essential")) != NULL && !dpkgfmt_in(bools, v)) ||
	    ((v = control_get(ctl, "Protected")) != NULL && !dpkgfmt_in(bools, v)))
		return dbp_err(err, 0, "control", "'%s' is not yes or no", v);
	if ((v = control_get(ctl, "Multi-Arch")) != NULL && !dpkgfmt_in(ma, v))
		return dbp_err(err, 0, "control", "unknown Multi-Arch '%s'", v);
	/* dpkg: an arch-independent package cannot be co-installable. */
	if (v != NULL && strcasecmp(v, "same") == 0 &&
	    strcmp(control_get(ctl, "Architecture"), "all") == 0)
		return dbp_err(err, 0, "control", "Multi-Arch: same with"
		    " Architecture: all");
	return 0;
}
