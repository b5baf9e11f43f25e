/* TOML bare values (see toml_int.h): booleans and integers are decoded;
 * floats and the four date/time forms are checked against the TOML 1.0.0
 * grammar so that a valid one is reported as unsupported and a malformed
 * one as invalid. Nothing here goes through strtol or sscanf: every digit
 * is read by hand against the grammar, with the int64 range checked. */
#include "lib/toml_int.h"
#include "lib/text.h"

#include <stdint.h>
#include <string.h>

/* A bare value is one run of these bytes (a date-time may also hold one
 * space, see token_end). Anything else ends it. */
static int
is_token_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '+' || c == '-' ||
	    c == '.' || c == ':';
}

static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* ---- integers ---- */

enum { INT_OK, INT_SYNTAX, INT_RANGE };

/* dec-int (no leading zeros), or 0x / 0o / 0b with no sign; '_' only
 * between two digits; the int64 range exactly. */
static int
parse_integer(const char *s, size_t n, long long *out)
{
	unsigned long long v = 0, limit;
	int neg = 0, base = 10, prev_digit = 0, range = 0, d;
	size_t i = 0;

	if (n > 0 && (s[0] == '+' || s[0] == '-')) {
		neg = s[0] == '-';
		i = 1;
	}
	if (n - i >= 2 && s[i] == '0' &&
	    (s[i + 1] == 'x' || s[i + 1] == 'o' || s[i + 1] == 'b')) {
		if (i != 0)
			return INT_SYNTAX;
		base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
		i = 2;
	} else if (n - i > 1 && s[i] == '0')
		return INT_SYNTAX;
	limit = neg ? (unsigned long long)INT64_MAX + 1 : INT64_MAX;
	for (; i < n; i++) {
		if (s[i] == '_') {
			if (!prev_digit)
				return INT_SYNTAX;
			prev_digit = 0;
			continue;
		}
		if ((d = hex_digit((unsigned char)s[i])) < 0 || d >= base)
			return INT_SYNTAX;
		if (v > (limit - (unsigned)d) / (unsigned)base)
			range = 1;
		else
			v = v * (unsigned)base + (unsigned)d;
		prev_digit = 1;
	}
	if (!prev_digit)
		return INT_SYNTAX;	/* no digits, or a trailing '_' */
	if (range)
		return INT_RANGE;
	if (neg)
		*out = v == (unsigned long long)INT64_MAX + 1 ? INT64_MIN :
		    -(long long)v;
	else
		*out = (long long)v;
	return INT_OK;
}

/* ---- floats (recognised only) ---- */

/* DIGIT *( DIGIT / "_" DIGIT ) at *i; 1 when at least one digit. */
static int
digits_us(const char *s, size_t n, size_t *i)
{
	if (*i >= n || !is_digit(s[*i]))
		return 0;
	(*i)++;
	while (*i < n) {
		if (is_digit(s[*i]))
			(*i)++;
		else if (s[*i] == '_' && *i + 1 < n && is_digit(s[*i + 1]))
			*i += 2;
		else
			break;
	}
	return 1;
}

static int
is_float(const char *s, size_t n)
{
	size_t i = 0, st;
	int frac = 0, exp = 0;

	if (n > 0 && (s[0] == '+' || s[0] == '-'))
		i = 1;
	if (n - i == 3 && (memcmp(s + i, "inf", 3) == 0 ||
	    memcmp(s + i, "nan", 3) == 0))
		return 1;
	st = i;
	if (!digits_us(s, n, &i))
		return 0;
	if (i - st > 1 && s[st] == '0')
		return 0;	/* the integer part has no leading zero */
	if (i < n && s[i] == '.') {
		i++;
		if (!digits_us(s, n, &i))
			return 0;
		frac = 1;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (!digits_us(s, n, &i))
			return 0;
		exp = 1;
	}
	return i == n && (frac || exp);
}

/* ---- dates and times (recognised only, RFC 3339 as TOML restricts it) */

/* Exactly k digits at s[*i] into *val (k <= 4). */
static int
fixed_digits(const char *s, size_t n, size_t *i, size_t k, int *val)
{
	size_t j;

	if (n - *i < k)
		return 0;
	*val = 0;
	for (j = 0; j < k; j++) {
		if (!is_digit(s[*i + j]))
			return 0;
		*val = *val * 10 + (s[*i + j] - '0');
	}
	*i += k;
	return 1;
}

static int
expect(const char *s, size_t n, size_t *i, char c)
{
	if (*i >= n || s[*i] != c)
		return 0;
	(*i)++;
	return 1;
}

static int
days_in_month(int y, int m)
{
	static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30,
	    31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : days[m - 1];
}

/* HH:MM:SS[.fraction]; seconds up to 60 for a leap second. */
static int
partial_time(const char *s, size_t n, size_t *i)
{
	int h, m, sec;

	if (!fixed_digits(s, n, i, 2, &h) || !expect(s, n, i, ':') ||
	    !fixed_digits(s, n, i, 2, &m) || !expect(s, n, i, ':') ||
	    !fixed_digits(s, n, i, 2, &sec))
		return 0;
	if (h > 23 || m > 59 || sec > 60)
		return 0;
	if (*i < n && s[*i] == '.') {
		(*i)++;
		if (*i >= n || !is_digit(s[*i]))
			return 0;
		while (*i < n && is_digit(s[*i]))
			(*i)++;
	}
	return 1;
}

/* Offset date-time, local date-time, local date or local time. */
static int
is_datetime(const char *s, size_t n)
{
	size_t i = 0;
	int y, mo, d, h, m;

	if (n >= 3 && s[2] == ':')
		return partial_time(s, n, &i) && i == n;
	if (!fixed_digits(s, n, &i, 4, &y) || !expect(s, n, &i, '-') ||
	    !fixed_digits(s, n, &i, 2, &mo) || !expect(s, n, &i, '-') ||
	    !fixed_digits(s, n, &i, 2, &d))
		return 0;
	if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo))
		return 0;
	if (i == n)
		return 1;
	if (s[i] != 'T' && s[i] != 't' && s[i] != ' ')
		return 0;
	i++;
	if (!partial_time(s, n, &i))
		return 0;
	if (i == n)
		return 1;
	if (s[i] == 'Z' || s[i] == 'z')
		return i + 1 == n;
	if (s[i] != '+' && s[i] != '-')
		return 0;
	i++;
	if (!fixed_digits(s, n, &i, 2, &h) || !expect(s, n, &i, ':') ||
	    !fixed_digits(s, n, &i, 2, &m))
		return 0;
	return h <= 23 && m <= 59 && i == n;
}

/* Starts like a date (DDDD-) or a time (DD:). */
static int
looks_like_datetime(const char *s, size_t n)
{
	if (n >= 5 && is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2]) &&
	    is_digit(s[3]) && s[4] == '-')
		return 1;
	return n >= 3 && is_digit(s[0]) && is_digit(s[1]) && s[2] == ':';
}

/* Length of the bare value at lx->p. A full date followed by one space
 * and a time ("1979-05-27 07:32:00") is one value: TOML allows the space
 * as the date-time delimiter. */
static size_t
token_end(const struct tlex *lx)
{
	size_t n = 0;

	while (is_token_char(tlex_peek(lx, n)))
		n++;
	if (n == 10 && looks_like_datetime(lx->p, n) &&
	    tlex_peek(lx, 10) == ' ' && is_digit(tlex_peek(lx, 11)) &&
	    is_digit(tlex_peek(lx, 12)) && tlex_peek(lx, 13) == ':') {
		n = 11;
		while (is_token_char(tlex_peek(lx, n)))
			n++;
	}
	return n;
}

json_t *
tlex_scalar(struct tlex *lx)
{
	const char *s = lx->p;
	size_t n = token_end(lx);
	long long iv;
	json_t *v = NULL;

	if (n == 0) {
		tlex_fail(lx, s, "expected a value");
		return NULL;
	}
	if (n == 4 && memcmp(s, "true", 4) == 0)
		v = json_true();
	else if (n == 5 && memcmp(s, "false", 5) == 0)
		v = json_false();
	else if (looks_like_datetime(s, n)) {
		if (!is_datetime(s, n)) {
			tlex_fail(lx, s, "invalid date or time");
			return NULL;
		}
		tlex_unsupported(lx, s, "dates and times are not supported");
		v = json_null();
	} else {
		switch (parse_integer(s, n, &iv)) {
		case INT_OK:
			v = json_integer(iv);
			break;
		case INT_RANGE:
			tlex_fail(lx, s, "integer out of the 64-bit range");
			return NULL;
		default:
			if (!is_float(s, n)) {
				tlex_fail(lx, s, "invalid value");
				return NULL;
			}
			tlex_unsupported(lx, s, "floats are not supported");
			v = json_null();
		}
	}
	if (v == NULL) {
		tlex_fail(lx, s, "out of memory");
		return NULL;
	}
	lx->p += n;
	return v;
}
