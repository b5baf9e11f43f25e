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
 * and paragraph separators, spaces other than U+0020, blank glyphs
 * (U+2800 BRAILLE PATTERN BLANK), private-use, surrogate and unassigned
 * code points, and combining marks that do not follow a shown letter or
 * come after RENDER_MAX_MARKS of them. A backslash is shown as \\, so an
 * escape is never ambiguous with text. A key that may not be what it
 * looks like gets one warning line (render_key_warning()). Character
 * properties, normalization and UTS #39 come from ICU
 * (docs/dependencies.md). */
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

/* Why a key may not be what it looks like (docs/rendering.md, "Keys
 * that look like others"): the bits render_key_warning() returns. */
#define RENDER_WARN_NFC		0x1u	/* not in Unicode NFC */
#define RENDER_WARN_LOOKALIKE	0x2u	/* a character outside ASCII whose
					 * UTS #39 skeleton is another
					 * text, where it counts */
#define RENDER_WARN_MIXED	0x4u	/* a word fails UTS #39's
					 * moderately restrictive level */
#define RENDER_WARN_RTL		0x8u	/* strong right-to-left letters */
#define RENDER_WARN_UNCHECKED	0x10u	/* ICU failed: not checked */

/* Opens what the key checks use (ICU's spoof checker and normalizers)
 * once per process; later calls do nothing. A screen calls it at start,
 * before any self-confinement (the console at term_open); the checks
 * call it too. 0, or -1 with a static message in *why. */
int render_init(const char **why);

/* The key check of every screen that shows a key (the card, the hub
 * ticket in lox, `policy show`): 0 when in[0..inlen) is ordinary text
 * (plain ASCII always is), out "" (when outlen > 0). Otherwise the
 * RENDER_WARN_* bits, and out holds one line of text (as render_text()
 * would with flags, never more than outlen - 1 bytes) that says which:
 * "not NFC, look-alike characters, mixed scripts (Latin + Cyrillic),
 * right-to-left letters: " and the key quoted, with the characters that
 * caused each reason escaped so the human sees which ones they are.
 * out may be NULL when outlen is 0 (only the bits). */
unsigned render_key_warning(const char *in, size_t inlen, unsigned flags,
    char *out, size_t outlen);

#endif
