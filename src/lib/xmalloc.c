/* See xmalloc.h. */
#include "lib/xmalloc.h"
#include "lib/log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *
xmalloc(size_t size)
{
	void *p = malloc(size == 0 ? 1 : size);

	if (p == NULL)
		fatal("xmalloc: out of memory (allocating %zu bytes)", size);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p;

	if (nmemb == 0 || size == 0)
		nmemb = size = 1;
	if (SIZE_MAX / nmemb < size)
		fatal("xcalloc: %zu * %zu bytes overflows", nmemb, size);
	p = calloc(nmemb, size);
	if (p == NULL)
		fatal("xcalloc: out of memory (allocating %zu * %zu bytes)",
		    nmemb, size);
	return p;
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	void *p;

	if (nmemb == 0 || size == 0)
		nmemb = size = 1;
	if (SIZE_MAX / nmemb < size)
		fatal("xreallocarray: %zu * %zu bytes overflows", nmemb, size);
	p = realloc(ptr, nmemb * size);
	if (p == NULL)
		fatal("xreallocarray: out of memory (%zu * %zu bytes)",
		    nmemb, size);
	return p;
}

char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = xmalloc(n);

	memcpy(p, s, n);
	return p;
}
