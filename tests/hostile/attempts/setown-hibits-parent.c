/* F_SETOWN to the parent with bit 32 set in the command. The kernel reads
 * the command as a 32-bit int and ignores the rest: a filter must not be
 * fooled into reading it as some other, allowed command. */
#include "hostile.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

int
attempt(void)
{
	long cmd = (long)((1UL << 32) | F_SETOWN);

	if (syscall(SYS_fcntl, 1L, cmd, (long)getppid()) != 0)
		return 0;
	(void)fcntl(1, F_SETOWN, 0);
	return 1;
}
