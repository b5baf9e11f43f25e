/* The runtime-compatibility plugin, C (built with glibc and with musl, both
 * static). Reads its input on fd 3 in a second thread and answers 1 when it
 * starts with "yes", 0 otherwise; with "stat" on the first line it also
 * checks fstat()'s size of fd 3 against the bytes read (exit 2 if fstat
 * fails or disagrees). Same behaviour as answer.go and answer.rs. */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static char buf[65536];
static size_t len;
static int read_failed;

static void *
reader(void *arg)
{
	(void)arg;
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
	nl = memchr(buf, '\n', len);
	if (nl != NULL && memmem(buf, (size_t)(nl - buf), "stat", 4) != NULL &&
	    (syscall(SYS_fstat, 3, &st) != 0 || st.st_size != (off_t)len))
		return 2;
	if (write(1, len >= 3 && memcmp(buf, "yes", 3) == 0 ? "1\n" : "0\n",
	    2) != 2)
		return 1;
	return 0;
}
