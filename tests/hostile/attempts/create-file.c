/* Create a new file in a directory the account may write (the harness
 * checks afterwards that no file appeared). */
#include "hostile.h"

#include <fcntl.h>
#include <unistd.h>

int
attempt(void)
{
	int fd = open(cfg("newfile"), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}
