/* TCP connect over IPv6 to a listener the harness runs on ::1. */
#include "hostile.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

int
attempt(void)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6 };
	int s, r, e;

	sa.sin6_port = htons((unsigned short)cfg_u64("tcp6_port"));
	sa.sin6_addr = in6addr_loopback;
	if ((s = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return 0;
	r = connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	e = errno;
	close(s);
	errno = e;
	return r;
}
