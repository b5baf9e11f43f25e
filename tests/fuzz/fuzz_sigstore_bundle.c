/* libFuzzer target for Sigstore bundle parsing (src/sigstore/bundle.c) and,
 * for what parses, the whole offline verification (tlog entries, bodies,
 * checkpoints, timestamps, certificates) against the Sigstore public-good
 * trusted root of the conformance data (tests/data/sigstore-conformance), for the conformance artifact and
 * identity, so the corpus's happy paths reach every step. Checks beyond
 * "no crash, no leak, no overread": a parsed bundle is consistent (one
 * material, one content, counts under their caps) and every result is a
 * known code with a static message. */
#include "sigstore/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_sigstore_bundle: check failed: %s\n", #cond); \
	abort(); } } while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct sigstore_root *root;	/* loaded once, read-only after */

/* SHA-256 of the conformance a.txt. */
static const uint8_t digest[32] = {
	0xa0, 0xcf, 0xc7, 0x12, 0x71, 0xd6, 0xe2, 0x78, 0xe5, 0x7c, 0xd3, 0x32,
	0xff, 0x95, 0x7c, 0x3f, 0x70, 0x43, 0xfd, 0xda, 0x35, 0x4c, 0x4c, 0xbb,
	0x19, 0x0a, 0x30, 0xd5, 0x6e, 0xfa, 0x01, 0xbf,
};

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = LF_TESTDATA
	    "/sigstore-conformance/production_trusted_root.json";

	/* Without the root every input stops after parsing: the run would
	 * pass while fuzzing a fraction of the code, so refuse to start. */
	if (sigstore_root_load(path, 0, &root) != SIGSTORE_OK) {
		fprintf(stderr, "fuzz_sigstore_bundle: no trusted root at %s\n",
		    path);
		exit(1);
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sigstore_policy p;
	struct sigstore_bundle *b = NULL;
	int r;

	r = sigstore_bundle_parse(data, size, &b);
	CHECK(r >= 0 && r < SIGSTORE_E__COUNT);
	CHECK((r == SIGSTORE_OK) == (b != NULL));
	if (b == NULL)
		return 0;
	CHECK(b->version >= 1 && b->version <= 3);
	CHECK((b->material == MAT_KEY) == (b->leaf == NULL));
	CHECK(b->content == CONTENT_MSG || b->content == CONTENT_DSSE);
	CHECK(b->sig != NULL && b->sig_len > 0 && b->sig_len <= SIG_MAX_SIG);
	CHECK(b->nentries <= SIG_MAX_TLOG_ENTRIES);
	CHECK(b->ntsr <= SIG_MAX_TIMESTAMPS);
	if (root != NULL) {
		memset(&p, 0, sizeof(p));
		p.san = "https://github.com/sigstore-conformance/extremely-"
		    "dangerous-public-oidc-beacon/.github/workflows/"
		    "extremely-dangerous-oidc-beacon.yml@refs/heads/main";
		p.issuer = "https://token.actions.githubusercontent.com";
		r = sigstore_verify(root, b, digest, &p, NULL);
		CHECK(r >= 0 && r < SIGSTORE_E__COUNT);
		CHECK(strcmp(sigstore_strerror(r), "unknown error") != 0);
	}
	sigstore_bundle_free(b);
	return 0;
}
