/* Contract: a 1 followed by exit status 1 is exit-nonzero, not an answer. */
#include <unistd.h>

int
main(void)
{
	return write(1, "1\n", 2) == 2 ? 1 : 2;
}
