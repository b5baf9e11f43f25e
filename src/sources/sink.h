/* The spool sink every source streams into: the reserved cap as a hard
 * limit (counted on the bytes received, never on a size the source
 * announced), SHA-256 over exactly the bytes written, and the write to the
 * spool file. Nothing past the cap is ever written.
 *
 * Hashing runs on a thread of its own over a small ring of buffers, so the
 * digest costs no time on the path that receives and writes: each buffer
 * is hashed and written from the same bytes (the digest is always the
 * spool's content), then reused. Memory is the ring, whatever the size of
 * the file. If no thread can be started the sink hashes inline.
 */
#ifndef LOCKFILE_SOURCES_SINK_H
#define LOCKFILE_SOURCES_SINK_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "sources/source.h"

/* Four slots of 256 KiB: 1 MiB, most of what a fetch adds to the console's
 * peak memory (every slot is written whole, then wiped). Larger slots
 * bought no speed on a 512 MiB local fetch and cost the console its
 * 16 MiB budget (bench/README.md, "bench/fetch"). */
#define SINK_BUFS 4
#define SINK_BUF_SIZE (256 * 1024)

struct sink_slot {
	uint8_t *data;
	size_t len;
	int hashed, written;	/* under mu */
};

struct sink {
	int fd;
	unsigned long long cap;
	unsigned long long size;	/* bytes accepted (written or about to be) */
	int write_errno;		/* the spool write's errno, for the detail */
	enum fetch_cause failed;	/* sticky: FC_OK until something fails */
	void *md;			/* EVP_MD_CTX, used by the hasher only */
	struct sink_slot slot[SINK_BUFS];
	size_t cur;			/* the slot being filled */
	unsigned long long queued;	/* slots handed to the hasher */
	unsigned long long done;	/* slots the hasher finished */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	int threaded, stop;
	int synced;			/* mu and cv initialised */
	int hash_failed;		/* under mu once threaded */
};

/* FC_OK, or FC_IO when the sink cannot be set up (no memory, no digest):
 * every later call then answers FC_IO. sink_free() is due either way. */
enum fetch_cause sink_init(struct sink *s, int fd, unsigned long long cap);
/* Copy len bytes in: FC_OK, FC_TOO_BIG (nothing of them kept) or FC_IO. */
enum fetch_cause sink_put(struct sink *s, const void *data, size_t len);
/* Zero-copy filling: a buffer of *room bytes to read into, then
 * sink_commit with the count read (at most *room). Same causes. */
uint8_t *sink_buffer(struct sink *s, size_t *room);
enum fetch_cause sink_commit(struct sink *s, size_t n);
/* Write what is pending, wait for the digest: FC_OK with size and digest
 * in res, or the cause that stopped the stream. */
enum fetch_cause sink_finish(struct sink *s, struct fetch_result *res);
/* Always, after init (stops the hasher; wipes the buffers). */
void sink_free(struct sink *s);

#endif
