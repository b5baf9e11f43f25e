/* A user namespace: capabilities inside it, and with them mount, network
 * and the rest of the namespaced kernel surface. */
#include "hostile.h"

#include <sched.h>

int
attempt(void)
{
	return unshare(CLONE_NEWUSER) == 0;
}
