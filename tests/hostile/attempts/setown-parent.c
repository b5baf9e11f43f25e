/* Make the parent the owner of a descriptor (F_SETOWN): SIGIO/SIGURG then go
 * to it, a signal to another process through a descriptor owner. */
#include "hostile.h"

#include <fcntl.h>
#include <unistd.h>

int
attempt(void)
{
	if (fcntl(1, F_SETOWN, (int)getppid()) != 0)
		return 0;
	(void)fcntl(1, F_SETOWN, 0);
	return 1;
}
