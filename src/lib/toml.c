/* TOML documents (see toml.h): the line structure, [tables], [[arrays of
 * tables]], key/values, arrays and inline tables, and TOML's rules on what
 * may be defined or extended twice. Tokens come from toml_lex.c and
 * toml_scalar.c; this file never reads a byte they have not bounded.
 *
 * The result is built directly as jansson values. What TOML needs to know
 * about each table or array (how it was made, whether it is closed) lives
 * beside the tree in ps->flags, keyed by the value's address, so nothing
 * foreign ever appears in the result. Containers are never freed before
 * the end of the parse, so an address cannot be reused while it is a key. */
#include "lib/toml.h"
#include "lib/toml_int.h"
#include "lib/log.h"
#include "lib/str.h"

#include <stdio.h>
#include <string.h>

/* How a table or an array came to be. A table with none of these bits was
 * made implicitly as the parent of a [header] and may still be defined
 * once; an array without F_AOT is a value and is closed. */
enum {
	F_EXPLICIT = 1 << 0,	/* defined by a [header] */
	F_DOTTED = 1 << 1,	/* defined by dotted keys (a.b = 1) */
	F_FROZEN = 1 << 2,	/* inline table: complete as written */
	F_AOT = 1 << 3,		/* array made by [[header]]: may grow */
};

struct keypath {
	/* A dotted key with more parts cannot fit in the nesting limit. */
	struct buf *part[TOML_MAX_DEPTH + 1];
	int n;
	const char *at;		/* where the key starts, for messages */
};

struct parser {
	struct tlex lx;
	json_t *root;
	json_t *flags;		/* "%p" of a container -> F_* bits */
	json_t *lines;		/* "%p" of a table -> {key: line}, or NULL */
	const char *line_pos;	/* lines counted up to here: line_no */
	int line_no;
	json_t *section;	/* table the current key/values go to */
	int section_depth;	/* its nesting below the root */
	size_t nkeys;		/* members created so far, in all tables */
};

static json_t *parse_value(struct parser *ps, int depth);

static int
fail(struct parser *ps, const char *at, const char *msg)
{
	return tlex_fail(&ps->lx, at, msg);
}

/* ---- side flags ---- */

static void
flag_name(const json_t *v, char name[32])
{
	ASSERT(str_fmt(name, 32, "%p", (const void *)v) == STR_OK);
}

static unsigned
flags_of(const struct parser *ps, const json_t *v)
{
	char name[32];
	json_t *f;

	flag_name(v, name);
	f = json_object_get(ps->flags, name);
	return f == NULL ? 0 : (unsigned)json_integer_value(f);
}

static int
flags_add(struct parser *ps, const json_t *v, unsigned add)
{
	char name[32];
	unsigned f = flags_of(ps, v) | add;

	flag_name(v, name);
	if (json_object_set_new(ps->flags, name, json_integer(f)) != 0)
		return fail(ps, ps->lx.p, "out of memory");
	return 0;
}

/* ---- tree building ---- */

static const char *
key_bytes(const struct buf *k)
{
	return (const char *)buf_data(k);
}

static json_t *
member(const json_t *t, const struct buf *k)
{
	return json_object_getn(t, key_bytes(k), buf_len(k));
}

/* ---- where keys were written (toml_parse_lines) ---- */

/* The line of at. Keys are met in document order, so counting on from the
 * last one keeps the whole parse linear. */
static int
line_at(struct parser *ps, const char *at)
{
	const char *nl;

	if (at < ps->line_pos) {
		ps->line_pos = ps->lx.start;
		ps->line_no = 1;
	}
	if (at > ps->lx.end)
		at = ps->lx.end;
	while ((nl = memchr(ps->line_pos, '\n', (size_t)(at - ps->line_pos)))
	    != NULL) {
		ps->line_no++;
		ps->line_pos = nl + 1;
	}
	return ps->line_no;
}

static int
note_line(struct parser *ps, const json_t *t, const struct buf *k,
    const char *at)
{
	char name[32];
	json_t *m;

	if (ps->lines == NULL)
		return 0;
	flag_name(t, name);
	m = json_object_get(ps->lines, name);
	if (m == NULL && (json_object_set_new(ps->lines, name,
	    m = json_object()) != 0 || m == NULL))
		return fail(ps, at, "out of memory");
	if (json_object_setn_new(m, key_bytes(k), buf_len(k),
	    json_integer(line_at(ps, at))) != 0)
		return fail(ps, at, "out of memory");
	return 0;
}

/* Adds k = v to table t, taking the reference to v. The key is new. */
static int
set_member(struct parser *ps, json_t *t, const struct buf *k, json_t *v,
    const char *at)
{
	ASSERT(member(t, k) == NULL);
	if (++ps->nkeys > TOML_MAX_KEYS) {
		json_decref(v);
		return fail(ps, at, "more than 10000 keys");
	}
	/* jansson drops v when it refuses. */
	if (json_object_setn_new(t, key_bytes(k), buf_len(k), v) != 0)
		return fail(ps, at, "key refused by jansson");
	return note_line(ps, t, k, at);
}

static int
check_depth(struct parser *ps, int depth, const char *at)
{
	if (depth > TOML_MAX_DEPTH)
		return fail(ps, at, "nesting deeper than 32");
	return 0;
}

/* A new table k in t, which sits at depth - 1. Borrowed reference. */
static json_t *
new_table(struct parser *ps, json_t *t, const struct buf *k, int depth,
    unsigned flags, const char *at)
{
	json_t *nt;

	if (check_depth(ps, depth, at) < 0)
		return NULL;
	if ((nt = json_object()) == NULL) {
		fail(ps, at, "out of memory");
		return NULL;
	}
	if (set_member(ps, t, k, nt, at) < 0)
		return NULL;
	if (flags != 0 && flags_add(ps, nt, flags) < 0)
		return NULL;
	return nt;
}

/* ---- keys ---- */

static void
keypath_free(struct keypath *kp)
{
	int i;

	for (i = 0; i < kp->n; i++)
		buf_free(kp->part[i]);
	kp->n = 0;
}

/* key *( ws "." ws key ), then trailing whitespace. */
static int
parse_keypath(struct parser *ps, struct keypath *kp)
{
	struct tlex *lx = &ps->lx;

	kp->n = 0;
	kp->at = lx->p;
	for (;;) {
		if (kp->n == TOML_MAX_DEPTH + 1)
			return fail(ps, kp->at, "dotted key nests deeper "
			    "than 32");
		if ((kp->part[kp->n] = tlex_key_part(lx)) == NULL)
			return -1;
		kp->n++;
		tlex_ws(lx);
		if (tlex_peek(lx, 0) != '.')
			return 0;
		lx->p++;
		tlex_ws(lx);
	}
}

/* Walks the leading parts of a dotted key down from table t (at *depth),
 * creating tables as needed, and returns the table that is to hold the
 * last part. Dotted keys may run through tables they made themselves and
 * through implicit parents of headers, never into a table a [header]
 * defined, an inline table or any array (TOML 1.0, "Table"). */
static json_t *
walk_dotted(struct parser *ps, json_t *t, int *depth,
    const struct keypath *kp)
{
	json_t *v;
	unsigned f;
	int i;

	for (i = 0; i < kp->n - 1; i++) {
		v = member(t, kp->part[i]);
		if (v == NULL) {
			v = new_table(ps, t, kp->part[i], *depth + 1, F_DOTTED,
			    kp->at);
			if (v == NULL)
				return NULL;
		} else if (!json_is_object(v)) {
			fail(ps, kp->at, "dotted key goes through a value "
			    "that is not a table");
			return NULL;
		} else {
			f = flags_of(ps, v);
			if (f & F_FROZEN) {
				fail(ps, kp->at, "an inline table cannot be "
				    "extended");
				return NULL;
			}
			if (f & F_EXPLICIT) {
				fail(ps, kp->at, "dotted key adds to a table "
				    "defined by a [header]");
				return NULL;
			}
			if (!(f & F_DOTTED) && flags_add(ps, v, F_DOTTED) < 0)
				return NULL;
		}
		t = v;
		(*depth)++;
	}
	return t;
}

/* key = value, into table t at depth (a section or an inline table). */
static int
parse_keyval(struct parser *ps, json_t *t, int depth)
{
	struct tlex *lx = &ps->lx;
	struct keypath kp;
	const struct buf *last;
	json_t *parent, *v;
	int r = -1;

	if (parse_keypath(ps, &kp) < 0)
		goto out;
	if (tlex_peek(lx, 0) != '=') {
		fail(ps, lx->p, "expected '=' after a key");
		goto out;
	}
	lx->p++;
	tlex_ws(lx);
	if ((parent = walk_dotted(ps, t, &depth, &kp)) == NULL)
		goto out;
	last = kp.part[kp.n - 1];
	if (member(parent, last) != NULL) {
		fail(ps, kp.at, "key defined twice");
		goto out;
	}
	if ((v = parse_value(ps, depth + 1)) == NULL)
		goto out;
	/* An inline table is closed once written. Only one that is the value
	 * of a key can be named again, so only that one needs the mark (one
	 * inside an array sits behind the array, which is closed too). */
	if (json_is_object(v) && flags_add(ps, v, F_FROZEN) < 0) {
		json_decref(v);
		goto out;
	}
	r = set_member(ps, parent, last, v, kp.at);
out:
	keypath_free(&kp);
	return r;
}

/* ---- values ---- */

/* [ values ], at depth; newlines and comments may stand between the
 * values, and one trailing comma is allowed. */
static json_t *
parse_array(struct parser *ps, int depth)
{
	struct tlex *lx = &ps->lx;
	json_t *a, *v;
	int c;

	if (check_depth(ps, depth, lx->p) < 0)
		return NULL;
	if ((a = json_array()) == NULL) {
		fail(ps, lx->p, "out of memory");
		return NULL;
	}
	lx->p++;
	for (;;) {
		if (tlex_blank(lx) < 0)
			goto fail;
		if (tlex_peek(lx, 0) == ']')
			break;
		if ((v = parse_value(ps, depth + 1)) == NULL)
			goto fail;
		if (json_array_append_new(a, v) != 0) {
			fail(ps, lx->p, "out of memory");
			goto fail;
		}
		if (tlex_blank(lx) < 0)
			goto fail;
		if ((c = tlex_peek(lx, 0)) == ']')
			break;
		if (c != ',') {
			fail(ps, lx->p, "expected ',' or ']' in an array");
			goto fail;
		}
		lx->p++;
	}
	lx->p++;
	return a;
fail:
	json_decref(a);
	return NULL;
}

/* { key = value, ... } on one line, no trailing comma (TOML 1.0). */
static json_t *
parse_inline_table(struct parser *ps, int depth)
{
	struct tlex *lx = &ps->lx;
	json_t *t;
	int c;

	if (check_depth(ps, depth, lx->p) < 0)
		return NULL;
	if ((t = json_object()) == NULL) {
		fail(ps, lx->p, "out of memory");
		return NULL;
	}
	lx->p++;
	tlex_ws(lx);
	if (tlex_peek(lx, 0) != '}') {
		for (;;) {
			if (parse_keyval(ps, t, depth) < 0)
				goto fail;
			tlex_ws(lx);
			if ((c = tlex_peek(lx, 0)) == '}')
				break;
			if (c != ',') {
				fail(ps, lx->p, "expected ',' or '}' in an "
				    "inline table");
				goto fail;
			}
			lx->p++;
			tlex_ws(lx);
		}
	}
	lx->p++;
	return t;
fail:
	json_decref(t);
	return NULL;
}

/* Any value; depth is where it would sit if it is an array or a table. */
static json_t *
parse_value(struct parser *ps, int depth)
{
	switch (tlex_peek(&ps->lx, 0)) {
	case '"':
	case '\'':
		return tlex_string(&ps->lx);
	case '[':
		return parse_array(ps, depth);
	case '{':
		return parse_inline_table(ps, depth);
	default:
		return tlex_scalar(&ps->lx);
	}
}

/* ---- [table] and [[array of tables]] headers ---- */

/* Walks a header's leading parts from the root. Any table may be gone
 * through but an inline one; an array only when [[headers]] made it, into
 * its last table. Returns the parent of the last part. */
static json_t *
walk_header(struct parser *ps, const struct keypath *kp, int *depth)
{
	json_t *t = ps->root, *v;
	int i;

	*depth = 0;
	for (i = 0; i < kp->n - 1; i++) {
		v = member(t, kp->part[i]);
		if (v == NULL) {
			v = new_table(ps, t, kp->part[i], *depth + 1, 0,
			    kp->at);
			if (v == NULL)
				return NULL;
		} else if (json_is_array(v)) {
			if (!(flags_of(ps, v) & F_AOT)) {
				fail(ps, kp->at, "a static array cannot be "
				    "extended");
				return NULL;
			}
			ASSERT(json_array_size(v) > 0);
			v = json_array_get(v, json_array_size(v) - 1);
			(*depth)++;
		} else if (!json_is_object(v)) {
			fail(ps, kp->at, "header goes through a value that "
			    "is not a table");
			return NULL;
		} else if (flags_of(ps, v) & F_FROZEN) {
			fail(ps, kp->at, "an inline table cannot be extended");
			return NULL;
		}
		t = v;
		(*depth)++;
	}
	return t;
}

/* [a.b]: defines the table, which may exist only as an implicit parent. */
static json_t *
define_table(struct parser *ps, json_t *t, const struct keypath *kp,
    int depth)
{
	const struct buf *last = kp->part[kp->n - 1];
	json_t *v = member(t, last);

	if (v == NULL)
		return new_table(ps, t, last, depth, F_EXPLICIT, kp->at);
	if (!json_is_object(v) ||
	    (flags_of(ps, v) & (F_EXPLICIT | F_DOTTED | F_FROZEN))) {
		fail(ps, kp->at, "table defined twice");
		return NULL;
	}
	if (flags_add(ps, v, F_EXPLICIT) < 0)
		return NULL;
	return v;
}

/* [[a.b]]: appends a table to the array, making it when it is new. */
static json_t *
append_table(struct parser *ps, json_t *t, const struct keypath *kp,
    int depth)
{
	const struct buf *last = kp->part[kp->n - 1];
	json_t *a = member(t, last), *nt;

	if (check_depth(ps, depth + 1, kp->at) < 0)
		return NULL;
	if (a == NULL) {
		if ((a = json_array()) == NULL) {
			fail(ps, kp->at, "out of memory");
			return NULL;
		}
		if (set_member(ps, t, last, a, kp->at) < 0)
			return NULL;
		if (flags_add(ps, a, F_AOT) < 0)
			return NULL;
	} else if (!json_is_array(a) || !(flags_of(ps, a) & F_AOT)) {
		fail(ps, kp->at, "array of tables conflicts with an earlier "
		    "definition");
		return NULL;
	}
	if ((nt = json_object()) == NULL ||
	    json_array_append_new(a, nt) != 0) {
		fail(ps, kp->at, "out of memory");
		return NULL;
	}
	return nt;
}

static int
parse_header(struct parser *ps)
{
	struct tlex *lx = &ps->lx;
	struct keypath kp;
	json_t *t;
	int aot = tlex_peek(lx, 1) == '[', depth, r = -1;

	kp.n = 0;
	lx->p += aot ? 2 : 1;
	tlex_ws(lx);
	if (parse_keypath(ps, &kp) < 0)
		goto out;
	if (tlex_peek(lx, 0) != ']' || (aot && tlex_peek(lx, 1) != ']')) {
		fail(ps, lx->p, aot ? "expected ']]'" : "expected ']'");
		goto out;
	}
	lx->p += aot ? 2 : 1;
	if ((t = walk_header(ps, &kp, &depth)) == NULL)
		goto out;
	if (aot)
		t = append_table(ps, t, &kp, depth + 1);
	else
		t = define_table(ps, t, &kp, depth + 1);
	if (t == NULL)
		goto out;
	ps->section = t;
	ps->section_depth = depth + (aot ? 2 : 1);
	r = 0;
out:
	keypath_free(&kp);
	return r;
}

/* ---- the document ---- */

static int
parse_document(struct parser *ps)
{
	struct tlex *lx = &ps->lx;
	int c;

	if (tlex_check_utf8(lx) < 0)
		return -1;
	/* A byte order mark may open the document. */
	if (tlex_peek(lx, 0) == 0xef && tlex_peek(lx, 1) == 0xbb &&
	    tlex_peek(lx, 2) == 0xbf)
		lx->p += 3;
	for (;;) {
		tlex_ws(lx);
		if ((c = tlex_peek(lx, 0)) == -1)
			return 0;
		if (c == '[') {
			if (parse_header(ps) < 0)
				return -1;
		} else if (c != '#' && c != '\n' && c != '\r') {
			if (parse_keyval(ps, ps->section,
			    ps->section_depth) < 0)
				return -1;
		}
		if (tlex_eol(lx) < 0)
			return -1;
	}
}

json_t *
toml_parse(const char *text, size_t len, struct toml_error *err)
{
	return toml_parse_lines(text, len, err, NULL);
}

json_t *
toml_parse_lines(const char *text, size_t len, struct toml_error *err,
    json_t **lines)
{
	struct parser ps;
	int r = -1;

	memset(&ps, 0, sizeof(ps));
	if (lines != NULL)
		*lines = NULL;
	if (err != NULL) {
		err->line = 0;
		err->unsupported = 0;
		err->msg = NULL;
	}
	ps.lx.err = err;
	ps.lx.start = ps.lx.p = ps.lx.end = "";
	if (text == NULL && len != 0) {
		tlex_fail(&ps.lx, ps.lx.p, "no input");
		return NULL;
	}
	if (len > TOML_MAX_INPUT) {
		tlex_fail(&ps.lx, ps.lx.p, "document larger than 1 MiB");
		return NULL;
	}
	if (text != NULL) {
		ps.lx.start = ps.lx.p = text;
		ps.lx.end = text + len;
	}
	ps.root = json_object();
	ps.flags = json_object();
	ps.line_pos = ps.lx.start;
	ps.line_no = 1;
	if (lines != NULL)
		ps.lines = json_object();
	if (ps.root == NULL || ps.flags == NULL ||
	    (lines != NULL && ps.lines == NULL)) {
		tlex_fail(&ps.lx, ps.lx.p, "out of memory");
		goto out;
	}
	ps.section = ps.root;
	if (parse_document(&ps) == 0 && tlex_report_unsupported(&ps.lx) == 0)
		r = 0;
out:
	json_decref(ps.flags);
	if (r < 0) {
		json_decref(ps.lines);
		json_decref(ps.root);
		return NULL;
	}
	if (lines != NULL)
		*lines = ps.lines;
	return ps.root;
}

int
toml_key_line(const json_t *lines, const json_t *table, const char *key)
{
	char name[32];
	const json_t *v;

	if (lines == NULL || table == NULL)
		return 0;
	flag_name(table, name);
	v = json_object_get(json_object_get(lines, name), key);
	return json_is_integer(v) ? (int)json_integer_value(v) : 0;
}
