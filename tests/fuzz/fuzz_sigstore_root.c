/* libFuzzer target for Sigstore trusted-root parsing (src/sigstore/root.c).
 * Checks beyond "no crash, no leak, no overread": a root that parses has
 * counts under their caps, closed windows with start <= end, an anchor for
 * every authority and a usable name for every log. */
#include "sigstore/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_sigstore_root: check failed: %s\n", #cond); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_logs(const struct sig_log *logs, size_t n)
{
	size_t i;

	CHECK(n <= SIG_MAX_LOGS);
	for (i = 0; i < n; i++) {
		CHECK(logs[i].valid.start <= logs[i].valid.end);
		CHECK(logs[i].name[0] != '\0' && strchr(logs[i].name, ' ') ==
		    NULL && strchr(logs[i].name, '/') == NULL);
		CHECK(logs[i].log_id_len > 0 && logs[i].log_id_len <= 64);
		CHECK((logs[i].key.type == SK_NONE) ==
		    (logs[i].key.pkey == NULL));
	}
}

static void
check_authorities(const struct sig_authority *a, size_t n)
{
	size_t i;

	CHECK(n <= SIG_MAX_AUTHORITIES);
	for (i = 0; i < n; i++) {
		CHECK(a[i].anchor != NULL && a[i].untrusted != NULL);
		CHECK(a[i].valid.start <= a[i].valid.end);
		CHECK(sk_X509_num(a[i].untrusted) < SIG_MAX_CHAIN);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sigstore_root *r = NULL;
	int ret = sigstore_root_parse(data, size, &r);

	CHECK(ret >= 0 && ret < SIGSTORE_E__COUNT);
	CHECK((ret == SIGSTORE_OK) == (r != NULL));
	if (r == NULL)
		return 0;
	check_logs(r->tlogs, r->ntlogs);
	check_logs(r->ctlogs, r->nctlogs);
	check_authorities(r->cas, r->ncas);
	check_authorities(r->tsas, r->ntsas);
	sigstore_root_free(r);
	return 0;
}
