/* Connect to an abstract Unix socket the harness listens on. */
#include "hostile.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int
attempt(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *name = cfg("abstract_name");
	size_t len = strlen(name);
	int s, r, e;

	if (len + 1 > sizeof(sa.sun_path))
		return errno = ENAMETOOLONG, 0;
	memcpy(sa.sun_path + 1, name, len);	/* sun_path[0] = 0: abstract */
	if ((s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return 0;
	r = connect(s, (struct sockaddr *)&sa,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)) == 0;
	e = errno;
	close(s);
	errno = e;
	return r;
}
