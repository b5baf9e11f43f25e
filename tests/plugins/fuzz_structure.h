/* The body the structure plugins' fuzz targets share (is-encrypted,
 * has-active-content, pdf-signatures-intact): the input over an in-memory
 * source (fuzz_mem.h) whose first byte picks where the rest goes: even,
 * the whole check (by signature, as the plugin does); odd, the part it
 * names (bits 1..2: PDF, ZIP, compound file), so a mutated ZIP or compound
 * file is not first taken for something else. Memory cannot fail to read, and a source whose every read fails
 * must give no answer, never 0 or 1. Include after the plugin's check
 * header (struct pdf_src, enum enc_answer). */
#ifndef LOCKFILE_TESTS_FUZZ_STRUCTURE_H
#define LOCKFILE_TESTS_FUZZ_STRUCTURE_H

#include "fuzz_mem.h"

typedef enum enc_answer (*fuzz_structure_fn)(const struct pdf_src *);

static int
fuzz_structure(const uint8_t *data, size_t size, fuzz_structure_fn whole,
    fuzz_structure_fn pdf, fuzz_structure_fn zip, fuzz_structure_fn cfb)
{
	struct fuzz_mem m;
	struct pdf_src src = { fuzz_mem_pread, &m, 0 };
	enum enc_answer r;

	if (size < 1)
		return 0;
	m.data = data + 1;
	m.size = size - 1;
	src.size = m.size;
	if (!(data[0] & 1)) {
		r = whole(&src);
	} else {
		switch ((data[0] >> 1) % 3) {
		case 0: r = pdf(&src); break;
		case 1: r = zip(&src); break;
		default: r = cfb(&src); break;
		}
	}
	if (r == ENC_IOERR)
		__builtin_trap();	/* memory cannot fail to read */
	src.pread = fuzz_fail_pread;
	if (m.size > 0 && whole(&src) != ENC_IOERR)
		__builtin_trap();
	return 0;
}

#endif
