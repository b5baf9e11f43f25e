/* Take an exclusive flock on the input's open file description, which the
 * console shares and which outlives the plugin. */
#include "hostile.h"

#include <sys/file.h>

int
attempt(void)
{
	return flock(3, LOCK_EX | LOCK_NB) == 0;
}
