/* Filter property: a system call with the x32 bit set must kill the process
 * (SIGSYS), as a foreign architecture does. This kernel has no x32 ABI
 * (bare, the call fails with ENOSYS), so it is a property of the filter, not
 * an escape here; on a kernel with CONFIG_X86_X32_ABI it would be one.
 * Answers 1 if the call came back at all. */
#include <sys/syscall.h>
#include <unistd.h>

int
main(void)
{
	(void)syscall(0x40000000L | SYS_getpid);
	return write(1, "1\n", 2) == 2 ? 0 : 1;
}
