/* Shared anonymous memory, and proof that it is shared with a child. */
#include "hostile.h"

#include <errno.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int
attempt(void)
{
	volatile char *p;
	int st;
	pid_t pid;

	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
	    -1, 0);
	if (p == MAP_FAILED)
		return 0;
	p[0] = 0;
	if ((pid = fork()) < 0)
		return 0;
	if (pid == 0) {
		p[0] = 'X';
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 0;
	if (p[0] == 'X')
		return 1;
	errno = ENODATA;
	return 0;
}
