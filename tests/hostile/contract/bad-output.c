/* Contract: "2" is bad-output. */
#include <unistd.h>

int
main(void)
{
	return write(1, "2\n", 2) == 2 ? 0 : 1;
}
