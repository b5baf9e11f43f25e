/* POSIX message queue (unlinked again at once). */
#include "hostile.h"

#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <unistd.h>

int
attempt(void)
{
	struct mq_attr attr = { .mq_maxmsg = 1, .mq_msgsize = 16 };
	char name[64];
	mqd_t q;

	snprintf(name, sizeof(name), "/lockfile-hostile-%d", (int)getpid());
	q = mq_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600, &attr);
	if (q == (mqd_t)-1)
		return 0;
	(void)mq_close(q);
	(void)mq_unlink(name);
	return 1;
}
