/* Probe a path's existence and size with stat (Landlock does not cover
 * path-based stat). */
#include "hostile.h"

#include <sys/stat.h>

int
attempt(void)
{
	struct stat st;

	return stat(cfg("secret"), &st) == 0 && st.st_size > 0;
}
