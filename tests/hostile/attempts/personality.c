/* Change the execution domain (ADDR_NO_RANDOMIZE: no ASLR for what it
 * execs next). */
#include "hostile.h"

#include <sys/personality.h>

int
attempt(void)
{
	int cur = personality(0xffffffff);

	if (cur == -1)
		return 0;
	return personality((unsigned long)cur | ADDR_NO_RANDOMIZE) != -1;
}
