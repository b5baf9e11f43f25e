/* Window search (see search.h). The scan itself is libc's memmem: glibc's
 * and musl's are linear in the worst case (Two-Way), so an adversarial
 * file cannot make the plugin quadratic. */
#include "search.h"

#include <string.h>

int
search_init(struct search *s, const uint8_t *needle, size_t len)
{
	if (len == 0 || len > SEARCH_NEEDLE_MAX)
		return -1;
	s->needle = needle;
	s->needle_len = len;
	s->keep = 0;
	s->base = 0;
	return 0;
}

uint8_t *
search_space(struct search *s)
{
	return s->win + s->keep;
}

int
search_feed(struct search *s, size_t n, uint64_t *at)
{
	size_t len, carry;
	const uint8_t *p;

	if (n > SEARCH_CHUNK)
		n = SEARCH_CHUNK;	/* callers are told the limit; never overrun */
	len = s->keep + n;
	p = memmem(s->win, len, s->needle, s->needle_len);
	if (p != NULL) {
		*at = s->base + (uint64_t)(p - s->win);
		return 1;
	}
	/* Any later match starts in the last needle_len - 1 bytes or after. */
	carry = s->needle_len - 1;
	if (carry > len)
		carry = len;
	memmove(s->win, s->win + len - carry, carry);
	s->base += len - carry;
	s->keep = carry;
	return 0;
}
