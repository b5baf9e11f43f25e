/* The spool sink (see sink.h). */
#include "sources/sink.h"
#include "lib/fdutil.h"
#include "lib/log.h"

#include <errno.h>
#include <string.h>

#include <openssl/evp.h>

void
sink_init(struct sink *s, int fd, unsigned long long cap)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (ctx == NULL || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		fatal("sha256 init failed");
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->cap = cap;
	s->md = ctx;
}

enum fetch_cause
sink_put(struct sink *s, const void *data, size_t len)
{
	if (len > s->cap - s->size)
		return FC_TOO_BIG;
	if (EVP_DigestUpdate(s->md, data, len) != 1)
		fatal("sha256 update failed");
	if (write_full(s->fd, data, len) != 0) {
		s->write_errno = errno;
		return FC_IO;
	}
	s->size += len;
	return FC_OK;
}

void
sink_finish(struct sink *s, struct fetch_result *res)
{
	if (EVP_DigestFinal_ex(s->md, res->sha256, NULL) != 1)
		fatal("sha256 final failed");
	res->size = s->size;
}

void
sink_free(struct sink *s)
{
	EVP_MD_CTX_free(s->md);
	s->md = NULL;
}
