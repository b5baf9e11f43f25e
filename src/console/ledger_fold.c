/* How a profile's source folds names, for the ledger's key (docs/ledger.md,
 * "Spellings"). ICU's normalizer and full case folding: the same library
 * the renderer uses (docs/dependencies.md). */
#include "console/ledger.h"

#include <string.h>

#include <unicode/unorm2.h>
#include <unicode/ustring.h>

/* UTF-16 units a key can need at most: a UTF-8 byte is at most one unit,
 * and NFC and case folding grow it by a small factor (U+0390 folds to
 * three code points; the bound is generous). */
#define U16_MAX	(4 * LEDGER_MAX_KEY_BYTES)

const char *
ledger_fold_name(enum ledger_fold f)
{
	switch (f) {
	case LEDGER_FOLD_NONE: return "none";
	case LEDGER_FOLD_NFC: return "nfc";
	case LEDGER_FOLD_CASE: return "case";
	}
	return "none";
}

int
ledger_fold_parse(const char *s, enum ledger_fold *out)
{
	if (strcmp(s, "none") == 0)
		*out = LEDGER_FOLD_NONE;
	else if (strcmp(s, "nfc") == 0)
		*out = LEDGER_FOLD_NFC;
	else if (strcmp(s, "case") == 0)
		*out = LEDGER_FOLD_CASE;
	else
		return -1;
	return 0;
}

static int
nfc(const UNormalizer2 *n, const UChar *in, int32_t len, UChar *out,
    int32_t cap, int32_t *outlen)
{
	UErrorCode st = U_ZERO_ERROR;

	*outlen = unorm2_normalize(n, in, len, out, cap, &st);
	return U_SUCCESS(st) && *outlen < cap ? 0 : -1;
}

/* Bytes that are not UTF-8 fold by ASCII case only (case), or not at all:
 * they cannot be normalized, and folding less never merges two names a
 * source tells apart. */
static void
ascii_fold(const char *key, enum ledger_fold f, char *out)
{
	size_t i;

	for (i = 0; key[i] != '\0'; i++)
		out[i] = f == LEDGER_FOLD_CASE && key[i] >= 'A' && key[i] <= 'Z' ?
		    (char)(key[i] + ('a' - 'A')) : key[i];
	out[i] = '\0';
}

int
ledger_fold_key(enum ledger_fold f, const char *key, char *out,
    size_t outlen)
{
	UChar a[U16_MAX + 1], b[U16_MAX + 1];
	UErrorCode st = U_ZERO_ERROR;
	const UNormalizer2 *n;
	int32_t la = 0, lb = 0, lo = 0;
	size_t klen = strlen(key);

	if (klen >= outlen)
		return -1;
	if (f == LEDGER_FOLD_NONE) {
		memcpy(out, key, klen + 1);
		return 0;
	}
	n = unorm2_getNFCInstance(&st);
	if (U_FAILURE(st))
		return -1;
	u_strFromUTF8(a, U16_MAX, &la, key, (int32_t)klen, &st);
	if (U_FAILURE(st)) {
		ascii_fold(key, f, out);
		return 0;
	}
	/* case: NFC, full case folding, NFC again (folding can undo a
	 * composition), which is canonical caseless matching's result up to
	 * the choice of NFC. */
	if (nfc(n, a, la, b, U16_MAX, &lb) != 0)
		return -1;
	if (f == LEDGER_FOLD_CASE) {
		st = U_ZERO_ERROR;
		la = u_strFoldCase(a, U16_MAX, b, lb, U_FOLD_CASE_DEFAULT, &st);
		if (U_FAILURE(st) || la >= U16_MAX ||
		    nfc(n, a, la, b, U16_MAX, &lb) != 0)
			return -1;
	}
	st = U_ZERO_ERROR;
	u_strToUTF8(out, (int32_t)outlen, &lo, b, lb, &st);
	if (U_FAILURE(st) || (size_t)lo >= outlen || st == U_STRING_NOT_TERMINATED_WARNING)
		return -1;
	out[lo] = '\0';
	return 0;
}
