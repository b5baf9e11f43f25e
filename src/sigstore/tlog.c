/* One transparency log entry, verified offline: the signed entry timestamp
 * (Rekor v1), the inclusion proof up to a checkpoint signed by the log, and
 * the body against the bundle. Rekor v2 (tile) logs have no integrated
 * time and no SET: their entries prove inclusion only, and the signing time
 * must come from an RFC 3161 timestamp (verify.c). */
#include "sigstore/internal.h"
#include "lib/crypto.h"
#include "lib/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *
sig_set_payload(const char *body_b64, int64_t integrated_time,
    const uint8_t *log_id, size_t log_id_len, int64_t log_index)
{
	char hex[2 * 64 + 1];
	size_t cap;
	char *out;

	if (log_id_len > 64)
		return NULL;
	hex_encode(log_id, log_id_len, hex);
	/* RFC 8785 canonical JSON of {body, integratedTime, logID, logIndex}:
	 * keys sorted, no spaces; base64, hex and integers need no escape. */
	cap = strlen(body_b64) + sizeof(hex) + 128;
	out = sig_malloc(cap);
	if (str_fmt(out, cap, "{\"body\":\"%s\",\"integratedTime\":%lld,"
	    "\"logID\":\"%s\",\"logIndex\":%lld}", body_b64,
	    (long long)integrated_time, hex, (long long)log_index) != STR_OK) {
		free(out);
		return NULL;
	}
	return out;
}

static int
verify_set(const struct sig_tlog_entry *e, const struct sig_log *log)
{
	char *payload;
	int ret;

	if (log->key.type != SK_ECDSA_P256 && log->key.type != SK_ECDSA_P384 &&
	    log->key.type != SK_ECDSA_P521)
		return SIGSTORE_E_SET;
	payload = sig_set_payload(e->body_b64, e->integrated_time, e->log_id,
	    e->log_id_len, e->log_index);
	if (payload == NULL)
		return SIGSTORE_E_SET;
	ret = sig_verify_msg(&log->key, (const uint8_t *)payload,
	    strlen(payload), e->set, e->set_len);
	free(payload);
	return ret == SIGSTORE_OK ? SIGSTORE_OK : SIGSTORE_E_SET;
}

static int
verify_inclusion(const struct sig_tlog_entry *e, const struct sig_log *log)
{
	struct sig_checkpoint cp;
	uint8_t leaf[32];
	int ret;

	sig_merkle_leaf(e->body, e->body_len, leaf);
	ret = sig_merkle_verify(leaf, (uint64_t)e->proof_index,
	    (uint64_t)e->tree_size, (const uint8_t (*)[32])e->hashes,
	    e->nhashes, e->root_hash);
	if (ret != SIGSTORE_OK)
		return ret;
	if ((ret = sig_checkpoint_parse(e->checkpoint, e->checkpoint_len,
	    &cp)) != SIGSTORE_OK)
		return ret;
	if ((ret = sig_checkpoint_verify(e->checkpoint, e->checkpoint_len, &cp,
	    log)) != SIGSTORE_OK)
		return ret;
	/* The proof leads to the checkpoint's tree, not just any tree. */
	if (cp.size != (uint64_t)e->tree_size ||
	    !ct_equal(cp.root_hash, e->root_hash, 32))
		return SIGSTORE_E_CHECKPOINT_MISMATCH;
	return SIGSTORE_OK;
}

int
sig_tlog_verify(const struct sigstore_root *root,
    const struct sigstore_bundle *b, const struct sig_tlog_entry *e,
    const uint8_t artifact_sha256[32], const struct sig_key *key,
    int *have_time, sig_time *when, const struct sig_log **log_out)
{
	const struct sig_log *log;
	int v2 = sig_entry_is_v2(e), ret;

	*have_time = 0;
	*log_out = NULL;
	log = sig_root_find_log(root->tlogs, root->ntlogs, e->log_id,
	    e->log_id_len);
	if (log == NULL || log->key.type == SK_NONE)
		return SIGSTORE_E_UNKNOWN_LOG;
	if (v2) {
		/* A tile log signs checkpoints only: a "promise" or an
		 * integrated time on its entry is something nobody signed. */
		if (e->set != NULL || e->has_integrated_time)
			return SIGSTORE_E_SHAPE;
	} else if (e->set != NULL) {
		if (!e->has_integrated_time)
			return SIGSTORE_E_SET;
		if ((ret = verify_set(e, log)) != SIGSTORE_OK)
			return ret;
		*when = (sig_time)e->integrated_time * SIG_NS;
		if (!sig_window_has(&log->valid, *when))
			return SIGSTORE_E_LOG_VALIDITY;
		*have_time = 1;
	} else if (b->version == 1)
		return SIGSTORE_E_SET_MISSING;
	/* From 0.2 on, and always for v2 logs, inclusion is proven, not
	 * promised. A proof without a signed checkpoint proves nothing. */
	if (!e->has_proof) {
		if (v2 || b->version >= 2)
			return SIGSTORE_E_PROOF_MISSING;
	} else {
		if (e->checkpoint == NULL)
			return SIGSTORE_E_PROOF_MISSING;
		if (v2 && e->proof_index != e->log_index)
			return SIGSTORE_E_PROOF;
		if ((ret = verify_inclusion(e, log)) != SIGSTORE_OK)
			return ret;
	}
	if ((ret = sig_body_match(e, b, artifact_sha256, key)) != SIGSTORE_OK)
		return ret;
	*log_out = log;
	return SIGSTORE_OK;
}
