/* Internals of the TOML parser, shared by its three files and nobody else:
 * toml_lex.c (bytes, whitespace, comments, keys, strings), toml_scalar.c
 * (integers, booleans, and recognising floats and date-times) and toml.c
 * (the document: tables, arrays, inline tables, redefinition rules).
 *
 * Every read goes through a struct tlex, whose p never passes end: the
 * input is not NUL-terminated and may hold any bytes. */
#ifndef LOCKFILE_TOML_INT_H
#define LOCKFILE_TOML_INT_H

#include <stddef.h>
#include <jansson.h>

#include "lib/buf.h"
#include "lib/toml.h"

struct tlex {
	const char *start;	/* the whole document, for line numbers */
	const char *p;		/* next unread byte; start <= p <= end */
	const char *end;
	struct toml_error *err;	/* filled by the first error only */
	int failed;
	/* The first valid value outside the subset. Parsing goes on, so a
	 * document with a real error elsewhere is reported as invalid. */
	const char *unsup_at;
	const char *unsup_msg;
};

/* The byte at p + off, or -1 past the end. */
static inline int
tlex_peek(const struct tlex *lx, size_t off)
{
	if ((size_t)(lx->end - lx->p) <= off)
		return -1;
	return (unsigned char)lx->p[off];
}

static inline int
tlex_eof(const struct tlex *lx)
{
	return lx->p >= lx->end;
}

/* Records an error at byte position at (first one wins). Returns -1. */
int tlex_fail(struct tlex *lx, const char *at, const char *msg);
/* Remembers the first value outside the subset. */
void tlex_unsupported(struct tlex *lx, const char *at, const char *msg);
/* At the end of a document free of errors: when a value outside the subset
 * was seen, records it as the error with unsupported=1 and returns -1. */
int tlex_report_unsupported(struct tlex *lx);

/* The whole document must be UTF-8 (RFC 3629: no overlongs, surrogates or
 * code points above U+10FFFF). 0 or -1. */
int tlex_check_utf8(struct tlex *lx);

/* Skips spaces and tabs. */
void tlex_ws(struct tlex *lx);
/* At LF or CRLF: consumes it and returns 1; 0 when not at a newline;
 * -1 on a CR not followed by LF. */
int tlex_newline(struct tlex *lx);
/* At '#': consumes the comment up to (not including) its newline, refusing
 * control characters. 0 (also when not at '#') or -1. */
int tlex_comment(struct tlex *lx);
/* Whitespace, an optional comment, then a newline or the end. 0 or -1. */
int tlex_eol(struct tlex *lx);
/* Whitespace, comments and newlines, as allowed inside arrays. 0 or -1. */
int tlex_blank(struct tlex *lx);

/* One part of a key (bare, "basic" or 'literal'), decoded into a new
 * buffer the caller frees. NULL on error. */
struct buf *tlex_key_part(struct tlex *lx);
/* A string value in any of its four forms, at '"' or '\''. NULL on error. */
json_t *tlex_string(struct tlex *lx);

/* A bare value: boolean, integer, or a float / date-time (recognised,
 * recorded as unsupported, returned as json_null()). NULL on error. */
json_t *tlex_scalar(struct tlex *lx);

#endif
