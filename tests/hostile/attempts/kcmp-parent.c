/* Compare the parent's descriptors with ours (kcmp KCMP_FILE): tells which
 * of the console's descriptors is our input. */
#include "hostile.h"

#include <linux/kcmp.h>
#include <sys/syscall.h>
#include <unistd.h>

int
attempt(void)
{
	long fd;

	for (fd = 0; fd < 64; fd++)
		if (syscall(SYS_kcmp, (long)getpid(), (long)getppid(),
		    (long)KCMP_FILE, 3L, fd) == 0)
			return 1;
	return 0;
}
