/* Token buckets per client address (docs/hub.md, "Limits"), as ntfy does:
 * each address may burst `burst` requests, then one per `refill_ms`; past
 * that the hub answers 429. IPv6 clients count by their /64 (one host
 * holds a whole /64). The table is fixed-size and keyed with a random
 * SipHash key; when it is full the longest-idle address is forgotten. */
#ifndef LOCKFILE_HUB_RATELIMIT_H
#define LOCKFILE_HUB_RATELIMIT_H

#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>

#define RL_SLOTS 4096

struct rl_slot {
	uint8_t addr[16];
	int used;
	long long credit_ms;	/* burst * refill_ms when full */
	long long last_ms;
};

struct ratelimit {
	pthread_mutex_t mu;
	unsigned burst;
	long long refill_ms;
	uint8_t key[16];
	struct rl_slot slot[RL_SLOTS];
};

void rl_init(struct ratelimit *rl, unsigned burst, long long refill_ms);
/* 1 when a request from sa may go on now (and spends a token), else 0. */
int rl_allow(struct ratelimit *rl, const struct sockaddr *sa, long long now_ms);

#endif
