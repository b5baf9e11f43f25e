/* Contract: a bare "0" (no newline) and exit 0 is answer-0. */
#include <unistd.h>

int
main(void)
{
	return write(1, "0", 1) == 1 ? 0 : 1;
}
