/* System V semaphore set (removed again at once). */
#include "hostile.h"

#include <sys/sem.h>

int
attempt(void)
{
	int id = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);

	if (id < 0)
		return 0;
	(void)semctl(id, 0, IPC_RMID);
	return 1;
}
