/* SPDX-License-Identifier: MIT */
/* A store entry's manifest: its text written whole and checked whole, or not trusted. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store_int.h"

/*
 * The format, one line an entry after the line STORE_MAGIC:
 *   TYPE PERM UID GID MTIME NSEC SIZE MAJOR MINOR SHA MD5 :PATH LINK UNAME GNAME
 * TYPE one of f d l h c b p, PERM octal, SHA and MD5 hex or "-", strings
 * ":" and their bytes with space, controls, DEL and '%' as %XX, or "-"
 * when absent.  The last line, "end COUNT SHA", gives the entries and the
 * SHA-256 of every byte before it: a truncated or changed manifest is
 * never read as a shorter one.
 */

#define STORE_MAN_MAX	((size_t)256 << 20)

void
store_ents_free(struct store_ents *es)
{
	size_t i;

	for (i = 0; i < es->n; i++) {
		free(es->v[i].path);
		free(es->v[i].link);
		free(es->v[i].uname);
		free(es->v[i].gname);
	}
	free(es->v);
	memset(es, 0, sizeof(*es));
}

struct store_ent *
store_ents_add(struct store_ents *es)
{
	struct store_ent *v;

	if (es->n == es->cap) {
		size_t cap = es->cap ? es->cap * 2 : 64;

		if ((v = realloc(es->v, cap * sizeof(*v))) == NULL)
			return NULL;
		es->v = v;
		es->cap = cap;
	}
	memset(&es->v[es->n], 0, sizeof(es->v[0]));
	return &es->v[es->n++];
}

struct store_buf {
	char *p;
	size_t n, cap;
	bool oom;
};

static void
store_put(struct store_buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = (b->cap ? b->cap * 2 : 65536) + n;
		char *p = realloc(b->p, cap);

		if (p == NULL) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static void
store_put_str(struct store_buf *b, const char *s)
{
	char esc[4];

	if (s == NULL) {
		store_put(b, " -", 2);
		return;
	}
	store_put(b, " :", 2);
	for (; *s != '\0'; s++) {
		if ((unsigned char)*s <= ' ' || *s == 0x7f || *s == '%') {
			snprintf(esc, sizeof(esc), "%%%02X", (unsigned char)*s);
			store_put(b, esc, 3);
		} else
			store_put(b, s, 1);
	}
}

static void
store_put_hex(struct store_buf *b, bool has, const uint8_t *d, size_t len)
{
	char hex[2 * DIGEST_LEN + 2];

	if (!has) {
		store_put(b, " -", 2);
		return;
	}
	hex[0] = ' ';
	store_hex(d, len, hex + 1);
	store_put(b, hex, 2 * len + 1);
}

int
store_manifest_write(struct store *s, const struct store_ents *es,
    char **name)
{
	struct store_buf b = { 0 };
	char line[160], hex[2 * DIGEST_LEN + 1], tmp[64];
	static unsigned long seq;
	uint8_t sum[DIGEST_LEN];
	const struct store_ent *e;
	size_t i, off;
	ssize_t w;
	int fd, r;

	store_put(&b, STORE_MAGIC "\n", sizeof(STORE_MAGIC));
	for (i = 0; i < es->n; i++) {
		e = &es->v[i];
		snprintf(line, sizeof(line), "%c %o %" PRId64 " %" PRId64
		    " %" PRId64 " %ld %" PRId64 " %u %u", e->type, e->perm,
		    e->uid, e->gid, e->mtime, e->nsec, e->size, e->major,
		    e->minor);
		store_put(&b, line, strlen(line));
		store_put_hex(&b, e->has_sha, e->sha, DIGEST_LEN);
		store_put_hex(&b, e->has_md5, e->md5, DIGEST_MD5_LEN);
		store_put_str(&b, e->path);
		store_put_str(&b, e->link);
		store_put_str(&b, e->uname);
		store_put_str(&b, e->gname);
		store_put(&b, "\n", 1);
	}
	if (b.oom) {
		free(b.p);
		return -ENOMEM;
	}
	if ((r = digest_start(s->sha)) != 0) {
		free(b.p);
		return r;
	}
	digest_add(s->sha, b.p, b.n);
	if ((r = digest_end(s->sha, sum)) != 0) {
		free(b.p);
		return r;
	}
	store_hex(sum, DIGEST_LEN, hex);
	snprintf(line, sizeof(line), "end %zu %s\n", es->n, hex);
	store_put(&b, line, strlen(line));
	if (b.oom) {
		free(b.p);
		return -ENOMEM;
	}
	/* Unique among runs: the pid; within one: a counter. */
	snprintf(tmp, sizeof(tmp), "tmp/m.%ld.%lu", (long)getpid(), seq++);
	if ((fd = openat(s->dfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0644)) < 0) {
		free(b.p);
		return -errno;
	}
	for (off = 0, r = 0; off < b.n && r == 0; off += (size_t)w)
		if ((w = write(fd, b.p + off, b.n - off)) < 0)
			r = -errno;
	free(b.p);
	if (close(fd) != 0 && r == 0)
		r = -errno;
	if (r == 0 && (*name = strdup(tmp)) == NULL)
		r = -ENOMEM;
	if (r != 0)
		(void)unlinkat(s->dfd, tmp, 0);
	return r;
}

static int
store_unhex(const char *s, uint8_t *d, size_t len)
{
	size_t i;
	unsigned v;

	if (strlen(s) != 2 * len)
		return -1;
	for (i = 0; i < len; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		d[i] = (uint8_t)v;
	}
	return 0;
}

/* A string field: NULL for "-", else unescaped into a new string. */
static int
store_unstr(const char *s, char **out)
{
	char *o;
	unsigned v;

	*out = NULL;
	if (strcmp(s, "-") == 0)
		return 0;
	if (s[0] != ':' || (o = *out = malloc(strlen(s))) == NULL)
		return -1;
	for (s++; *s != '\0'; s++) {
		if (*s == '%') {
			if (sscanf(s + 1, "%2x", &v) != 1 || v == 0)
				return -1;
			*o++ = (char)v;
			s += 2;
		} else
			*o++ = *s;
	}
	*o = '\0';
	return 0;
}

static int
store_parse_line(char *line, struct store_ent *e)
{
	char *f[15], *save = NULL, *t;
	char type;
	int n = 0;

	for (t = strtok_r(line, " ", &save); t != NULL && n < 16;
	    t = strtok_r(NULL, " ", &save))
		if (n++ < 15)
			f[n - 1] = t;
	if (n != 15 || strlen(f[0]) != 1 || strchr("fdlhcbp", f[0][0]) == NULL)
		return -1;
	type = f[0][0];
	e->type = type;
	if (sscanf(f[1], "%o", &e->perm) != 1 || e->perm > 07777 ||
	    sscanf(f[2], "%" SCNd64, &e->uid) != 1 ||
	    sscanf(f[3], "%" SCNd64, &e->gid) != 1 ||
	    sscanf(f[4], "%" SCNd64, &e->mtime) != 1 ||
	    sscanf(f[5], "%ld", &e->nsec) != 1 ||
	    sscanf(f[6], "%" SCNd64, &e->size) != 1 || e->size < 0 ||
	    sscanf(f[7], "%u", &e->major) != 1 ||
	    sscanf(f[8], "%u", &e->minor) != 1)
		return -1;
	if ((e->has_sha = strcmp(f[9], "-") != 0) &&
	    store_unhex(f[9], e->sha, DIGEST_LEN) != 0)
		return -1;
	if ((e->has_md5 = strcmp(f[10], "-") != 0) &&
	    store_unhex(f[10], e->md5, DIGEST_MD5_LEN) != 0)
		return -1;
	if (store_unstr(f[11], &e->path) != 0 || e->path == NULL ||
	    store_unstr(f[12], &e->link) != 0 ||
	    store_unstr(f[13], &e->uname) != 0 ||
	    store_unstr(f[14], &e->gname) != 0)
		return -1;
	if ((type == 'f' && !e->has_sha) ||
	    ((type == 'l' || type == 'h') && e->link == NULL))
		return -1;
	return 0;
}

int
store_manifest_read(int fd, struct store_ents *es, const char **why)
{
	struct digest *dg = NULL;
	uint8_t sum[DIGEST_LEN], want[DIGEST_LEN];
	char *buf, *line, *nl, *end;
	struct stat st;
	size_t count, off;
	ssize_t n;
	int r = -EINVAL;

	*why = NULL;
	if (fstat(fd, &st) != 0)
		return -errno;
	if ((size_t)st.st_size > STORE_MAN_MAX || st.st_size <
	    (off_t)sizeof(STORE_MAGIC)) {
		*why = "the manifest is truncated";
		return -EINVAL;
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL)
		return -ENOMEM;
	for (off = 0; off < (size_t)st.st_size; off += (size_t)n)
		if ((n = pread(fd, buf + off, (size_t)st.st_size - off,
		    (off_t)off)) <= 0) {
			free(buf);
			return n < 0 ? -errno : -EIO;
		}
	buf[off] = '\0';
	/* The end line, and the digest of everything before it. */
	if (off < 2 || buf[off - 1] != '\n' ||
	    (end = memrchr(buf, '\n', off - 1)) == NULL || strncmp(end + 1,
	    "end ", 4) != 0 || sscanf(end + 5, "%zu", &count) != 1 ||
	    (line = strchr(end + 5, ' ')) == NULL || (buf[off - 1] = '\0',
	    store_unhex(line + 1, want, DIGEST_LEN)) != 0) {
		*why = "the manifest is truncated";
		goto out;
	}
	end[1] = '\0';
	if ((r = digest_new(&dg)) != 0 || (r = digest_start(dg)) != 0)
		goto out;
	digest_add(dg, buf, (size_t)(end + 1 - buf));
	if ((r = digest_end(dg, sum)) != 0)
		goto out;
	r = -EINVAL;
	if (memcmp(sum, want, DIGEST_LEN) != 0) {
		*why = "the manifest does not match its checksum";
		goto out;
	}
	if (strncmp(buf, STORE_MAGIC "\n", sizeof(STORE_MAGIC)) != 0) {
		*why = "not a manifest of this version";
		goto out;
	}
	for (line = buf + sizeof(STORE_MAGIC); *line != '\0'; line = nl + 1) {
		struct store_ent *e;

		nl = strchr(line, '\n');
		*nl = '\0';
		if ((e = store_ents_add(es)) == NULL) {
			r = -ENOMEM;
			goto out;
		}
		if (store_parse_line(line, e) != 0) {
			*why = "a manifest line does not parse";
			goto out;
		}
	}
	if (es->n != count) {
		*why = "the manifest's count is wrong";
		goto out;
	}
	r = 0;
out:
	digest_free(dg);
	free(buf);
	if (r != 0)
		store_ents_free(es);
	return r;
}
