/* Keys that look like other keys: the one warning line of every screen
 * that shows a key (render.h, docs/rendering.md "Keys that look like
 * others"). ICU gives normalization (unorm2), UTS #39 (uspoof: skeletons,
 * restriction levels, the recommended set) and the bidi classes. */
#include "lib/render.h"
#include "lib/render_int.h"
#include "lib/str.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/uscript.h>
#include <unicode/uset.h>
#include <unicode/uspoof.h>
#include <unicode/utf16.h>

/* A skeleton of one character is a few code points (the longest UTS #39
 * prototype is 18 UTF-16 units); a longer one is treated as a look-alike. */
#define SK_MAX		32
#define MAX_SCRIPTS	8

static struct {
	pthread_once_t once;
	const char *why;		/* NULL: opened */
	USpoofChecker *sc;
	const USet *recommended;	/* UTS #39 Identifier_Status=Allowed */
	const UNormalizer2 *nfc, *nfd;
	UChar ascii_sk[0x7f][SK_MAX];	/* skeleton of each printable ASCII */
	int32_t ascii_len[0x7f];
} icu = { .once = PTHREAD_ONCE_INIT, .why = "not opened" };

static void
open_icu(void)
{
	UErrorCode e = U_ZERO_ERROR;
	UChar a;

	icu.nfc = unorm2_getNFCInstance(&e);
	icu.nfd = unorm2_getNFDInstance(&e);
	icu.recommended = uspoof_getRecommendedSet(&e);
	icu.sc = uspoof_open(&e);
	if (U_FAILURE(e)) {
		icu.why = "ICU's Unicode data could not be opened";
		return;
	}
	/* The restriction level, and the level itself in the result (to
	 * tell "highly" from "moderately"): the level is the bar. */
	uspoof_setChecks(icu.sc, USPOOF_RESTRICTION_LEVEL | USPOOF_AUX_INFO, &e);
	uspoof_setRestrictionLevel(icu.sc, USPOOF_MODERATELY_RESTRICTIVE);
	for (a = 0x21; a < 0x7f && U_SUCCESS(e); a++)
		icu.ascii_len[a] = uspoof_getSkeleton(icu.sc, 0, &a, 1,
		    icu.ascii_sk[a], SK_MAX, &e);
	icu.why = U_FAILURE(e) ? "ICU's spoof checker could not be set up" :
	    NULL;
}

int
render_init(const char **why)
{
	pthread_once(&icu.once, open_icu);
	if (icu.why != NULL) {
		if (why != NULL)
			*why = icu.why;
		return -1;
	}
	return 0;
}

/* One decoded character of the key. */
struct cp {
	size_t off;		/* input byte offset */
	size_t len;		/* 0: a byte of invalid UTF-8 */
	UChar32 c;
	int in_mixed;		/* in a word past "highly restrictive" */
};

struct check {
	const char *in;
	size_t inlen;
	struct cp *cps;
	size_t n;
	unsigned char *force;	/* per input byte: escape on the line */
	UScriptCode scripts[MAX_SCRIPTS];	/* of the mixed words, in order */
	size_t nscripts;
	unsigned warn;
};

static int
is_rtl(UChar32 c)
{
	UCharDirection d = u_charDirection(c);

	return d == U_RIGHT_TO_LEFT || d == U_RIGHT_TO_LEFT_ARABIC;
}

static void
add_script(struct check *k, UScriptCode s)
{
	size_t i;

	for (i = 0; i < k->nscripts; i++)
		if (k->scripts[i] == s)
			return;
	if (k->nscripts < MAX_SCRIPTS)
		k->scripts[k->nscripts++] = s;
}

/* The word cps[a..b) (letters and marks) against "moderately
 * restrictive" (UTS #39 5.2), as the old mixed-script rule did: the
 * letters of its minority scripts are escaped on the line. */
static void
check_word(struct check *k, size_t a, size_t b, USpoofCheckResult *res)
{
	UErrorCode e = U_ZERO_ERROR;
	UScriptCode ws[MAX_SCRIPTS];
	size_t count[MAX_SCRIPTS] = { 0 }, nws = 0, i, j, top = 0;
	const char *w = k->in + k->cps[a].off;
	int32_t wlen = (int32_t)(k->cps[b - 1].off + k->cps[b - 1].len -
	    k->cps[a].off);
	int32_t level;

	for (i = a; i < b && k->cps[i].c < 0x80; i++)
		;
	if (i == b)
		return;			/* plain ASCII: never warned */
	(void)uspoof_check2UTF8(icu.sc, w, wlen, res, &e);
	level = uspoof_getCheckResultRestrictionLevel(res, &e);
	if (U_FAILURE(e)) {
		k->warn |= RENDER_WARN_UNCHECKED;
		return;
	}
	if (level > USPOOF_HIGHLY_RESTRICTIVE)
		for (i = a; i < b; i++)
			k->cps[i].in_mixed = 1;
	if (level <= USPOOF_MODERATELY_RESTRICTIVE)
		return;
	k->warn |= RENDER_WARN_MIXED;
	for (i = a; i < b; i++) {
		UScriptCode s = uscript_getScript(k->cps[i].c, &e);

		if (!(U_GET_GC_MASK(k->cps[i].c) & U_GC_L_MASK) ||
		    s == USCRIPT_COMMON || s == USCRIPT_INHERITED)
			continue;
		for (j = 0; j < nws && ws[j] != s; j++)
			;
		if (j == nws && nws < MAX_SCRIPTS)
			ws[nws++] = s;
		if (j < nws)
			count[j]++;
	}
	for (j = 0; j < nws; j++) {
		add_script(k, ws[j]);
		if (count[j] > count[top])
			top = j;
	}
	for (i = a; i < b; i++) {
		UScriptCode s = uscript_getScript(k->cps[i].c, &e);

		for (j = 0; j < nws; j++)
			if (ws[j] == s && j != top)
				k->force[k->cps[i].off] = 1;
	}
}

/* Whether sk[0..n) is all ASCII. */
static int
all_ascii(const UChar *sk, int32_t n)
{
	int32_t i;

	for (i = 0; i < n; i++)
		if (sk[i] >= 0x80)
			return 0;
	return 1;
}

/* Columns of what a skeleton looks like: one when it is the skeleton of
 * one ASCII character ("rn" is the skeleton of "m"), else its width. */
static int
skeleton_cols(const UChar *sk, int32_t n)
{
	int32_t i = 0;
	int cols = 0;
	unsigned a;

	for (a = 0x21; a < 0x7f; a++)
		if (icu.ascii_len[a] == n &&
		    memcmp(icu.ascii_sk[a], sk, (size_t)n * sizeof(UChar)) == 0)
			return 1;
	while (i < n) {
		UChar32 c;
		int w;

		U16_NEXT(sk, i, n, c);
		w = render_cp_width(c);
		cols += w > 0 ? w : 0;
	}
	return cols;
}

/* A character outside ASCII, shown as itself, that stands for another
 * text on the card. Its skeleton (UTS #39: the prototype it is
 * confusable with) differs from its NFD; it takes the columns that text
 * takes (a full-width form is two columns for a one-column prototype: it
 * does not pass for it on a terminal); a currency sign counts only when
 * it passes for ASCII (invoices are named "100€": the euro sign is the
 * usual one of its pair, UTS #39's prototype is a rare C with a bar);
 * and either it is not in UTS #39's
 * recommended set (no living language needs it in a name: 𝚊, ɑ, ⅿ, ∕),
 * or it is in a word that mixes scripts past "highly restrictive" (gօօgle:
 * Latin and Armenian pass "moderately"). A recommended letter of a
 * word's own script (Cyrillic а in "Счёт", Turkish ı, Hangul) is not:
 * those are whole scripts, and the residual is in docs/rendering.md. */
static int
lookalike(const struct cp *p)
{
	UErrorCode e = U_ZERO_ERROR;
	UChar u[2], sk[SK_MAX], d[SK_MAX];
	int32_t ulen = 0, sklen, dlen;
	UBool bad = 0;

	U16_APPEND(u, ulen, 2, p->c, bad);
	if (bad)
		return 1;
	sklen = uspoof_getSkeleton(icu.sc, 0, u, ulen, sk, SK_MAX, &e);
	dlen = unorm2_normalize(icu.nfd, u, ulen, d, SK_MAX, &e);
	if (U_FAILURE(e))
		return 1;
	if (sklen == dlen && memcmp(sk, d, (size_t)sklen * sizeof(UChar)) == 0)
		return 0;
	if (skeleton_cols(sk, sklen) != render_cp_width(p->c))
		return 0;
	if ((U_GET_GC_MASK(p->c) & U_GC_SC_MASK) && !all_ascii(sk, sklen))
		return 0;
	return !uset_contains(icu.recommended, p->c) || p->in_mixed;
}

/* Not NFC: the whole key (invalid bytes as U+FFFD), then the characters
 * NFC may change (NFC_Quick_Check No or Maybe) are the culprits. */
static void
check_nfc(struct check *k)
{
	UErrorCode e = U_ZERO_ERROR;
	UChar *u = malloc((k->n + 1) * 2 * sizeof(UChar));
	int32_t ulen = 0;
	UBool bad = 0, ok;
	size_t i;

	if (u == NULL) {
		k->warn |= RENDER_WARN_UNCHECKED;
		return;
	}
	for (i = 0; i < k->n; i++)
		U16_APPEND(u, ulen, (int32_t)(k->n * 2 + 2),
		    k->cps[i].len ? k->cps[i].c : 0xFFFD, bad);
	ok = unorm2_isNormalized(icu.nfc, u, ulen, &e);
	free(u);
	if (U_FAILURE(e) || bad) {
		k->warn |= RENDER_WARN_UNCHECKED;
		return;
	}
	if (ok)
		return;
	k->warn |= RENDER_WARN_NFC;
	for (i = 0; i < k->n; i++)
		if (k->cps[i].len && u_getIntPropertyValue(k->cps[i].c,
		    UCHAR_NFC_QUICK_CHECK) != UNORM_YES)
			k->force[k->cps[i].off] = 1;
}

static int
in_word(const struct cp *p)
{
	return p->len > 0 && (U_GET_GC_MASK(p->c) & (U_GC_L_MASK |
	    U_GC_M_MASK));
}

static void
run_checks(struct check *k)
{
	UErrorCode e = U_ZERO_ERROR;
	USpoofCheckResult *res = uspoof_openCheckResult(&e);
	size_t i, a;

	if (U_FAILURE(e)) {
		k->warn |= RENDER_WARN_UNCHECKED;
		return;
	}
	check_nfc(k);
	for (i = 0; i < k->n;) {
		if (!in_word(&k->cps[i])) {
			i++;
			continue;
		}
		for (a = i; i < k->n && in_word(&k->cps[i]); i++)
			;
		check_word(k, a, i, res);
	}
	uspoof_closeCheckResult(res);
	for (i = 0; i < k->n; i++) {
		const struct cp *p = &k->cps[i];

		if (p->len == 0 || p->c < 0x80 || render_never_raw(p->c))
			continue;
		if (is_rtl(p->c)) {
			k->warn |= RENDER_WARN_RTL;
			k->force[p->off] = 1;
		}
		if (lookalike(p)) {
			k->warn |= RENDER_WARN_LOOKALIKE;
			k->force[p->off] = 1;
		}
	}
}

/* "not NFC, look-alike characters, ...: " then the key, culprits
 * escaped; text a human reads, each part cut to what is left. */
static void
write_line(const struct check *k, unsigned flags, char *out, size_t outlen)
{
	const char *sep = "";
	size_t i, o;

	out[0] = '\0';
#define PART(bit, text) do { if (k->warn & (bit)) { o = strlen(out); \
	str_msg(out + o, outlen - o, "%s%s", sep, text); sep = ", "; } \
	} while (0)
	PART(RENDER_WARN_UNCHECKED, "could not be checked");
	PART(RENDER_WARN_NFC, "not NFC");
	PART(RENDER_WARN_LOOKALIKE, "look-alike characters");
	PART(RENDER_WARN_MIXED, "mixed scripts (");
	if (k->warn & RENDER_WARN_MIXED) {
		for (i = 0; i < k->nscripts; i++) {
			o = strlen(out);
			str_msg(out + o, outlen - o, "%s%s", i ? " + " : "",
			    uscript_getName(k->scripts[i]));
		}
		o = strlen(out);
		str_msg(out + o, outlen - o, ")");
	}
	PART(RENDER_WARN_RTL, "right-to-left letters");
#undef PART
	o = strlen(out);
	str_msg(out + o, outlen - o, ": ");
	o = strlen(out);
	if (o + 1 < outlen)
		render_force(k->in, k->inlen, flags | RENDER_QUOTE, k->force, 0,
		    out + o, outlen - o, NULL);
}

unsigned
render_key_warning(const char *in, size_t inlen, unsigned flags, char *out,
    size_t outlen)
{
	struct check k = { .in = in, .inlen = inlen };
	const uint8_t *s = (const uint8_t *)in;
	size_t i;

	if (outlen > 0)
		out[0] = '\0';
	for (i = 0; i < inlen && s[i] >= 0x20 && s[i] < 0x7f; i++)
		;
	if (i == inlen)
		return 0;		/* plain ASCII: never warned */
	k.cps = calloc(inlen, sizeof(*k.cps));
	k.force = calloc(inlen, 1);
	if (render_init(NULL) != 0 || k.cps == NULL || k.force == NULL) {
		k.warn = RENDER_WARN_UNCHECKED;
		free(k.force);
		k.force = NULL;
	} else {
		for (i = 0; i < inlen; k.n++) {
			struct cp *p = &k.cps[k.n];

			p->off = i;
			p->len = render_next_cp(s + i, inlen - i, &p->c);
			i += p->len ? p->len : 1;
		}
		run_checks(&k);
	}
	if (k.warn != 0 && outlen > 0)
		write_line(&k, flags, out, outlen);
	free(k.force);
	free(k.cps);
	return k.warn;
}
