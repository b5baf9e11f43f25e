/* Contract: a clean "1\n" and exit 0 is answer-1. */
#include <unistd.h>

int
main(void)
{
	return write(1, "1\n", 2) == 2 ? 0 : 1;
}
