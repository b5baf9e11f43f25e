/* Strict streaming UTF-8 (RFC 3629, section 4's table), see lfplugin.h.
 *
 * The lead byte fixes how many continuation bytes follow and the range the
 * first of them may take; narrowing that first range is what refuses
 * overlongs (E0 80..9F, F0 80..8F), surrogates (ED A0..BF) and code points
 * above U+10FFFF (F4 90..BF, F5..FF). C0 and C1 are never lead bytes.
 *
 * lfp_utf8_step() is that table, a byte at a time: the reference. Whole
 * runs of input go through lfp_utf8_valid_isa(), which checks a buffer of
 * complete sequences with the widest vector unit the CPU has (the lookup
 * method, utf8_vec.h), or with the byte-at-a-time decoder where it has none;
 * lfp_utf8_feed() steps only through the bytes of a sequence cut by the
 * chunk's ends, so its answer and state are the byte-wise decoder's. */
#include "lfplugin.h"

#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>

#include "utf8_vec.h"
#endif

void
lfp_utf8_init(struct lfp_utf8 *st)
{
	memset(st, 0, sizeof(*st));
}

static int
lead(struct lfp_utf8 *st, uint8_t b)
{
	st->lo = 0x80;
	st->hi = 0xbf;
	if (b < 0x80) {
		st->cp = b;
		return LFP_UTF8_CHAR;
	}
	if (b >= 0xc2 && b <= 0xdf) {
		st->need = 1;
		st->cp = b & 0x1f;
	} else if (b >= 0xe0 && b <= 0xef) {
		st->need = 2;
		st->cp = b & 0x0f;
		if (b == 0xe0)
			st->lo = 0xa0;		/* overlong below U+0800 */
		else if (b == 0xed)
			st->hi = 0x9f;		/* U+D800..DFFF */
	} else if (b >= 0xf0 && b <= 0xf4) {
		st->need = 3;
		st->cp = b & 0x07;
		if (b == 0xf0)
			st->lo = 0x90;		/* overlong below U+10000 */
		else if (b == 0xf4)
			st->hi = 0x8f;		/* above U+10FFFF */
	} else {
		return LFP_UTF8_BAD;	/* 80..C1 (stray, overlong), F5..FF */
	}
	return LFP_UTF8_MORE;
}

int
lfp_utf8_step(struct lfp_utf8 *st, uint8_t b)
{
	if (st->need == 0)
		return lead(st, b);
	if (b < st->lo || b > st->hi)
		return LFP_UTF8_BAD;
	st->cp = st->cp << 6 | (b & 0x3f);
	st->lo = 0x80;
	st->hi = 0xbf;
	return --st->need == 0 ? LFP_UTF8_CHAR : LFP_UTF8_MORE;
}

/* The byte-wise decoder over a chunk, skipping ASCII eight bytes at a time
 * between sequences. 0, or -1 at the first invalid byte. */
static int
feed_scalar(struct lfp_utf8 *st, const uint8_t *buf, size_t len)
{
	size_t i = 0;

	while (i < len) {
		if (st->need == 0) {
			while (len - i >= 8) {
				uint64_t w;
				memcpy(&w, buf + i, sizeof(w));
				if (w & 0x8080808080808080ULL)
					break;
				i += 8;
			}
			while (i < len && buf[i] < 0x80)
				i++;
			if (i == len)
				break;
		}
		if (lfp_utf8_step(st, buf[i]) == LFP_UTF8_BAD)
			return -1;
		i++;
	}
	return 0;
}

static int
valid_scalar(const uint8_t *buf, size_t len)
{
	struct lfp_utf8 st;

	lfp_utf8_init(&st);
	return feed_scalar(&st, buf, len) == 0 && st.need == 0;
}

#if defined(__x86_64__)
/* Each kernel: 1 when buf holds only complete, valid sequences. Blocks
 * that are all ASCII after an ASCII block are skipped (an ASCII previous
 * block cannot leave a sequence open); the last, partial block is copied
 * into zeros, which also closes the input with the zero block. */

__attribute__((target("ssse3,sse4.1")))
static int
valid_sse4(const uint8_t *buf, size_t len)
{
	const __m128i t1 = _mm_loadu_si128((const __m128i *)lfp_utf8_tab_prev_hi);
	const __m128i t2 = _mm_loadu_si128((const __m128i *)lfp_utf8_tab_prev_lo);
	const __m128i t3 = _mm_loadu_si128((const __m128i *)lfp_utf8_tab_cur_hi);
	const __m128i nib = _mm_set1_epi8(0x0f), zero = _mm_setzero_si128();
	const __m128i e0 = _mm_set1_epi8((char)0xdf), f0 = _mm_set1_epi8((char)0xef);
	const __m128i hibit = _mm_set1_epi8((char)0x80);
	__m128i prev = zero, err = zero;
	uint8_t tail[16];
	int prev_ascii = 1, last = 0;
	size_t i = 0;

	while (!last) {
		__m128i cur, p1, p2, p3, sc, must;
		int ascii;

		if (len - i >= 16) {
			cur = _mm_loadu_si128((const __m128i *)(buf + i));
			i += 16;
		} else {
			memset(tail, 0, sizeof(tail));
			if (len > i)
				memcpy(tail, buf + i, len - i);
			cur = _mm_loadu_si128((const __m128i *)tail);
			last = 1;
		}
		ascii = _mm_movemask_epi8(cur) == 0;
		if (!(ascii && prev_ascii)) {
			p1 = _mm_alignr_epi8(cur, prev, 15);
			p2 = _mm_alignr_epi8(cur, prev, 14);
			p3 = _mm_alignr_epi8(cur, prev, 13);
			sc = _mm_and_si128(_mm_and_si128(
			    _mm_shuffle_epi8(t1, _mm_and_si128(_mm_srli_epi16(p1, 4), nib)),
			    _mm_shuffle_epi8(t2, _mm_and_si128(p1, nib))),
			    _mm_shuffle_epi8(t3, _mm_and_si128(_mm_srli_epi16(cur, 4), nib)));
			must = _mm_or_si128(_mm_subs_epu8(p2, e0), _mm_subs_epu8(p3, f0));
			must = _mm_and_si128(_mm_cmpgt_epi8(must, zero), hibit);
			err = _mm_or_si128(err, _mm_xor_si128(sc, must));
		}
		prev = cur;
		prev_ascii = ascii;
	}
	return _mm_testz_si128(err, err);
}

__attribute__((target("avx2")))
static int
valid_avx2(const uint8_t *buf, size_t len)
{
	const __m256i t1 = _mm256_broadcastsi128_si256(
	    _mm_loadu_si128((const __m128i *)lfp_utf8_tab_prev_hi));
	const __m256i t2 = _mm256_broadcastsi128_si256(
	    _mm_loadu_si128((const __m128i *)lfp_utf8_tab_prev_lo));
	const __m256i t3 = _mm256_broadcastsi128_si256(
	    _mm_loadu_si128((const __m128i *)lfp_utf8_tab_cur_hi));
	const __m256i nib = _mm256_set1_epi8(0x0f), zero = _mm256_setzero_si256();
	const __m256i e0 = _mm256_set1_epi8((char)0xdf);
	const __m256i f0 = _mm256_set1_epi8((char)0xef);
	const __m256i hibit = _mm256_set1_epi8((char)0x80);
	__m256i prev = zero, err = zero;
	uint8_t tail[32];
	int prev_ascii = 1, last = 0;
	size_t i = 0;

	while (!last) {
		__m256i cur, sh, p1, p2, p3, sc, must;
		int ascii;

		if (len - i >= 32) {
			cur = _mm256_loadu_si256((const __m256i *)(buf + i));
			i += 32;
		} else {
			memset(tail, 0, sizeof(tail));
			if (len > i)
				memcpy(tail, buf + i, len - i);
			cur = _mm256_loadu_si256((const __m256i *)tail);
			last = 1;
		}
		ascii = _mm256_movemask_epi8(cur) == 0;
		if (!(ascii && prev_ascii)) {
			/* The 16 bytes before each lane: prev's high lane
			 * before cur's low one, cur's low before its high. */
			sh = _mm256_permute2x128_si256(prev, cur, 0x21);
			p1 = _mm256_alignr_epi8(cur, sh, 15);
			p2 = _mm256_alignr_epi8(cur, sh, 14);
			p3 = _mm256_alignr_epi8(cur, sh, 13);
			sc = _mm256_and_si256(_mm256_and_si256(
			    _mm256_shuffle_epi8(t1, _mm256_and_si256(_mm256_srli_epi16(p1, 4), nib)),
			    _mm256_shuffle_epi8(t2, _mm256_and_si256(p1, nib))),
			    _mm256_shuffle_epi8(t3, _mm256_and_si256(_mm256_srli_epi16(cur, 4), nib)));
			must = _mm256_or_si256(_mm256_subs_epu8(p2, e0),
			    _mm256_subs_epu8(p3, f0));
			must = _mm256_and_si256(_mm256_cmpgt_epi8(must, zero), hibit);
			err = _mm256_or_si256(err, _mm256_xor_si256(sc, must));
		}
		prev = cur;
		prev_ascii = ascii;
	}
	return _mm256_testz_si256(err, err);
}

__attribute__((target("avx512f,avx512bw")))
static int
valid_avx512(const uint8_t *buf, size_t len)
{
	__m512i prev = _mm512_setzero_si512(), err = _mm512_setzero_si512();
	int prev_ascii = 1, last = 0;
	size_t i = 0;

	while (!last) {
		__m512i cur;
		int ascii;

		if (len - i >= 64) {
			cur = _mm512_loadu_si512((const void *)(buf + i));
			i += 64;
		} else {
			/* A masked load reads only the bytes that are there. */
			cur = _mm512_maskz_loadu_epi8(
			    len - i == 0 ? 0 : ~0ULL >> (64 - (len - i)), buf + i);
			last = 1;
		}
		ascii = _mm512_movepi8_mask(cur) == 0;
		if (!(ascii && prev_ascii)) {
			err = _mm512_or_si512(err, lfp_utf8_block_avx512(prev, cur));
		}
		prev = cur;
		prev_ascii = ascii;
	}
	return _mm512_test_epi8_mask(err, err) == 0;
}
#endif /* __x86_64__ */

int
lfp_utf8_valid_isa(int isa, const uint8_t *buf, size_t len)
{
	switch (isa) {
#if defined(__x86_64__)
	case LFP_ISA_AVX512:
		return valid_avx512(buf, len);
	case LFP_ISA_AVX2:
		return valid_avx2(buf, len);
	case LFP_ISA_SSE4:
		return valid_sse4(buf, len);
#endif
	default:
		return valid_scalar(buf, len);
	}
}

int
lfp_utf8_valid(const uint8_t *buf, size_t len)
{
	return lfp_utf8_valid_isa(lfp_cpu_isa(), buf, len);
}

/* Where a sequence that the chunk's end cuts short begins: the last byte
 * that is not a continuation byte, if it is among the last three and is a
 * lead expecting more bytes than are left. len when there is none. */
static size_t
cut_sequence(const uint8_t *buf, size_t len)
{
	size_t k;

	for (k = 1; k <= 3 && k <= len; k++) {
		uint8_t b = buf[len - k];

		if ((b & 0xc0) == 0x80)
			continue;
		if (b >= 0xc0 && k < (b >= 0xf0 ? 4u : b >= 0xe0 ? 3u : 2u))
			return len - k;
		break;
	}
	return len;
}

int
lfp_utf8_feed(struct lfp_utf8 *st, const uint8_t *buf, size_t len)
{
	size_t i = 0, cut;

	/* Finish the sequence the last chunk left open. */
	while (st->need != 0 && i < len)
		if (lfp_utf8_step(st, buf[i++]) == LFP_UTF8_BAD)
			return -1;
	if (i == len)
		return 0;
	/* Whole sequences in the middle, then open the cut one. */
	cut = i + cut_sequence(buf + i, len - i);
	if (!lfp_utf8_valid(buf + i, cut - i))
		return -1;
	for (; cut < len; cut++)
		if (lfp_utf8_step(st, buf[cut]) == LFP_UTF8_BAD)
			return -1;
	return 0;
}

int
lfp_utf8_finish(const struct lfp_utf8 *st)
{
	return st->need == 0 ? 0 : -1;
}

int
lfp_is_text(const uint8_t *buf, size_t len)
{
	struct lfp_utf8 st;
	size_t i;

	lfp_utf8_init(&st);
	for (i = 0; i < len; i++) {
		int r = lfp_utf8_step(&st, buf[i]);
		if (r == LFP_UTF8_BAD)
			return 0;
		if (r == LFP_UTF8_CHAR &&
		    (st.cp < 0x20 || (st.cp >= 0x7f && st.cp <= 0x9f)))
			return 0;
	}
	return lfp_utf8_finish(&st) == 0;
}
