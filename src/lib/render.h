/* The one way text from outside (an agent's key or request, a manifest, a
 * file name, an audit record) is shown to a human: the approval card, the
 * console window, `lockfile audit`, `lockfile doctor`, and every later
 * screen. docs/rendering.md gives the rules and why each one.
 *
 * Valid UTF-8 that a human can read is shown as it is (accents, Cyrillic,
 * CJK, emoji). Everything that could change the terminal's state, reorder
 * or hide text, or look like something it is not is shown as a visible
 * escape instead: \xHH for C0 controls, DEL and each byte of invalid UTF-8;
 * \u{XXXX} for C1 controls, bidirectional controls, zero-width and other
 * default-ignorable characters, tag characters, variation selectors, line
 * and paragraph separators, spaces other than U+0020, private-use,
 * surrogate and unassigned code points, and combining marks that do not
 * follow a shown letter or come after RENDER_MAX_MARKS of them. A
 * backslash is shown as \\, so an escape is never ambiguous with text.
 * Character properties come from libunistring (docs/dependencies.md). */
#ifndef LOCKFILE_RENDER_H
#define LOCKFILE_RENDER_H

#include <stddef.h>

/* Surround the text with double quotes and show every space after the
 * first of a run as \x20 and a double quote as \": edge and repeated
 * spaces are visible (keys: "a.pdf" and "a.pdf " differ on screen). */
#define RENDER_QUOTE	0x1u

/* Every character outside printable ASCII escaped too: for a terminal
 * that is not UTF-8, where the bytes of a readable character could be C1
 * controls (0x9b is CSI to an 8-bit terminal). */
#define RENDER_ASCII	0x2u

/* Combining marks shown on one letter; more are escaped. */
#define RENDER_MAX_MARKS 4

/* What render_text() wrote. */
struct render_info {
	size_t len;		/* bytes written, without the NUL */
	size_t cols;		/* display columns of what was written */
	int truncated;		/* cut: "..." ends the text (after the
				 * closing quote with RENDER_QUOTE) */
	int escaped;		/* at least one character is shown escaped */
};

/* Render in[0..inlen) into out (NUL-terminated when outlen > 0), at most
 * outlen - 1 bytes and max_cols display columns (0: no column limit). A
 * cut never splits a character or an escape, and is marked. Total: any
 * bytes are accepted. info may be NULL. Returns info->len. */
size_t render_text(const char *in, size_t inlen, unsigned flags,
    size_t max_cols, char *out, size_t outlen, struct render_info *info);

/* RENDER_ASCII unless the environment's locale names UTF-8 (the first of
 * LC_ALL, LC_CTYPE, LANG that is set and not empty, as the C library and
 * terminal multiplexers read it). For output meant for the terminal of
 * the process's own user (the console's, `audit`, `doctor`). */
unsigned render_locale_flags(void);

/* Display columns of text that is already safe to show (our own text or a
 * render_text() result): East Asian wide characters count two. */
size_t render_width(const char *s, size_t len);

/* For wrapping safe text (a render_text() result) at cols columns: the
 * byte length of the longest prefix of s[0..len) that fits, never ending
 * inside an escape or before a combining mark. At least one unit when
 * len > 0 (a caller always moves on, even at a width of 1). */
size_t render_fit(const char *s, size_t len, size_t cols);

/* Mixed scripts, the look-alike trick ("p\u{0430}ypal": a Cyrillic a in a
 * Latin word). Each word of in (a run of letters and marks; digits,
 * punctuation and spaces separate words, so "Счёт.pdf" is two words) must
 * be of one script or of one combination that Unicode's highly
 * restrictive profile allows (UTS #39: Latin with Han, Hiragana and
 * Katakana; with Han and Bopomofo; with Han and Hangul). When a word is
 * not, writes to out (as render_text() would with flags, never more
 * than outlen - 1 bytes) "mixed scripts: Latin + Cyrillic: " and the text quoted, with
 * the letters of each word's minority scripts escaped so the human sees
 * which ones they are, and returns 1. Otherwise 0 (out is "" when
 * outlen > 0). Meant for one path component at a time. */
int render_mixed_scripts(const char *in, size_t inlen, unsigned flags,
    char *out, size_t outlen);

#endif
