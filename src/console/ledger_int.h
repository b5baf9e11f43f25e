/* The answer ledger's inside, shared by ledger.c (memory: the digests,
 * the tables, the window), ledger_format.c (the line format: writing a
 * line, parsing a file), ledger_io.c (the files: the ledger, its key,
 * appending, compaction, open, read, repair) and ledger_record.c (a plan
 * recorded through all three). Each calls only those before it in that
 * order, never back. Not for other modules: ledger.h is the interface. */
#ifndef LOCKFILE_LEDGER_INT_H
#define LOCKFILE_LEDGER_INT_H

#include "console/ledger.h"
#include "lib/buf.h"

#define MAGIC		"lockfile-ledger"
#define CHAIN_HEX	(2 * SHA256_LEN)
#define MAX_FIELDS	8
#define WRITE_CHUNK	(1u << 20)

struct group {
	long long first, last;
	unsigned long long answers, plans;
};

/* An entry: a key (uid, profile, folded key) or an object a run opened
 * (uid, profile, object), known by its keyed digest only. */
struct lkey {
	uid_t uid;
	char profile[LEDGER_MAX_PROFILE + 1];
	uint8_t id[LEDGER_ID_LEN];
	char *name;			/* the key, when known here; never written */
	struct group *g;		/* time order; g[0] may hold the old */
	size_t ng, capg;
	uint8_t cids[LEDGER_KEY_SHAS][LEDGER_ID_LEN];	/* oldest first */
	size_t ncids;
	uint32_t fileid;		/* its K record's id in this file; 0 none */
	size_t idx;			/* in keys[] */
};

struct lcontent {
	uid_t uid;
	uint8_t id[LEDGER_ID_LEN];	/* digest of (uid, sha256) */
	uint8_t sha[SHA256_LEN];	/* when sha_known */
	int sha_known;
	struct group t;
};

struct fold_rule {
	char profile[LEDGER_MAX_PROFILE + 1];
	enum ledger_fold f;
};
#define MAX_FOLDS	64		/* POLICY_MAX_PROFILES */

struct ledger {
	int dirfd, fd;			/* -1 when only read */
	int broken;
	struct ledger_clock clk;
	unsigned long long window_s;
	long long span;			/* a group's longest span */
	uint8_t chain[SHA256_LEN];	/* the last line's */
	unsigned long long seq;		/* the last line's */
	unsigned long long records, bytes, appended, compacted;
	long long created;
	unsigned version;		/* of the file read (1 or 2) */
	int seen_plan;			/* parsing: a P record was read */
	struct lkey **keys;
	size_t nkeys, capkeys;
	struct lcontent *contents;
	size_t ncontents, capcontents;
	uint32_t *ktab, *ctab;		/* index + 1; 0 is empty */
	size_t ktabcap, ctabcap;
	struct lkey **byid;		/* file id - 1 -> key, this generation */
	size_t nbyid, capbyid;
	/* the digests' key (LEDGER_SECRET_FILE); secret_missing: made in
	 * memory, not yet on disk */
	uint8_t secret[LEDGER_SECRET_LEN];
	int secret_missing;
	struct fold_rule folds[MAX_FOLDS];
	size_t nfolds;
};

/* A line being built: FIELDS, then " CHAIN\n" from the chain before. */
struct writer {
	uint8_t chain[SHA256_LEN];
	unsigned long long seq;
	unsigned long long lines;
	struct buf *out;
};

void lg_problem(struct ledger_problem *p, enum ledger_err e,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
enum ledger_err lg_io_problem(struct ledger_problem *p, const char *what);
void *lg_grow(void *ptr, size_t *cap, size_t need, size_t elem);
long long lg_now(const struct ledger *l);
/* ledger.c: the digests, the tables and the groups, for the parser and
 * ledger_record.c */
void lg_entry_id(const struct ledger *l, const char *domain, uid_t uid,
    const char *profile, const char *text, uint8_t out[LEDGER_ID_LEN]);
void lg_key_id(const struct ledger *l, uid_t uid, const char *profile,
    const char *key, uint8_t out[LEDGER_ID_LEN]);
void lg_content_id(const struct ledger *l, uid_t uid, const uint8_t *sha,
    uint8_t out[LEDGER_ID_LEN]);
struct lkey *lg_find_id(const struct ledger *l, uid_t uid, const uint8_t *id);
struct lcontent *lg_find_content(const struct ledger *l, uid_t uid,
    const uint8_t *cid);
/* NULL when the ledger holds LEDGER_MAX_KEYS (contents) already */
struct lkey *lg_add_key(struct ledger *l, uid_t uid, const char *profile,
    const uint8_t *id, const char *name);
struct lcontent *lg_add_content(struct ledger *l, uid_t uid,
    const uint8_t *cid, const uint8_t *sha);
void lg_group_merge(struct group *into, const struct group *g);
void lg_key_add_group(struct ledger *l, struct lkey *k, const struct group *g);
void lg_key_add_plan(struct ledger *l, struct lkey *k, long long t,
    unsigned answers);
void lg_key_add_cid(struct lkey *k, const uint8_t *cid);
void lg_adopt_fileid(struct ledger *l, struct lkey *k);
/* the made newest entries dropped again (their write failed) */
void lg_drop_new_keys(struct ledger *l, size_t made);
/* the groups of k wholly out of the window at t become one */
void lg_fold_groups(struct ledger *l, struct lkey *k, long long t);
/* ledger_format.c: one line onto w (0, or -1 when it does not fit) */
int lg_emit(struct writer *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int lg_emit_key(struct writer *w, const struct lkey *k, uint32_t id);
/* the records of a whole file into l; on a refusal, l holds exactly the
 * records before the bad one */
enum ledger_err lg_parse_all(struct ledger *l, const uint8_t *data,
    size_t len, struct ledger_problem *p);
/* ledger.c: an empty ledger (dies out of memory) */
struct ledger *lg_new(const struct ledger_clock *clk,
    unsigned long long window_s);
/* ledger_io.c: out appended and fdatasync'd; on failure cut back,
 * l->broken set */
enum ledger_err lg_append(struct ledger *l, const struct buf *out,
    struct ledger_problem *p);

#endif
