/* Contract: sleeping forever (no CPU) ends as wall-timeout. (Not pause():
 * the sandbox refuses it, and a refused pause() loop spins.) */
#include <unistd.h>

int
main(void)
{
	for (;;)
		sleep(1000);
}
