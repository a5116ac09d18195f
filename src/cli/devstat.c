/* SPDX-License-Identifier: MIT */
/* The disk under a root: its flush and write counters, for --stats. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli/devstat.h"

/*
 * Why the disk and not the filesystem: a cache flush is what makes data
 * durable and what costs time, and the block layer counts them per disk
 * (/sys/block/DEV/stat, Documentation/block/stat.rst), for everything
 * that writes there.  So the figures are the whole disk's during the run,
 * and --stats says so.
 */

/* Mountinfo escapes blanks and backslashes as \ooo. */
static void
devstat_unescape(char *s)
{
	char *d = s;

	for (; *s != '\0'; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
			    (s[3] - '0'));
			s += 3;
		} else
			*d++ = *s;
	}
	*d = '\0';
}

/*
 * The device a filesystem with an anonymous st_dev (btrfs, whose
 * subvolumes each get one) is mounted from: the source of the mount
 * that holds PATH, the deepest one, the last mounted when several are.
 */
static int
devstat_mount_source(const char *path, dev_t *dev)
{
	char *line = NULL, *mnt, *src, *sep, best[PATH_MAX] = "";
	size_t cap = 0, blen = 0, len;
	struct stat st;
	FILE *fp;

	if ((fp = fopen("/proc/self/mountinfo", "re")) == NULL)
		return -errno;
	while (getline(&line, &cap, fp) > 0) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS... - TYPE SOURCE ... */
		if (strtok(line, " ") == NULL || strtok(NULL, " ") == NULL ||
		    strtok(NULL, " ") == NULL || strtok(NULL, " ") == NULL ||
		    (mnt = strtok(NULL, " ")) == NULL)
			continue;
		while ((sep = strtok(NULL, " ")) != NULL && strcmp(sep, "-"))
			;
		if (sep == NULL || strtok(NULL, " ") == NULL ||
		    (src = strtok(NULL, " ")) == NULL)
			continue;
		devstat_unescape(mnt);
		len = strlen(mnt);
		if (strcmp(mnt, "/") == 0)
			len = 0;
		else if (strncmp(path, mnt, len) != 0 ||
		    (path[len] != '/' && path[len] != '\0'))
			continue;
		if (len >= blen) {
			devstat_unescape(src);
			snprintf(best, sizeof(best), "%s", src);
			blen = len;
		}
	}
	free(line);
	fclose(fp);
	if (best[0] != '/' || stat(best, &st) != 0 || !S_ISBLK(st.st_mode))
		return -ENODEV;
	*dev = st.st_rdev;
	return 0;
}

int
devstat_open(struct devstat *ds, const char *root)
{
	char sys[96], link[PATH_MAX], real[PATH_MAX], *base;
	struct stat st;
	ssize_t n;
	dev_t dev;
	int r;

	memset(ds, 0, sizeof(*ds));
	if (stat(root, &st) != 0)
		return -errno;
	dev = st.st_dev;
	if (major(dev) == 0) {
		if (realpath(root, real) == NULL)
			return -errno;
		if ((r = devstat_mount_source(real, &dev)) != 0)
			return r;
	}
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(dev),
	    minor(dev));
	if ((n = readlink(sys, link, sizeof(link) - 1)) < 0)
		return errno == ENOENT ? -ENODEV : -errno;
	link[n] = '\0';
	/* A partition's directory sits in its disk's: count the disk. */
	snprintf(real, sizeof(real), "%s/partition", sys);
	if (access(real, F_OK) == 0 && (base = strrchr(link, '/')) != NULL)
		*base = '\0';
	if ((base = strrchr(link, '/')) == NULL)
		return -ENODEV;
	snprintf(ds->name, sizeof(ds->name), "%s", base + 1);
	snprintf(ds->path, sizeof(ds->path), "/sys/block/%s/stat", ds->name);
	return devstat_read(ds);
}

int
devstat_read(struct devstat *ds)
{
	uint64_t f[17] = { 0 };
	FILE *fp;
	int n = 0;

	if ((fp = fopen(ds->path, "re")) == NULL)
		return errno == ENOENT ? -ENODEV : -errno;
	while (n < 17 && fscanf(fp, "%" SCNu64, &f[n]) == 1)
		n++;
	fclose(fp);
	/* Kernels before 5.5 have no flush fields: no count is no zero. */
	if (n < 17)
		return -ENODEV;
	ds->written = f[6] * 512;
	ds->flushes = f[15];
	ds->flush_ms = f[16];
	return 0;
}
