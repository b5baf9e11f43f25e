/* libFuzzer target for transparency log checkpoints (signed notes,
 * src/sigstore/checkpoint.c): parse, then verify against an Ed25519 log
 * key made at start. Checks beyond "no crash, no leak, no overread": a
 * parsed note's text ends with its newline right before the blank line and
 * has a non-empty origin; no input verifies under that fresh key. */
#include "sigstore/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_sigstore_checkpoint: check failed: %s\n", \
	    #cond); abort(); } } while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct sig_log log_;	/* set once at start, read-only after */

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* A key made here: no input can carry its signature. */
	EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");

	CHECK(k != NULL);
	strcpy(log_.name, "log2025-alpha1.rekor.sigstage.dev");
	CHECK(sig_key_from_pkey(k, &log_.key) == SIGSTORE_OK);
	EVP_PKEY_free(k);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sig_checkpoint cp;
	char *env;
	int r;

	if (size > SIG_MAX_CHECKPOINT + 1)
		return 0;
	env = malloc(size + 1);
	CHECK(env != NULL);
	memcpy(env, data, size);
	env[size] = '\0';
	r = sig_checkpoint_parse(env, size, &cp);
	if (r == SIGSTORE_OK) {
		CHECK(cp.text_len >= 2 && cp.text_len < size);
		CHECK(env[cp.text_len - 1] == '\n' && env[cp.text_len] == '\n');
		CHECK(cp.origin[0] != '\0');
		r = sig_checkpoint_verify(env, size, &cp, &log_);
		CHECK(r != SIGSTORE_OK);
	}
	free(env);
	return 0;
}
