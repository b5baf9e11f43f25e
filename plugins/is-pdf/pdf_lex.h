/* is-pdf internals: a buffered cursor over the input (random access through
 * a pread callback, fixed memory) and a lexer for the few PDF objects the
 * structural check reads: dictionaries, their keys and simple values. */
#ifndef IS_PDF_LEX_H
#define IS_PDF_LEX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pdf_check.h"

#define CUR_BUF 8192
#define NAME_KEEP 32		/* longer names never match a key we need */
#define PDF_NEST_MAX 32		/* arrays and dictionaries inside a dictionary */
#define PDF_DICT_MAX (64 * 1024)	/* a trailer or xref stream dictionary */

struct cur {
	const struct pdf_src *src;
	uint64_t pos;		/* next byte to read */
	uint64_t end;		/* reads stop here: the file's size, or a
				 * dictionary's byte budget while one is parsed */
	uint64_t bstart;	/* file offset of buf[0] */
	size_t blen;
	int ioerr;		/* a read failed: the answer is no answer */
	uint8_t buf[CUR_BUF];
};

enum val_kind {
	V_INT, V_REAL, V_NAME, V_STRING, V_ARRAY, V_DICT, V_BOOL, V_NULL, V_REF,
};

/* What the structural check needs to know about one value. */
struct val {
	enum val_kind kind;
	uint64_t num;		/* V_INT (non-negative only), V_REF object */
	int neg;		/* V_INT below zero */
	int big;		/* V_INT beyond 2^63: never a valid offset */
	unsigned gen;		/* V_REF generation */
	char name[NAME_KEEP + 1];	/* V_NAME, decoded, NUL-terminated */
	int name_long;		/* V_NAME longer than NAME_KEEP */
	/* V_ARRAY: element count, whether all are non-negative integers, the
	 * first three of them, and the sum of the odd-numbered ones (the
	 * counts of (start count) pairs). */
	size_t n;
	int all_uint;
	uint64_t first[3];
	uint64_t pair_total;
};

#define PDF_GAP_MAX 1024	/* whitespace and comments between tokens
				 * outside a dictionary */

void cur_init(struct cur *c, const struct pdf_src *src);
/* Lower the cursor's end to at most n bytes ahead, so that no run of
 * whitespace, comment or junk costs more than n bytes of reading. Returns
 * the previous end, to give back to cur_unlimit(). */
uint64_t cur_limit(struct cur *c, uint64_t n);
void cur_unlimit(struct cur *c, uint64_t end);
void cur_seek(struct cur *c, uint64_t pos);
/* Next byte without consuming it, or -1 at c->end (or on an I/O error). */
int cur_peek(struct cur *c);
int cur_get(struct cur *c);
/* Consume the exact bytes of lit when they are next. 1 or 0 (unmoved). */
int cur_lit(struct cur *c, const char *lit);

int pdf_is_ws(int b);
int pdf_is_delim(int b);
/* Neither whitespace nor a delimiter (nor -1, the end): a byte of a name
 * or keyword (ISO 32000-1 7.2.2). */
int pdf_is_regular(int b);
/* A hex digit's value, or -1 (name #xx escapes, hex strings). */
int pdf_hexval(int b);
/* Skip whitespace and comments. */
void skip_ws(struct cur *c);
/* Skip spaces and tabs (at most PDF_GAP_MAX bytes of them). */
void skip_blanks(struct cur *c);
/* Skip blanks, then one end of line (CR, LF or CR LF). 1 or 0. */
int skip_eol(struct cur *c);
/* An unsigned decimal integer of 1..20 digits, not followed by a regular
 * character. 1 or 0. */
int read_uint(struct cur *c, uint64_t *out);
/* A bare keyword (true, obj, stream...) followed by a delimiter, EOF or
 * whitespace. 1 or 0 (unmoved). */
int read_keyword(struct cur *c, const char *kw);

/* Parse one direct object (or "N G R") at the cursor into v. 0 or -1 on a
 * malformed object or nesting deeper than PDF_NEST_MAX. */
int parse_value(struct cur *c, struct val *v, int depth);

/* Callback for parse_dict: one top-level key and its value. Returns 0 to
 * go on, -1 to refuse the dictionary. */
typedef int (*dict_cb)(void *arg, const struct val *key, const struct val *v);
/* A dictionary "<< ... >>" at the cursor (after whitespace), within
 * PDF_DICT_MAX bytes: the cursor's end is lowered while it is parsed, so
 * no name, string or comment inside can run on. */
int parse_dict(struct cur *c, dict_cb cb, void *arg);

#ifdef PDF_LEX_DICT_MAX
/* The same within max bytes (pdf-signatures-intact only: see pdf_lex.c). */
int parse_dict_max(struct cur *c, dict_cb cb, void *arg, uint64_t max);
#endif

#endif
