/* Substring search (see search.h).
 *
 * With a vector unit: the places where the needle's first and last bytes
 * both match, 64 (or 32) at a time, and only there a memcmp of the rest;
 * in text few places pass both bytes, so this runs at memory speed.
 * Adversarial input (every place passes) must not make it quadratic: the
 * bytes the memcmps may compare are counted, and once they pass twice the
 * bytes scanned (plus a constant), the rest of the buffer goes to libc's
 * memmem, which glibc and musl implement in linear time (Two-Way). Without
 * a vector unit, memmem alone. */
#include "search.h"
#include "lfplugin.h"

#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* Verification allowed before the switch to memmem, beyond 2 per byte. */
#define SEARCH_SLACK (64 * 1024)

static ptrdiff_t
by_memmem(const uint8_t *hay, size_t len, size_t from, const uint8_t *needle,
    size_t nlen)
{
	const uint8_t *p = memmem(hay + from, len - from, needle, nlen);

	return p == NULL ? -1 : p - hay;
}

#if defined(__x86_64__)
__attribute__((target("avx512f,avx512bw,bmi,bmi2")))
static ptrdiff_t
find_avx512(const uint8_t *hay, size_t len, const uint8_t *needle,
    size_t nlen)
{
	const __m512i first = _mm512_set1_epi8((char)needle[0]);
	const __m512i last = _mm512_set1_epi8((char)needle[nlen - 1]);
	size_t i = 0, work = 0;

	for (; len - i >= 64 + nlen - 1; i += 64) {
		uint64_t m = _mm512_cmpeq_epi8_mask(
		    _mm512_loadu_si512((const void *)(hay + i)), first) &
		    _mm512_cmpeq_epi8_mask(_mm512_loadu_si512(
		    (const void *)(hay + i + nlen - 1)), last);

		while (m != 0) {
			size_t k = i + (size_t)__builtin_ctzll(m);

			m &= m - 1;
			if (memcmp(hay + k + 1, needle + 1, nlen - 2) == 0)
				return (ptrdiff_t)k;
			work += nlen;
		}
		if (work > 2 * i + SEARCH_SLACK)
			break;		/* adversarial: linear from here */
	}
	return by_memmem(hay, len, i, needle, nlen);
}

__attribute__((target("avx2,bmi,bmi2")))
static ptrdiff_t
find_avx2(const uint8_t *hay, size_t len, const uint8_t *needle, size_t nlen)
{
	const __m256i first = _mm256_set1_epi8((char)needle[0]);
	const __m256i last = _mm256_set1_epi8((char)needle[nlen - 1]);
	size_t i = 0, work = 0;

	for (; len - i >= 32 + nlen - 1; i += 32) {
		uint32_t m = (uint32_t)_mm256_movemask_epi8(_mm256_and_si256(
		    _mm256_cmpeq_epi8(_mm256_loadu_si256(
		    (const __m256i *)(hay + i)), first),
		    _mm256_cmpeq_epi8(_mm256_loadu_si256(
		    (const __m256i *)(hay + i + nlen - 1)), last)));

		while (m != 0) {
			size_t k = i + (size_t)__builtin_ctz(m);

			m &= m - 1;
			if (memcmp(hay + k + 1, needle + 1, nlen - 2) == 0)
				return (ptrdiff_t)k;
			work += nlen;
		}
		if (work > 2 * i + SEARCH_SLACK)
			break;
	}
	return by_memmem(hay, len, i, needle, nlen);
}
#endif

ptrdiff_t
search_find(const uint8_t *hay, size_t len, const uint8_t *needle,
    size_t nlen, int isa)
{
	if (nlen == 0 || nlen > SEARCH_NEEDLE_MAX || len < nlen)
		return -1;
#if defined(__x86_64__)
	/* A one-byte needle is memchr's job (inside memmem). */
	if (nlen >= 2 && isa >= LFP_ISA_AVX512)
		return find_avx512(hay, len, needle, nlen);
	if (nlen >= 2 && isa >= LFP_ISA_AVX2)
		return find_avx2(hay, len, needle, nlen);
#else
	(void)isa;
#endif
	return by_memmem(hay, len, 0, needle, nlen);
}
