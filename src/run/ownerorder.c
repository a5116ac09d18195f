/* SPDX-License-Identifier: MIT */
/* dpkg-query -S's order of the packages that share a path. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <unistd.h>
#ifdef HAVE_LINUX_FIEMAP_H
#include <linux/fiemap.h>
#include <linux/fs.h>
#endif

#include "db/dpkgstatus.h"
#include "run/ownerorder.h"

/* dpkg's package table has this many bins, each a list in reading order. */
#define OWNERORDER_BINS	65521u

struct ownerorder_key {
	int64_t phys;		/* the list's first block, -1: unknown */
	unsigned bin;		/* its bin in dpkg's package table */
	size_t idx;		/* in RECS: the table's order within a bin */
	const char *name;	/* without dpkg's database: by name */
};

/* dpkg's FNV-1a hash of the package's name, lower case, as its table. */
static unsigned
ownerorder_bin(const char *name)
{
	uint32_t h = 2166136261u;

	for (; *name != '\0'; name++) {
		h ^= (uint32_t)(int)(char)tolower((unsigned char)*name);
		h *= 16777619u;
	}
	return h % OWNERORDER_BINS;
}

/*
 * Where the first block of FD's data lies, as dpkg asks it: one extent
 * of the file system's block size; -1 when the file system cannot tell.
 */
static int64_t
ownerorder_phys(int fd, long bsize)
{
#ifdef HAVE_LINUX_FIEMAP_H
	union {
		struct fiemap fm;
		unsigned char buf[sizeof(struct fiemap) +
		    sizeof(struct fiemap_extent)];
	} u;

	memset(&u, 0, sizeof(u));
	u.fm.fm_start = 0;
	u.fm.fm_length = (uint64_t)bsize;
	u.fm.fm_extent_count = 1;
	if (ioctl(fd, FS_IOC_FIEMAP, &u.fm) == 0)
		return (int64_t)u.fm.fm_extents[0].fe_physical;
#else
	(void)fd;
	(void)bsize;
#endif
	return -1;
}

static int
ownerorder_cmp(const void *a, const void *b)
{
	const struct ownerorder_key *x = a, *y = b;

	if (x->phys != y->phys)
		return x->phys < y->phys ? -1 : 1;
	if (x->bin != y->bin)
		return x->bin < y->bin ? -1 : 1;
	/* Named last first: read in reverse, so listed by name. */
	if (x->name != NULL && y->name != NULL)
		return strcmp(y->name, x->name);
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

int
ownerorder_ranks(const struct rootfs *rf, struct record *const *recs,
    size_t n, size_t *rank)
{
	struct ownerorder_key *k;
	struct statfs sfs;
	char file[512], *info;
	long bsize = 0;
	size_t i;
	int dfd, fd;

	if (n == 0)
		return 0;
	if ((k = calloc(n, sizeof(*k))) == NULL)
		return -ENOMEM;
	dfd = rootfs_resolve(rf, "var/lib/dpkg/info", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	if (dfd >= 0 && fstatfs(dfd, &sfs) == 0)
		bsize = (long)sfs.f_bsize;
	for (i = 0; i < n; i++) {
		const char *name = control_get(recs[i]->ctl, "Package");

		k[i].phys = -1;
		k[i].idx = i;
		/* No dpkg -S to follow: the packages by name. */
		if (dfd < 0) {
			k[i].name = name != NULL ? name : "";
			continue;
		}
		k[i].bin = ownerorder_bin(name != NULL ? name : "");
		if (bsize == 0 || name == NULL)
			continue;
		if ((info = dpkgstatus_infoname(name, control_get(recs[i]->ctl,
		    "Architecture"), control_get(recs[i]->ctl,
		    "Multi-Arch"))) == NULL) {
			free(k);
			close(dfd);
			return -ENOMEM;
		}
		snprintf(file, sizeof(file), "%s.list", info);
		free(info);
		/* As dpkg: the list itself, whatever it is. */
		if ((fd = openat(dfd, file, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		k[i].phys = ownerorder_phys(fd, bsize);
		close(fd);
	}
	if (dfd >= 0)
		close(dfd);
	qsort(k, n, sizeof(*k), ownerorder_cmp);
	for (i = 0; i < n; i++)
		rank[k[i].idx] = i;
	free(k);
	return 0;
}
