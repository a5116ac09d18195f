/* Questions about packages and the root that change nothing: --list, --owner, --contents. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <archive.h>
#include <archive_entry.h>

#include "control.h"
#include "deb.h"
#include "escape.h"
#include "query.h"
#include "record.h"

int
query_list(struct manifest *m, FILE *fp, struct dbp_error *err)
{
	struct record *rec;
	char **names, a[256], b[256], c[64];
	size_t i;
	int r;

	if ((r = manifest_names(m, &names, err)) != 0)
		return r;
	for (i = 0; names[i] != NULL; i++) {
		if ((r = manifest_load(m, names[i], &rec, err)) != 0)
			break;
		fprintf(fp, "%s\t%s\t%s\n",
		    escape_name(control_get(rec->ctl, "Package"), a, sizeof(a)),
		    escape_name(control_get(rec->ctl, "Version"), b, sizeof(b)),
		    escape_name(control_get(rec->ctl, "Architecture"), c,
		    sizeof(c)));
		record_free(rec);
	}
	manifest_names_free(names);
	return r;
}

int
query_owner(struct manifest *m, const char *path, FILE *fp,
    struct dbp_error *err)
{
	char abspath[PATH_MAX + 1], esc[PATH_MAX];
	struct record *rec;
	char **names;
	size_t i, len;
	int r, found = 0;

	/* Records say "/usr/bin/x"; accept "usr/bin/x" and "/usr/bin/x/". */
	while (path[0] == '/')
		path++;
	snprintf(abspath, sizeof(abspath), "/%s", path);
	len = strlen(abspath);
	while (len > 1 && abspath[len - 1] == '/')
		abspath[--len] = '\0';
	if ((r = manifest_names(m, &names, err)) != 0)
		return r;
	for (i = 0; names[i] != NULL; i++) {
		if ((r = manifest_load(m, names[i], &rec, err)) != 0)
			break;
		if (record_find(rec, abspath) != NULL)
			fprintf(fp, "%s%s", found++ ? ", " : "", names[i]);
		record_free(rec);
	}
	manifest_names_free(names);
	if (r != 0)
		return r;
	if (found)
		fprintf(fp, ": %s\n", escape_name(abspath, esc, sizeof(esc)));
	return found ? 0 : 1;
}

static void
query_entry(struct archive_entry *ae, FILE *fp)
{
	char name[PATH_MAX], link[PATH_MAX], when[32], owner[64];
	const char *target;
	time_t t = archive_entry_mtime(ae);
	struct tm tm;
	const char *u = archive_entry_uname(ae), *g = archive_entry_gname(ae);

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm) == 0)
		strcpy(when, "?");
	if (u != NULL && g != NULL)
		snprintf(owner, sizeof(owner), "%s/%s", u, g);
	else
		snprintf(owner, sizeof(owner), "%lld/%lld",
		    (long long)archive_entry_uid(ae),
		    (long long)archive_entry_gid(ae));
	/* archive_entry_strmode ends with a space for the ACL marker. */
	fprintf(fp, "%.10s %s %9lld %s %s",
	    archive_entry_strmode(ae), escape_name(owner, link, sizeof(link)),
	    (long long)archive_entry_size(ae), when,
	    escape_name(archive_entry_pathname(ae) != NULL ?
	    archive_entry_pathname(ae) : "", name, sizeof(name)));
	if ((target = archive_entry_hardlink(ae)) != NULL)
		fprintf(fp, " link to %s", escape_name(target, link,
		    sizeof(link)));
	else if ((target = archive_entry_symlink(ae)) != NULL)
		fprintf(fp, " -> %s", escape_name(target, link, sizeof(link)));
	fputc('\n', fp);
}

int
query_contents(const char *file, FILE *fp, struct dbp_error *err)
{
	struct control *ctl = NULL;
	struct archive_entry *ae;
	struct archive *tar;
	struct deb *d;
	int r;

	if ((r = deb_open(&d, file, err)) != 0)
		return r;
	if ((r = deb_read_control(d, &ctl, err)) == 0 &&
	    (r = deb_data_open(d, &tar, err)) == 0) {
		while ((r = archive_read_next_header(tar, &ae)) == ARCHIVE_OK ||
		    r == ARCHIVE_WARN)
			query_entry(ae, fp);
		if (r != ARCHIVE_EOF)
			r = dbp_err(err, 0, "", "%s: %s", deb_data_member(d),
			    archive_error_string(tar) != NULL ?
			    archive_error_string(tar) : "read error");
		else
			r = deb_finish(d, err);
	}
	control_free(ctl);
	deb_close(d);
	return r;
}
