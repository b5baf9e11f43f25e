/* Unit tests for src/lib/render.c: what a human sees of outside text. Each
 * class of the rules (docs/rendering.md) is shown as typed or escaped as
 * the rules say; the output is bounded (canaries after every buffer),
 * measured in display columns, never cut inside a character or an escape,
 * and unambiguous (unescaping it gives the input back). Every render runs
 * on an exact-size heap copy so ASan sees an overread. cmocka, TAP. */
#include "lib/render.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define CANARY 0x5a

static size_t
render_n(const char *in, size_t n, unsigned flags, size_t max_cols,
    char *out, size_t outlen, struct render_info *ri)
{
	char *copy = malloc(n == 0 ? 1 : n);
	char *buf = malloc(outlen + 16);
	size_t len, i;

	assert_non_null(copy);
	assert_non_null(buf);
	memcpy(copy, in, n);
	memset(buf, CANARY, outlen + 16);
	len = render_text(copy, n, flags, max_cols, buf, outlen, ri);
	for (i = outlen; i < outlen + 16; i++)
		assert_int_equal((unsigned char)buf[i], CANARY);
	if (outlen > 0) {
		assert_int_equal(strlen(buf), len);
		assert_true(len < outlen);
	}
	memcpy(out, buf, outlen);
	free(buf);
	free(copy);
	return len;
}

/* Render s whole (no limits) and compare. */
static void
check(const char *s, unsigned flags, const char *want)
{
	char out[4096];
	struct render_info ri;

	render_n(s, strlen(s), flags, 0, out, sizeof(out), &ri);
	assert_string_equal(out, want);
	assert_false(ri.truncated);
	assert_int_equal(ri.cols, render_width(out, strlen(out)));
	assert_int_equal(ri.escaped, strchr(want, '\\') != NULL);
}

static void
check_n(const char *s, size_t n, const char *want)
{
	char out[4096];

	render_n(s, n, 0, 0, out, sizeof(out), NULL);
	assert_string_equal(out, want);
}

static void
test_printable_as_typed(void **state)
{
	(void)state;
	check("2024/Zoë-Müller.pdf", 0, "2024/Zoë-Müller.pdf");
	check("2024/Счёт-фактура №5.pdf", 0, "2024/Счёт-фактура №5.pdf");
	check("請求書_2024年.pdf", 0, "請求書_2024年.pdf");
	check("東京タワーの領収書.pdf", 0, "東京タワーの領収書.pdf");
	check("한국어 문서.pdf", 0, "한국어 문서.pdf");
	check("📄 invoice 🧾.pdf", 0, "📄 invoice 🧾.pdf");
	check("Ελληνικά.txt", 0, "Ελληνικά.txt");
	check("مرحبا.pdf", 0, "مرحبا.pdf");	/* RTL letters, no controls */
	check("plain ascii ~!@#$%^&*()_+{}|:<>?", 0,
	    "plain ascii ~!@#$%^&*()_+{}|:<>?");
	/* Decomposed accents (macOS file names) and Hangul jamo */
	check("Zoe\xcc\x88", 0, "Zoe\xcc\x88");
	check("\xe1\x84\x92\xe1\x85\xa1\xe1\x86\xab", 0,
	    "\xe1\x84\x92\xe1\x85\xa1\xe1\x86\xab");	/* 한 as jamo */
	check("", 0, "");
}

static void
test_controls(void **state)
{
	(void)state;
	check("\x1b[2J\x1b]0;pwned\x07", 0, "\\x1b[2J\\x1b]0;pwned\\x07");
	check("a\tb\nc\rd\x08\x7f", 0, "a\\x09b\\x0ac\\x0dd\\x08\\x7f");
	check_n("a\0b", 3, "a\\x00b");
	check("\xc2\x9b" "31m \xc2\x85 \xc2\x80 \xc2\x9f", 0,
	    "\\u{009B}31m \\u{0085} \\u{0080} \\u{009F}");
	check("back\\slash \\x1b", 0, "back\\\\slash \\\\x1b");
}

static void
test_invalid_utf8(void **state)
{
	(void)state;
	check("\xff.pdf", 0, "\\xff.pdf");
	check("\xc3(", 0, "\\xc3(");
	check("\xc0\xae\xc0\xae", 0, "\\xc0\\xae\\xc0\\xae");	/* overlong */
	check("\xe0\x80\xae", 0, "\\xe0\\x80\\xae");
	check("\xed\xa0\x80", 0, "\\xed\\xa0\\x80");		/* surrogate */
	check("\xf4\x90\x80\x80", 0, "\\xf4\\x90\\x80\\x80");	/* > U+10FFFF */
	check("\xf8\x88\x80\x80\x80", 0, "\\xf8\\x88\\x80\\x80\\x80");
	check_n("ab\xe2\x80", 4, "ab\\xe2\\x80");			/* cut short */
	check("\x80" "a", 0, "\\x80a");
}

static void
test_trojan_source(void **state)
{
	(void)state;
	check("2024/\xe2\x80\xae" "fdp.exe", 0, "2024/\\u{202E}fdp.exe");
	check("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad", 0,
	    "\\u{202A}\\u{202B}\\u{202C}\\u{202D}");
	check("\xe2\x81\xa6" "isolate\xe2\x81\xa9\xe2\x81\xa7\xe2\x81\xa8", 0,
	    "\\u{2066}isolate\\u{2069}\\u{2067}\\u{2068}");
	check("\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", 0,
	    "\\u{200E}\\u{200F}\\u{061C}");
}

static void
test_invisible(void **state)
{
	(void)state;
	check("a\xe2\x80\x8b" "b\xe2\x80\x8c" "c\xe2\x80\x8d" "d", 0,
	    "a\\u{200B}b\\u{200C}c\\u{200D}d");
	check("\xe2\x81\xa0\xe2\x81\xa1\xe2\x81\xa2\xe2\x81\xa3\xe2\x81\xa4",
	    0, "\\u{2060}\\u{2061}\\u{2062}\\u{2063}\\u{2064}");
	check("\xef\xbb\xbf" "bom", 0, "\\u{FEFF}bom");
	check("\xe1\xa0\x8e\xe1\x85\x9f\xe1\x85\xa0\xe3\x85\xa4\xef\xbe\xa0", 0,
	    "\\u{180E}\\u{115F}\\u{1160}\\u{3164}\\u{FFA0}");
	/* the emoji ZWJ sequence: the joiner is shown */
	check("\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9", 0,
	    "\xf0\x9f\x91\xa8\\u{200D}\xf0\x9f\x91\xa9");
	/* spaces that are not U+0020, soft hyphen, line separators */
	check("a\xc2\xa0" "b\xe3\x80\x80" "c\xe2\x80\x83" "d\xc2\xad" "e", 0,
	    "a\\u{00A0}b\\u{3000}c\\u{2003}d\\u{00AD}e");
	check("a\xe2\x80\xa8" "b\xe2\x80\xa9" "c", 0, "a\\u{2028}b\\u{2029}c");
}

static void
test_tags_selectors_private(void **state)
{
	(void)state;
	/* tag characters spell "US" invisibly after a flag */
	check("x\xf3\xa0\x80\x81\xf3\xa0\x81\x95\xf3\xa0\x81\x93\xf3\xa0\x81\xbf",
	    0, "x\\u{E0001}\\u{E0055}\\u{E0053}\\u{E007F}");
	check("\xe2\x9d\xa4\xef\xb8\x8f", 0, "\xe2\x9d\xa4\\u{FE0F}");
	check("a\xef\xb8\x80" "b\xf3\xa0\x84\x80" "c\xe1\xa0\x8b", 0,
	    "a\\u{FE00}b\\u{E0100}c\\u{180B}");
	check("\xee\x80\x80\xf3\xb0\x80\x80\xf4\x8f\xbf\xbd", 0,
	    "\\u{E000}\\u{F0000}\\u{10FFFD}");		/* private use */
	check("\xcd\xb8\xf0\xaf\xbf\xbf\xef\xbf\xbf", 0,
	    "\\u{0378}\\u{2FFFF}\\u{FFFF}");		/* unassigned */
}

static void
test_combining(void **state)
{
	char s[64], want[128];
	int i;

	(void)state;
	check("e\xcc\x81\xcc\xa3", 0, "e\xcc\x81\xcc\xa3");
	/* a mark on the start, on a slash, on a quote, on a digit, on an
	 * escape: nothing to carry it, shown escaped */
	check("\xcc\x81" "a", 0, "\\u{0301}a");
	check("2024/\xcc\xb8" "a", 0, "2024/\\u{0338}a");
	check("1\xe2\x83\xa3", 0, "1\\u{20E3}");
	check("\x1b\xcc\x81", 0, "\\x1b\\u{0301}");
	check("\"\xcc\xb8", 0, "\"\\u{0338}");
	/* a small run on a letter, then a tower is cut short */
	strcpy(s, "a");
	strcpy(want, "a");
	for (i = 0; i < RENDER_MAX_MARKS + 2; i++) {
		strcat(s, "\xcd\x8a");		/* U+034A */
		strcat(want, i < RENDER_MAX_MARKS ? "\xcd\x8a" : "\\u{034A}");
	}
	check(s, 0, want);
	/* Devanagari: letters with their vowel signs and virama */
	check("\xe0\xa4\x95\xe0\xa5\x8d\xe0\xa4\xb7\xe0\xa4\xbf", 0,
	    "\xe0\xa4\x95\xe0\xa5\x8d\xe0\xa4\xb7\xe0\xa4\xbf");
}

static void
test_quoted(void **state)
{
	(void)state;
	check("a.pdf", RENDER_QUOTE, "\"a.pdf\"");
	check("a.pdf ", RENDER_QUOTE, "\"a.pdf \"");
	check(" a.pdf", RENDER_QUOTE, "\" a.pdf\"");
	check("a  b   c", RENDER_QUOTE, "\"a \\x20b \\x20\\x20c\"");
	check("say \"y\"", RENDER_QUOTE, "\"say \\\"y\\\"\"");
	check("say \"y\"", 0, "say \"y\"");
	check("a  b", 0, "a  b");
	check("", RENDER_QUOTE, "\"\"");
	check("Zoë \\", RENDER_QUOTE, "\"Zoë \\\\\"");
}

static void
test_ascii(void **state)
{
	(void)state;
	/* a terminal that is not UTF-8: nothing but printable ASCII, and
	 * still unambiguous */
	check("2024/Zoë-Счёт-請.pdf", RENDER_ASCII,
	    "2024/Zo\\u{00EB}-\\u{0421}\\u{0447}\\u{0451}\\u{0442}-"
	    "\\u{8ACB}.pdf");
	check("e\xcc\x81 \x1b \xff", RENDER_ASCII,
	    "e\\u{0301} \\x1b \\xff");
	check("a  \xd1\x9b", RENDER_ASCII | RENDER_QUOTE,
	    "\"a \\x20\\u{045B}\"");
}

static void
test_locale(void **state)
{
	(void)state;
	setenv("LC_ALL", "", 1);
	setenv("LC_CTYPE", "", 1);
	setenv("LANG", "C.UTF-8", 1);
	assert_int_equal(render_locale_flags(), 0);
	setenv("LANG", "en_US.utf8", 1);
	assert_int_equal(render_locale_flags(), 0);
	setenv("LC_CTYPE", "POSIX", 1);
	assert_int_equal(render_locale_flags(), RENDER_ASCII);
	setenv("LC_ALL", "de_DE.UTF-8", 1);
	assert_int_equal(render_locale_flags(), 0);
	setenv("LC_ALL", "de_DE.ISO-8859-1", 1);
	assert_int_equal(render_locale_flags(), RENDER_ASCII);
	unsetenv("LC_ALL");
	unsetenv("LC_CTYPE");
	unsetenv("LANG");
	assert_int_equal(render_locale_flags(), RENDER_ASCII);
}

static void
test_width(void **state)
{
	char out[256];
	struct render_info ri;

	(void)state;
	render_n("中文.pdf", strlen("中文.pdf"), 0, 0, out, sizeof(out), &ri);
	assert_int_equal(ri.cols, 8);
	render_n("📄", strlen("📄"), 0, 0, out, sizeof(out), &ri);
	assert_int_equal(ri.cols, 2);
	render_n("Zoe\xcc\x88", 5, 0, 0, out, sizeof(out), &ri);
	assert_int_equal(ri.cols, 3);
	render_n("\xe2\x80\xae", 3, 0, 0, out, sizeof(out), &ri);
	assert_int_equal(ri.cols, strlen("\\u{202E}"));
	assert_int_equal(render_width("中a", strlen("中a")), 3);
}

static void
test_truncation(void **state)
{
	char out[64];
	struct render_info ri;

	(void)state;
	/* fits exactly: not cut, though no marker would fit after it */
	render_n("abcdef", 6, 0, 6, out, 7, &ri);
	assert_string_equal(out, "abcdef");
	assert_false(ri.truncated);
	/* cut by columns; a wide character is never split */
	render_n("中文中文中文", strlen("中文中文中文"), 0, 8, out, sizeof(out), &ri);
	assert_string_equal(out, "中文...");
	assert_true(ri.truncated);
	assert_true(ri.cols <= 8);
	render_n("中文中文中文", strlen("中文中文中文"), 0, 9, out, sizeof(out), &ri);
	assert_string_equal(out, "中文中...");
	/* cut by bytes; an escape is never split */
	render_n("\x1b\x1b\x1b\x1b", 4, 0, 0, out, 13, &ri);
	assert_string_equal(out, "\\x1b\\x1b...");
	assert_true(ri.truncated);
	/* the marker goes after the closing quote */
	render_n("abcdefghij", 10, RENDER_QUOTE, 10, out, sizeof(out), &ri);
	assert_string_equal(out, "\"abcde\"...");
	assert_int_equal(ri.cols, 10);
	/* no room even for the marker: empty, marked as cut */
	render_n("abcdefghij", 10, RENDER_QUOTE, 0, out, 5, &ri);
	assert_string_equal(out, "");
	assert_true(ri.truncated);
	render_n("abc", 3, 0, 0, out, 0, &ri);
	assert_int_equal(ri.len, 0);
	render_n("abc", 3, 0, 0, out, 1, &ri);
	assert_string_equal(out, "");
}

static void
test_fit(void **state)
{
	const char *s = "ab\\u{202E}中\\x1be\xcc\x81\xcc\xa3" "f";
	size_t n = strlen(s);

	(void)state;
	assert_int_equal(render_fit(s, n, 1), 1);
	assert_int_equal(render_fit(s, n, 2), 2);
	/* an escape is one unit: not split */
	assert_int_equal(render_fit(s, n, 9), 2);
	assert_int_equal(render_fit(s, n, 10), 10);
	/* a wide character needs its two columns */
	assert_int_equal(render_fit(s, n, 11), 10);
	assert_int_equal(render_fit(s, n, 12), 13);
	/* a letter keeps its marks */
	assert_int_equal(render_fit(s, n, 16), 17);
	assert_int_equal(render_fit(s, n, 17), 22);
	assert_int_equal(render_fit(s, n, 18), 23);
	assert_int_equal(render_fit(s, n, 99), n);
	/* at least one unit, even when it does not fit */
	assert_int_equal(render_fit("中", 3, 1), 3);
	assert_int_equal(render_fit("", 0, 5), 0);
}

/* The inverse of the rendering: an escape is never ambiguous. */
static size_t
unrender(const char *s, char *out, int quoted)
{
	size_t i = 0, o = 0, n = strlen(s);

	if (quoted) {
		assert_true(n >= 2 && s[0] == '"' && s[n - 1] == '"');
		i = 1;
		n--;
	}
	while (i < n) {
		if (s[i] != '\\') {
			assert_false(quoted && s[i] == '"');
			out[o++] = s[i++];
			continue;
		}
		if (s[i + 1] == '\\' || s[i + 1] == '"') {
			out[o++] = s[i + 1];
			i += 2;
		} else if (s[i + 1] == 'x') {
			unsigned v;
			assert_int_equal(sscanf(s + i + 2, "%2x", &v), 1);
			out[o++] = (char)v;
			i += 4;
		} else {
			unsigned v;
			char *end;
			assert_int_equal(s[i + 1], 'u');
			assert_int_equal(s[i + 2], '{');
			v = (unsigned)strtoul(s + i + 3, &end, 16);
			assert_int_equal(*end, '}');
			if (v < 0x80) {
				out[o++] = (char)v;
			} else if (v < 0x800) {
				out[o++] = (char)(0xc0 | v >> 6);
				out[o++] = (char)(0x80 | (v & 63));
			} else if (v < 0x10000) {
				out[o++] = (char)(0xe0 | v >> 12);
				out[o++] = (char)(0x80 | (v >> 6 & 63));
				out[o++] = (char)(0x80 | (v & 63));
			} else {
				out[o++] = (char)(0xf0 | v >> 18);
				out[o++] = (char)(0x80 | (v >> 12 & 63));
				out[o++] = (char)(0x80 | (v >> 6 & 63));
				out[o++] = (char)(0x80 | (v & 63));
			}
			i = (size_t)(end - s) + 1;
		}
	}
	return o;
}

static void
test_unambiguous(void **state)
{
	static const char *const samples[] = {
		"2024/Zoë \\x1b \\u{202E} \"q\"  x",
		"\x1b\xe2\x80\xae\xff\xc3(\xcc\x81\xf3\xa0\x80\x81  \t",
		"a\xcd\x8a\xcd\x8a\xcd\x8a\xcd\x8a\xcd\x8a\xcd\x8a",
		"請求書\xe2\x80\x8b📄 ",
	};
	char out[1024], back[1024];
	size_t i, n;
	int q;

	(void)state;
	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		for (q = 0; q < 2; q++) {
			render_n(samples[i], strlen(samples[i]),
			    q ? RENDER_QUOTE : 0, 0, out, sizeof(out), NULL);
			n = unrender(out, back, q);
			assert_int_equal(n, strlen(samples[i]));
			assert_memory_equal(back, samples[i], n);
		}
}

/* The key check (render_key_warning()), table-driven: each key with the
 * warning line it gets, NULL for none. The first rows pass on the
 * libunistring renderer too (its mixed-script rule); the rest are issue
 * 25 item 7: NFC, UTS #39 skeletons, the restriction level, RTL. */
struct key_case {
	const char *key;
	const char *warning;
};

static const struct key_case key_cases[] = {
	/* ordinary text in one script: as typed, no warning */
	{ "2024/Zoë-Müller.pdf", NULL },
	{ "2024/Счёт-фактура №5.pdf", NULL },
	{ "Україна/їжак ґанок.pdf", NULL },
	{ "Ελληνικά τιμολόγια.txt", NULL },
	{ "請求書_2024年.pdf", NULL },
	{ "東京タワーの領収書.pdf", NULL },
	{ "東京タワーのPDFです", NULL },
	{ "ヘルプ（２０２４）。「資料」・ー.pdf", NULL },	/* full-width */
	{ "한국어 문서.pdf", NULL },
	{ "한국어漢字abc", NULL },
	{ "注音ㄅㄆㄇabc", NULL },
	{ "中文文件 档案 报告.pdf", NULL },
	{ "हिन्दी दस्तावेज़.pdf", NULL },
	{ "ภาษาไทย.pdf", NULL },
	{ "Straße Søren Łódź Đorđe Işık Nguyễn Việt Ñandú.pdf", NULL },
	{ "📄 invoice 🧾.pdf", NULL },
	{ "Rechnung 100€ ¥5 1000₽ £3.pdf", NULL },	/* currency signs */
	{ "Ꭰ Cherokee", "look-alike characters: \"\\u{13A0} Cherokee\"" },
	{ "", NULL },
	/* plain ASCII never warns, though UTS #39 maps l/1/I, rn/m, 0/O */
	{ "invoices/2024/rn.pdf", NULL },
	{ "l1I|0O m rn vv w.pdf", NULL },
	{ "a\x1b[2Jb", NULL },
	/* mixed scripts (the old rule, now "moderately restrictive") */
	{ "p\xd0\xb0ypal.pdf", "look-alike characters, mixed scripts "
	    "(Latin + Cyrillic): \"p\\u{0430}ypal.pdf\"" },
	{ "\xd0\xb0pple-invoice.pdf", "look-alike characters, mixed scripts "
	    "(Cyrillic + Latin): \"\\u{0430}pple-invoice.pdf\"" },
	{ "p\xce\xb1yp\xce\xb1l", "look-alike characters, mixed scripts "
	    "(Latin + Greek): \"p\\u{03B1}yp\\u{03B1}l\"" },
	{ "日本の한국", "mixed scripts (Han + Hiragana + Hangul): "
	    "\"日本\\u{306E}\\u{D55C}\\u{AD6D}\"" },
	{ "p\xd0\xb0y\x1bpal", "look-alike characters, mixed scripts "
	    "(Latin + Cyrillic): \"p\\u{0430}y\\x1bpal\"" },
	/* one line for the whole key, not one per component */
	{ "2024/\xce\xbf" "ffice/\xd1\x81opy.pdf", "look-alike characters, "
	    "mixed scripts (Greek + Latin + Cyrillic): "
	    "\"2024/\\u{03BF}ffice/\\u{0441}opy.pdf\"" },
	/* not NFC: the same name decomposed (macOS) */
	{ "2024/Zoe\xcc\x88-Mu\xcc\x88ller.pdf", "not NFC: "
	    "\"2024/Zoe\\u{0308}-Mu\\u{0308}ller.pdf\"" },
	/* Mathematical Alphanumerics (script Common) in a Latin word */
	{ "p\xf0\x9d\x9a\x8ayp\xf0\x9d\x9a\x8al.pdf", "look-alike characters: "
	    "\"p\\u{1D68A}yp\\u{1D68A}l.pdf\"" },
	{ "\xf0\x9d\x90\xa9\xf0\x9d\x90\x9a\xf0\x9d\x90\xb2.pdf",
	    "look-alike characters: \"\\u{1D429}\\u{1D41A}\\u{1D432}.pdf\"" },
	/* a Latin letter no language needs, a Roman numeral, a slash */
	{ "p\xc9\x91yp\xc9\x91l.pdf", "look-alike characters: "
	    "\"p\\u{0251}yp\\u{0251}l.pdf\"" },
	{ "\xe2\x85\xbf" "ail.pdf", "look-alike characters: "
	    "\"\\u{217F}ail.pdf\"" },
	{ "invoices\xe2\x88\x95" "2024.pdf", "look-alike characters: "
	    "\"invoices\\u{2215}2024.pdf\"" },
	/* punctuation and signs that pass for ASCII */
	{ "Zoë’s “notes” – 3×4.pdf", "look-alike characters: "
	    "\"Zoë\\u{2019}s \\u{201C}notes\\u{201D} \\u{2013} "
	    "3\\u{00D7}4.pdf\"" },
	/* Latin + Armenian passes "moderately restrictive"; the skeleton
	 * still catches the Armenian o */
	{ "g\xd6\x85\xd6\x85gle.pdf", "look-alike characters: "
	    "\"g\\u{0585}\\u{0585}gle.pdf\"" },
	/* strong right-to-left letters reorder components on a bidi
	 * terminal */
	{ "2024/\xd7\x90\xd7\x91.pdf", "right-to-left letters: "
	    "\"2024/\\u{05D0}\\u{05D1}.pdf\"" },
	{ "مرحبا.pdf", "right-to-left letters: \"\\u{0645}\\u{0631}"
	    "\\u{062D}\\u{0628}\\u{0627}.pdf\"" },
	/* several reasons: one line naming each */
	{ "p\xf0\x9d\x9a\x8aye\xcc\x81/\xd7\x90.pdf", "not NFC, look-alike "
	    "characters, right-to-left letters: "
	    "\"p\\u{1D68A}ye\\u{0301}/\\u{05D0}.pdf\"" },
};

static void
test_key_warnings(void **state)
{
	char out[512];
	size_t i, bad = 0;

	(void)state;
	for (i = 0; i < sizeof(key_cases) / sizeof(key_cases[0]); i++) {
		const struct key_case *kc = &key_cases[i];
		unsigned r = render_key_warning(kc->key, strlen(kc->key), 0,
		    out, sizeof(out));

		if (kc->warning == NULL && r == 0 && out[0] == '\0')
			continue;
		if (kc->warning != NULL && r != 0 &&
		    strcmp(out, kc->warning) == 0)
			continue;
		print_error("key %zu \"%s\": got %#x \"%s\", want \"%s\"\n",
		    i, kc->key, r, out, kc->warning ? kc->warning : "");
		bad++;
	}
	assert_int_equal(bad, 0);
}

static void
test_key_warning_bits(void **state)
{
	char out[512], small[24];

	(void)state;
	assert_int_equal(render_key_warning("Zoe\xcc\x88", 5, 0, out,
	    sizeof(out)), RENDER_WARN_NFC);
	assert_int_equal(render_key_warning("p\xd0\xb0ypal", 7, 0, out,
	    sizeof(out)), RENDER_WARN_LOOKALIKE | RENDER_WARN_MIXED);
	assert_int_equal(render_key_warning("\xd7\x90", 2, 0, out,
	    sizeof(out)), RENDER_WARN_RTL);
	/* RENDER_ASCII: nothing but ASCII on the line either */
	render_key_warning("Zoë \xd7\x90", 7, RENDER_ASCII, out, sizeof(out));
	assert_string_equal(out, "right-to-left letters: "
	    "\"Zo\\u{00EB} \\u{05D0}\"");
	/* invalid UTF-8 in a key is escaped, and checked around */
	render_key_warning("\xff\xd7\x90", 3, 0, out, sizeof(out));
	assert_string_equal(out, "right-to-left letters: \"\\xff\\u{05D0}\"");
	/* never past the buffer */
	assert_int_not_equal(render_key_warning("p\xd0\xb0ypal", 7, 0, small,
	    sizeof(small)), 0);
	assert_true(strlen(small) < sizeof(small));
	assert_int_equal(render_key_warning("\xd7\x90", 2, 0, out, 0),
	    RENDER_WARN_RTL);
	assert_int_equal(render_key_warning("\xd7\x90", 2, 0, NULL, 0),
	    RENDER_WARN_RTL);
}

/* Blank-looking characters are escaped on every screen: U+2800 in place
 * of a space, and after one (it hid the mark on a repeated space). */
static void
test_blank_looking(void **state)
{
	(void)state;
	check("a\xe2\xa0\x80" "b", 0, "a\\u{2800}b");
	check("a \xe2\xa0\x80 b", RENDER_QUOTE, "\"a \\u{2800} b\"");
	check("\xf0\x9d\x85\x99", 0, "\\u{1D159}");
	check("a\xe2\x80\xaf" "b\xe2\x81\x9f" "c", 0, "a\\u{202F}b\\u{205F}c");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_printable_as_typed),
		cmocka_unit_test(test_controls),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_trojan_source),
		cmocka_unit_test(test_invisible),
		cmocka_unit_test(test_tags_selectors_private),
		cmocka_unit_test(test_combining),
		cmocka_unit_test(test_quoted),
		cmocka_unit_test(test_ascii),
		cmocka_unit_test(test_locale),
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_unambiguous),
		cmocka_unit_test(test_blank_looking),
		cmocka_unit_test(test_key_warnings),
		cmocka_unit_test(test_key_warning_bits),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("render", tests, NULL, NULL);
}
