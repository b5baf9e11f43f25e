/* Probe a path with newfstatat and AT_EMPTY_PATH, the call glibc's fstat()
 * makes: with a non-empty absolute path the flag changes nothing, so a
 * filter that let this call through for glibc's sake would let every path
 * be stat'ed. */
#include "hostile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int
attempt(void)
{
	struct stat st;

	return syscall(SYS_newfstatat, 3L, cfg("secret"), &st,
	    (long)AT_EMPTY_PATH) == 0 && st.st_size > 0;
}
