/* Fixed samples of every hub message, for the unit tests, the test vectors
 * (vectors.txt, docs/hub.md) and the fuzz seeds: keys from fixed seeds,
 * every field a fixed value, so Ed25519 (deterministic) gives the same
 * bytes on every run. */
#ifndef LOCKFILE_TESTS_HUBWIRE_SAMPLE_H
#define LOCKFILE_TESTS_HUBWIRE_SAMPLE_H

#include "hubwire/keys.h"
#include "hubwire/msg.h"

struct sample_keys {
	struct hw_keypair instance, device, hub;
	uint8_t box_pk[32], box_sk[32];	/* the ticket's one-use pair */
	uint8_t agent_key[32];		/* the console's commitment key */
};

void sample_keys(struct sample_keys *k);
void sample_keys_free(struct sample_keys *k);
/* A ticket with one protocol-1 and one protocol-2 plugin. */
void sample_ticket(const struct sample_keys *k, struct hw_ticket *t);
void sample_dev(const struct sample_keys *k, const struct buf *ticket,
    const uint8_t *box, size_t box_len, struct hw_dev *d);
void sample_hub(const struct sample_keys *k, const struct buf *dev,
    struct hw_hub *h);
void sample_request(const struct sample_keys *k, struct hw_request *q);
void sample_plan(struct hw_plan *p);
/* The values sealed in the sample box: ${email}. */
extern const struct hw_value sample_values[1];

#endif
