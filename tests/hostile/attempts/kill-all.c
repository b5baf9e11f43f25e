/* kill(-1): every process the account may signal (signal 0). */
#include "hostile.h"

#include <signal.h>

int
attempt(void)
{
	return kill(-1, 0) == 0;
}
