/* The spool sink (see sink.h). One filler (the fetch, on the caller's
 * thread, which also writes) and one hasher thread share the ring: slots
 * are queued in order, hashed in order, and a slot is filled again only
 * once it has been both hashed and written. A failure a fetch can meet
 * (memory, the digest) is a fetch cause; a mutex or condition variable
 * refusing its own initialised object is a broken invariant, fatal (the
 * console's cleanup still runs: lib/log.h). */
#include "sources/sink.h"
#include "lib/fd.h"
#include "lib/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

static void
lock(struct sink *s)
{
	if (pthread_mutex_lock(&s->mu) != 0)
		fatal("sink: mutex");
}

static void
unlock(struct sink *s)
{
	if (pthread_mutex_unlock(&s->mu) != 0)
		fatal("sink: mutex");
}

/* Returns 0, or -1 when the digest failed (the fetch then fails). */
static int
hash(struct sink *s, const struct sink_slot *sl)
{
	return EVP_DigestUpdate(s->md, sl->data, sl->len) == 1 ? 0 : -1;
}

static void *
hasher(void *arg)
{
	struct sink *s = arg;
	int failed;

	lock(s);
	for (;;) {
		struct sink_slot *sl;

		while (s->done == s->queued && !s->stop)
			if (pthread_cond_wait(&s->cv, &s->mu) != 0)
				fatal("sink: cond");
		if (s->done == s->queued)
			break;
		sl = &s->slot[s->done % SINK_BUFS];
		unlock(s);
		failed = hash(s, sl) != 0;
		lock(s);
		if (failed)
			s->hash_failed = 1;
		sl->hashed = 1;
		s->done++;
		(void)pthread_cond_broadcast(&s->cv);
	}
	unlock(s);
	return NULL;
}

enum fetch_cause
sink_init(struct sink *s, int fd, unsigned long long cap)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->cap = cap;
	s->failed = FC_IO;
	s->md = EVP_MD_CTX_new();
	if (s->md == NULL || EVP_DigestInit_ex(s->md, EVP_sha256(), NULL) != 1)
		return FC_IO;
	for (i = 0; i < SINK_BUFS; i++) {
		s->slot[i].data = malloc(SINK_BUF_SIZE);
		if (s->slot[i].data == NULL)
			return FC_IO;
		s->slot[i].hashed = s->slot[i].written = 1;
	}
	if (pthread_mutex_init(&s->mu, NULL) != 0)
		return FC_IO;
	if (pthread_cond_init(&s->cv, NULL) != 0) {
		(void)pthread_mutex_destroy(&s->mu);
		return FC_IO;
	}
	s->synced = 1;
	s->threaded = pthread_create(&s->thread, NULL, hasher, s) == 0;
	s->failed = FC_OK;
	return FC_OK;
}

/* Hand the slot being filled to the hasher, write it, move to the next
 * slot once that one is free again. */
static void
flush(struct sink *s)
{
	struct sink_slot *sl = &s->slot[s->cur];

	if (sl->len == 0)
		return;
	lock(s);
	sl->hashed = sl->written = 0;
	s->queued++;
	(void)pthread_cond_broadcast(&s->cv);
	unlock(s);
	if (!s->threaded) {
		if (hash(s, sl) != 0)
			s->hash_failed = 1;
		sl->hashed = 1;
		s->done++;
	}
	if (s->failed == FC_OK && write_full(s->fd, sl->data, sl->len) != 0) {
		s->write_errno = errno;
		s->failed = FC_IO;
	}
	lock(s);
	sl->written = 1;
	s->cur = (s->cur + 1) % SINK_BUFS;
	sl = &s->slot[s->cur];
	while (!(sl->hashed && sl->written))
		if (pthread_cond_wait(&s->cv, &s->mu) != 0)
			fatal("sink: cond");
	unlock(s);
	sl->len = 0;
}

enum fetch_cause
sink_put(struct sink *s, const void *data, size_t len)
{
	const uint8_t *p = data;

	if (s->failed != FC_OK)
		return s->failed;
	if (len > s->cap - s->size)
		return s->failed = FC_TOO_BIG;
	s->size += len;
	while (len > 0) {
		struct sink_slot *sl = &s->slot[s->cur];
		size_t n = SINK_BUF_SIZE - sl->len;

		if (n > len)
			n = len;
		memcpy(sl->data + sl->len, p, n);
		sl->len += n;
		p += n;
		len -= n;
		if (sl->len == SINK_BUF_SIZE)
			flush(s);
	}
	return s->failed;
}

uint8_t *
sink_buffer(struct sink *s, size_t *room)
{
	struct sink_slot *sl = &s->slot[s->cur];

	*room = SINK_BUF_SIZE - sl->len;
	return sl->data + sl->len;
}

enum fetch_cause
sink_commit(struct sink *s, size_t n)
{
	struct sink_slot *sl = &s->slot[s->cur];

	ASSERT(n <= SINK_BUF_SIZE - sl->len);
	if (s->failed != FC_OK)
		return s->failed;
	if (n > s->cap - s->size)
		return s->failed = FC_TOO_BIG;
	s->size += n;
	sl->len += n;
	if (sl->len == SINK_BUF_SIZE)
		flush(s);
	return s->failed;
}

enum fetch_cause
sink_finish(struct sink *s, struct fetch_result *res)
{
	if (s->failed != FC_OK)
		return s->failed;
	flush(s);
	lock(s);
	while (s->done != s->queued)
		if (pthread_cond_wait(&s->cv, &s->mu) != 0)
			fatal("sink: cond");
	if (s->hash_failed && s->failed == FC_OK)
		s->failed = FC_IO;
	unlock(s);
	if (s->failed != FC_OK)
		return s->failed;
	if (EVP_DigestFinal_ex(s->md, res->sha256, NULL) != 1)
		return s->failed = FC_IO;
	res->size = s->size;
	return FC_OK;
}

void
sink_free(struct sink *s)
{
	size_t i;

	if (s->threaded) {
		lock(s);
		/* Whatever is queued is hashed first: the slots stay valid. */
		s->stop = 1;
		(void)pthread_cond_broadcast(&s->cv);
		unlock(s);
		if (pthread_join(s->thread, NULL) != 0)
			fatal("sink: join");
		s->threaded = 0;
	}
	if (s->synced) {
		(void)pthread_cond_destroy(&s->cv);
		(void)pthread_mutex_destroy(&s->mu);
		s->synced = 0;
	}
	for (i = 0; i < SINK_BUFS; i++) {
		if (s->slot[i].data != NULL)
			explicit_bzero(s->slot[i].data, SINK_BUF_SIZE);
		free(s->slot[i].data);
		s->slot[i].data = NULL;
	}
	EVP_MD_CTX_free(s->md);
	s->md = NULL;
}
