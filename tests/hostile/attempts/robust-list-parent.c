/* Read the parent's robust futex list head (an address in the console: an
 * ASLR leak); the kernel checks ptrace access, which Landlock scopes. */
#include "hostile.h"

#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

int
attempt(void)
{
	void *head;
	size_t len;

	return syscall(SYS_get_robust_list, (long)getppid(), &head, &len) == 0;
}
