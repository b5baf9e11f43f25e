/* Bounded buffers (see buf.h). */
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


struct buf {
	uint8_t *d;
	size_t len, alloc, max;
};

struct buf *
buf_new(size_t max)
{
	struct buf *b = xcalloc(1, sizeof(*b));

	b->max = max;
	b->alloc = max < 256 ? max + 1 : 256;
	b->d = xcalloc(1, b->alloc);
	return b;
}

void
buf_free(struct buf *b)
{
	if (b == NULL)
		return;
	explicit_bzero(b->d, b->alloc);
	free(b->d);
	free(b);
}

void
buf_reset(struct buf *b)
{
	explicit_bzero(b->d, b->alloc);
	b->len = 0;
}

static int
reserve(struct buf *b, size_t extra)
{
	size_t need, nalloc;
	uint8_t *nd;

	if (extra > b->max || b->len > b->max - extra)
		return -1;
	need = b->len + extra + 1;	/* room for the trailing NUL */
	if (need <= b->alloc)
		return 0;
	nalloc = b->alloc;
	while (nalloc < need)
		nalloc = nalloc > (SIZE_MAX / 2) ? need : nalloc * 2;
	if (nalloc > b->max + 1)
		nalloc = b->max + 1;
	/* Copy rather than realloc so the old block can be wiped. */
	nd = xcalloc(1, nalloc);
	memcpy(nd, b->d, b->len);
	explicit_bzero(b->d, b->alloc);
	free(b->d);
	b->d = nd;
	b->alloc = nalloc;
	return 0;
}

int
buf_append(struct buf *b, const void *data, size_t len)
{
	if (reserve(b, len) != 0)
		return -1;
	if (len > 0)
		memcpy(b->d + b->len, data, len);
	b->len += len;
	b->d[b->len] = 0;
	return 0;
}

int
buf_putc(struct buf *b, char c)
{
	return buf_append(b, &c, 1);
}

int
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *tmp;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if ((size_t)n > b->max)
		return -1;
	tmp = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(tmp, (size_t)n + 1, fmt, ap);
	va_end(ap);
	n = buf_append(b, tmp, (size_t)n);
	explicit_bzero(tmp, strlen(tmp));
	free(tmp);
	return n;
}

const uint8_t *
buf_data(const struct buf *b)
{
	return b->d;
}

const char *
buf_str(const struct buf *b)
{
	return (const char *)b->d;
}

size_t
buf_len(const struct buf *b)
{
	return b->len;
}

size_t
buf_max(const struct buf *b)
{
	return b->max;
}

void
buf_consume(struct buf *b, size_t n)
{
	ASSERT(n <= b->len);
	memmove(b->d, b->d + n, b->len - n);
	b->len -= n;
	explicit_bzero(b->d + b->len, b->alloc - b->len);
}
