/* Filter property: prctl(PR_SET_VMA) is refused with EPERM. Naming an
 * anonymous mapping puts 80 bytes of the plugin's choosing in
 * /proc/PID/maps and in what a crash collector records; no supported
 * runtime needs it. This kernel has no CONFIG_ANON_VMA_NAME (bare, the
 * call answers EINVAL), so it is a property of the filter here. Answers 1
 * when the call was refused with EPERM. */
#include <errno.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

int
main(void)
{
	void *p = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int refused;

	if (p == MAP_FAILED)
		return 1;
	refused = prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)p,
	    1UL << 16, (unsigned long)"chosen-name") == -1 && errno == EPERM;
	return write(1, refused ? "1\n" : "0\n", 2) == 2 ? 0 : 1;
}
