/* The plugin after input-poison: answers 1 when its fd 3 is read-only, at
 * offset 0, without the status flags input-poison sets, and a plain read
 * returns the first bytes of the input ("LOCKFILE"). */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int
main(void)
{
	char buf[8];
	int fl = fcntl(3, F_GETFL);

	if (fl < 0 || (fl & (O_NONBLOCK | O_DIRECT | O_APPEND)) != 0 ||
	    (fl & O_ACCMODE) != O_RDONLY || lseek(3, 0, SEEK_CUR) != 0 ||
	    read(3, buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
	    memcmp(buf, "LOCKFILE", sizeof(buf)) != 0)
		return write(1, "0\n", 2) == 2 ? 0 : 1;
	return write(1, "1\n", 2) == 2 ? 0 : 1;
}
