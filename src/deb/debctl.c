/* SPDX-License-Identifier: MIT */
/* A package file's control file, read without libarchive: for programs that start in every dpkg call apt makes. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deb/debctl.h"
#include "deb/gunzip.h"
#include "deb/xz.h"
#include "durable/fileat.h"

#define AR_MAGIC	"!<arch>\n"
#define AR_HDR		60
#define TAR_BLOCK	512

enum { DEBCTL_NONE, DEBCTL_GZ, DEBCTL_XZ };

/* The compressed member, handed to a decoder in one chunk. */
struct debctl_src {
	const unsigned char *p;
	size_t len;
	bool given;
};

static ssize_t
debctl_source(void *cookie, const void **buf)
{
	struct debctl_src *s = cookie;

	if (s->given)
		return 0;
	s->given = true;
	*buf = s->p;
	return (ssize_t)s->len;
}

/* A decimal or octal header field of WIDTH bytes: its value, or -1. */
static int64_t
debctl_number(const char *f, size_t width, int base)
{
	int64_t v = 0;
	size_t i = 0;

	while (i < width && f[i] == ' ')
		i++;
	if (i == width || f[i] < '0' || f[i] >= '0' + base)
		return -1;
	for (; i < width && f[i] >= '0' && f[i] < '0' + base; i++) {
		if (v > (INT64_MAX - 7) / base)
			return -1;
		v = v * base + (f[i] - '0');
	}
	/* What follows the digits is padding: spaces or NULs. */
	for (; i < width; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return -1;
	return v;
}

/*
 * The ar member at *OFF: its name (spaces and a GNU '/' taken off) in
 * NAME, its size and where its bytes are; *OFF moves past it.  0, 1 at
 * the end or on a header this reader does not know, -errno.
 */
static int
debctl_member(int fd, off_t *off, char name[17], int64_t *size,
    off_t *data)
{
	char h[AR_HDR];
	size_t n;
	int r;

	if ((r = fileat_pread(fd, h, sizeof(h), *off)) != 0)
		return r;
	if (h[58] != '`' || h[59] != '\n')
		return 1;
	memcpy(name, h, 16);
	name[16] = '\0';
	n = strcspn(name, " ");
	name[n] = '\0';
	if (n > 0 && name[n - 1] == '/')
		name[n - 1] = '\0';
	if ((*size = debctl_number(h + 48, 10, 10)) < 0)
		return 1;
	*data = *off + AR_HDR;
	*off = *data + *size + (*size & 1);
	return 0;
}

/* Decompress IN with the decoder of KIND into *OUT: 0, 1, -errno. */
static int
debctl_decode(int kind, const unsigned char *in, size_t inlen,
    unsigned char **out, size_t *outlen)
{
	struct debctl_src src = { in, inlen, false };
	struct gunzip *g = NULL;
	struct xz *x = NULL;
	unsigned char *buf = NULL, *nb;
	size_t len = 0, cap = 0;
	const void *chunk;
	ssize_t n;
	int r = 0;

	r = kind == DEBCTL_GZ ? gunzip_new(&g, debctl_source, &src) :
	    xz_new(&x, debctl_source, &src);
	if (r != 0)
		return r;
	for (;;) {
		n = g != NULL ? gunzip_read(g, &chunk) : xz_read(x, &chunk);
		if (n <= 0) {
			r = n < 0 ? 1 : 0;	/* damaged: the full way says so */
			break;
		}
		if (len + (size_t)n > DEBCTL_MAX) {
			r = 1;
			break;
		}
		if (len + (size_t)n > cap) {
			cap = (len + (size_t)n) * 2;
			if ((nb = realloc(buf, cap)) == NULL) {
				r = -ENOMEM;
				break;
			}
			buf = nb;
		}
		memcpy(buf + len, chunk, (size_t)n);
		len += (size_t)n;
	}
	if (g != NULL)
		gunzip_free(g);
	if (x != NULL)
		xz_free(x);
	if (r != 0) {
		free(buf);
		return r;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

/* A tar header's checksum holds: the sum of its bytes, the field as spaces. */
static bool
debctl_tar_sum(const unsigned char *h)
{
	int64_t want = debctl_number((const char *)h + 148, 8, 8);
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < TAR_BLOCK; i++)
		sum += i >= 148 && i < 156 ? ' ' : h[i];
	return want == sum;
}

/* A pax extended header's path record, copied to NAME: 0, 1 if none or odd. */
static int
debctl_pax_path(const char *p, size_t len, char *name, size_t n)
{
	const char *end = p + len, *rec, *kv;
	int64_t reclen;
	size_t vlen;
	int found = 1;

	while (p < end) {
		rec = p;
		reclen = 0;
		while (p < end && *p >= '0' && *p <= '9' && reclen < 1000000)
			reclen = reclen * 10 + (*p++ - '0');
		if (p >= end || *p != ' ' || reclen <= 0 ||
		    reclen > end - rec || rec[reclen - 1] != '\n')
			return 1;
		kv = p + 1;
		if ((size_t)(rec + reclen - kv) > 5 &&
		    memcmp(kv, "path=", 5) == 0) {
			vlen = (size_t)(rec + reclen - 1 - (kv + 5));
			if (vlen >= n || memchr(kv + 5, '\0', vlen) != NULL)
				return 1;
			memcpy(name, kv + 5, vlen);
			name[vlen] = '\0';
			found = 0;
		}
		p = rec + reclen;
	}
	return found;
}

/*
 * The "control" file of the tar TAR (LEN bytes), copied to *TEXT: 0, 1
 * when the tar has none, has it twice or not as a plain file, or has a
 * header this reader does not know.
 */
static int
debctl_tar(const unsigned char *tar, size_t len, char **text, size_t *tlen)
{
	char name[4096], longname[4096];
	const unsigned char *h, *data;
	const char *base;
	bool have_long = false;
	size_t off = 0, n;
	int64_t size;
	char type;

	*text = NULL;
	while (off + TAR_BLOCK <= len) {
		h = tar + off;
		if (h[0] == '\0') {
			/* The end: a zero block (checked whole). */
			for (n = 0; n < TAR_BLOCK && h[n] == '\0'; n++)
				;
			if (n < TAR_BLOCK)
				goto odd;
			break;
		}
		if (!debctl_tar_sum(h))
			goto odd;
		/* Sizes past 8 GiB (base 256) are not a control.tar's. */
		if ((size = debctl_number((const char *)h + 124, 12, 8)) < 0)
			goto odd;
		data = h + TAR_BLOCK;
		if ((uint64_t)size > len - off - TAR_BLOCK)
			goto odd;
		type = (char)h[156];
		if (have_long) {
			memcpy(name, longname, sizeof(name));
			have_long = false;
		} else {
			/*
			 * POSIX ustar: a prefix, then the name, each
			 * NUL-padded (GNU's format keeps times there).
			 */
			name[0] = '\0';
			if (memcmp(h + 257, "ustar", 6) == 0 && h[345] != '\0')
				snprintf(name, sizeof(name), "%.155s/",
				    (const char *)h + 345);
			n = strlen(name);
			snprintf(name + n, sizeof(name) - n, "%.100s",
			    (const char *)h);
		}
		switch (type) {
		case 'L':	/* GNU: the next entry's name */
			if ((size_t)size >= sizeof(longname))
				goto odd;
			memcpy(longname, data, (size_t)size);
			longname[size] = '\0';
			have_long = true;
			break;
		case 'x':	/* pax: the next entry's path, maybe */
			if (debctl_pax_path((const char *)data, (size_t)size,
			    longname, sizeof(longname)) == 0)
				have_long = true;
			break;
		case 'g':	/* pax global header: nothing for names */
			break;
		default:
			base = strncmp(name, "./", 2) == 0 ? name + 2 : name;
			if (strcmp(base, "control") != 0)
				break;
			/* Twice, or not a plain file: the full way judges. */
			if (*text != NULL || (type != '0' && type != '\0'))
				goto odd;
			if ((*text = malloc((size_t)size + 1)) == NULL)
				return -ENOMEM;
			memcpy(*text, data, (size_t)size);
			(*text)[size] = '\0';
			*tlen = (size_t)size;
			break;
		}
		off += TAR_BLOCK + ((size_t)size + TAR_BLOCK - 1) /
		    TAR_BLOCK * TAR_BLOCK;
	}
	if (*text != NULL && !have_long)
		return 0;
odd:
	free(*text);
	*text = NULL;
	return 1;
}

int
debctl_read(const char *file, char **text, size_t *len)
{
	unsigned char *member = NULL, *tar = NULL;
	char magic[8], name[17], version[4];
	size_t tarlen = 0;
	int64_t size;
	struct stat st;
	off_t off, data;
	int fd, kind, r;

	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(fd, &st) != 0) {
		r = -errno;
		goto out;
	}
	r = 1;
	if (!S_ISREG(st.st_mode))
		goto out;
	/* The magic, then debian-binary, version 2.x, first. */
	if ((r = fileat_pread(fd, magic, sizeof(magic), 0)) != 0 ||
	    memcmp(magic, AR_MAGIC, 8) != 0)
		goto odd;
	off = 8;
	if ((r = debctl_member(fd, &off, name, &size, &data)) != 0 ||
	    strcmp(name, "debian-binary") != 0 || size < 4 ||
	    (r = fileat_pread(fd, version, sizeof(version), data)) != 0 ||
	    memcmp(version, "2.", 2) != 0)
		goto odd;
	/* Members named with '_' first are skipped, as dpkg skips them. */
	do {
		if ((r = debctl_member(fd, &off, name, &size, &data)) != 0)
			goto odd;
	} while (name[0] == '_');
	if (strcmp(name, "control.tar") == 0)
		kind = DEBCTL_NONE;
	else if (strcmp(name, "control.tar.gz") == 0)
		kind = DEBCTL_GZ;
	else if (strcmp(name, "control.tar.xz") == 0)
		kind = DEBCTL_XZ;
	else
		goto odd;
	if (size > DEBCTL_MAX || data + size > st.st_size)
		goto odd;
	if ((member = malloc((size_t)size + 1)) == NULL) {
		r = -ENOMEM;
		goto out;
	}
	if ((r = fileat_pread(fd, member, (size_t)size, data)) != 0)
		goto odd;
	if (kind == DEBCTL_NONE) {
		tar = member;
		tarlen = (size_t)size;
		member = NULL;
	} else if ((r = debctl_decode(kind, member, (size_t)size, &tar,
	    &tarlen)) != 0)
		goto odd;
	r = debctl_tar(tar, tarlen, text, len);
	goto out;
odd:
	/* A read error is one; all else is a form this reader leaves. */
	if (r >= 0)
		r = 1;
out:
	free(member);
	free(tar);
	close(fd);
	return r;
}
