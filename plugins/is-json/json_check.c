/* Streaming RFC 8259 validator (see json_check.h).
 *
 * One byte at a time through the grammar of RFC 8259 sections 2 to 7:
 *   JSON-text = ws value ws; value = object / array / string / number /
 *   true / false / null; ws = space, tab, LF, CR only.
 * Strings must be strict UTF-8 (section 8.1) and contain no unescaped
 * control character; escapes are the nine of section 7, and \u takes
 * exactly four hex digits. A \u escape of a lone surrogate is what the
 * grammar allows, so it is accepted (section 8.2 leaves its meaning to the
 * reader). A byte order mark is not whitespace: refused. Numbers follow
 * section 6 exactly; their size is not limited (they are not converted). */
#include "json_check.h"

#include <string.h>

enum {
	S_FAIL = -1,
	S_VALUE = 0,	/* a value must start here */
	S_ARR_FIRST,	/* after '[': a value or ']' */
	S_OBJ_FIRST,	/* after '{': a key or '}' */
	S_OBJ_KEY,	/* after ',' in an object: a key */
	S_COLON,	/* after a key */
	S_AFTER,	/* after a value inside a container: ',' or the close */
	S_DONE,		/* the top-level value is complete */
	S_STR,
	S_STR_ESC,
	S_STR_HEX,
	S_LIT,
	S_NUM_MINUS,	/* '-' seen: a digit must follow */
	S_NUM_ZERO,	/* a leading 0: no more integer digits */
	S_NUM_INT,
	S_NUM_DOT,	/* '.' seen: a digit must follow */
	S_NUM_FRAC,
	S_NUM_E,	/* 'e' seen: a sign or a digit */
	S_NUM_ESIGN,	/* exponent sign seen: a digit must follow */
	S_NUM_EXP,
};

void
json_check_init(struct json_check *jc)
{
	memset(jc, 0, sizeof(*jc));
	jc->state = S_VALUE;
}

static int
is_ws(uint8_t b)
{
	return b == ' ' || b == '\t' || b == '\n' || b == '\r';
}

static int
is_digit(uint8_t b)
{
	return b >= '0' && b <= '9';
}

static int
is_hex(uint8_t b)
{
	return is_digit(b) || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F');
}

/* A value just ended: the container (or the top level) decides what next. */
static int
value_done(const struct json_check *jc)
{
	return jc->depth == 0 ? S_DONE : S_AFTER;
}

static int
push(struct json_check *jc, uint8_t open)
{
	if (jc->depth == JSON_MAX_DEPTH)
		return S_FAIL;		/* documented: too deep is "no" */
	jc->stack[jc->depth++] = open;
	return open == '[' ? S_ARR_FIRST : S_OBJ_FIRST;
}

static int
pop(struct json_check *jc)
{
	jc->depth--;
	return value_done(jc);
}

static int
start_string(struct json_check *jc, int key)
{
	jc->in_key = key;
	lfp_utf8_init(&jc->u8);
	return S_STR;
}

/* The first byte of a value. */
static int
value_start(struct json_check *jc, uint8_t b)
{
	switch (b) {
	case '{':
	case '[':
		return push(jc, b);
	case '"':
		return start_string(jc, 0);
	case 't':
		jc->lit = "rue";
		return S_LIT;
	case 'f':
		jc->lit = "alse";
		return S_LIT;
	case 'n':
		jc->lit = "ull";
		return S_LIT;
	case '-':
		return S_NUM_MINUS;
	case '0':
		return S_NUM_ZERO;
	default:
		return b >= '1' && b <= '9' ? S_NUM_INT : S_FAIL;
	}
}

static int
after_value(struct json_check *jc, uint8_t b)
{
	uint8_t top = jc->stack[jc->depth - 1];

	if (b == ',')
		return top == '[' ? S_VALUE : S_OBJ_KEY;
	if ((b == ']' && top == '[') || (b == '}' && top == '{'))
		return pop(jc);
	return S_FAIL;
}

static int
in_string(struct json_check *jc, uint8_t b)
{
	if (jc->u8.need == 0 && b < 0x80) {
		if (b == '"')
			return jc->in_key ? S_COLON : value_done(jc);
		if (b == '\\')
			return S_STR_ESC;
		return b < 0x20 ? S_FAIL : S_STR;
	}
	return lfp_utf8_step(&jc->u8, b) == LFP_UTF8_BAD ? S_FAIL : S_STR;
}

static int
escape(struct json_check *jc, uint8_t b)
{
	if (b == 'u') {
		jc->hex = 4;
		return S_STR_HEX;
	}
	return strchr("\"\\/bfnrt", b) != NULL && b != '\0' ? S_STR : S_FAIL;
}

/* Digits and marks that continue a number in state s; NUM_END when b ends
 * it (the byte is then read again in the state after the number). */
#define NUM_END (-2)

static int
number(int s, uint8_t b)
{
	switch (s) {
	case S_NUM_MINUS:
		if (b == '0')
			return S_NUM_ZERO;
		return b >= '1' && b <= '9' ? S_NUM_INT : S_FAIL;
	case S_NUM_ZERO:
	case S_NUM_INT:
		if (is_digit(b) && s == S_NUM_INT)
			return S_NUM_INT;
		if (b == '.')
			return S_NUM_DOT;
		if (b == 'e' || b == 'E')
			return S_NUM_E;
		return is_digit(b) ? S_FAIL : NUM_END;	/* no 01 */
	case S_NUM_DOT:
		return is_digit(b) ? S_NUM_FRAC : S_FAIL;
	case S_NUM_FRAC:
		if (is_digit(b))
			return S_NUM_FRAC;
		if (b == 'e' || b == 'E')
			return S_NUM_E;
		return NUM_END;
	case S_NUM_E:
		if (b == '+' || b == '-')
			return S_NUM_ESIGN;
		return is_digit(b) ? S_NUM_EXP : S_FAIL;
	case S_NUM_ESIGN:
		return is_digit(b) ? S_NUM_EXP : S_FAIL;
	default: /* S_NUM_EXP */
		return is_digit(b) ? S_NUM_EXP : NUM_END;
	}
}

/* One byte in the structural states (outside strings, literals and
 * numbers). */
static int
structural(struct json_check *jc, int s, uint8_t b)
{
	if (is_ws(b))
		return s;
	switch (s) {
	case S_VALUE:
		return value_start(jc, b);
	case S_ARR_FIRST:
		return b == ']' ? pop(jc) : value_start(jc, b);
	case S_OBJ_FIRST:
		if (b == '}')
			return pop(jc);
		return b == '"' ? start_string(jc, 1) : S_FAIL;
	case S_OBJ_KEY:
		return b == '"' ? start_string(jc, 1) : S_FAIL;
	case S_COLON:
		return b == ':' ? S_VALUE : S_FAIL;
	case S_AFTER:
		return after_value(jc, b);
	default: /* S_DONE: only whitespace may follow */
		return S_FAIL;
	}
}

static int
step(struct json_check *jc, uint8_t b)
{
	int s = jc->state, n;

	switch (s) {
	case S_STR:
		return in_string(jc, b);
	case S_STR_ESC:
		return escape(jc, b);
	case S_STR_HEX:
		if (!is_hex(b))
			return S_FAIL;
		return --jc->hex == 0 ? S_STR : S_STR_HEX;
	case S_LIT:
		if (b != (uint8_t)*jc->lit)
			return S_FAIL;
		return *++jc->lit == '\0' ? value_done(jc) : S_LIT;
	case S_NUM_MINUS: case S_NUM_ZERO: case S_NUM_INT: case S_NUM_DOT:
	case S_NUM_FRAC: case S_NUM_E: case S_NUM_ESIGN: case S_NUM_EXP:
		n = number(s, b);
		if (n != NUM_END)
			return n;
		/* The number ended before b: b belongs to what follows it. */
		return structural(jc, value_done(jc), b);
	default:
		return structural(jc, s, b);
	}
}

int
json_check_feed(struct json_check *jc, const uint8_t *buf, size_t len)
{
	size_t i = 0;

	while (i < len && jc->state != S_FAIL) {
		/* Fast path through plain ASCII string content. */
		if (jc->state == S_STR && jc->u8.need == 0) {
			while (i < len && buf[i] >= 0x20 && buf[i] < 0x80 &&
			    buf[i] != '"' && buf[i] != '\\')
				i++;
			if (i == len)
				break;
		}
		jc->state = step(jc, buf[i++]);
	}
	return jc->state == S_FAIL ? -1 : 0;
}

int
json_check_finish(const struct json_check *jc)
{
	switch (jc->state) {
	case S_DONE:
		return 1;
	case S_NUM_ZERO:
	case S_NUM_INT:
	case S_NUM_FRAC:
	case S_NUM_EXP:
		/* A number may end the text when it is the whole value. */
		return jc->depth == 0;
	default:
		return 0;
	}
}
