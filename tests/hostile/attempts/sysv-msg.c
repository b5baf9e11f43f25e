/* System V message queue (removed again at once). */
#include "hostile.h"

#include <sys/msg.h>

int
attempt(void)
{
	int id = msgget(IPC_PRIVATE, IPC_CREAT | 0600);

	if (id < 0)
		return 0;
	(void)msgctl(id, IPC_RMID, NULL);
	return 1;
}
