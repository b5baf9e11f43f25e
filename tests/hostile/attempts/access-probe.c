/* Probe a path with access(2) (faccessat underneath). */
#include "hostile.h"

#include <unistd.h>

int
attempt(void)
{
	return access(cfg("secret"), R_OK) == 0;
}
