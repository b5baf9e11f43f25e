/* The no-op plugin the spawn benchmark runs: answers 1 and exits. */
#include <unistd.h>

int
main(void)
{
	return write(1, "1\n", 2) == 2 ? 0 : 1;
}
