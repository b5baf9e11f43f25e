/* A child leaves the plugin's session and process group with setsid(), so a
 * kill of the group would miss it. */
#include "hostile.h"

#include <unistd.h>

static int
child(void)
{
	return setsid() >= 0;
}

int
attempt(void)
{
	return in_child(child);
}
