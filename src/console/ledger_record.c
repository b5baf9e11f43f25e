/* Recording a plan (ledger_record, ledger.h; docs/ledger.md, "What it
 * counts"): its entries found or made in memory, its lines built in the
 * format, appended to the file and fsync'd, and only then counted in
 * memory. Above the three parts of the ledger (ledger.c, ledger_format.c,
 * ledger_io.c), none of which calls back here. */
#include "console/ledger_int.h"
#include "lib/buf.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/str.h"
#include "protocol/shape.h"

#include <string.h>

/* The entry for id: found, or made (*made counts the new ones, dropped
 * again if the write fails). */
static struct lkey *
entry_for(struct ledger *l, uid_t uid, const char *profile,
    const uint8_t *id, const char *name, size_t *made)
{
	struct lkey *k = lg_find_id(l, uid, id);

	if (k == NULL && (k = lg_add_key(l, uid, profile, id, name)) != NULL)
		(*made)++;
	return k;
}

/* The P line of one entry, its K line first when it is new to the file
 * (ids are given in order: next is the next free one). */
static int
emit_plan(struct writer *w, const struct lkey *k, uint32_t *next,
    long long t, const char *cid, unsigned answers)
{
	uint32_t id = k->fileid;

	if (id == 0) {
		id = ++*next;
		if (lg_emit_key(w, k, id) != 0)
			return -1;
	}
	return lg_emit(w, "P %lld %u %s %u", t, id, cid, answers);
}

enum ledger_err
ledger_record(struct ledger *l, uid_t uid, const char *profile,
    const char *key, const char *object, const uint8_t *sha256,
    unsigned answers, struct ledger_problem *p)
{
	struct lkey *k, *o = NULL;
	struct writer w;
	long long t = lg_now(l);
	enum ledger_err e = LEDGER_OK;
	uint8_t kid[LEDGER_ID_LEN], oid[LEDGER_ID_LEN], cid[LEDGER_ID_LEN];
	char hex[2 * LEDGER_ID_LEN + 1] = "-";	/* no content read */
	uint32_t next = (uint32_t)l->nbyid;
	size_t made = 0;

	if (p != NULL)
		memset(p, 0, sizeof(*p));
	if (l->broken || l->fd < 0) {
		lg_problem(p, LEDGER_E_BROKEN, "an earlier ledger write failed");
		return LEDGER_E_BROKEN;
	}
	if (answers < 1 || answers > LEDGER_MAX_ANSWERS ||
	    !name_is_profile(profile) || strlen(key) == 0 ||
	    strlen(key) > LEDGER_MAX_KEY_BYTES ||
	    (object != NULL && strlen(object) > LEDGER_MAX_KEY_BYTES)) {
		lg_problem(p, LEDGER_E_FULL, "a plan outside the ledger's limits");
		return LEDGER_E_FULL;
	}
	if (sha256 != NULL)
		lg_content_id(l, uid, sha256, cid);
	if (sha256 != NULL && lg_find_content(l, uid, cid) == NULL &&
	    l->ncontents >= LEDGER_MAX_CONTENTS) {
		lg_problem(p, LEDGER_E_FULL, "more contents than the ledger holds");
		return LEDGER_E_FULL;
	}
	lg_key_id(l, uid, profile, key, kid);
	k = entry_for(l, uid, profile, kid, key, &made);
	if (k != NULL && object != NULL && object[0] != '\0') {
		lg_entry_id(l, "object", uid, profile, object, oid);
		if ((o = entry_for(l, uid, profile, oid, NULL, &made)) == NULL)
			k = NULL;
	}
	if (k == NULL) {
		lg_drop_new_keys(l, made);
		lg_problem(p, LEDGER_E_FULL, "more keys than the ledger holds");
		return LEDGER_E_FULL;
	}
	memset(&w, 0, sizeof(w));
	memcpy(w.chain, l->chain, SHA256_LEN);
	w.seq = l->seq;
	w.out = buf_new(4 * LEDGER_MAX_LINE + 16);
	if (sha256 != NULL)
		hex_encode(cid, LEDGER_ID_LEN, hex);
	/* The object's line carries no content: the content totals count a
	 * plan once. */
	if (emit_plan(&w, k, &next, t, hex, answers) != 0 ||
	    (o != NULL && emit_plan(&w, o, &next, t, "-", answers) != 0)) {
		lg_problem(p, LEDGER_E_FULL, "a record does not fit");
		e = LEDGER_E_FULL;
		goto out;
	}
	if ((e = lg_append(l, w.out, p)) != LEDGER_OK)
		goto out;
	/* Written: memory follows. */
	lg_adopt_fileid(l, k);
	if (o != NULL)
		lg_adopt_fileid(l, o);
	if (sha256 != NULL) {
		struct lcontent *c = lg_find_content(l, uid, cid);
		struct group one = { t, t, answers, 1 };
		if (c == NULL)
			c = lg_add_content(l, uid, cid, sha256);
		lg_group_merge(&c->t, &one);
		lg_key_add_cid(k, cid);
	}
	lg_key_add_plan(l, k, t, answers);
	if (o != NULL)
		lg_key_add_plan(l, o, t, answers);
	memcpy(l->chain, w.chain, SHA256_LEN);
	l->seq = w.seq;
	l->records += w.lines;
	l->appended += w.lines;
	l->bytes += buf_len(w.out);
	made = 0;
out:
	if (made > 0)
		lg_drop_new_keys(l, made);
	buf_free(w.out);
	return e;
}
