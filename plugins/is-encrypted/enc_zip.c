/* is-encrypted, ZIP part (docs/plugins.md), over zipread.c. Encrypted
 * when:
 *   - an entry has general purpose flag bit 0 (ZipCrypto, and WinZip AES,
 *     which sets it with method 99), or
 *   - the entry META-INF/manifest.xml (ODF 1.2 part 3, 3.8: an encrypted
 *     ODF document marks nothing in the ZIP itself; the last entry of that
 *     name, as zipfile keeps) has an element whose local name is
 *     encryption-data. Only that entry is ever inflated, through zlib, at
 *     most ENC_MANIFEST_MAX bytes of it. */
#include "enc_check.h"
#include "zipread.h"

#include <string.h>

#define MANIFEST "META-INF/manifest.xml"

/* Tag names in the manifest's bytes: after '<', a name up to whitespace,
 * '/' or '>'; its local part (after the last ':') is compared. A name
 * longer than the buffer is not the one sought. */
struct tagscan {
	int in;			/* inside a tag's name */
	size_t n;
	char name[64];
	int found;
};

static void
tag_feed(struct tagscan *t, const uint8_t *p, size_t len)
{
	static const char want[] = "encryption-data";
	size_t i;

	for (i = 0; i < len && !t->found; i++) {
		uint8_t b = p[i];
		int endc = b == ' ' || b == '\t' || b == '\r' || b == '\n' ||
		    b == '/' || b == '>';

		if (b == '<') {
			t->in = 1;
			t->n = 0;
			continue;
		}
		if (!t->in)
			continue;
		if (endc) {
			size_t k = t->n, from = 0;

			t->in = 0;
			if (k > sizeof(t->name))
				continue;
			while (k-- > 0)
				if (t->name[k] == ':') {
					from = k + 1;
					break;
				}
			if (t->n - from == sizeof(want) - 1 &&
			    memcmp(t->name + from, want, sizeof(want) - 1) == 0)
				t->found = 1;
			continue;
		}
		if (t->n < sizeof(t->name))
			t->name[t->n] = (char)b;
		t->n++;
	}
}

struct zwalk {
	int any;
	int found;
	struct zip_entry man;
};

static enum enc_answer
on_entry(void *arg, const struct zip_entry *e)
{
	struct zwalk *w = arg;

	if (e->flags & 1)
		w->any = 1;
	if (e->name_len == sizeof(MANIFEST) - 1 &&
	    memcmp(e->name, MANIFEST, e->name_len) == 0) {
		w->man = *e;
		w->found = 1;
	}
	return ENC_NO;
}

static int
on_manifest(void *arg, const uint8_t *p, size_t n)
{
	struct tagscan *t = arg;

	tag_feed(t, p, n);
	return t->found;
}

enum enc_answer
enc_zip(const struct pdf_src *src)
{
	static struct zwalk w;
	struct tagscan t;
	enum enc_answer e;

	memset(&w, 0, sizeof(w));
	if ((e = zip_entries(src, on_entry, &w)) != ENC_NO)
		return e;
	if (w.any)
		return ENC_YES;
	if (!w.found)
		return ENC_NO;
	memset(&t, 0, sizeof(t));
	e = zip_entry_data(src, &w.man, ENC_MANIFEST_MAX, on_manifest, &t);
	if (e != ENC_NO)
		return e;
	return t.found ? ENC_YES : ENC_NO;
}
