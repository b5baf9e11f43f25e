/* Held values (see values.h). */
#include "console/values.h"
#include "lib/log.h"
#include "lib/xmalloc.h"

#include <stdlib.h>
#include <string.h>

#include <sodium.h>

void
values_init(struct values *vs)
{
	memset(vs, 0, sizeof(*vs));
	if (sodium_init() < 0)
		fatal("libsodium cannot be initialised");
}

static void
free_value(struct held_value *hv)
{
	if (hv->bytes != NULL)
		sodium_free(hv->bytes);	/* zeroes, unlocks, frees */
	free(hv->files);
	memset(hv, 0, sizeof(*hv));
}

void
values_wipe(struct values *vs)
{
	size_t i;

	for (i = 0; i < vs->n; i++)
		free_value(&vs->v[i]);
	vs->n = 0;
}

struct held_value *
values_find(struct values *vs, uid_t uid, const char *name)
{
	size_t i;

	for (i = 0; i < vs->n; i++)
		if (vs->v[i].uid == uid && strcmp(vs->v[i].name, name) == 0)
			return &vs->v[i];
	return NULL;
}

struct held_value *
values_new(struct values *vs, uid_t uid, const char *name)
{
	struct held_value *hv;

	if (vs->n >= VALUES_MAX || strlen(name) >= sizeof(hv->name))
		return NULL;
	hv = &vs->v[vs->n];
	memset(hv, 0, sizeof(*hv));
	hv->bytes = sodium_malloc(VALUE_MAX_BYTES + 1);
	if (hv->bytes == NULL)
		return NULL;
	memcpy(hv->name, name, strlen(name) + 1);
	hv->uid = uid;
	vs->n++;
	return hv;
}

void
values_discard(struct values *vs, struct held_value *hv)
{
	size_t i = (size_t)(hv - vs->v);

	ASSERT(i < vs->n);
	free_value(hv);
	memmove(&vs->v[i], &vs->v[i + 1], (vs->n - i - 1) * sizeof(vs->v[0]));
	vs->n--;
	memset(&vs->v[vs->n], 0, sizeof(vs->v[0]));
}

void
values_note_file(struct held_value *hv, const uint8_t sha[SHA256_LEN])
{
	size_t i;

	for (i = 0; i < hv->nfiles; i++)
		if (memcmp(hv->files[i], sha, SHA256_LEN) == 0)
			return;
	if (hv->nfiles >= VALUES_MAX_FILES)
		return;
	if (hv->nfiles % 16 == 0) {
		hv->files = xreallocarray(hv->files, hv->nfiles + 16,
		    SHA256_LEN);
	}
	memcpy(hv->files[hv->nfiles++], sha, SHA256_LEN);
}
