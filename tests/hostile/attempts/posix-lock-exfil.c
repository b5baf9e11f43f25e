/* Exfiltration through /proc/locks: a read lock on the input at an offset
 * the plugin chooses (63 bits per lock) is listed, with the file's inode,
 * in the world-readable /proc/locks. The harness, as the agent account,
 * looks for the offset while the plugin holds the lock. */
#include "hostile.h"

#include <fcntl.h>
#include <time.h>

int
attempt(void)
{
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
	struct timespec ts = { 1, 500000000 };

	fl.l_start = (off_t)cfg_u64("lock_offset");
	fl.l_len = 1;
	if (fcntl(3, F_SETLK, &fl) != 0)
		return 0;
	nanosleep(&ts, NULL);	/* hold it while the agent looks */
	return 1;
}
