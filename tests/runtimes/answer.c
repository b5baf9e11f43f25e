/* The runtime-compatibility plugin, C (built with glibc and with musl, both
 * static). Reads its input on fd 3 in a second thread and answers 1 when it
 * starts with "yes", 0 otherwise; with "stat" on the first line it also
 * checks fstat()'s size of fd 3 against the bytes read (exit 2 if fstat
 * fails or disagrees); with "churn", the reader thread first allocates and
 * frees 16 MiB, and main trims the heap (glibc), so the allocator gives
 * memory back the way it does (madvise: docs/sandbox.md lists the advice
 * allowed). Same behaviour as answer.go and answer.rs. */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static char buf[65536];
static size_t len;
static int read_failed, churn_failed;

/* 256 blocks of 64 KiB (below the mmap threshold: heap memory), touched
 * and freed: in a thread's own arena glibc shrinks the heap with
 * MADV_DONTNEED; musl's mallocng gives groups back with MADV_FREE. */
static void
churn(void)
{
	static char *blk[256];
	size_t i;

	for (i = 0; i < 256; i++) {
		if ((blk[i] = malloc(64 << 10)) == NULL) {
			churn_failed = 1;
			break;
		}
		memset(blk[i], (int)i, 64 << 10);
	}
	for (i = 0; i < 256; i++)
		free(blk[i]);
}

static void *
reader(void *arg)
{
	(void)arg;
	if (pread(3, buf, 16, 0) > 0 && memmem(buf, 16, "churn", 5) != NULL)
		churn();
	for (;;) {
		ssize_t n = read(3, buf + len, sizeof(buf) - len);
		if (n < 0) {
			read_failed = 1;
			break;
		}
		if (n == 0 || (len += (size_t)n) == sizeof(buf))
			break;
	}
	return NULL;
}

int
main(void)
{
	pthread_t t;
	struct stat st;
	const char *nl;

	if (pthread_create(&t, NULL, reader, NULL) != 0 ||
	    pthread_join(t, NULL) != 0 || read_failed)
		return 3;
	if (churn_failed)
		return 4;
#ifdef __GLIBC__
	(void)malloc_trim(0);	/* MADV_DONTNEED on the main arena's free pages */
#endif
	nl = memchr(buf, '\n', len);
	if (nl != NULL && memmem(buf, (size_t)(nl - buf), "stat", 4) != NULL &&
	    (syscall(SYS_fstat, 3, &st) != 0 || st.st_size != (off_t)len))
		return 2;
	if (write(1, len >= 3 && memcmp(buf, "yes", 3) == 0 ? "1\n" : "0\n",
	    2) != 2)
		return 1;
	return 0;
}
