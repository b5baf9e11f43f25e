/* Static-ELF check before any fork: Landlock lets a plugin read only its own
 * binary, so a dynamic loader could not load libraries; refusing here gives a
 * clear exec-failed instead of a confusing EACCES from inside the sandbox. */
#include "sandbox/sandbox.h"

#include <elf.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define NATIVE_MACHINE EM_AARCH64
#else
#error "unsupported architecture"
#endif

int
elf_check_static(int fd, const char **why)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	unsigned i;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
		*why = "not an ELF executable (scripts are refused)";
		return -1;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_machine != NATIVE_MACHINE) {
		*why = "ELF for another architecture";
		return -1;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		*why = "ELF file is not an executable";
		return -1;
	}
	if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 ||
	    eh.e_phnum > 256) {
		*why = "ELF program headers malformed";
		return -1;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		off_t off = (off_t)eh.e_phoff + (off_t)i * (off_t)sizeof(ph);
		if (pread(fd, &ph, sizeof(ph), off) != (ssize_t)sizeof(ph)) {
			*why = "ELF program headers truncated";
			return -1;
		}
		if (ph.p_type == PT_INTERP) {
			*why = "dynamically linked (plugins must be static)";
			return -1;
		}
	}
	return 0;
}
