/* Variants of the official plugins for bench/plugins, run through the
 * sandbox beside the real ones (bench/README.md):
 *
 *   utf8-read    is-utf8 reading the input into a 256 KiB buffer instead
 *                of mapping it: the cost of the copy, measured
 *   utf8-scalar  is-utf8 as it was: 64 KiB reads, the byte-wise decoder
 *   json-old     is-json as it was: 64 KiB reads, json_check.c
 *
 * Built static like every plugin, from the SDK. Not shipped. */
#include "lfplugin.h"

#if defined(VARIANT_JSON_OLD)
#include "json_check.h"
#endif

#include <string.h>

#if defined(VARIANT_UTF8_SCALAR)
/* The SDK's byte-wise decoder with its 8-byte ASCII skip, as lfp_utf8_feed
 * was before the vector kernels. */
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
#endif

int
main(void)
{
#if defined(VARIANT_UTF8_READ)
	static uint8_t buf[256 * 1024];
	struct lfp_utf8 st;
	ssize_t n;

	lfp_utf8_init(&st);
	while ((n = lfp_read(buf, sizeof(buf))) > 0)
		if (lfp_utf8_feed(&st, buf, (size_t)n) != 0)
			lfp_answer(0);
	if (n < 0)
		lfp_fail("utf8-read: read error");
	lfp_answer(lfp_utf8_finish(&st) == 0);
#elif defined(VARIANT_UTF8_SCALAR)
	static uint8_t buf[64 * 1024];
	struct lfp_utf8 st;
	ssize_t n;

	lfp_utf8_init(&st);
	while ((n = lfp_read(buf, sizeof(buf))) > 0)
		if (feed_scalar(&st, buf, (size_t)n) != 0)
			lfp_answer(0);
	if (n < 0)
		lfp_fail("utf8-scalar: read error");
	lfp_answer(lfp_utf8_finish(&st) == 0);
#elif defined(VARIANT_JSON_OLD)
	static uint8_t buf[64 * 1024];
	static struct json_check jc;
	ssize_t n;

	json_check_init(&jc);
	while ((n = lfp_read(buf, sizeof(buf))) > 0)
		if (json_check_feed(&jc, buf, (size_t)n) != 0)
			lfp_answer(0);
	if (n < 0)
		lfp_fail("json-old: read error");
	lfp_answer(json_check_finish(&jc));
#else
#error "define VARIANT_UTF8_READ, VARIANT_UTF8_SCALAR or VARIANT_JSON_OLD"
#endif
}
