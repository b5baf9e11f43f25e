/* System V shared memory: outlives the plugin, reachable by every account
 * in the IPC namespace. Removed again at once. */
#include "hostile.h"

#include <sys/shm.h>

int
attempt(void)
{
	int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);

	if (id < 0)
		return 0;
	(void)shmctl(id, IPC_RMID, NULL);
	return 1;
}
