/* Read a file the plugin's account can read (made by the harness). */
#include "hostile.h"

int
attempt(void)
{
	return path_has_secret(cfg("secret"));
}
