/* SPDX-License-Identifier: MIT */
/* The crash tests' log of a disk's history: writes, flushes and marks. */
#ifndef DEBUNPACK_CRASHLOG_H
#define DEBUNPACK_CRASHLOG_H

#include <stdint.h>

/* Record types. */
#define CRASHLOG_WRITE	1	/* LEN bytes of data at OFF follow */
#define CRASHLOG_FLUSH	2	/* the device's cache was flushed */
#define CRASHLOG_MARK	3	/* LEN bytes of text from the test follow */

/* Each record: this header, in host byte order, then LEN bytes. */
struct crashlog_hdr {
	uint32_t type;
	uint32_t len;
	uint64_t off;
};

#endif
