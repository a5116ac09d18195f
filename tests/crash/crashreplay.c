/* SPDX-License-Identifier: MIT */
/* Crash states from a recorded disk history: what a disk may hold after a power cut. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crashlog.h"

/*
 * usage: crashreplay info LOG
 *        crashreplay apply LOG IMAGE K [SEED]
 *
 * info prints "flushes N", then "mark F TEXT" for each mark, F being the
 * number of flushes before it: the mark is durable in states K > F.
 *
 * apply writes into IMAGE (a copy of the disk as it was when the log
 * started) every write logged before the K-th flush (1 <= K <= N), or
 * every write when K is N + 1.  With SEED, also a pseudo-random half of
 * the 4 KiB pieces of the writes between flush K and the next: a disk may
 * keep any of the writes it had not been told to flush, in any order, and
 * a piece (an aligned 4 KiB block) is the unit it keeps or loses whole.
 */

#define PIECE	4096

struct log {
	unsigned char *p;
	size_t len;
};

static int
log_open(const char *path, struct log *l)
{
	struct stat st;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) != 0) {
		perror(path);
		return -1;
	}
	l->len = (size_t)st.st_size;
	l->p = l->len > 0 ? mmap(NULL, l->len, PROT_READ, MAP_PRIVATE, fd, 0) :
	    NULL;
	close(fd);
	if (l->len > 0 && l->p == MAP_FAILED) {
		perror(path);
		return -1;
	}
	return 0;
}

/*
 * The record at *POS copied into *H (records are not aligned), 0 at the
 * end or at a cut record.
 */
static int
log_next(const struct log *l, size_t *pos, struct crashlog_hdr *h,
    const unsigned char **data)
{
	if (*pos + sizeof(*h) > l->len)
		return 0;
	memcpy(h, l->p + *pos, sizeof(*h));
	if (*pos + sizeof(*h) + h->len > l->len)
		return 0;
	*data = l->p + *pos + sizeof(*h);
	*pos += sizeof(*h) + h->len;
	return 1;
}

static int
cmd_info(const struct log *l)
{
	struct crashlog_hdr hdr, *h = &hdr;
	const unsigned char *d;
	size_t pos = 0, flushes = 0, writes = 0, bytes = 0;

	while (log_next(l, &pos, h, &d)) {
		if (h->type == CRASHLOG_FLUSH)
			flushes++;
		else if (h->type == CRASHLOG_WRITE) {
			writes++;
			bytes += h->len;
		} else if (h->type == CRASHLOG_MARK) {
			const unsigned char *nl = memchr(d, '\n', h->len);

			printf("mark %zu %.*s\n", flushes,
			    (int)(nl != NULL ? (size_t)(nl - d) : h->len), d);
		}
	}
	printf("flushes %zu\nwrites %zu\nbytes %zu\n", flushes, writes, bytes);
	/* A log cut short is a recording that failed, not a shorter one. */
	if (pos != l->len) {
		fprintf(stderr, "crashreplay: %zu bytes of a cut record at the"
		    " end of the log\n", l->len - pos);
		return 1;
	}
	return 0;
}

/* xorshift64: a reproducible choice of pieces for each SEED. */
static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int
put(int fd, const unsigned char *d, size_t n, uint64_t off)
{
	if (pwrite(fd, d, n, (off_t)off) != (ssize_t)n) {
		perror("pwrite");
		return -1;
	}
	return 0;
}

static int
cmd_apply(const struct log *l, const char *image, unsigned long k,
    const char *seed)
{
	struct crashlog_hdr hdr, *h = &hdr;
	const unsigned char *d;
	size_t pos = 0, flushes = 0, o, n;
	uint64_t s = 0;
	int fd;

	if (seed != NULL)
		s = strtoull(seed, NULL, 10) * 2654435761u + 0x9e3779b97f4a7c15u;
	if ((fd = open(image, O_WRONLY | O_CLOEXEC)) < 0) {
		perror(image);
		return 1;
	}
	while (log_next(l, &pos, h, &d)) {
		if (h->type == CRASHLOG_FLUSH) {
			if (++flushes == k && seed == NULL)
				break;
			if (flushes == k + 1)
				break;
			continue;
		}
		if (h->type != CRASHLOG_WRITE)
			continue;
		if (flushes < k) {
			if (put(fd, d, h->len, h->off) != 0)
				return 1;
			continue;
		}
		/*
		 * Between flush K and the next: each piece, or not; pieces are
		 * the disk's aligned 4 KiB blocks, whatever the write's offset.
		 */
		for (o = 0; o < h->len; o += n) {
			uint64_t at = h->off + o;

			n = PIECE - (size_t)(at % PIECE);
			if (n > h->len - o)
				n = h->len - o;
			if ((rnd(&s) & 1) && put(fd, d + o, n, at) != 0)
				return 1;
		}
	}
	if (close(fd) != 0) {
		perror(image);
		return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct log l;

	if (argc == 3 && strcmp(argv[1], "info") == 0) {
		if (log_open(argv[2], &l) != 0)
			return 1;
		return cmd_info(&l);
	}
	if ((argc == 5 || argc == 6) && strcmp(argv[1], "apply") == 0) {
		if (log_open(argv[2], &l) != 0)
			return 1;
		return cmd_apply(&l, argv[3], strtoul(argv[4], NULL, 10),
		    argc == 6 ? argv[5] : NULL);
	}
	fprintf(stderr, "usage: crashreplay info LOG\n"
	    "       crashreplay apply LOG IMAGE K [SEED]\n");
	return 2;
}
