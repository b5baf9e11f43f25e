/* Strict streaming UTF-8 (RFC 3629, section 4's table), see lfplugin.h.
 *
 * The lead byte fixes how many continuation bytes follow and the range the
 * first of them may take; narrowing that first range is what refuses
 * overlongs (E0 80..9F, F0 80..8F), surrogates (ED A0..BF) and code points
 * above U+10FFFF (F4 90..BF, F5..FF). C0 and C1 are never lead bytes. */
#include "lfplugin.h"

#include <string.h>

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

int
lfp_utf8_feed(struct lfp_utf8 *st, const uint8_t *buf, size_t len)
{
	size_t i = 0;

	while (i < len) {
		/* Between sequences, skip ASCII eight bytes at a time. */
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
