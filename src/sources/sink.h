/* The spool sink every source streams into: the reserved cap as a hard
 * limit (counted on the bytes received, never on a size the source
 * announced), SHA-256 over exactly the bytes written, and the write to the
 * spool file. Nothing past the cap is ever written. */
#ifndef LOCKFILE_SOURCES_SINK_H
#define LOCKFILE_SOURCES_SINK_H

#include <stddef.h>

#include "sources/source.h"

struct sink {
	int fd;
	unsigned long long cap;
	unsigned long long size;
	void *md;		/* EVP_MD_CTX */
	int write_errno;	/* the spool write's errno, for the detail */
};

void sink_init(struct sink *s, int fd, unsigned long long cap);
/* FC_OK, FC_TOO_BIG (nothing of this chunk written) or FC_IO. */
enum fetch_cause sink_put(struct sink *s, const void *data, size_t len);
/* Size and digest into res. */
void sink_finish(struct sink *s, struct fetch_result *res);
void sink_free(struct sink *s);

#endif
