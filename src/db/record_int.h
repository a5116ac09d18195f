/* SPDX-License-Identifier: MIT */
/* Internal to the record module: what record.c, record_read.c and record_write.c share. */
#ifndef DEBUNPACK_RECORD_INT_H
#define DEBUNPACK_RECORD_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "db/record.h"

/*
 * Line 1 of a record is RECORD_MAGIC followed by RECORD_VERSION, and
 * " " RECORD_DPKG_DB when dpkg's database has the package too.
 */
#define RECORD_DPKG_DB	"dpkg-db"
#define RECORD_MAGIC	"debunpack-record "

/* The TYPE column's letters, as described at the top of record.c. */
extern const char record_types[];

bool record_has_data(char type);
bool record_has_target(char type);
bool record_is_device(char type);

/* S escaped for an error message, cut to fit BUF. */
const char *record_show(const char *s, char buf[64]);

/* Whether E could be written and read back; if not, why in WHY. */
bool record_entry_ok(const struct record_entry *e, char *why, size_t n);

/* Free E's strings (not E). */
void record_entry_clear(struct record_entry *e);

/* Append E, taking its strings.  -ENOMEM leaves R and E as they were. */
int record_push(struct record *r, const struct record_entry *e);

/*
 * C's fields as a record writes them (record_write.c), a new string of
 * *LEN bytes, or NULL when out of memory.
 */
char *record_format_control(const struct control *c, size_t *len);

/* R's entries sorted by path, in a new array; NULL when out of memory. */
const struct record_entry **record_sorted(const struct record *r);

/*
 * The first entry (in R's order) that repeats an earlier path, or NULL;
 * the earliest entry with that path in *EARLIER.  IDX is record_sorted's.
 */
const struct record_entry *record_first_duplicate(
    const struct record_entry **idx, size_t n,
    const struct record_entry **earlier);

#endif
