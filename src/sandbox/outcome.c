/* Outcome class names: the audit and `sandbox-run` spell them this way. */
#include "sandbox/sandbox.h"
#include "lib/log.h"

static const char *const names[OUT__COUNT] = {
	[OUT_ANSWER_1] = "answer-1",
	[OUT_ANSWER_0] = "answer-0",
	[OUT_BAD_OUTPUT] = "bad-output",
	[OUT_OUTPUT_OVERFLOW] = "output-overflow",
	[OUT_EXIT_NONZERO] = "exit-nonzero",
	[OUT_SIGNALED] = "signaled",
	[OUT_CPU_LIMIT] = "cpu-limit",
	[OUT_WALL_TIMEOUT] = "wall-timeout",
	[OUT_EXEC_FAILED] = "exec-failed",
	[OUT_TAMPERED] = "tampered",
	[OUT_SANDBOX_UNAVAILABLE] = "sandbox-unavailable",
};

const char *
outcome_name(enum outcome o)
{
	ASSERT((unsigned)o < OUT__COUNT);
	return names[o];
}

int
outcome_bit(enum outcome o)
{
	if (o == OUT_ANSWER_1)
		return 1;
	if (o == OUT_ANSWER_0)
		return 0;
	return -1;
}
