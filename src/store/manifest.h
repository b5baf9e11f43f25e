/* Plugin manifests (docs/plugins.md): signed with the binary, parsed
 * strictly: exactly the documented keys, every string in its alphabet and
 * length, limits in range. */
#ifndef LOCKFILE_MANIFEST_H
#define LOCKFILE_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include <lockfile/plugin.h>

#include "protocol/table.h"
#include "lib/crypto.h"

#define MANIFEST_MAX_BYTES (16 * 1024)

enum input_kind { INPUT_TEXT = 0, INPUT_EMAIL };

struct manifest_input {
	char name[33];
	enum input_kind kind;
	unsigned max_bytes;
};

struct manifest {
	char name[33];
	char version[21];
	int protocol;
	char question[PROTO_MAX_MANIFEST_TEXT + 1];
	char one[PROTO_MAX_MANIFEST_TEXT + 1];
	char zero[PROTO_MAX_MANIFEST_TEXT + 1];
	size_t ninputs;
	struct manifest_input inputs[PROTO_MAX_INPUTS];
	unsigned cpu_s;
	unsigned long long memory_bytes;
	unsigned wall_s;
	uint8_t binary_sha256[SHA256_LEN];
};

/* 0, or -1 with a static reason. */
int manifest_parse(const char *data, size_t len, struct manifest *m,
    const char **why);
const char *input_kind_name(enum input_kind k);
/* Does a typed value fit the input (kind, max_bytes)? 1 or 0. */
int input_value_fits(const struct manifest_input *in, const uint8_t *v,
    size_t len);
/* Is b at least as narrow as a (same question and meanings, no wider
 * input, no larger limit)? 1 when b loosens nothing compared with a. */
int manifest_is_tightening(const struct manifest *a, const struct manifest *b);

#endif
