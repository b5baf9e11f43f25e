/* The pending cursor across connections (src/hub/store_pg.c, docs/hub.md,
 * "The store: PostgreSQL"): WRITERS connections insert tickets naming one
 * device at once while a reader, on its own connection, follows the
 * `after SEQ` cursor as a device does. Every ticket a writer was told is
 * stored must reach the reader. With sequence values that commit out of
 * order (a plain BIGSERIAL), the reader moves its cursor past a seq whose
 * transaction has not committed yet and never sees that ticket.
 *
 * usage: test_store_pg URL [TICKETS_PER_WRITER]   (a migrated database)
 * TAP on stdout. */
#include "hub/store.h"
#include "lib/buf.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WRITERS	4
#define MAX_TICKETS	20000

static const char *url;
static int per_writer = 400;
static uint8_t device[32] = { 7 };
static uint64_t written[WRITERS][MAX_TICKETS / WRITERS];
static volatile int writers_done;

static void *
writer(void *arg)
{
	int w = (int)(long)arg, i;
	struct hub_store s;
	const char *why;
	uint8_t body[64];
	char id[64];

	if (hub_store_pg_open(&s, url, &why) != 0) {
		printf("# writer %d: %s\n", w, why);
		exit(1);
	}
	memset(body, 'b', sizeof(body));
	for (i = 0; i < per_writer; i++) {
		snprintf(id, sizeof(id), "w%d-%d-%ld", w, i, (long)getpid());
		if (s.ops->put_ticket(&s, id, "desk", body, sizeof(body),
		    (const uint8_t (*)[32])device, 1, 0, 1LL << 60,
		    &written[w][i]) != HS_OK) {
			printf("# writer %d: put_ticket failed\n", w);
			exit(1);
		}
	}
	s.ops->close(&s);
	return NULL;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	static uint64_t seen[MAX_TICKETS * 2], all[MAX_TICKETS];
	struct hub_store s;
	struct hs_pending p;
	pthread_t th[WRITERS];
	const char *why;
	uint64_t after = 0;
	size_t nseen = 0, nall = 0, i, missed = 0, polls = 0, j;
	int w, quiet = 0, joined[WRITERS] = { 0 };

	if (argc < 2)
		return 2;
	url = argv[1];
	if (argc > 2)
		per_writer = atoi(argv[2]);
	if (per_writer < 1 || per_writer > MAX_TICKETS / WRITERS)
		return 2;
	printf("1..1\n");
	if (hub_store_pg_open(&s, url, &why) != 0) {
		printf("not ok 1 - open: %s\n", why);
		return 1;
	}
	for (w = 0; w < WRITERS; w++)
		pthread_create(&th[w], NULL, writer, (void *)(long)w);
	/* Follow the cursor until the writers are done and two passes in a
	 * row bring nothing new. */
	for (;;) {
		int done = writers_done;
		if (s.ops->pending(&s, device, after, 1 << 20, &p) != HS_OK) {
			printf("not ok 1 - pending failed\n");
			return 1;
		}
		polls++;
		for (i = 0; i < p.n && nseen < MAX_TICKETS * 2; i++)
			seen[nseen++] = p.seq[i];
		after = p.newest;
		if (p.n == 0 && done && ++quiet > 2)
			break;
		if (p.n != 0)
			quiet = 0;
		hs_pending_free(&p);
		if (!writers_done) {
			int all_done = 1;
			for (w = 0; w < WRITERS; w++) {
				if (!joined[w] &&
				    pthread_tryjoin_np(th[w], NULL) == 0)
					joined[w] = 1;
				all_done &= joined[w];
			}
			writers_done = all_done;
		}
	}
	for (w = 0; w < WRITERS; w++)
		for (i = 0; i < (size_t)per_writer; i++)
			all[nall++] = written[w][i];
	qsort(seen, nseen, sizeof(seen[0]), cmp_u64);
	qsort(all, nall, sizeof(all[0]), cmp_u64);
	for (i = 0, j = 0; i < nall; i++) {
		while (j < nseen && seen[j] < all[i])
			j++;
		if (j == nseen || seen[j] != all[i]) {
			if (missed < 5)
				printf("# missed seq %llu\n",
				    (unsigned long long)all[i]);
			missed++;
		}
	}
	printf("# %zu tickets from %d connections, %zu polls, %zu missed\n",
	    nall, WRITERS, polls, missed);
	printf("%s 1 - the cursor misses no ticket\n", missed == 0 ? "ok" :
	    "not ok");
	s.ops->close(&s);
	return missed == 0 ? 0 : 1;
}
