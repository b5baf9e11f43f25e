/* The UTF-8 lookup method's tables and its AVX-512 block step, shared by
 * the SDK's kernels (utf8.c) and by plugins that check UTF-8 inside their
 * own vector loop (is-json). Internal to the official plugins: a plugin
 * author calls lfp_utf8_feed() or lfp_utf8_valid(). x86-64 only. */
#ifndef LFP_UTF8_VEC_H
#define LFP_UTF8_VEC_H

#include <immintrin.h>
#include <stdint.h>

/*
 * The lookup method (after Keiser and Lemire, "Validating UTF-8 in less
 * than one instruction per byte", 2021). Every error of strict UTF-8 shows
 * in one pair of adjacent bytes (a = the previous byte, b = this one) or in
 * whether b must be a continuation byte. Each pair error below is a product
 * of three conditions, on a's high nibble, a's low nibble and b's high
 * nibble, so three 16-entry tables indexed by those nibbles, ANDed, give
 * one bit per error that holds:
 *
 *   bit   error            a (high, low nibble)      b (high nibble)
 *   0x01  lead cut short    C..F, any               0..7, C..F
 *   0x02  stray cont.       0..7, any               8..B
 *   0x04  overlong 2-byte   C, 0..1 (C0 C1)         8..B
 *   0x08  overlong 3-byte   E, 0 (E0)               8..9
 *   0x10  surrogate         E, D (ED)               A..B
 *   0x20  too large         F, 4..F (F4..FF)        9..B
 *   0x40  overlong 4-byte   F, 0 (F0)               8
 *         or too large      F, 5..F (F5..FF)        8
 *   0x80  two conts.        8..B, any               8..B
 *
 * Bit 0x80 is not an error by itself: a continuation after a continuation
 * is right exactly where the byte two back is a 3- or 4-byte lead (E0..FF)
 * or the byte three back a 4-byte lead (F0..FF). XORing that "must be a
 * third or fourth byte" bit into 0x80 leaves a non-zero byte wherever the
 * input is wrong. A lead with too few bytes before the end is caught by
 * checking one block of zero bytes after the last.
 */
static const uint8_t lfp_utf8_tab_prev_hi[16] = {
	0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02,	/* 0..7 ASCII */
	0x80, 0x80, 0x80, 0x80,				/* 8..B cont. */
	0x05,						/* C */
	0x01,						/* D */
	0x19,						/* E */
	0x61,						/* F */
};
static const uint8_t lfp_utf8_tab_prev_lo[16] = {
	0xcf, 0x87, 0x83, 0x83, 0xa3, 0xe3, 0xe3, 0xe3,
	0xe3, 0xe3, 0xe3, 0xe3, 0xe3, 0xf3, 0xe3, 0xe3,
};
static const uint8_t lfp_utf8_tab_cur_hi[16] = {
	0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,	/* 0..7 ASCII */
	0xce, 0xae, 0xb6, 0xb6,				/* 8, 9, A, B */
	0x01, 0x01, 0x01, 0x01,				/* C..F leads */
};

/* The error bits of a 64-byte block cur that follows prev (zeros before
 * the first block): zero when every byte of cur is right. */
__attribute__((target("avx512f,avx512bw")))
static inline __m512i
lfp_utf8_block_avx512(__m512i prev, __m512i cur)
{
	const __m512i t1 = _mm512_broadcast_i32x4(
	    _mm_loadu_si128((const __m128i *)lfp_utf8_tab_prev_hi));
	const __m512i t2 = _mm512_broadcast_i32x4(
	    _mm_loadu_si128((const __m128i *)lfp_utf8_tab_prev_lo));
	const __m512i t3 = _mm512_broadcast_i32x4(
	    _mm_loadu_si128((const __m128i *)lfp_utf8_tab_cur_hi));
	const __m512i nib = _mm512_set1_epi8(0x0f);
	__m512i sh, p1, p2, p3, sc;
	__mmask64 must;

	/* Each 16-byte lane after the one before it: prev's last lane,
	 * then cur's first three. */
	sh = _mm512_alignr_epi64(cur, prev, 6);
	p1 = _mm512_alignr_epi8(cur, sh, 15);
	p2 = _mm512_alignr_epi8(cur, sh, 14);
	p3 = _mm512_alignr_epi8(cur, sh, 13);
	sc = _mm512_and_si512(_mm512_and_si512(
	    _mm512_shuffle_epi8(t1, _mm512_and_si512(_mm512_srli_epi16(p1, 4), nib)),
	    _mm512_shuffle_epi8(t2, _mm512_and_si512(p1, nib))),
	    _mm512_shuffle_epi8(t3, _mm512_and_si512(_mm512_srli_epi16(cur, 4), nib)));
	must = _mm512_cmpgt_epu8_mask(p2, _mm512_set1_epi8((char)0xdf)) |
	    _mm512_cmpgt_epu8_mask(p3, _mm512_set1_epi8((char)0xef));
	return _mm512_xor_si512(sc, _mm512_maskz_mov_epi8(must,
	    _mm512_set1_epi8((char)0x80)));
}

#endif
