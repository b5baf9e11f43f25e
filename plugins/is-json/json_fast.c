/* is-json's validator at vector speed (see json_fast.h).
 *
 * The input is cut into 64-byte blocks. For each block the vector unit
 * finds, as one bit per byte, the quotes, backslashes, brackets, the six
 * structural characters {}[]:, the four whitespace bytes of RFC 8259,
 * control bytes below 0x20 and digits; the rest is bit arithmetic and
 * short walks over the bytes that matter:
 *
 *   - escapes: a backslash that is not itself escaped escapes the next
 *     byte, which must be one of "\/bfnrtu (\u then four hex digits);
 *   - strings: the quotes that are not escaped open and close them, so a
 *     prefix XOR of their bits marks every byte inside a string; no
 *     control byte may be inside one;
 *   - outside strings, a run of bytes that are neither structural nor
 *     whitespace is an atom: a number (RFC 8259 section 6) or true, false,
 *     null; anything else there (a backslash, a control byte, a byte of a
 *     multi-byte character) starts or joins an atom and fails it;
 *   - the brackets, walked with a stack of at most JSON_MAX_DEPTH levels,
 *     must match, and give each byte its container (top level, array or
 *     object);
 *   - the grammar: one token per structural character, opening quote and
 *     atom. Where a token may stand follows from the token before it, the
 *     container, and (for a string: key or value) whether the token
 *     before that was '{' or ','. So each token is checked by one table
 *     lookup on its own, with no state carried from check to check, which
 *     lets the processor check several tokens at once.
 *
 * Bytes inside strings are never looked at one by one: the whole text
 * must be UTF-8 anyway (outside strings only ASCII can pass), so it goes
 * through the SDK's vector UTF-8 check, a span at a time while the bytes
 * are still in cache. Strings, escapes and atoms cut by a block's end
 * carry over in the state, so the answer does not depend on how the input
 * is cut into feeds. */
#include "json_fast.h"

#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>

#include "utf8_vec.h"
#endif

/* Grammar states (RFC 8259 sections 2, 4 and 5). */
enum {
	G_VALUE_TOP,	/* the text's value */
	G_VALUE_ARR,	/* a value after ',' in an array */
	G_VALUE_OBJ,	/* a value after ':' */
	G_ARR_FIRST,	/* after '[': a value or ']' */
	G_OBJ_FIRST,	/* after '{': a key or '}' */
	G_OBJ_KEY,	/* after ',' in an object: a key */
	G_COLON,	/* after a key */
	G_AFTER_ARR,	/* after a value in an array: ',' or ']' */
	G_AFTER_OBJ,	/* after a value in an object: ',' or '}' */
	G_DONE,		/* the top-level value is complete: nothing may follow */
	G_NSTATES,
};

/* Tokens, by their first byte; K_NONE: before the first token. */
enum { K_OBJ, K_ARR, K_OBJ_END, K_ARR_END, K_COLON, K_COMMA, K_STR, K_ATOM,
	K_NONE, K_NKINDS = K_NONE };

/* Containers, as kept on the stack (0: the top level). */
enum { CT_TOP, CT_ARR, CT_OBJ };

/* Which tokens may come in each state. */
static const uint8_t allowed[G_NSTATES][K_NKINDS] = {
	/*               {  [  }  ]  :  ,  "  atom */
	[G_VALUE_TOP] = { 1, 1, 0, 0, 0, 0, 1, 1 },
	[G_VALUE_ARR] = { 1, 1, 0, 0, 0, 0, 1, 1 },
	[G_VALUE_OBJ] = { 1, 1, 0, 0, 0, 0, 1, 1 },
	[G_ARR_FIRST] = { 1, 1, 0, 1, 0, 0, 1, 1 },
	[G_OBJ_FIRST] = { 0, 0, 1, 0, 0, 0, 1, 0 },
	[G_OBJ_KEY] = { 0, 0, 0, 0, 0, 0, 1, 0 },
	[G_COLON] = { 0, 0, 0, 0, 1, 0, 0, 0 },
	[G_AFTER_ARR] = { 0, 0, 0, 1, 0, 1, 0, 0 },
	[G_AFTER_OBJ] = { 0, 0, 1, 0, 0, 1, 0, 0 },
	[G_DONE] = { 0, 0, 0, 0, 0, 0, 0, 0 },
};

/* The state after token k1, in container ct (after k1: for a closing
 * bracket, the one it returns to), where keyish says the token before k1
 * was '{' or ','. While every token so far was allowed this is exactly the
 * state of the grammar's automaton, so the first token not allowed is
 * found: a string after '{' or after ',' in an object is a key; after a
 * key comes ':'; after ':' a value; after ',' a key or a value by the
 * container; after any value what its container takes next. */
static int
state_after(int ct, int keyish, int k1)
{
	int after = ct == CT_OBJ ? G_AFTER_OBJ : ct == CT_ARR ? G_AFTER_ARR :
	    G_DONE;

	switch (k1) {
	case K_NONE:
		return ct == CT_TOP ? G_VALUE_TOP : G_DONE;
	case K_OBJ:
		return G_OBJ_FIRST;
	case K_ARR:
		return G_ARR_FIRST;
	case K_COLON:
		return G_VALUE_OBJ;
	case K_COMMA:
		return ct == CT_OBJ ? G_OBJ_KEY : ct == CT_ARR ? G_VALUE_ARR :
		    G_DONE;
	case K_STR:
		return keyish && ct == CT_OBJ ? G_COLON : after;
	default:	/* an atom or a closing bracket: a value ended */
		return after;
	}
}

/* The check per token, indexed by container << 8 | keyish << 7 |
 * previous kind << 3 | kind: 1 when not allowed. */
static uint8_t refuse[3 << 8];
/* The same for the vector check: per container << 5 | keyish << 4 |
 * previous kind, one bit per kind allowed (1 << kind). */
static uint8_t allow_row[128];
/* token_kind[] with bit 4 for '{' and ',' as a 128-byte vector table, the
 * same by kind (for the last block's tokens), and the lane moves "from
 * the lane before" and "from two lanes before" (64, 65: the carry lanes). */
static uint8_t kind_vec[128], lane_up1[64], lane_up2[64];
static const uint8_t kind_desc[K_NONE + 1] = {
	K_OBJ | 0x10, K_ARR, K_OBJ_END, K_ARR_END, K_COLON, K_COMMA | 0x10,
	K_STR, K_ATOM, K_NONE,
};

/* The atom automaton: RFC 8259 section 6's number (a literal is compared
 * whole, or byte by byte when a block's end cuts it). */
enum { N_NONE, N_MINUS, N_ZERO, N_INT, N_DOT, N_FRAC, N_E, N_ESIGN, N_EXP,
	N_LIT, N_BAD, N_NSTATES };
enum { C_ZERO, C_DIGIT, C_DOT, C_E, C_PLUS, C_MINUS, C_OTHER, C_NCLASSES };

static const uint8_t num_next[N_NSTATES][C_NCLASSES] = {
	/*            0       1-9     .      e E    +       -       other */
	[N_NONE] = { N_ZERO, N_INT, N_BAD, N_BAD, N_BAD, N_MINUS, N_BAD },
	[N_MINUS] = { N_ZERO, N_INT, N_BAD, N_BAD, N_BAD, N_BAD, N_BAD },
	[N_ZERO] = { N_BAD, N_BAD, N_DOT, N_E, N_BAD, N_BAD, N_BAD },	/* no 01 */
	[N_INT] = { N_INT, N_INT, N_DOT, N_E, N_BAD, N_BAD, N_BAD },
	[N_DOT] = { N_FRAC, N_FRAC, N_BAD, N_BAD, N_BAD, N_BAD, N_BAD },
	[N_FRAC] = { N_FRAC, N_FRAC, N_BAD, N_E, N_BAD, N_BAD, N_BAD },
	[N_E] = { N_EXP, N_EXP, N_BAD, N_BAD, N_ESIGN, N_ESIGN, N_BAD },
	[N_ESIGN] = { N_EXP, N_EXP, N_BAD, N_BAD, N_BAD, N_BAD, N_BAD },
	[N_EXP] = { N_EXP, N_EXP, N_BAD, N_BAD, N_BAD, N_BAD, N_BAD },
	[N_LIT] = { N_BAD, N_BAD, N_BAD, N_BAD, N_BAD, N_BAD, N_BAD },
	[N_BAD] = { N_BAD, N_BAD, N_BAD, N_BAD, N_BAD, N_BAD, N_BAD },
};

/* Per byte, for the scalar classifier: one bit per mask of struct masks. */
enum { B_QUOTE = 0x01, B_BSLASH = 0x02, B_OP = 0x04, B_WS = 0x08,
	B_CTL = 0x10, B_DIGIT = 0x20, B_BRACKET = 0x40 };

static uint8_t byte_class[256], num_class[256], token_kind[256];
/* bracket_ct: the container a bracket opens or closes, | BR_OPEN. */
#define BR_OPEN 4
static uint8_t escape_ok[256], hex_digit[256], bracket_ct[256];
static int tables_ready;

/* Filled once at init, from the characters themselves and the tables
 * above: easier to check against the RFC than 256-entry literals. */
static void
tables(void)
{
	static const char op[] = "{}[]:,", esc[] = "\"\\/bfnrtu";
	static const char hex[] = "0123456789abcdefABCDEF";
	unsigned c, ct, kk, k1, k0;
	size_t i;

	if (tables_ready)
		return;
	for (c = 0; c < 256; c++) {
		byte_class[c] = c < 0x20 ? B_CTL : 0;
		num_class[c] = C_OTHER;
		token_kind[c] = K_ATOM;
	}
	byte_class['"'] |= B_QUOTE;
	byte_class['\\'] |= B_BSLASH;
	for (i = 0; op[i] != '\0'; i++)
		byte_class[(uint8_t)op[i]] |= B_OP;
	for (i = 0; i < 4; i++)
		byte_class[(uint8_t)"[]{}"[i]] |= B_BRACKET;
	byte_class[' '] |= B_WS;
	byte_class['\t'] |= B_WS;
	byte_class['\n'] |= B_WS;
	byte_class['\r'] |= B_WS;
	for (c = '0'; c <= '9'; c++) {
		byte_class[c] |= B_DIGIT;
		num_class[c] = c == '0' ? C_ZERO : C_DIGIT;
	}
	num_class['.'] = C_DOT;
	num_class['e'] = num_class['E'] = C_E;
	num_class['+'] = C_PLUS;
	num_class['-'] = C_MINUS;
	token_kind['{'] = K_OBJ;
	token_kind['['] = K_ARR;
	token_kind['}'] = K_OBJ_END;
	token_kind[']'] = K_ARR_END;
	token_kind[':'] = K_COLON;
	token_kind[','] = K_COMMA;
	token_kind['"'] = K_STR;
	bracket_ct['['] = CT_ARR | BR_OPEN;
	bracket_ct[']'] = CT_ARR;
	bracket_ct['{'] = CT_OBJ | BR_OPEN;
	bracket_ct['}'] = CT_OBJ;
	for (i = 0; esc[i] != '\0'; i++)
		escape_ok[(uint8_t)esc[i]] = 1;
	for (i = 0; hex[i] != '\0'; i++)
		hex_digit[(uint8_t)hex[i]] = 1;
	for (ct = CT_TOP; ct <= CT_OBJ; ct++)
		for (kk = 0; kk < 2; kk++)
			for (k1 = 0; k1 <= K_NONE; k1++)
				for (k0 = 0; k0 < K_NKINDS; k0++)
				{
					int g = state_after((int)ct, (int)kk,
					    (int)k1);

					refuse[ct << 8 | kk << 7 | k1 << 3 | k0] =
					    !allowed[g][k0];
					if (allowed[g][k0])
						allow_row[ct << 5 | kk << 4 | k1] |=
						    (uint8_t)(1u << k0);
				}
	for (c = 0; c < 128; c++)
		kind_vec[c] = (uint8_t)(token_kind[c] | (token_kind[c] == K_OBJ ||
		    token_kind[c] == K_COMMA ? 0x10 : 0));

	for (c = 0; c < 64; c++) {
		lane_up1[c] = (uint8_t)(c >= 1 ? c - 1 : 64);
		lane_up2[c] = (uint8_t)(c >= 2 ? c - 2 : 65 - c);
	}
	tables_ready = 1;
}

void
json_fast_init(struct json_fast *jf, int isa)
{
	tables();
	memset(jf, 0, sizeof(*jf));
	jf->isa = isa;
	jf->prev = jf->prev2 = K_NONE;
	jf->u8ascii = 1;
	lfp_utf8_init(&jf->u8);
}

/* Bit i of the result is the XOR of bits 0..i: between an opening quote
 * and the next quote, ones. */
static inline uint64_t
prefix_xor(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}

static inline unsigned
ctz(uint64_t x)
{
	return (unsigned)__builtin_ctzll(x);
}

/* Bits from..to, inclusive (from <= to < 64). */
static inline uint64_t
bit_range(unsigned from, unsigned to)
{
	return (~0ULL >> (63 - to)) & (~0ULL << from);
}

/* An atom that a block's end cuts: byte by byte, across blocks. */

static int
atom_feed(struct json_fast *jf, const uint8_t *s, size_t n)
{
	size_t i;
	int st = jf->atom;

	if (st == N_LIT) {
		for (i = 0; i < n; i++) {
			/* A NUL byte must not match the literal's end. */
			if (*jf->lit == '\0' || (uint8_t)*jf->lit != s[i]) {
				jf->atom = N_BAD;
				return -1;
			}
			jf->lit++;
		}
		return 0;
	}
	for (i = 0; i < n && st != N_BAD; i++)
		st = num_next[st][num_class[s[i]]];
	jf->atom = st;
	return st == N_BAD ? -1 : 0;
}

/* The bits below n. */
static inline uint64_t
low_bits(unsigned n)
{
	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

/* The first n bytes of an atom that goes on in the next block; digits:
 * their digit bits. */
static int
atom_begin(struct json_fast *jf, const uint8_t *s, size_t n,
    uint64_t digits)
{
	static const char *const lit[] = { "rue", "alse", "ull" };
	const char *l = s[0] == 't' ? lit[0] : s[0] == 'f' ? lit[1] :
	    s[0] == 'n' ? lit[2] : NULL;

	if (l != NULL) {
		jf->lit = l;
		jf->atom = N_LIT;
		return atom_feed(jf, s + 1, n - 1);
	}
	/* All digits (the usual cut): an integer so far. */
	if ((~digits & low_bits((unsigned)n)) == 0) {
		jf->atom = s[0] != '0' ? N_INT : n == 1 ? N_ZERO : N_BAD;
		return jf->atom == N_BAD ? -1 : 0;
	}
	jf->atom = N_NONE;
	return atom_feed(jf, s, n);
}

/* n more bytes of the open atom, from the start of a block. */
static int
atom_more(struct json_fast *jf, const uint8_t *s, size_t n, uint64_t digits)
{
	int st = jf->atom;

	/* Digits go on an integer, a fraction or an exponent unchanged. */
	if ((st == N_INT || st == N_FRAC || st == N_EXP) &&
	    (~digits & low_bits((unsigned)n)) == 0)
		return 0;
	return atom_feed(jf, s, n);
}

/* The atom ended: is what was read a whole number or literal? */
static int
atom_end(struct json_fast *jf)
{
	int st = jf->atom;

	jf->atom = N_NONE;
	if (st == N_LIT)
		return *jf->lit == '\0' ? 0 : -1;
	return st == N_ZERO || st == N_INT || st == N_FRAC || st == N_EXP ?
	    0 : -1;
}

/* A whole atom inside one block: p[0..n), digits its digit bits (bit 0 =
 * p[0]). Integers and plain decimals (the common atoms) by their digit
 * bits; literals compared whole; anything else through the automaton. */
static inline int
atom_whole(const uint8_t *p, unsigned n, uint64_t digits)
{
	uint64_t other = ~digits & ((1ULL << n) - 1);
	unsigned j = 0;
	int st;

	switch (p[0]) {
	case 't':
		return n == 4 && memcmp(p, "true", 4) == 0 ? 0 : -1;
	case 'f':
		return n == 5 && memcmp(p, "false", 5) == 0 ? 0 : -1;
	case 'n':
		return n == 4 && memcmp(p, "null", 4) == 0 ? 0 : -1;
	case '-':
		j = 1;
		other &= other - 1;
		break;
	}
	if (j < n && (other & (other - 1)) == 0) {
		/* Digits, with at most one non-digit after p[j]. */
		unsigned dot = other == 0 ? n : ctz(other);

		if (dot == n || p[dot] == '.') {
			if (dot == j || dot == n - 1)
				return -1;		/* no digit before or after */
			/* No leading zero: "0" alone before the point. */
			return p[j] == '0' && dot - j > 1 ? -1 : 0;
		}
	}
	for (st = N_NONE, j = 0; j < n && st != N_BAD; j++)
		st = num_next[st][num_class[p[j]]];
	return st == N_ZERO || st == N_INT || st == N_FRAC || st == N_EXP ?
	    0 : -1;
}

/* Check the escaped bytes of one block (bits in esc) and any \u hex
 * digits; hex digits cut by the block's end carry over in jf->hex. */
static int
escapes(struct json_fast *jf, const uint8_t *p, uint64_t esc)
{
	unsigned i, k;

	while (esc != 0) {
		i = ctz(esc);
		esc &= esc - 1;
		if (!escape_ok[p[i]])
			return -1;
		if (p[i] == 'u') {
			for (k = i + 1; k < i + 5 && k < JSON_BLOCK; k++)
				if (!hex_digit[p[k]])
					return -1;
			jf->hex = i + 5 - k;
		}
	}
	return 0;
}

/* The masks of one block: bit i for byte i. */
struct masks {
	uint64_t quote, bslash, op, bracket, ws, ctl, digit;
};

/* The brackets of one block, in order: they must match, within the depth
 * limit. Returns the bytes whose container is an object (*obj) and the
 * top level (*top); any other byte is in an array. Not a branch per
 * bracket: a mismatch and the depth are looked at after the walk. */
static inline __attribute__((always_inline)) int
brackets(struct json_fast *jf, const uint8_t *p, uint64_t br, uint64_t *obj,
    uint64_t *top)
{
	uint8_t *stack = jf->stack;
	unsigned d = jf->depth, ct = stack[d], from = 0, bad = 0, over = 0;
	uint64_t o = 0, t = 0;

	while (br != 0) {
		unsigned i = ctz(br), open, type, up, down;
		uint64_t r;

		br &= br - 1;
		/* Up to and with the bracket itself: the container before it. */
		r = bit_range(from, i);
		o |= ct == CT_OBJ ? r : 0;
		t |= ct == CT_TOP ? r : 0;
		from = i + 1;
		type = bracket_ct[p[i]];
		open = type >> 2;
		type &= 3;
		/* A closing bracket must close the container on top. */
		bad |= !open & (stack[d] != type);
		up = open;
		down = !open & (d != 0);
		stack[d + 1] = (uint8_t)type;	/* kept only if opened */
		d = d + up - down;
		over |= d > JSON_MAX_DEPTH;
		ct = stack[d];
	}
	if (from < JSON_BLOCK) {
		uint64_t r = bit_range(from, JSON_BLOCK - 1);

		o |= ct == CT_OBJ ? r : 0;
		t |= ct == CT_TOP ? r : 0;
	}
	if (bad || over)
		return -1;		/* documented: too deep is "no" */
	jf->depth = d;
	*obj = o;
	*top = t;
	return 0;
}

/* What the walks of one block work on, after the bit arithmetic. */
struct walk {
	uint64_t tokens;	/* first byte of every token */
	uint64_t atoms;		/* every byte of an atom */
	uint64_t starts;	/* first byte of an atom */
	uint64_t obj, top;	/* bytes in an object, at the top level */
};

/* One block, given its classification: escapes, strings, control bytes,
 * the atom the last block left open, the brackets. 0 (the walk is in *w),
 * or -1 when the text cannot be valid. */
static inline __attribute__((always_inline)) int
block_begin(struct json_fast *jf, const uint8_t *p, const struct masks *m,
    struct walk *w)
{
	uint64_t esc = jf->escaped, qs, str, out, atoms;
	unsigned k;

	/* Hex digits of a \u cut by the last block's end. */
	if (jf->hex != 0) {
		for (k = 0; k < jf->hex; k++)
			if (!hex_digit[p[k]])
				return -1;
		jf->hex = 0;
	}
	if ((m->bslash | esc) != 0) {
		uint64_t b = m->bslash;

		jf->escaped = 0;
		while (b != 0) {
			unsigned i = ctz(b);

			b &= b - 1;
			if ((esc >> i) & 1)
				continue;	/* an escaped backslash */
			if (i == JSON_BLOCK - 1)
				jf->escaped = 1;
			else
				esc |= 1ULL << (i + 1);
		}
		if (escapes(jf, p, esc) != 0)
			return -1;
	}

	qs = m->quote & ~esc;
	str = prefix_xor(qs) ^ jf->in_string;	/* opening quote .. before closing */
	jf->in_string = 0 - (str >> 63);	/* all ones when it goes on */
	if ((m->ctl & str) != 0)
		return -1;			/* a raw control byte in a string */
	out = ~(str | qs);
	w->atoms = atoms = out & ~(m->op | m->ws);
	w->starts = atoms & ~(atoms << 1 | jf->atom_open);
	w->tokens = (m->op & out) | (qs & str) | w->starts;

	/* An atom from the last block goes on here. */
	if (jf->atom_open) {
		unsigned run = ~atoms == 0 ? JSON_BLOCK : ctz(~atoms);

		if (atom_more(jf, p, run, m->digit) != 0)
			return -1;
		if (run < JSON_BLOCK) {
			if (atom_end(jf) != 0)
				return -1;
			jf->atom_open = 0;
		}
	}
	if (w->tokens == 0)
		return 0;
	return brackets(jf, p, m->bracket & out, &w->obj, &w->top);
}

/* Each token against the one before it (prev and keyish carry over from
 * the last block), one at a time. */
static inline __attribute__((always_inline)) int
tokens_scalar(struct json_fast *jf, const uint8_t *p, const struct walk *w)
{
	uint64_t tokens = w->tokens;
	unsigned bad = 0, prev = jf->prev, prev2 = jf->prev2;

	while (tokens != 0) {
		unsigned i = ctz(tokens), kind = token_kind[p[i]];
		unsigned ct = (unsigned)((w->obj >> i) & 1) + 1 -
		    (unsigned)((w->top >> i) & 1);
		unsigned keyish = prev2 == K_OBJ || prev2 == K_COMMA;

		tokens &= tokens - 1;
		bad |= refuse[ct << 8 | keyish << 7 | prev << 3 | kind];
		prev2 = prev;
		prev = kind;
	}
	jf->prev = prev;
	jf->prev2 = prev2;
	return bad ? -1 : 0;
}

/* Every atom that starts in the block (one the grammar did not expect has
 * already failed it). */
static inline __attribute__((always_inline)) int
block_atoms(struct json_fast *jf, const uint8_t *p, const struct masks *m,
    const struct walk *w)
{
	uint64_t starts = w->starts;

	while (starts != 0) {
		unsigned i = ctz(starts);
		uint64_t rest = ~(w->atoms >> i);
		unsigned run = rest == 0 ? JSON_BLOCK - i : ctz(rest);

		starts &= starts - 1;
		if (i + run == JSON_BLOCK) {
			/* Cut by the block's end: on in the next one. */
			if (atom_begin(jf, p + i, run, m->digit >> i) != 0)
				return -1;
			jf->atom_open = 1;
		} else if (atom_whole(p + i, run, m->digit >> i) != 0) {
			return -1;
		}
	}
	return 0;
}

static inline __attribute__((always_inline)) int
block(struct json_fast *jf, const uint8_t *p, const struct masks *m)
{
	struct walk w;

	if (block_begin(jf, p, m, &w) != 0)
		return -1;
	if (w.tokens == 0)
		return 0;
	if (tokens_scalar(jf, p, &w) != 0)
		return -1;
	return block_atoms(jf, p, m, &w);
}

/* The classifiers. Scalar: the byte classes of eight bytes in one word,
 * then each class bit gathered into eight mask bits by a multiply (bit 7
 * of byte j lands in bit 56 + j). */
static inline __attribute__((always_inline)) int
block_scalar(struct json_fast *jf, const uint8_t *p)
{
	uint64_t mk[7] = { 0, 0, 0, 0, 0, 0, 0 };
	struct masks m;
	unsigned w, j, k;

	for (w = 0; w < JSON_BLOCK / 8; w++) {
		uint64_t c = 0;

		for (j = 0; j < 8; j++)
			c |= (uint64_t)byte_class[p[8 * w + j]] << (8 * j);
		for (k = 0; k < 7; k++) {
			uint64_t b = (c << (7 - k)) & 0x8080808080808080ULL;

			mk[k] |= ((b >> 7) * 0x0102040810204080ULL) >> 56 << (8 * w);
		}
	}
	m.quote = mk[0];
	m.bslash = mk[1];
	m.op = mk[2];
	m.ws = mk[3];
	m.ctl = mk[4];
	m.digit = mk[5];
	m.bracket = mk[6];
	return block(jf, p, &m);
}

static int
blocks_scalar(struct json_fast *jf, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (block_scalar(jf, p + i * JSON_BLOCK) != 0)
			return -1;
	return 0;
}

#if defined(__x86_64__)
/*
 * Structural and whitespace bytes by two nibble lookups ANDed, one bit per
 * product of a high-nibble set and a low-nibble set:
 *   0x01  {5,7} x {B,D}   [ ] { }        0x08  {2} x {0}        space
 *   0x02  {2} x {C}       ,              0x10  {0} x {9,A,D}    \t \n \r
 *   0x04  {3} x {A}       :
 * Bytes from 0x80 have a high nibble of 8..F, whose entries are 0.
 */
static const uint8_t nib_lo[16] = {
	0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x14, 0x01, 0x02, 0x11, 0, 0,
};
static const uint8_t nib_hi[16] = {
	0x10, 0, 0x0a, 0x04, 0, 0x01, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0,
};

__attribute__((target("ssse3,sse4.1")))
static int
blocks_sse4(struct json_fast *jf, const uint8_t *p, size_t n)
{
	const __m128i lo_t = _mm_loadu_si128((const __m128i *)nib_lo);
	const __m128i hi_t = _mm_loadu_si128((const __m128i *)nib_hi);
	const __m128i nib = _mm_set1_epi8(0x0f), zero = _mm_setzero_si128();
	const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\');
	const __m128i c1f = _mm_set1_epi8(0x1f), c0 = _mm_set1_epi8('0');
	const __m128i c9 = _mm_set1_epi8(9);
	const __m128i opm = _mm_set1_epi8(0x07), wsm = _mm_set1_epi8(0x18);
	const __m128i brm = _mm_set1_epi8(0x01);
	size_t i;

	for (i = 0; i < n; i++, p += JSON_BLOCK) {
		struct masks m = { 0, 0, 0, 0, 0, 0, 0 };
		unsigned k;

		for (k = 0; k < 4; k++) {
			__m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * k));
			__m128i cls = _mm_and_si128(
			    _mm_shuffle_epi8(lo_t, _mm_and_si128(v, nib)),
			    _mm_shuffle_epi8(hi_t,
			    _mm_and_si128(_mm_srli_epi16(v, 4), nib)));
			__m128i dv = _mm_sub_epi8(v, c0);
			unsigned sh = 16 * k;

#define MASK(x) ((uint64_t)(uint16_t)_mm_movemask_epi8(x) << sh)
			m.quote |= MASK(_mm_cmpeq_epi8(v, q));
			m.bslash |= MASK(_mm_cmpeq_epi8(v, b));
			m.op |= MASK(_mm_cmpeq_epi8(_mm_and_si128(cls, opm), zero)) ^
			    (0xffffULL << sh);
			m.ws |= MASK(_mm_cmpeq_epi8(_mm_and_si128(cls, wsm), zero)) ^
			    (0xffffULL << sh);
			m.bracket |= MASK(_mm_cmpeq_epi8(_mm_and_si128(cls, brm),
			    zero)) ^ (0xffffULL << sh);
			m.ctl |= MASK(_mm_cmpeq_epi8(_mm_min_epu8(v, c1f), v));
			m.digit |= MASK(_mm_cmpeq_epi8(_mm_min_epu8(dv, c9), dv));
#undef MASK
		}
		if (block(jf, p, &m) != 0)
			return -1;
	}
	return 0;
}

__attribute__((target("avx2,bmi,bmi2")))
static int
blocks_avx2(struct json_fast *jf, const uint8_t *p, size_t n)
{
	const __m256i lo_t = _mm256_broadcastsi128_si256(
	    _mm_loadu_si128((const __m128i *)nib_lo));
	const __m256i hi_t = _mm256_broadcastsi128_si256(
	    _mm_loadu_si128((const __m128i *)nib_hi));
	const __m256i nib = _mm256_set1_epi8(0x0f), zero = _mm256_setzero_si256();
	const __m256i q = _mm256_set1_epi8('"'), b = _mm256_set1_epi8('\\');
	const __m256i c1f = _mm256_set1_epi8(0x1f), c0 = _mm256_set1_epi8('0');
	const __m256i c9 = _mm256_set1_epi8(9);
	const __m256i opm = _mm256_set1_epi8(0x07), wsm = _mm256_set1_epi8(0x18);
	const __m256i brm = _mm256_set1_epi8(0x01);
	size_t i;

	for (i = 0; i < n; i++, p += JSON_BLOCK) {
		struct masks m = { 0, 0, 0, 0, 0, 0, 0 };
		unsigned k;

		for (k = 0; k < 2; k++) {
			__m256i v = _mm256_loadu_si256((const __m256i *)(p + 32 * k));
			__m256i cls = _mm256_and_si256(
			    _mm256_shuffle_epi8(lo_t, _mm256_and_si256(v, nib)),
			    _mm256_shuffle_epi8(hi_t,
			    _mm256_and_si256(_mm256_srli_epi16(v, 4), nib)));
			__m256i dv = _mm256_sub_epi8(v, c0);
			unsigned sh = 32 * k;

#define MASK(x) ((uint64_t)(uint32_t)_mm256_movemask_epi8(x) << sh)
			m.quote |= MASK(_mm256_cmpeq_epi8(v, q));
			m.bslash |= MASK(_mm256_cmpeq_epi8(v, b));
			m.op |= MASK(_mm256_cmpeq_epi8(_mm256_and_si256(cls, opm),
			    zero)) ^ (0xffffffffULL << sh);
			m.ws |= MASK(_mm256_cmpeq_epi8(_mm256_and_si256(cls, wsm),
			    zero)) ^ (0xffffffffULL << sh);
			m.bracket |= MASK(_mm256_cmpeq_epi8(_mm256_and_si256(cls,
			    brm), zero)) ^ (0xffffffffULL << sh);
			m.ctl |= MASK(_mm256_cmpeq_epi8(_mm256_min_epu8(v, c1f), v));
			m.digit |= MASK(_mm256_cmpeq_epi8(_mm256_min_epu8(dv, c9),
			    dv));
#undef MASK
		}
		if (block(jf, p, &m) != 0)
			return -1;
	}
	return 0;
}

#define AVX512 "avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi,bmi2"

/* The tables of the vector token check, loaded once per run of blocks. */
struct vtabs {
	__m512i kind_lo, kind_hi, row_lo, row_hi, up1, up2;
};

/* Each token against the one before it, 64 at a time. Per byte, one byte
 * of token description: kind (bits 0-3), "is '{' or ','" (bit 4) and the
 * container (bits 5-6); the tokens' descriptions packed together
 * (vpcompressb); in each lane the description of the token before and of
 * the one before that (lane moves, the first lanes from the last block);
 * bits 0-3 of the one before, bit 4 of the one before that and bits 5-6 of
 * the token itself index allow_row[], whose bit for the token's kind must
 * be set. kind_vec[] and allow_row[] are 128 bytes, looked up by vpermi2b
 * with the low 7 bits: a byte from 0x80 gets the kind of byte & 0x7f,
 * which can only be wrong for an atom's first byte, and an atom that
 * starts with such a byte fails its own check. */
__attribute__((target(AVX512), always_inline))
static inline int
tokens_avx512(struct json_fast *jf, __m512i v, const struct walk *w,
    const struct vtabs *vt)
{
	uint64_t t = w->tokens;
	unsigned n = (unsigned)__builtin_popcountll(t);
	__mmask64 live = n == 64 ? ~0ULL : (1ULL << n) - 1;
	__m512i ct, desc, prev, prev2, carry, idx, row, bit;
	uint8_t out[64];

	/* Containers as bits 5-6: 1 an array, 2 an object, 0 the top level. */
	ct = _mm512_mask_mov_epi8(_mm512_mask_mov_epi8(_mm512_set1_epi8(0x20),
	    w->obj, _mm512_set1_epi8(0x40)), w->top, _mm512_setzero_si512());
	desc = _mm512_maskz_compress_epi8(t, _mm512_or_si512(ct,
	    _mm512_permutex2var_epi8(vt->kind_lo, v, vt->kind_hi)));
	carry = _mm512_mask_set1_epi8(_mm512_set1_epi8((char)kind_desc[jf->prev]),
	    2, (char)kind_desc[jf->prev2]);
	prev = _mm512_permutex2var_epi8(desc, vt->up1, carry);
	prev2 = _mm512_permutex2var_epi8(desc, vt->up2, carry);
	/* Bit-select (0xe4: where C, A, else B). */
	idx = _mm512_ternarylogic_epi32(prev, desc, _mm512_set1_epi8(0x0f), 0xe4);
	idx = _mm512_ternarylogic_epi32(prev2, idx, _mm512_set1_epi8(0x10), 0xe4);
	row = _mm512_permutex2var_epi8(vt->row_lo, idx, vt->row_hi);
	bit = _mm512_shuffle_epi8(_mm512_set1_epi64(0x8040201008040201LL), desc);
	if (_mm512_mask_testn_epi8_mask(live, row, bit) != 0)
		return -1;
	_mm512_storeu_si512((void *)out, desc);
	if (n >= 2) {
		jf->prev2 = out[n - 2] & 0x0f;
		jf->prev = out[n - 1] & 0x0f;
	} else if (n == 1) {
		jf->prev2 = jf->prev;
		jf->prev = out[0] & 0x0f;
	}
	return 0;
}

__attribute__((target(AVX512)))
static int
blocks_avx512(struct json_fast *jf, const uint8_t *p, size_t n)
{
	const __m512i lo_t = _mm512_broadcast_i32x4(
	    _mm_loadu_si128((const __m128i *)nib_lo));
	const __m512i hi_t = _mm512_broadcast_i32x4(
	    _mm_loadu_si128((const __m128i *)nib_hi));
	const __m512i nib = _mm512_set1_epi8(0x0f);
	const __m512i q = _mm512_set1_epi8('"'), b = _mm512_set1_epi8('\\');
	const __m512i sp = _mm512_set1_epi8(0x20), c0 = _mm512_set1_epi8('0');
	const __m512i c10 = _mm512_set1_epi8(10);
	const __m512i opm = _mm512_set1_epi8(0x07), wsm = _mm512_set1_epi8(0x18);
	const __m512i brm = _mm512_set1_epi8(0x01);
	__m512i u8prev = _mm512_loadu_si512((const void *)jf->u8prev);
	__m512i u8err = _mm512_setzero_si512();
	int u8ascii = jf->u8ascii;
	struct vtabs vt;
	size_t i;

	vt.kind_lo = _mm512_loadu_si512((const void *)kind_vec);
	vt.kind_hi = _mm512_loadu_si512((const void *)(kind_vec + 64));
	vt.row_lo = _mm512_loadu_si512((const void *)allow_row);
	vt.row_hi = _mm512_loadu_si512((const void *)(allow_row + 64));
	vt.up1 = _mm512_loadu_si512((const void *)lane_up1);
	vt.up2 = _mm512_loadu_si512((const void *)lane_up2);

	for (i = 0; i < n; i++, p += JSON_BLOCK) {
		__m512i v = _mm512_loadu_si512((const void *)p);
		__m512i cls = _mm512_and_si512(
		    _mm512_shuffle_epi8(lo_t, _mm512_and_si512(v, nib)),
		    _mm512_shuffle_epi8(hi_t,
		    _mm512_and_si512(_mm512_srli_epi16(v, 4), nib)));
		int ascii = _mm512_movepi8_mask(v) == 0;
		struct masks m;
		struct walk w;

		/* UTF-8 here, on the bytes already loaded (a block of ASCII
		 * after one of ASCII cannot be wrong). */
		if (!(ascii && u8ascii))
			u8err = _mm512_or_si512(u8err,
			    lfp_utf8_block_avx512(u8prev, v));
		u8prev = v;
		u8ascii = ascii;

		m.quote = _mm512_cmpeq_epi8_mask(v, q);
		m.bslash = _mm512_cmpeq_epi8_mask(v, b);
		m.op = _mm512_test_epi8_mask(cls, opm);
		m.ws = _mm512_test_epi8_mask(cls, wsm);
		m.bracket = _mm512_test_epi8_mask(cls, brm);
		m.ctl = _mm512_cmplt_epu8_mask(v, sp);
		m.digit = _mm512_cmplt_epu8_mask(_mm512_sub_epi8(v, c0), c10);
		if (block_begin(jf, p, &m, &w) != 0)
			return -1;
		if (w.tokens == 0)
			continue;
		if (tokens_avx512(jf, v, &w, &vt) != 0 ||
		    block_atoms(jf, p, &m, &w) != 0)
			return -1;
	}
	_mm512_storeu_si512((void *)jf->u8prev, u8prev);
	jf->u8ascii = u8ascii;
	return _mm512_test_epi8_mask(u8err, u8err) == 0 ? 0 : -1;
}
#endif /* __x86_64__ */

static int
blocks(struct json_fast *jf, const uint8_t *p, size_t n)
{
	switch (jf->isa) {
#if defined(__x86_64__)
	case LFP_ISA_AVX512:
		return blocks_avx512(jf, p, n);
	case LFP_ISA_AVX2:
		return blocks_avx2(jf, p, n);
	case LFP_ISA_SSE4:
		return blocks_sse4(jf, p, n);
#endif
	default:
		return blocks_scalar(jf, p, n);
	}
}

/* Whole blocks from the caller's buffer, this many bytes at a time: the
 * UTF-8 pass and the block pass then share the cache. */
#define JSON_SPAN (8 * 1024)

/* The separate UTF-8 pass, for the classifiers that do not check it in
 * their own loop. */
static int
utf8(struct json_fast *jf, const uint8_t *buf, size_t len)
{
	if (jf->isa == LFP_ISA_AVX512)
		return 0;
	return lfp_utf8_feed(&jf->u8, buf, len);
}

static int
fail(struct json_fast *jf)
{
	jf->failed = 1;
	return -1;
}

int
json_fast_feed(struct json_fast *jf, const uint8_t *buf, size_t len)
{
	size_t i = 0;

	if (jf->failed)
		return -1;
	if (jf->npart > 0) {
		size_t take = JSON_BLOCK - jf->npart;

		if (take > len)
			take = len;
		memcpy(jf->part + jf->npart, buf, take);
		jf->npart += take;
		i = take;
		if (jf->npart < JSON_BLOCK)
			return utf8(jf, buf, len) == 0 ? 0 : fail(jf);
		if (utf8(jf, buf, take) != 0 ||
		    blocks(jf, jf->part, 1) != 0)
			return fail(jf);
		jf->npart = 0;
	}
	while (len - i >= JSON_BLOCK) {
		size_t span = (len - i) / JSON_BLOCK * JSON_BLOCK;

		if (span > JSON_SPAN)
			span = JSON_SPAN;
		if (utf8(jf, buf + i, span) != 0 ||
		    blocks(jf, buf + i, span / JSON_BLOCK) != 0)
			return fail(jf);
		i += span;
	}
	if (i < len) {
		memcpy(jf->part, buf + i, len - i);
		jf->npart = len - i;
		if (utf8(jf, buf + i, len - i) != 0)
			return fail(jf);
	}
	return 0;
}

int
json_fast_finish(struct json_fast *jf)
{
	if (jf->failed)
		return 0;
	/* Spaces after the end: they close an atom and change nothing else
	 * (inside an open string the text is refused anyway). */
	memset(jf->part + jf->npart, ' ', JSON_BLOCK - jf->npart);
	jf->npart = 0;
	if (blocks(jf, jf->part, 1) != 0) {
		jf->failed = 1;
		return 0;
	}
	jf->failed = 1;		/* finish once */
	return state_after(jf->stack[jf->depth],
	    jf->prev2 == K_OBJ || jf->prev2 == K_COMMA, (int)jf->prev) == G_DONE && jf->in_string == 0 && jf->hex == 0 &&
	    jf->escaped == 0 && lfp_utf8_finish(&jf->u8) == 0;
}
