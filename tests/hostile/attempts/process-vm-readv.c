/* Read another process's memory with process_vm_readv (its own child: the
 * parent's layout is unknown under ASLR, the child's is the same as ours). */
#include "hostile.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static char mark[32] = "lockfile-hostile-mark";

int
attempt(void)
{
	char got[sizeof(mark)];
	struct iovec local = { got, sizeof(got) }, remote = { mark, sizeof(mark) };
	ssize_t n;
	int e, rel;
	pid_t pid;

	if ((pid = waiter_start(&rel)) < 0)
		return 0;
	memset(mark, 'x', sizeof(mark) - 1);	/* only the child keeps the mark */
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	e = errno;
	waiter_end(pid, rel);
	if (n == (ssize_t)sizeof(got) &&
	    strcmp(got, "lockfile-hostile-mark") == 0)
		return 1;
	errno = n < 0 ? e : ENODATA;
	return 0;
}
