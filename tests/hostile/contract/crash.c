/* Contract: a 1 followed by a crash (SIGSEGV) is signaled, not an answer. */
#include <signal.h>
#include <unistd.h>

int
main(void)
{
	if (write(1, "1\n", 2) != 2)
		return 1;
	(void)signal(SIGSEGV, SIG_DFL);
	(void)raise(SIGSEGV);
	return 0;
}
