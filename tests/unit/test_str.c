/* Unit tests for src/lib/str.c: str_fmt refuses what does not fit and
 * leaves nothing behind; str_msg cuts, never inside a UTF-8 sequence. */
#include "lib/str.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static void
test_fmt_fits(void **state)
{
	char b[8];

	(void)state;
	assert_int_equal(str_fmt(b, sizeof(b), "%s/%d", "ab", 1234), STR_OK);
	assert_string_equal(b, "ab/1234");		/* 7 + NUL: exact fit */
	assert_int_equal(str_fmt(b, sizeof(b), "%s", ""), STR_OK);
	assert_string_equal(b, "");
}

static void
test_fmt_truncated(void **state)
{
	char b[8];

	(void)state;
	memset(b, 'x', sizeof(b));
	assert_int_equal(str_fmt(b, sizeof(b), "%s/%d", "ab", 12345),
	    STR_E_TRUNCATED);
	assert_string_equal(b, "");	/* never a prefix of a path */
	memset(b, 'x', sizeof(b));
	assert_int_equal(str_fmt(b, 0, "%s", "a"), STR_E_TRUNCATED);
	assert_int_equal(b[0], 'x');	/* size 0: nothing written */
	assert_int_equal(str_fmt(b, 1, "%s", "a"), STR_E_TRUNCATED);
	assert_string_equal(b, "");
	assert_int_equal(str_fmt(b, 1, "%s", ""), STR_OK);
}

static void
test_msg_cut(void **state)
{
	char b[6];

	(void)state;
	str_msg(b, sizeof(b), "%s", "abcdefgh");
	assert_string_equal(b, "abcde");
	str_msg(b, sizeof(b), "%s", "abc");
	assert_string_equal(b, "abc");
	memset(b, 'x', sizeof(b));
	str_msg(b, 0, "%s", "abc");
	assert_int_equal(b[0], 'x');
	str_msg(b, 1, "%s", "abc");
	assert_string_equal(b, "");
}

static void
test_msg_utf8_boundary(void **state)
{
	char b[6];

	(void)state;
	/* "abc" + U+00E9 (2 bytes) fits 5 exactly */
	str_msg(b, sizeof(b), "abc\xc3\xa9z");
	assert_string_equal(b, "abc\xc3\xa9");
	/* "abcd" + U+00E9: the cut would keep its first byte only */
	str_msg(b, sizeof(b), "abcd\xc3\xa9");
	assert_string_equal(b, "abcd");
	/* "ab" + U+20AC (3 bytes) fits; "abc" + U+20AC does not */
	str_msg(b, sizeof(b), "ab\xe2\x82\xac!");
	assert_string_equal(b, "ab\xe2\x82\xac");
	str_msg(b, sizeof(b), "abc\xe2\x82\xac");
	assert_string_equal(b, "abc");
	/* a 4-byte character split after 1, 2 or 3 of its bytes */
	str_msg(b, sizeof(b), "abcd\xf0\x9f\x98\x80");
	assert_string_equal(b, "abcd");
	str_msg(b, sizeof(b), "abc\xf0\x9f\x98\x80");
	assert_string_equal(b, "abc");
	str_msg(b, sizeof(b), "ab\xf0\x9f\x98\x80");
	assert_string_equal(b, "ab");
	str_msg(b, sizeof(b), "a\xf0\x9f\x98\x80");
	assert_string_equal(b, "a\xf0\x9f\x98\x80");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_fits),
		cmocka_unit_test(test_fmt_truncated),
		cmocka_unit_test(test_msg_cut),
		cmocka_unit_test(test_msg_utf8_boundary),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("str", tests, NULL, NULL);
}
