/* Execute another program: /bin/echo prints the 1 itself when it runs. */
#include "hostile.h"

#include <unistd.h>

int
attempt(void)
{
	char *const argv[] = { (char *)"echo", (char *)"1", NULL };
	char *const envp[] = { NULL };

	execve("/bin/echo", argv, envp);
	return 0;
}
