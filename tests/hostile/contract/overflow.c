/* Contract: four bytes of output is output-overflow, whatever they say. */
#include <unistd.h>

int
main(void)
{
	return write(1, "1111", 4) == 4 ? 0 : 1;
}
