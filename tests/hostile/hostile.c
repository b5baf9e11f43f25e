/* main() of every hostile plugin: load the parameters, make the attempt,
 * report by the convention in hostile.h. */
#include "hostile.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

int
main(void)
{
	int r, e;

	conf_load();
	errno = 0;
	r = attempt();
	e = errno;
	if (r == 1)
		return write(1, "1\n", 2) == 2 ? 0 : 1;
	if (e <= 0 || e > 4095) {
		fprintf(stderr, "hostile: blocked without an errno\n");
		return 3;
	}
	if (write_filler(2, (size_t)e) != 0)
		return 4;
	return write(1, "0\n", 2) == 2 ? 0 : 1;
}
