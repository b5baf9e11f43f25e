/* Filter property: a system call with the x32 bit set is refused with
 * EPERM, as every foreign architecture's call is. A refusal, not a kill:
 * the kernel logs a seccomp kill with the call's number and instruction
 * pointer, both of the plugin's choosing, for whoever reads the kernel log.
 * This kernel has no x32 ABI (bare, the call answers ENOSYS), so it is a
 * property of the filter, not an escape here; on a kernel with
 * CONFIG_X86_X32_ABI it would be one. Answers 1 when the call came back
 * refused with EPERM. */
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

int
main(void)
{
	long r = syscall(0x40000000L | SYS_getpid);
	int refused = r == -1 && errno == EPERM;

	return write(1, refused ? "1\n" : "0\n", 2) == 2 ? 0 : 1;
}
