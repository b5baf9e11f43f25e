/* Contract: exactly 1 GiB on stderr, then "1": the runner must drain stderr
 * without ever blocking the plugin, count every byte, and still answer 1. */
#include <errno.h>
#include <unistd.h>

static char chunk[1 << 20];

int
main(void)
{
	unsigned long long left = 1ULL << 30;

	while (left > 0) {
		ssize_t n = write(2, chunk, left < sizeof(chunk) ? left : sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 1;
		left -= (unsigned long long)n;
	}
	return write(1, "1\n", 2) == 2 ? 0 : 1;
}
