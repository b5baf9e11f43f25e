/* archive-within-limits: is the file a ZIP (OOXML, ODF and JAR are ZIPs)
 * whose entries are consistent and bounded?
 *
 * Protocol 1. The check is awl_zip.c (and docs/plugins.md). The input is
 * read with pread at the places its structure names; memory stays bounded
 * whatever the file's size. Linked statically with zlib (inflate, CRC-32). */
#include <string.h>
#include <unistd.h>

#include "lfplugin.h"
#include "awl_check.h"

static ssize_t
input_pread(void *ctx, void *buf, size_t len, uint64_t off)
{
	(void)ctx;
	return lfp_pread(buf, len, off);
}

int
main(void)
{
	struct awl_src src = { input_pread, NULL, 0 };
	const char *why = NULL;

	if (lfp_input_size(&src.size) != 0)
		lfp_fail("archive-within-limits: the input is not a regular "
		    "file");
	switch (awl_check(&src, &why)) {
	case AWL_YES:
		lfp_answer(1);
	case AWL_NO:
		/* The rule it broke, a static string: stderr is discarded
		 * by the console; the tests' host runs show it. */
		if (why != NULL && write(2, why, strlen(why)) < 0)
			why = NULL;
		lfp_answer(0);
	default:
		lfp_fail("archive-within-limits: read error");
	}
}
