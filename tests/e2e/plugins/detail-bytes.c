/* A protocol 2 plugin whose detail (fd 7) holds readable UTF-8, invalid
 * UTF-8, an escape sequence, a bidi override and a tag character: what a
 * plugin may write there reaches the human's screen only rendered
 * (tests/e2e/test_keys.py). Answers 1. */
#include <unistd.h>

static const char detail[] =
    "Zo\xc3\xab \xd0\xa1\xd1\x87\xd1\x91\xd1\x82 \xe8\xab\x8b "
    "\xff\xfe \x1b[31mred\x1b[0m \xe2\x80\xaerlo \xe0\x80 "
    "\xf3\xa0\x80\x81 end";

int
main(void)
{
	(void)!write(7, detail, sizeof(detail) - 1);
	return write(1, "1\n", 2) == 2 ? 0 : 1;
}
