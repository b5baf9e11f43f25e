/* libFuzzer target for contains' search (plugins/contains/search.c): every
 * kernel this CPU can run must find exactly what memmem finds, at the same
 * offset, and the haystack is also searched in overlapping pieces the way
 * the plugin gets its input (each piece after the first starting with the
 * last needle length - 1 bytes of the one before), which must give the
 * same first match. Input: needle length byte, piece-size byte, needle,
 * haystack; a third byte repeats the haystack (long runs of candidates). */
#include "lfplugin.h"
#include "search.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ptrdiff_t
pieces(const uint8_t *hay, size_t hlen, const uint8_t *needle, size_t nlen,
    size_t step, int isa)
{
	size_t start = 0;

	for (;;) {
		size_t end = start + step > hlen ? hlen : start + step;
		ptrdiff_t at = search_find(hay + start, end - start, needle, nlen,
		    isa);

		if (at >= 0)
			return (ptrdiff_t)start + at;
		if (end == hlen)
			return -1;
		start = end - (nlen - 1);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t hay[1 << 16];
	size_t nlen, step, hlen, reps, i;
	const uint8_t *needle, *want;
	ptrdiff_t w;
	int isa;

	if (size < 4)
		return 0;
	nlen = (size_t)data[0] % 40 + 1;
	reps = (size_t)data[2] % 8 + 1;
	if (size - 3 < nlen)
		return 0;
	needle = data + 3;
	hlen = size - 3 - nlen;
	if (hlen * reps > sizeof(hay))
		reps = 1;
	if (hlen > sizeof(hay))
		hlen = sizeof(hay);
	for (i = 0; i < reps; i++)
		memcpy(hay + i * hlen, needle + nlen, hlen);
	hlen *= reps;
	/* Each piece must hold more than the overlap. */
	step = nlen + (size_t)data[1] % 200;

	want = memmem(hay, hlen, needle, nlen);
	w = want == NULL ? -1 : want - hay;
	for (isa = LFP_ISA_SCALAR; isa <= lfp_cpu_isa(); isa++)
		if (search_find(hay, hlen, needle, nlen, isa) != w ||
		    pieces(hay, hlen, needle, nlen, step, isa) != w)
			__builtin_trap();
	return 0;
}
