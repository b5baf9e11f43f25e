/* TCP connect to a listener the harness runs on 127.0.0.1. */
#include "hostile.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

int
attempt(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int s, r, e;

	sa.sin_port = htons((unsigned short)cfg_u64("tcp_port"));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return 0;
	r = connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	e = errno;
	close(s);
	errno = e;
	return r;
}
