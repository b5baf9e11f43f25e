/* libFuzzer target for the answer ledger's reader (src/console/ledger_format.c,
 * ledger_parse; docs/ledger.md). The first byte picks the layer: even, the
 * bytes are a ledger file as they are (the checksums and the framing);
 * odd, the rest is lines of fields that are chained here as a writer
 * would, so the mutations reach the fields' parser behind the checksums.
 *
 * Beyond "no crash, no leak, no overread": a refusal names a record and a
 * byte inside the input, in one line of printable ASCII, and what memory
 * holds then is exactly what the good prefix alone gives (nothing of the
 * bad record applied); an accepted ledger has every entry within its
 * limits, windows within lifetimes, and each plan one to 64 answers. */
#include "console/ledger.h"
#include "lib/crypto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_ledger: check failed: %s\n", #cond); \
	abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long long
fixed_now(void *ctx)
{
	(void)ctx;
	return 1714600000;
}

static const struct ledger_clock clk = { fixed_now, NULL };

/* Chain each line of in as a writer would; the result is malloc'ed. */
static uint8_t *
rechain(const uint8_t *in, size_t n, size_t *outlen)
{
	uint8_t chain[SHA256_LEN], *out, *buf;
	size_t i = 0, o = 0, lines = 1;

	for (size_t j = 0; j < n; j++)
		lines += in[j] == '\n';
	out = malloc(n + lines * (SHA256_HEX_LEN + 2) + 1);
	buf = malloc(SHA256_LEN + n + 1);
	CHECK(out != NULL && buf != NULL);
	memset(chain, 0, sizeof(chain));
	while (i < n) {
		const uint8_t *nl = memchr(in + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (in + i)) : n - i;
		memcpy(buf, chain, SHA256_LEN);
		memcpy(buf + SHA256_LEN, in + i, len);
		sha256_mem(buf, SHA256_LEN + len, chain);
		memcpy(out + o, in + i, len);
		o += len;
		out[o++] = ' ';
		hex_encode(chain, SHA256_LEN, (char *)out + o);
		o += SHA256_HEX_LEN;
		out[o++] = '\n';
		i += len + 1;
	}
	free(buf);
	*outlen = o;
	return out;
}

static void
check_entries(const struct ledger *l)
{
	size_t i;

	for (i = 0; i < ledger_nkeys(l); i++) {
		struct ledger_key_view v;
		ledger_key_at(l, i, &v);
		/* a format-1 file names its keys; format 2 only digests */
		CHECK(v.key == NULL || (strlen(v.key) > 0 &&
		    strlen(v.key) <= LEDGER_MAX_KEY_BYTES));
		CHECK(v.ncids <= LEDGER_KEY_SHAS);
		CHECK(v.window.answers <= v.total.answers);
		CHECK(v.window.plans <= v.total.plans);
		CHECK(v.total.plans <= v.total.answers);
		CHECK(v.total.answers <= v.total.plans * LEDGER_MAX_ANSWERS);
		CHECK(v.total.plans == 0 || v.total.first <= v.total.last);
		if (v.key == NULL)
			continue;
		/* would_pass agrees with the window */
		CHECK(ledger_would_pass(l, v.uid, v.profile, v.key, 1,
		    v.window.answers) == 1);
		CHECK(v.window.answers >= LEDGER_MAX_COUNT ||
		    ledger_would_pass(l, v.uid, v.profile, v.key, 1,
		    v.window.answers + 1) == 0);
	}
	for (i = 0; i < ledger_ncontents(l); i++) {
		struct ledger_content_view c;
		ledger_content_at(l, i, &c);
		CHECK(c.total.plans >= 1 && c.total.plans <= c.total.answers);
		CHECK(c.total.first <= c.total.last);
	}
}

static void
same_entries(const struct ledger *a, const struct ledger *b)
{
	size_t i;

	CHECK(ledger_nkeys(a) == ledger_nkeys(b));
	CHECK(ledger_ncontents(a) == ledger_ncontents(b));
	for (i = 0; i < ledger_nkeys(a); i++) {
		struct ledger_key_view x, y;
		ledger_key_at(a, i, &x);
		ledger_key_at(b, i, &y);
		CHECK(x.uid == y.uid && memcmp(x.id, y.id, LEDGER_ID_LEN) == 0 &&
		    strcmp(x.profile, y.profile) == 0);
		CHECK(x.total.answers == y.total.answers &&
		    x.total.plans == y.total.plans);
		CHECK(x.window.answers == y.window.answers);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ledger_problem p;
	struct ledger *l = NULL;
	enum ledger_err e;
	uint8_t *owned = NULL;
	const uint8_t *in;
	size_t n, i;

	if (size < 1 || size > (1u << 20))
		return 0;
	if (data[0] & 1) {
		owned = rechain(data + 1, size - 1, &n);
		in = owned;
	} else {
		in = data + 1;
		n = size - 1;
	}
	e = ledger_parse(&l, in, n, &clk, 86400, &p);
	CHECK(l != NULL);
	if (e == LEDGER_OK) {
		check_entries(l);
	} else {
		struct ledger *pre = NULL;
		size_t m = strlen(p.msg);
		CHECK(p.err == e && m > 0);
		for (i = 0; i < m; i++)
			CHECK(p.msg[i] >= 0x20 && p.msg[i] < 0x7f);
		CHECK(p.good_bytes <= n && p.offset <= n);
		CHECK(e != LEDGER_E_TORN || p.good_bytes < n);
		check_entries(l);
		if (p.good_records > 0) {
			/* the good prefix alone gives the same memory */
			CHECK(ledger_parse(&pre, in, p.good_bytes, &clk, 86400,
			    NULL) == LEDGER_OK);
			same_entries(l, pre);
			ledger_close(pre);
		}
	}
	ledger_close(l);
	free(owned);
	return 0;
}
