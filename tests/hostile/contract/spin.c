/* Contract: a CPU spin ends as cpu-limit. */
int
main(void)
{
	volatile unsigned long n = 0;

	for (;;)
		n++;
}
