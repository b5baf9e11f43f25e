/* libFuzzer target for is-json's validators: json_fast.c (what the plugin
 * runs, with every classifier this CPU can run) against json_check.c (the
 * byte-at-a-time reference) on every input. Besides memory safety it checks
 * the streaming property: no answer may depend on where the input is cut
 * into feeds (the fast one buffers partial 64-byte blocks, so cuts near
 * block ends matter most). */
#include "json_check.h"
#include "json_fast.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
reference(const uint8_t *data, size_t size, size_t cut)
{
	static struct json_check jc;

	json_check_init(&jc);
	if (json_check_feed(&jc, data, cut) != 0 ||
	    json_check_feed(&jc, data + cut, size - cut) != 0)
		return 0;
	return json_check_finish(&jc);
}

/* Fed in pieces of step bytes after a first piece of cut bytes. */
static int
fast(int isa, const uint8_t *data, size_t size, size_t cut, size_t step)
{
	static struct json_fast jf;
	size_t off;

	json_fast_init(&jf, isa);
	if (json_fast_feed(&jf, data, cut) != 0)
		return 0;
	for (off = cut; off < size; off += step) {
		size_t n = size - off < step ? size - off : step;

		if (json_fast_feed(&jf, data + off, n) != 0)
			return 0;
	}
	return json_fast_finish(&jf);
}

/* Leading whitespace changes no answer: data after k spaces puts every
 * byte at another place in its block. */
static int
shifted(int isa, const uint8_t *data, size_t size, size_t k)
{
	static uint8_t buf[JSON_BLOCK + 4096];

	memset(buf, ' ', k);
	memcpy(buf + k, data, size);
	return fast(isa, buf, k + size, k + size, 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int want = reference(data, size, size), isa;
	size_t cut, k, pick = size ? data[0] % (size + 1) : 0;
	size_t step = size ? 1 + data[size - 1] % 97 : 1;

	if (reference(data, size, pick) != want)
		__builtin_trap();
	/* Every classifier whole, cut once and in odd pieces; the scalar one
	 * also cut at every place around the first block ends (the cuts
	 * exercise the block buffer, which all classifiers share). */
	for (isa = LFP_ISA_SCALAR; isa <= lfp_cpu_isa(); isa++)
		if (fast(isa, data, size, size, 1) != want ||
		    fast(isa, data, size, pick, size) != want ||
		    fast(isa, data, size, pick % 64, step) != want)
			__builtin_trap();
	for (cut = 0; cut < size && cut < 130; cut++)
		if (fast(LFP_ISA_SCALAR, data, size, cut, size) != want)
			__builtin_trap();
	/* Short inputs at every place in a block, with the best classifier
	 * (a longer one at one place). */
	if (size <= 4096) {
		for (k = size < 256 ? 1 : pick % JSON_BLOCK; k < JSON_BLOCK;
		    k += size < 256 ? 1 : JSON_BLOCK)
			if (shifted(lfp_cpu_isa(), data, size, k) != want)
				__builtin_trap();
	}
	return 0;
}
