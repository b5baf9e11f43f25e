/* Existence oracle through execve(), past the exec guard: the guard lets
 * execve through only from the launcher's own syscall instruction, and
 * after the exec that address is free in the plugin. A plugin that knows
 * it (ASLR hides it, but it is the same for every child of one console, and
 * a brute-force search through mremap takes about a minute) places its own
 * `syscall` there. The harness hands the address over (guard_ip, the
 * launcher run with ASLR off) so the attempt is deterministic. The guard
 * must still refuse: it also wants a per-run key in registers execve
 * ignores, which the plugin cannot know. Built non-PIE, so the launcher's
 * address cannot collide with the plugin's own image. */
#include "hostile.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

typedef long (*execve_fn)(const char *, char *const *, char *const *);

int
attempt(void)
{
	/* mov eax, SYS_execve; syscall; ret: the syscall ends at guard_ip. */
	static const unsigned char code[] = {
		0xb8, SYS_execve, 0, 0, 0, 0x0f, 0x05, 0xc3,
	};
	uintptr_t ip = (uintptr_t)cfg_u64("guard_ip");
	uintptr_t start = ip - 7, page = start & ~(uintptr_t)4095;
	char *const argv[] = { (char *)"probe", NULL };
	char *const envp[] = { NULL };
	unsigned char *m;
	execve_fn fn;
	long ra, rb;

	m = mmap((void *)page, 8192, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (m != (void *)page)
		exit(2);		/* not in place: a harness problem */
	memcpy(m + (start - page), code, sizeof(code));
	if (mprotect(m, 8192, PROT_READ | PROT_EXEC) != 0)
		exit(2);
	fn = (execve_fn)(void *)(m + (start - page));
	ra = fn(cfg("secret"), argv, envp);	/* mode 0600: never runs */
	rb = fn(cfg("missing"), argv, envp);
	if (ra >= 0 || rb >= 0)
		exit(2);
	if (ra != rb)
		return 1;
	errno = (int)-ra;
	return 0;
}
