/* Make the confidential input world-readable: fchmod works on a read-only
 * descriptor of a file the caller owns. */
#include "hostile.h"

#include <sys/stat.h>

int
attempt(void)
{
	struct stat st;

	if (raw_fstat(3, &st) != 0)
		return 0;
	return fchmod(3, (st.st_mode & 07777) | 0044) == 0;
}
