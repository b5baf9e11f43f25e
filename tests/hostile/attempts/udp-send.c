/* A UDP datagram carrying the secret to a port the harness listens on
 * (Landlock has no UDP rights: only seccomp can stop this). */
#include "hostile.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int
attempt(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	const char *msg = cfg("secret_text");
	ssize_t n;
	int s, e;

	sa.sin_port = htons((unsigned short)cfg_u64("udp_port"));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return 0;
	n = sendto(s, msg, strlen(msg), 0, (struct sockaddr *)&sa, sizeof(sa));
	e = errno;
	close(s);
	errno = e;
	return n == (ssize_t)strlen(msg);
}
