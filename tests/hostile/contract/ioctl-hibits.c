/* Filter property: ioctl commands are compared on their low 32 bits (the
 * kernel ignores the rest; CVE-2019-10063). TIOCSTI with a high bit set on
 * /dev/null: the kernel itself would answer ENOTTY, the filter EPERM.
 * Answers 1 when the filter refused it (EPERM), 0 otherwise. */
#include <errno.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int
main(void)
{
	char c = '#';
	long r = syscall(SYS_ioctl, 0L, (unsigned long)TIOCSTI | (1UL << 32), &c);

	if (r < 0 && errno == EPERM)
		return write(1, "1\n", 2) == 2 ? 0 : 1;
	return write(1, "0\n", 2) == 2 ? 0 : 1;
}
