/* Tag the input with an extended attribute (outlives the plugin, readable by
 * whoever can stat the file later). */
#include "hostile.h"

#include <sys/xattr.h>

int
attempt(void)
{
	return fsetxattr(3, "user.lockfile-hostile", "1", 1, 0) == 0;
}
