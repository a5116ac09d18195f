/* SPDX-License-Identifier: MIT */
/* dpkg's status file: its fields (one table), its stanzas, the merged file. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db/dpkgarch.h"
#include "db/dpkgstatus.h"

/*
 * dpkg reads its status back on every run, and front ends compare it
 * with what dpkg itself writes, so the stanzas made here follow dpkg
 * 1.21 (lib/dpkg/dump.c): fields in dpkg's order, values in dpkg's form.
 * Each field the run writes or reads is one row of dpkgstatus_fields:
 * the order, the reader and the writer cannot drift apart.
 */

/* A field's value in SRC's control, or NULL for none or an empty one. */
static const char *
dpkgstatus_value(const struct dpkgstatus_field *f,
    const struct dpkgstatus_src *src)
{
	const char *v = control_get(src->ctl, f->name);

	return v != NULL && v[0] != '\0' ? v : NULL;
}

/* A field value, continuation lines indented by one space again. */
static void
dpkgstatus_put(FILE *fp, const char *name, const char *value)
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

/* A value dpkg parses into a keyword, which it writes in lower case. */
static void
dpkgstatus_put_lower(FILE *fp, const char *name, const char *value)
{
	fprintf(fp, "%s: ", name);
	for (; *value != '\0'; value++)
		fputc(tolower((unsigned char)*value), fp);
	fputc('\n', fp);
}

/* The package's value as it came. */
static void
dpkgstatus_w_value(FILE *fp, const struct dpkgstatus_field *f,
    const struct dpkgstatus_src *src)
{
	const char *v = dpkgstatus_value(f, src);

	if (v != NULL)
		dpkgstatus_put(fp, f->name, v);
}

/* Essential, Protected: dpkg writes "yes" and leaves out its default. */
static void
dpkgstatus_w_yes(FILE *fp, const struct dpkgstatus_field *f,
    const struct dpkgstatus_src *src)
{
	const char *v = dpkgstatus_value(f, src);

	if (v != NULL && strcasecmp(v, "yes") == 0)
		fprintf(fp, "%s: yes\n", f->name);
}

/* The priorities dpkg knows: it writes them in lower case, others as given. */
static void
dpkgstatus_w_priority(FILE *fp, const struct dpkgstatus_field *f,
    const struct dpkgstatus_src *src)
{
	static const char *const known[] = { "required", "important",
	    "standard", "optional", "extra" };
	const char *v = dpkgstatus_value(f, src);
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcasecmp(v, known[i]) == 0) {
			dpkgstatus_put_lower(fp, f->name, v);
			return;
		}
	dpkgstatus_put(fp, f->name, v);
}

/* Multi-Arch: a keyword, its default "no" left out. */
static void
dpkgstatus_w_multiarch(FILE *fp, const struct dpkgstatus_field *f,
    const struct dpkgstatus_src *src)
{
	const char *v = dpkgstatus_value(f, src);

	if (v != NULL && strcasecmp(v, "no") != 0)
		dpkgstatus_put_lower(fp, f->name, v);
}

static void
dpkgstatus_w_version(FILE *fp, const struct dpkgstatus_field *f,
    const struct dpkgstatus_src *src)
{
	const char *v = dpkgstatus_value(f, src);

	if (v != NULL)
		fprintf(fp, "%s: %s\n", f->name, dpkgfmt_version(v));
}

/* What dpkg could not parse is written as given, not lost. */
static void
dpkgstatus_w_depends(FILE *fp, const struct dpkgstatus_field *f,
    const struct dpkgstatus_src *src)
{
	const char *v = dpkgstatus_value(f, src);
	char *dep;

	if (v == NULL)
		return;
	if (dpkgfmt_depends(v, &dep) == 0) {
		fprintf(fp, "%s: %s\n", f->name, dep);
		free(dep);
	} else
		dpkgstatus_put(fp, f->name, v);
}

/* dpkg's own fields: what the run says, not the package. */
static void
dpkgstatus_w_status(FILE *fp, const struct dpkgstatus_field *f,
    const struct dpkgstatus_src *src)
{
	fprintf(fp, "%s: %s\n", f->name, src->status);
}

static void
dpkgstatus_w_config_version(FILE *fp, const struct dpkgstatus_field *f,
    const struct dpkgstatus_src *src)
{
	if (src->config_version != NULL)
		fprintf(fp, "%s: %s\n", f->name,
		    dpkgfmt_version(src->config_version));
}

/* MD5 of SRC's carried hash of PATH, or NULL. */
static const unsigned char *
dpkgstatus_carried(const struct dpkgstatus_src *src, const char *path)
{
	return src->carried != NULL ? src->carried(src->ctx, path) : NULL;
}

/*
 * The Conffiles block: the package's conffiles in their file's order,
 * then those it no longer ships but keeps, as dpkg lists them.
 */
static void
dpkgstatus_w_conffiles(FILE *fp, const struct dpkgstatus_field *f,
    const struct dpkgstatus_src *src)
{
	struct record *rec = src->rec;
	const unsigned char *md5;
	const char *p = src->conffiles, *nl;
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
					fprintf(fp, "%s:\n", f->name);
				any = true;
				memcpy(path, p + skip, len - skip);
				path[len - skip] = '\0';
				dpkgfmt_conffile_line(fp, path,
				    dpkgstatus_carried(src, path),
				    DPKGFMT_CONFF_REMOVE_ON_UPGRADE);
			}
			continue;
		}
		if (len == 0 || *p != '/' || len >= sizeof(path))
			continue;
		memcpy(path, p, len);
		path[len] = '\0';
		if (!any)
			fprintf(fp, "%s:\n", f->name);
		any = true;
		/*
		 * The MD5 of the file as this run extracted it: dpkg's
		 * configure finds no .dpkg-new and keeps it as the
		 * distributed version's.  Without one (not a regular file
		 * of the package), dpkg's own mark for a new conffile.
		 * Another package's (it keeps the path, or took it later
		 * in the run): obsolete, with the hash dpkg carried over.
		 */
		/*
		 * Left out by the filters: not extracted, a new conffile to
		 * dpkg, which finds no file to configure.
		 */
		if (rec != NULL && record_is_filtered(rec, path))
			dpkgfmt_conffile_line(fp, path, NULL, 0);
		else if (rec != NULL && record_find_name(rec, path) == NULL)
			dpkgfmt_conffile_line(fp, path,
			    dpkgstatus_carried(src, path), DPKGFMT_CONFF_OBSOLETE);
		/*
		 * Its new version at PATH.dpkg-new, as dpkg --unpack leaves
		 * it: the hash carried over, or dpkg's mark, which its
		 * --configure reads as the old version's.
		 */
		else if (rec != NULL && record_find_name(rec, path)->conf_new)
			dpkgfmt_conffile_line(fp, path,
			    dpkgstatus_carried(src, path), 0);
		else
			dpkgfmt_conffile_line(fp, path, rec != NULL ?
			    dpkgfmt_entry_md5(rec, record_find_name(rec,
			    path)) :
			    NULL, 0);
	}
	for (i = 0; rec != NULL && i < rec->n; i++) {
		if (!rec->v[i].obsolete)
			continue;
		if (!any)
			fprintf(fp, "%s:\n", f->name);
		any = true;
		md5 = rec->v[i].has_md5 ? rec->v[i].md5 : NULL;
		dpkgfmt_conffile_line(fp, record_entry_name(&rec->v[i]), md5,
		    DPKGFMT_CONFF_OBSOLETE);
	}
}

/* A string of the stanza: the first line of its first field of that name. */
static int
dpkgstatus_r_string(struct dpkgstatus_stanza *o,
    const struct dpkgstatus_field *f, const struct dpkgfmt_field *v)
{
	char **s = (char **)((char *)o + f->off);

	if (*s == NULL && (*s = strndup(v->value, v->firstlen)) == NULL)
		return -ENOMEM;
	return 0;
}

/* Conffiles stay in the stanza's text, for dpkgfmt_conffiles to walk. */
static int
dpkgstatus_r_conffiles(struct dpkgstatus_stanza *o,
    const struct dpkgstatus_field *f, const struct dpkgfmt_field *v)
{
	(void)f;
	if (o->conffiles == NULL) {
		o->conffiles = v->value;
		o->conffiles_len = v->len;
	}
	return 0;
}

#define STRING(member) \
	.read = dpkgstatus_r_string, \
	.off = offsetof(struct dpkgstatus_stanza, member)
#define DEPENDS \
	.write = dpkgstatus_w_depends, .flags = DPKGSTATUS_DEPENDS

const struct dpkgstatus_field dpkgstatus_fields[] = {
	{ .name = "Package", .write = dpkgstatus_w_value, STRING(name) },
	{ .name = "Essential", .write = dpkgstatus_w_yes },
	{ .name = "Protected", .write = dpkgstatus_w_yes },
	{ .name = "Status", .write = dpkgstatus_w_status, STRING(status) },
	{ .name = "Priority", .write = dpkgstatus_w_priority },
	{ .name = "Section", .write = dpkgstatus_w_value },
	{ .name = "Installed-Size", .write = dpkgstatus_w_value },
	{ .name = "Origin", .write = dpkgstatus_w_value },
	{ .name = "Maintainer", .write = dpkgstatus_w_value },
	{ .name = "Bugs", .write = dpkgstatus_w_value },
	{ .name = "Architecture", .write = dpkgstatus_w_value, STRING(arch) },
	{ .name = "Multi-Arch", .write = dpkgstatus_w_multiarch, STRING(ma) },
	{ .name = "Source", .write = dpkgstatus_w_value },
	{ .name = "Version", .write = dpkgstatus_w_version, STRING(version) },
	/* dpkg's older names of the version's revision: never written. */
	{ .name = "Revision" },
	{ .name = "Package-Revision" },
	{ .name = "Package_Revision" },
	{ .name = "Config-Version", .write = dpkgstatus_w_config_version,
	    STRING(cversion) },
	{ .name = "Replaces", DEPENDS },
	{ .name = "Provides", DEPENDS },
	{ .name = "Depends", DEPENDS },
	{ .name = "Pre-Depends", DEPENDS },
	{ .name = "Recommends", DEPENDS },
	{ .name = "Suggests", DEPENDS },
	{ .name = "Breaks", DEPENDS },
	{ .name = "Conflicts", DEPENDS },
	{ .name = "Enhances", DEPENDS },
	{ .name = "Conffiles", .read = dpkgstatus_r_conffiles,
	    .write = dpkgstatus_w_conffiles },
	/* An archive's, in apt's lists: not an installed package's. */
	{ .name = "Filename" },
	{ .name = "Size" },
	{ .name = "MD5sum" },
	{ .name = "MSDOS-Filename" },
	{ .name = "Description", .write = dpkgstatus_w_value },
	/* dpkg's own, kept by dpkg, not the package's. */
	{ .name = "Triggers-Pending" },
	{ .name = "Triggers-Awaited" },
};
const size_t dpkgstatus_nfields =
    sizeof(dpkgstatus_fields) / sizeof(dpkgstatus_fields[0]);

#undef STRING
#undef DEPENDS

/* The table's field of name NAME (LEN bytes), or NULL. */
static const struct dpkgstatus_field *
dpkgstatus_lookup(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < dpkgstatus_nfields; i++)
		if (strlen(dpkgstatus_fields[i].name) == len &&
		    strncasecmp(dpkgstatus_fields[i].name, name, len) == 0)
			return &dpkgstatus_fields[i];
	return NULL;
}

const struct dpkgstatus_field *
dpkgstatus_field(const char *name)
{
	return dpkgstatus_lookup(name, strlen(name));
}

int
dpkgstatus_write(FILE *fp, const struct dpkgstatus_src *src)
{
	size_t i;

	for (i = 0; i < dpkgstatus_nfields; i++)
		if (dpkgstatus_fields[i].write != NULL)
			dpkgstatus_fields[i].write(fp, &dpkgstatus_fields[i], src);
	for (i = 0; i < src->ctl->nfields; i++) {
		const struct control_field *cf = &src->ctl->fields[i];

		if (dpkgstatus_field(cf->name) == NULL && cf->value[0] != '\0')
			dpkgstatus_put(fp, cf->name, cf->value);
	}
	fputc('\n', fp);
	return ferror(fp) ? -EIO : 0;
}

void
dpkgstatus_write_field(FILE *fp, const char *name,
    const struct dpkgstatus_src *src)
{
	const struct dpkgstatus_field *f = dpkgstatus_field(name);

	if (f != NULL && f->write != NULL)
		f->write(fp, f, src);
}

/* Whether V is one of the N words of LIST, without case. */
static bool
dpkgstatus_one_of(const char *v, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcasecmp(v, list[i]) == 0)
			return true;
	return false;
}

int
dpkgstatus_check(const struct control *ctl, struct dbp_error *err)
{
	static const char *const bools[] = { "yes", "no" };
	static const char *const ma[] = { "no", "same", "foreign", "allowed" };
	const struct dpkgstatus_field *f;
	const char *v;
	char *dep;
	size_t i;
	int r;

	/* What dpkg would refuse to read back from its own status file. */
	for (i = 0; i < ctl->nfields; i++) {
		const struct control_field *cf = &ctl->fields[i];

		if ((f = dpkgstatus_field(cf->name)) == NULL ||
		    !(f->flags & DPKGSTATUS_DEPENDS) || cf->value[0] == '\0')
			continue;
		if ((r = dpkgfmt_depends(cf->value, &dep)) != 0)
			return dbp_err(err, r == -ENOMEM ? ENOMEM : 0, "control",
			    "'%s' field: syntax error", cf->name);
		free(dep);
	}
	if (((v = control_get(ctl, "Essential")) != NULL &&
	    !dpkgstatus_one_of(v, bools, 2)) ||
	    ((v = control_get(ctl, "Protected")) != NULL &&
	    !dpkgstatus_one_of(v, bools, 2)))
		return dbp_err(err, 0, "control", "'%s' is not yes or no", v);
	if ((v = control_get(ctl, "Multi-Arch")) != NULL &&
	    !dpkgstatus_one_of(v, ma, 4))
		return dbp_err(err, 0, "control", "unknown Multi-Arch '%s'", v);
	/* dpkg: an arch-independent package cannot be co-installable. */
	if (v != NULL && strcasecmp(v, "same") == 0 &&
	    strcmp(control_get(ctl, "Architecture"), "all") == 0)
		return dbp_err(err, 0, "control", "Multi-Arch: same with"
		    " Architecture: all");
	return 0;
}

/* dpkgfmt_field_fn of dpkgstatus_parse: field V of stanza CTX, through the table. */
/*
 * The fields a stanza is read for, their names' lengths beside them:
 * every field of every stanza is looked up here, and the status is read
 * several times a call (each of apt's one-package calls): the table's
 * 35 names compared by strlen and strncasecmp were a third of a parse.
 */
static const struct {
	const char *name;
	size_t len;
} dpkgstatus_readable[] = {
#define READABLE(s)	{ s, sizeof(s) - 1 }
	READABLE("Package"), READABLE("Status"), READABLE("Architecture"),
	READABLE("Multi-Arch"), READABLE("Version"),
	READABLE("Config-Version"), READABLE("Conffiles"),
#undef READABLE
};

static int
dpkgstatus_read_field(const struct dpkgfmt_field *v, void *ctx)
{
	const struct dpkgstatus_field *f;
	size_t i;

	if (v->name == NULL)
		return 0;
	for (i = 0; i < sizeof(dpkgstatus_readable) /
	    sizeof(dpkgstatus_readable[0]); i++)
		if (dpkgstatus_readable[i].len == v->namelen &&
		    strncasecmp(dpkgstatus_readable[i].name, v->name,
		    v->namelen) == 0)
			break;
	if (i == sizeof(dpkgstatus_readable) / sizeof(dpkgstatus_readable[0]))
		return 0;
	if ((f = dpkgstatus_lookup(v->name, v->namelen)) == NULL ||
	    f->read == NULL)
		return 0;
	return f->read(ctx, f, v);
}

static void
dpkgstatus_stanza_clear(struct dpkgstatus_stanza *o)
{
	free(o->text);
	free(o->name);
	free(o->arch);
	free(o->ma);
	free(o->status);
	free(o->version);
	free(o->cversion);
}

int
dpkgstatus_parse(struct dpkgstatus *db, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *start, *nl;
	struct dpkgstatus_stanza *v, *o;

	while (p < end) {
		/* Empty lines between stanzas. */
		while (p < end && (*p == '\n' || *p == '\r'))
			p++;
		if (p >= end)
			break;
		start = p;
		for (;;) {
			if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL) {
				p = end;
				break;
			}
			p = nl + 1;
			if (p >= end || *p == '\n')
				break;
		}
		if ((v = realloc(db->v, (db->n + 1) * sizeof(*v))) == NULL)
			return -ENOMEM;
		db->v = v;
		o = memset(&v[db->n++], 0, sizeof(*o));
		o->len = (size_t)(p - start);
		if ((o->text = malloc(o->len + 2)) == NULL)
			return -ENOMEM;
		memcpy(o->text, start, o->len);
		/* A last stanza without its newline gets one. */
		if (o->len > 0 && o->text[o->len - 1] != '\n')
			o->text[o->len++] = '\n';
		o->text[o->len] = '\0';
		if (dpkgfmt_fields(o->text, o->len, dpkgstatus_read_field,
		    o) != 0)
			return -ENOMEM;
		if (o->name == NULL)
			return -EINVAL;
	}
	return 0;
}

void
dpkgstatus_clear(struct dpkgstatus *db)
{
	size_t i;

	for (i = 0; i < db->n; i++)
		dpkgstatus_stanza_clear(&db->v[i]);
	free(db->v);
	db->v = NULL;
	db->n = 0;
}

bool
dpkgstatus_ma_same(const char *ma)
{
	return ma != NULL && strcasecmp(ma, "same") == 0;
}

struct dpkgstatus_stanza *
dpkgstatus_peek(struct dpkgstatus *db, const char *name, const char *arch,
    const char *ma)
{
	struct dpkgstatus_stanza *found = NULL;
	size_t i;

	/* Same name, and the same arch when both are Multi-Arch: same. */
	for (i = 0; i < db->n; i++) {
		struct dpkgstatus_stanza *o = &db->v[i];

		if (strcmp(o->name, name) != 0 || o->replaced)
			continue;
		if (dpkgstatus_ma_same(ma) && dpkgstatus_ma_same(o->ma) &&
		    (o->arch == NULL || arch == NULL || strcmp(o->arch, arch) != 0))
			continue;
		/* One of the same arch first: a crossgrade's other goes too. */
		if (found == NULL || (o->arch != NULL && arch != NULL &&
		    strcmp(o->arch, arch) == 0))
			found = o;
	}
	return found;
}

struct dpkgstatus_stanza *
dpkgstatus_take(struct dpkgstatus *db, const char *name, const char *arch,
    const char *ma)
{
	struct dpkgstatus_stanza *found = dpkgstatus_peek(db, name, arch, ma);
	size_t i;

	/* The others of that name cannot stay beside it: they go. */
	for (i = 0; found != NULL && i < db->n; i++) {
		struct dpkgstatus_stanza *o = &db->v[i];

		if (strcmp(o->name, name) == 0 && !(dpkgstatus_ma_same(ma) &&
		    dpkgstatus_ma_same(o->ma) && o->arch != NULL &&
		    arch != NULL && strcmp(o->arch, arch) != 0))
			o->replaced = true;
	}
	return found;
}

const char *
dpkgstatus_state(const struct dpkgstatus_stanza *o)
{
	const char *s = o->status != NULL ? strrchr(o->status, ' ') : NULL;

	return s != NULL ? s + 1 : "not-installed";
}

static int
dpkgstatus_cmp(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;
	const char *xn = x[0], *yn = y[0];
	int r = strcmp(xn, yn);

	return r != 0 ? r : strcmp(x[1] != NULL ? x[1] : "",
	    y[1] != NULL ? y[1] : "");
}

int
dpkgstatus_merge(const struct dpkgstatus *db, const struct dpkgstatus_add *add,
    size_t nadd, char **out, size_t *len)
{
	const char *(*v)[3];
	size_t i, n = 0, l;
	FILE *fp;

	if ((v = calloc(db->n + nadd + 1, sizeof(*v))) == NULL)
		return -ENOMEM;
	for (i = 0; i < db->n; i++)
		if (!db->v[i].replaced) {
			v[n][0] = db->v[i].name;
			v[n][1] = db->v[i].arch;
			v[n++][2] = db->v[i].text;
		}
	for (i = 0; i < nadd; i++) {
		v[n][0] = add[i].name;
		v[n][1] = add[i].arch;
		v[n++][2] = add[i].text;
	}
	qsort(v, n, sizeof(*v), dpkgstatus_cmp);
	if ((fp = open_memstream(out, len)) == NULL) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		fputs(v[i][2], fp);
		/* Each stanza ends with an empty line, old ones as new. */
		l = strlen(v[i][2]);
		if (l > 0 && v[i][2][l - 1] == '\n' &&
		    (l < 2 || v[i][2][l - 2] != '\n'))
			fputc('\n', fp);
	}
	free(v);
	return fclose(fp) != 0 ? -ENOMEM : 0;
}

bool
dpkgstatus_installed(const struct dpkgstatus_stanza *o)
{
	const char *state = dpkgstatus_state(o);

	return strcmp(state, "not-installed") != 0 &&
	    strcmp(state, "config-files") != 0;
}

char *
dpkgstatus_infoname(const char *name, const char *arch, const char *ma)
{
	char *s;

	if (!dpkgstatus_ma_same(ma))
		return strdup(name);
	if (asprintf(&s, "%s:%s", name, arch != NULL ? arch : "") < 0)
		return NULL;
	return s;
}

const char *
dpkgstatus_name(const char *name, const char *arch, const char *ma,
    char *buf, size_t n)
{
	const char *native = dpkgarch_builtin();
	/* dpkg's "non-ambiguous" name: a foreign package's arch shown too. */
	bool qualify = dpkgstatus_ma_same(ma) || (arch != NULL &&
	    arch[0] != '\0' && strcmp(arch, "all") != 0 && native != NULL &&
	    strcmp(arch, native) != 0);

	snprintf(buf, n, qualify ? "%s:%s" : "%s", name,
	    arch != NULL ? arch : "");
	return buf;
}
