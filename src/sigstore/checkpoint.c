/* Transparency log checkpoints (C2SP tlog-checkpoint in a C2SP signed
 * note) and RFC 6962 / RFC 9162 Merkle inclusion proofs.
 *
 * A checkpoint is "origin\nsize\nbase64(root)\n[extension lines]\n" then a
 * blank line and signature lines "— name base64(keyhint[4] || sig)". Only
 * a line whose name and key hint are the log's own is checked; witnesses
 * and other keys are ignored (we do not know their keys), but a line that
 * claims to be the log and does not verify fails the whole note. */
#include "sigstore/internal.h"
#include "lib/crypto.h"
#include "lib/num.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define EM_DASH_SP "\xe2\x80\x94 "	/* U+2014 then a space */
#define MAX_NOTE_LINES 16
#define MAX_SIG_LINES 16

static int
printable(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return 0;
	return 1;
}

int
sig_checkpoint_parse(const char *env, size_t len, struct sig_checkpoint *out)
{
	const char *p = env, *end, *nl, *blank;
	char num[24];
	size_t n, line = 0;
	unsigned long long size;

	memset(out, 0, sizeof(*out));
	if (env == NULL || len == 0 || len > SIG_MAX_CHECKPOINT ||
	    memchr(env, '\0', len) != NULL)
		return SIGSTORE_E_CHECKPOINT;
	blank = memmem(env, len, "\n\n", 2);
	if (blank == NULL)
		return SIGSTORE_E_CHECKPOINT;
	end = blank + 1;	/* the note text keeps its last newline */
	out->text_len = (size_t)(end - env);
	for (; p < end; p = nl + 1, line++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)(nl - p);
		if (n == 0 || !printable(p, n) || line >= MAX_NOTE_LINES)
			return SIGSTORE_E_CHECKPOINT;
		if (line == 0) {
			if (n >= sizeof(out->origin))
				return SIGSTORE_E_CHECKPOINT;
			memcpy(out->origin, p, n);
		} else if (line == 1) {
			if (n >= sizeof(num))
				return SIGSTORE_E_CHECKPOINT;
			memcpy(num, p, n);
			num[n] = '\0';
			if (parse_u64(num, 0, INT64_MAX, &size) != 0)
				return SIGSTORE_E_CHECKPOINT;
			out->size = size;
		} else if (line == 2) {
			if (sig_b64_decode_fixed(p, n, out->root_hash,
			    32) != SIGSTORE_OK)
				return SIGSTORE_E_CHECKPOINT;
		}
		/* Later lines are extensions (v1 logs write "Timestamp:"):
		 * signed, so kept in the text, otherwise unused. */
	}
	if (line < 3)
		return SIGSTORE_E_CHECKPOINT;
	/* Signature lines: at least one, each well formed, to the end. */
	p = blank + 2;
	line = 0;
	while (p < env + len) {
		const char *sp;
		nl = memchr(p, '\n', (size_t)(env + len - p));
		if (nl == NULL || ++line > MAX_SIG_LINES)
			return SIGSTORE_E_CHECKPOINT;
		n = (size_t)(nl - p);
		if (n < 4 || memcmp(p, EM_DASH_SP, 4) != 0 ||
		    !printable(p + 4, n - 4))
			return SIGSTORE_E_CHECKPOINT;
		sp = memchr(p + 4, ' ', n - 4);
		if (sp == NULL || sp == p + 4 || sp + 1 == nl ||
		    memchr(sp + 1, ' ', (size_t)(nl - sp - 1)) != NULL)
			return SIGSTORE_E_CHECKPOINT;
		p = nl + 1;
	}
	return line == 0 ? SIGSTORE_E_CHECKPOINT : SIGSTORE_OK;
}

int
sig_note_key_hint(const struct sig_key *k, const char *name, uint8_t hint[4])
{
	static const char rsa_id[] = "\xff" "PKIX-RSA-PKCS#1v1.5";
	uint8_t h[SHA256_LEN], raw[32];
	size_t rawlen = sizeof(raw), nlen = strlen(name);
	uint8_t *msg;
	size_t mlen;

	switch (k->type) {
	case SK_ECDSA_P256:
	case SK_ECDSA_P384:
	case SK_ECDSA_P521:
		/* Rekor's ECDSA key id: SHA-256 of the SPKI, name unused. */
		sha256_mem(k->spki, k->spki_len, h);
		break;
	case SK_ED25519:
		if (EVP_PKEY_get_raw_public_key(k->pkey, raw, &rawlen) != 1 ||
		    rawlen != 32)
			return SIGSTORE_E_INTERNAL;
		mlen = nlen + 2 + rawlen;
		msg = sig_malloc(mlen);
		memcpy(msg, name, nlen);
		msg[nlen] = '\n';
		msg[nlen + 1] = 0x01;	/* signature type Ed25519 */
		memcpy(msg + nlen + 2, raw, rawlen);
		sha256_mem(msg, mlen, h);
		free(msg);
		break;
	case SK_RSA:
		mlen = nlen + 1 + sizeof(rsa_id) - 1 + k->spki_len;
		msg = sig_malloc(mlen);
		memcpy(msg, name, nlen);
		msg[nlen] = '\n';
		memcpy(msg + nlen + 1, rsa_id, sizeof(rsa_id) - 1);
		memcpy(msg + nlen + sizeof(rsa_id), k->spki, k->spki_len);
		sha256_mem(msg, mlen, h);
		free(msg);
		break;
	default:
		return SIGSTORE_E_UNSUPPORTED_KEY;
	}
	memcpy(hint, h, 4);
	return SIGSTORE_OK;
}

/* The origin is the log's name (Rekor v2), or "name - treeID" (Rekor v1). */
static int
origin_matches(const char *origin, const char *name)
{
	size_t n = strlen(name);
	unsigned long long tree;

	if (strcmp(origin, name) == 0)
		return 1;
	return strncmp(origin, name, n) == 0 &&
	    strncmp(origin + n, " - ", 3) == 0 &&
	    parse_u64(origin + n + 3, 0, ULLONG_MAX, &tree) == 0;
}

int
sig_checkpoint_verify(const char *env, size_t len,
    const struct sig_checkpoint *cp, const struct sig_log *log)
{
	const char *p = env + cp->text_len + 1, *nl, *sp;
	size_t nlen = strlen(log->name);
	uint8_t hint[4], *sig;
	size_t siglen;
	int verified = 0, ret;

	if (!origin_matches(cp->origin, log->name))
		return SIGSTORE_E_CHECKPOINT_SIG;
	if ((ret = sig_note_key_hint(&log->key, log->name, hint)) != 0)
		return ret == SIGSTORE_E_UNSUPPORTED_KEY ?
		    SIGSTORE_E_CHECKPOINT_SIG : ret;
	for (; p < env + len; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(env + len - p));
		sp = memchr(p + 4, ' ', (size_t)(nl - p - 4));
		if ((size_t)(sp - p - 4) != nlen ||
		    memcmp(p + 4, log->name, nlen) != 0)
			continue;	/* another signer */
		if (sig_b64_decode(sp + 1, (size_t)(nl - sp - 1),
		    4 + SIG_MAX_SIG, &sig, &siglen) != SIGSTORE_OK)
			return SIGSTORE_E_CHECKPOINT;
		if (siglen < 5 || memcmp(sig, hint, 4) != 0) {
			free(sig);
			continue;	/* same name, another key */
		}
		ret = sig_verify_msg(&log->key, (const uint8_t *)env,
		    cp->text_len, sig + 4, siglen - 4);
		free(sig);
		if (ret != SIGSTORE_OK)
			return SIGSTORE_E_CHECKPOINT_SIG;
		verified = 1;
	}
	return verified ? SIGSTORE_OK : SIGSTORE_E_CHECKPOINT_SIG;
}

void
sig_merkle_leaf(const uint8_t *data, size_t len, uint8_t out[32])
{
	uint8_t *buf = sig_malloc(len + 1);

	buf[0] = 0x00;
	memcpy(buf + 1, data, len);
	sha256_mem(buf, len + 1, out);
	free(buf);
}

void
sig_merkle_node(const uint8_t l[32], const uint8_t r[32], uint8_t out[32])
{
	uint8_t buf[65];

	buf[0] = 0x01;
	memcpy(buf + 1, l, 32);
	memcpy(buf + 33, r, 32);
	sha256_mem(buf, sizeof(buf), out);
}

/* RFC 9162 section 2.1.3.2, verbatim in structure. */
int
sig_merkle_verify(const uint8_t leaf_hash[32], uint64_t index, uint64_t size,
    const uint8_t (*proof)[32], size_t nproof, const uint8_t root[32])
{
	uint64_t fn = index, sn;
	uint8_t r[32];
	size_t i;

	if (size == 0 || index >= size || nproof > SIG_MAX_PROOF_HASHES)
		return SIGSTORE_E_PROOF;
	sn = size - 1;
	memcpy(r, leaf_hash, 32);
	for (i = 0; i < nproof; i++) {
		if (sn == 0)
			return SIGSTORE_E_PROOF;
		if ((fn & 1) || fn == sn) {
			sig_merkle_node(proof[i], r, r);
			while (!(fn & 1) && fn != 0) {
				fn >>= 1;
				sn >>= 1;
			}
		} else
			sig_merkle_node(r, proof[i], r);
		fn >>= 1;
		sn >>= 1;
	}
	if (sn != 0 || !ct_equal(r, root, 32))
		return SIGSTORE_E_PROOF;
	return SIGSTORE_OK;
}
