/* Connect to a pathname Unix socket the harness listens on (Landlock ABI 7
 * does not cover connecting to one: seccomp must). */
#include "hostile.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int
attempt(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = cfg("unix_path");
	int s, r, e;

	if (strlen(path) >= sizeof(sa.sun_path))
		return errno = ENAMETOOLONG, 0;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return 0;
	r = connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	e = errno;
	close(s);
	errno = e;
	return r;
}
