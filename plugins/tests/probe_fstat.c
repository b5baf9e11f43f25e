/* Test-only plugin (never shipped, no manifest): checks the SDK's note on
 * fstat inside the sandbox. The input holds its own size in decimal. 1 when
 * libc's fstat(3) is refused with EPERM (it uses newfstatat, which the
 * filter refuses) and lfp_input_size() still returns the right size; 0
 * otherwise, which means docs/plugins.md's fstat note is out of date. */
#include "lfplugin.h"

#include <errno.h>
#include <sys/stat.h>

int
main(void)
{
	struct stat st;
	uint64_t size, want = 0;
	uint8_t buf[32];
	ssize_t n, i;
	int libc, err;

	libc = fstat(LFP_FD_INPUT, &st);
	err = errno;
	if (lfp_input_size(&size) != 0)
		lfp_answer(0);
	n = lfp_pread(buf, sizeof(buf), 0);
	if (n <= 0)
		lfp_answer(0);
	for (i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
		want = want * 10 + (uint64_t)(buf[i] - '0');
	lfp_answer(libc != 0 && err == EPERM && size == want);
}
