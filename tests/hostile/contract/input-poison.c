/* Attacks the plugin that runs after it on the same input: moves the shared
 * file offset to the end and sets O_NONBLOCK|O_DIRECT|O_APPEND on the
 * input's open file description, which the console shares. Answers 1 when
 * both changes took. */
#include <fcntl.h>
#include <unistd.h>

int
main(void)
{
	int fl = fcntl(3, F_GETFL);

	if (fl < 0 || lseek(3, 0, SEEK_END) <= 0 ||
	    fcntl(3, F_SETFL, fl | O_NONBLOCK | O_DIRECT | O_APPEND) != 0)
		return write(1, "0\n", 2) == 2 ? 0 : 1;
	return write(1, "1\n", 2) == 2 ? 0 : 1;
}
