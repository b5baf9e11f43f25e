/* Reach a piped core_pattern: the sandbox gives RLIMIT_CORE 1, which the
 * kernel takes as "never pipe a dump" (a pipe ignores every other value,
 * 0 included); lowering one's own limit to 0 is always allowed by the
 * kernel, and a crash would then hand the plugin's memory to the dump
 * helper (systemd-coredump, apport). Success when the limit took. The
 * filter lets a plugin read its limits only. */
#include "hostile.h"

#include <sys/resource.h>

int
attempt(void)
{
	struct rlimit rl = { 0, 0 };

	return setrlimit(RLIMIT_CORE, &rl) == 0;
}
