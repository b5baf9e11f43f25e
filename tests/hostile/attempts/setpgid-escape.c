/* A child moves to a process group of its own with setpgid(0, 0). */
#include "hostile.h"

#include <unistd.h>

static int
child(void)
{
	return setpgid(0, 0) == 0;
}

int
attempt(void)
{
	return in_child(child);
}
