/* Test shim for LD_PRELOAD: makes the Nth renameat(2) of a run fail with EIO. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * FAULT_RENAMEAT=N: the Nth call fails, every other one goes through.
 * Lets a test fail a commit at each of its renames in turn.
 */
int renameat(int, const char *, int, const char *);

int
renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	static int (*real)(int, const char *, int, const char *);
	static long calls;
	const char *n = getenv("FAULT_RENAMEAT");

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "renameat");
	if (n != NULL && ++calls == strtol(n, NULL, 10)) {
		errno = EIO;
		return -1;
	}
	return real(olddirfd, oldpath, newdirfd, newpath);
}
