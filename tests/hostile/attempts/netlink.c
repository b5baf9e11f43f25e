/* A netlink route socket, bound (the kernel's configuration interface). */
#include "hostile.h"

#include <errno.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <unistd.h>

int
attempt(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int s, r, e;

	if ((s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE)) < 0)
		return 0;
	r = bind(s, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	e = errno;
	close(s);
	errno = e;
	return r;
}
