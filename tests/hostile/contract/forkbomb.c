/* Contract: a fork bomb gets no answer; the harness checks afterwards that
 * no process of the run is left and that the account can still fork. */
#include <unistd.h>

int
main(void)
{
	for (;;)
		(void)fork();
}
