/* Strict number parsing (see num.h). */
#include "lib/num.h"

#include <limits.h>
#include <string.h>

int
parse_u64(const char *s, unsigned long long min, unsigned long long max,
    unsigned long long *out)
{
	unsigned long long v = 0;
	const char *p = s;

	if (s == NULL || *s == '\0' || strlen(s) > 20)
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		if (v > (ULLONG_MAX - (unsigned)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (unsigned)(*p - '0');
	}
	if (p - s > 1 && s[0] == '0')
		return -1;	/* no leading zeros: one spelling per number */
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}
