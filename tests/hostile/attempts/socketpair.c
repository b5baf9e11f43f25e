/* A connected Unix socket pair (descriptor passing between its processes). */
#include "hostile.h"

#include <sys/socket.h>
#include <unistd.h>

int
attempt(void)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return 0;
	close(sv[0]);
	close(sv[1]);
	return 1;
}
