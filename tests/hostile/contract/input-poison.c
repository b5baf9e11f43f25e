/* Attacks the plugin that runs after it: changes the open file description
 * behind every descriptor it was given. fd 3 (the input) is moved to its
 * end and gets O_NONBLOCK|O_DIRECT|O_APPEND; every other one it holds (fd 0
 * /dev/null, the pipes 1, 2 and, for protocol 2, 6 and 7) gets
 * O_NONBLOCK|O_APPEND. A description the sandbox shared between runs (the
 * input's, or one /dev/null for every stdin) would carry these into the
 * next plugin: 2 bits from this file read while running on another.
 * Answers 1 when every change took. */
#include <fcntl.h>
#include <unistd.h>

int
main(void)
{
	int fd, ok = 1;

	for (fd = 0; fd < 8; fd++) {
		int fl = fcntl(fd, F_GETFL), add = O_NONBLOCK | O_APPEND;

		if (fl < 0)
			continue;	/* not given */
		if (fd == 3) {
			add |= O_DIRECT;
			if (lseek(3, 0, SEEK_END) <= 0)
				ok = 0;
		}
		if (fcntl(fd, F_SETFL, fl | add) != 0 ||
		    (fcntl(fd, F_GETFL) & add) != add)
			ok = 0;
	}
	return write(1, ok ? "1\n" : "0\n", 2) == 2 ? 0 : 1;
}
