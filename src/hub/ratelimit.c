/* Token buckets (see ratelimit.h). A bucket is credit in milliseconds:
 * a request costs refill_ms, time adds credit up to burst * refill_ms. */
#include "hub/ratelimit.h"

#include <netinet/in.h>
#include <string.h>

#include <sodium.h>

#define PROBES 8

void
rl_init(struct ratelimit *rl, unsigned burst, long long refill_ms)
{
	memset(rl, 0, sizeof(*rl));
	pthread_mutex_init(&rl->mu, NULL);
	rl->burst = burst == 0 ? 1 : burst;
	rl->refill_ms = refill_ms < 1 ? 1 : refill_ms;
	randombytes_buf(rl->key, sizeof(rl->key));
}

static void
addr_of(const struct sockaddr *sa, uint8_t out[16])
{
	memset(out, 0, 16);
	if (sa == NULL)
		return;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
		memcpy(out, &in->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
		memcpy(out, &in6->sin6_addr, 8);	/* the /64 */
		out[15] = 6;
	}
}

int
rl_allow(struct ratelimit *rl, const struct sockaddr *sa, long long now_ms)
{
	uint8_t a[16], h[8];
	uint64_t idx;
	struct rl_slot *s = NULL, *oldest = NULL;
	long long full = (long long)rl->burst * rl->refill_ms;
	int i, ok;

	addr_of(sa, a);
	crypto_shorthash(h, a, sizeof(a), rl->key);
	memcpy(&idx, h, sizeof(idx));
	pthread_mutex_lock(&rl->mu);
	for (i = 0; i < PROBES; i++) {
		struct rl_slot *c = &rl->slot[(idx + (uint64_t)i) % RL_SLOTS];
		if (c->used && memcmp(c->addr, a, 16) == 0) {
			s = c;
			break;
		}
		if (!c->used) {
			if (oldest == NULL || oldest->used)
				oldest = c;
		} else if (oldest == NULL ||
		    (oldest->used && c->last_ms < oldest->last_ms)) {
			oldest = c;
		}
	}
	if (s == NULL) {
		s = oldest;
		memcpy(s->addr, a, 16);
		s->used = 1;
		s->credit_ms = full;
		s->last_ms = now_ms;
	}
	if (now_ms > s->last_ms) {
		s->credit_ms += now_ms - s->last_ms;
		if (s->credit_ms > full)
			s->credit_ms = full;
	}
	s->last_ms = now_ms;
	ok = s->credit_ms >= rl->refill_ms;
	if (ok)
		s->credit_ms -= rl->refill_ms;
	pthread_mutex_unlock(&rl->mu);
	return ok;
}
