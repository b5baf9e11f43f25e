/* Allocation for glue that dies on out-of-memory (OpenSSH's xmalloc.c):
 * each names the size it could not get, runs the process's cleanup
 * (fatal(), log.h) and exits 70. Library code that returns its errors
 * keeps calling malloc and returning them (docs/hacking.md,
 * "Conventions"). A size of 0 is allocated as 1 byte, so that a NULL is
 * never a success. */
#ifndef LOCKFILE_XMALLOC_H
#define LOCKFILE_XMALLOC_H

#include <stddef.h>

void *xmalloc(size_t size) __attribute__((malloc, alloc_size(1)));
void *xcalloc(size_t nmemb, size_t size)
    __attribute__((malloc, alloc_size(1, 2)));
/* Dies when nmemb * size overflows, as on out-of-memory. */
void *xreallocarray(void *ptr, size_t nmemb, size_t size)
    __attribute__((alloc_size(2, 3)));
char *xstrdup(const char *s) __attribute__((malloc));

#endif
