/* Exfiltration through /proc/locks with an open-file-description lock: it is
 * listed to every pid namespace (pid -1) and lives as long as the console
 * keeps the input's descriptor open, after the plugin is gone. */
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
	if (fcntl(3, F_OFD_SETLK, &fl) != 0)
		return 0;
	nanosleep(&ts, NULL);
	return 1;
}
