/* SPDX-License-Identifier: MIT */
/* Helpers shared by the Check unit tests: scratch directories and main(). */
#ifndef DEBUNPACK_CHECKUTIL_H
#define DEBUNPACK_CHECKUTIL_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Make a new directory PARENT/NAME.XXXXXX and put its path in BUF (SIZE
 * bytes).  A failure fails the test, or in an unchecked fixture the TCase.
 */
void checkutil_mkscratch(char *buf, size_t size, const char *parent,
    const char *name);

/* Remove PATH and everything below it, unreadable directories too. */
void checkutil_rmtree(const char *path);

/*
 * Add to S a TCase NAME whose tests each run in a new empty directory,
 * checkutil_scratch(), with SETUP and TEARDOWN (either may be NULL) as
 * checked fixtures inside it.  The TCase has a directory of its own in
 * /tmp, named after the program, whose removal at the end of the TCase
 * catches whatever a failed test left behind.
 */
TCase *checkutil_scratch_tcase(Suite *s, const char *name,
    void (*setup)(void), void (*teardown)(void));

/* The scratch directory of the running test. */
const char *checkutil_scratch(void);

/* REL in the scratch directory, in a static buffer: one use per expression. */
const char *checkutil_at(const char *rel);

/* Whether REL exists in the scratch directory (a dangling symlink does). */
bool checkutil_exists(const char *rel);

/*
 * Make REL in the scratch directory: a directory (0755), a symlink to
 * TARGET, a file holding CONTENT.
 */
void checkutil_mkdir(const char *rel);
void checkutil_symlink(const char *target, const char *rel);
void checkutil_write(const char *rel, const char *content);

/* REL in the scratch directory is a file holding exactly WANT. */
void checkutil_assert_content(const char *rel, const char *want);

/*
 * Add to R an entry of TYPE at PATH (mode 0755 for a directory, 0644
 * else; a symlink's target "x"), a conffile if CONFFILE, with the MD5
 * (16 bytes) dpkg's status keeps unless NULL.
 */
struct record;
void checkutil_record_add(struct record *r, char type, const char *path,
    bool conffile, const unsigned char *md5);

/* The file descriptors this process has open. */
int checkutil_count_fds(void);

/* Run every test of S, free it, and return the exit status for main(). */
int checkutil_run(Suite *s);

#endif
