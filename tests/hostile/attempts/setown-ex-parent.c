/* Same through F_SETOWN_EX. */
#include "hostile.h"

#include <fcntl.h>
#include <unistd.h>

int
attempt(void)
{
	struct f_owner_ex o = { F_OWNER_PID, 0 };

	o.pid = getppid();
	if (fcntl(1, F_SETOWN_EX, &o) != 0)
		return 0;
	o.pid = 0;
	(void)fcntl(1, F_SETOWN_EX, &o);
	return 1;
}
