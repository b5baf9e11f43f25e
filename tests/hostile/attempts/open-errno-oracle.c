/* Existence oracle through open(): Landlock checks a path only after the
 * lookup, so an existing file answers EACCES and a missing one ENOENT. A
 * plugin can thus answer "does this path exist on the console's machine"
 * instead of its question. Success: the two answers differ. */
#include "hostile.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int
attempt(void)
{
	int a, b, ea, eb;

	a = open(cfg("secret"), O_RDONLY | O_CLOEXEC);
	ea = errno;
	b = open(cfg("missing"), O_RDONLY | O_CLOEXEC);
	eb = errno;
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
	if ((a >= 0) != (b >= 0) || (a < 0 && ea != eb))
		return 1;
	errno = a < 0 ? ea : EEXIST;
	return 0;
}
