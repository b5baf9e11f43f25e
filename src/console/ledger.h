/* The answer ledger: how many answers each agent has had about each key,
 * across handles and console restarts (docs/ledger.md).
 *
 * One append-only file, `ledger`, in the console's state directory (0600,
 * the directory the caller hands over as a descriptor). Every plan that
 * reveals answers is one record, written and fsync'd before the answer
 * leaves. Records are lines chained by SHA-256: a torn last record or any
 * changed byte is found when the file is read, and the ledger then refuses
 * to open (never a silent reset; `lockfile audit --ledger --repair` is the
 * human's explicit way on). Compaction rewrites the file from what it
 * holds, so its size follows the number of distinct keys and contents,
 * not the number of plans.
 *
 * Per (agent uid, profile, cleaned key folded as the profile says), and
 * per (agent uid, profile, object a run opened): answers, plans, first and
 * last time, in groups of plans close in time, so the answers inside a
 * sliding window can be counted (conservatively: a group counts whole
 * while its latest plan is inside the window). Per (agent uid, content
 * sha256): the same totals, for the human and the audit only: nothing an
 * agent is told is computed from them. The file names each by a keyed
 * digest (LEDGER_SECRET_FILE): no key, size or sha256 rests in it.
 *
 * The module knows no console: a directory descriptor, a clock and the
 * window are all it takes. */
#ifndef LOCKFILE_LEDGER_H
#define LOCKFILE_LEDGER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/crypto.h"
#include "lib/paths.h"

/* Under the console account's home, LF_HOME_LEDGER_DIR (lib/paths.h): a
 * directory of its own, the only one the confined console may create and
 * rename files in; the ledger is LF_LEDGER_FILE in it. */
#define LEDGER_NEW_FILE		"ledger.new"	/* a compaction in progress */
/* The key of the ledger's digests (32 random bytes, 0600, made at the
 * first start): the file holds no key, size or sha256 in the clear, only
 * digests under it (docs/ledger.md, "At rest"). */
#define LEDGER_SECRET_FILE	"ledger.key"
#define LEDGER_SECRET_NEW	"ledger.key.new"
#define LEDGER_SECRET_LEN	32
#define LEDGER_ID_LEN		32		/* an entry's or content's digest */
#define LEDGER_VERSION		2		/* format 1 is read and migrated */

/* Limits, all in one place (docs/ledger.md, "Limits"). */
#define LEDGER_MAX_BYTES	(256ULL << 20)	/* the file */
#define LEDGER_MAX_LINE		2304		/* a K record with a 1024-byte key */
#define LEDGER_MAX_KEYS		(1u << 20)	/* (uid, profile, key) entries */
#define LEDGER_MAX_CONTENTS	(1u << 20)	/* (uid, sha256) entries */
#define LEDGER_KEY_SHAS		16		/* contents remembered per key */
#define LEDGER_GROUPS_PER_WINDOW 64		/* a group spans window / 64 */
#define LEDGER_MAX_GROUPS	(2 * LEDGER_GROUPS_PER_WINDOW)
#define LEDGER_MAX_KEY_BYTES	1024		/* PROTO_MAX_KEY */
#define LEDGER_MAX_PROFILE	64
#define LEDGER_MAX_ANSWERS	64		/* per plan: PROTO_MAX_PLUGINS */
#define LEDGER_MAX_COUNT	(1ULL << 48)	/* any total */
#define LEDGER_MAX_TIME		(1LL << 40)	/* seconds since the epoch */
#define LEDGER_COMPACT_MIN	4096		/* records appended between */

enum ledger_err {
	LEDGER_OK = 0,
	LEDGER_E_IO,		/* a read, write, fsync or rename failed */
	LEDGER_E_UNSAFE,	/* not a regular file of this account */
	LEDGER_E_BUSY,		/* another console holds the ledger */
	LEDGER_E_TORN,		/* the last record is incomplete */
	LEDGER_E_DAMAGED,	/* a record fails its checksum or its form */
	LEDGER_E_VERSION,	/* another format version */
	LEDGER_E_FULL,		/* a limit above would be passed */
	LEDGER_E_BROKEN,	/* an earlier write failed: nothing more */
	LEDGER_E_KEY,		/* ledger.key is missing or not 32 bytes */
};

/* How a profile's source folds names (the policy's key_fold,
 * docs/policy.md): spellings that fold alike share one budget. */
enum ledger_fold {
	LEDGER_FOLD_NONE = 0,	/* bytes: a POSIX file system, S3 */
	LEDGER_FOLD_NFC,	/* canonically equivalent names (APFS, HFS+) */
	LEDGER_FOLD_CASE,	/* and case-insensitive (NTFS, SMB, macOS) */
};

/* ledger_fold.c (ICU). 0, or -1 for a name that does not fold into out. */
int ledger_fold_key(enum ledger_fold f, const char *key, char *out,
    size_t outlen);
int ledger_fold_parse(const char *s, enum ledger_fold *out);
const char *ledger_fold_name(enum ledger_fold f);

/* What went wrong, for the human: which record (1-based line), where it
 * starts, how many bytes before it are good, and a sentence. */
struct ledger_problem {
	enum ledger_err err;
	unsigned long long record;
	unsigned long long offset;
	unsigned long long good_bytes;
	unsigned long long good_records;
	int sys_errno;
	char msg[256];
};

/* Seconds since the epoch (wall time: the window spans restarts). */
struct ledger_clock {
	long long (*now_s)(void *ctx);
	void *ctx;
};

/* Answers, plans, first and last time of some plans. */
struct ledger_usage {
	unsigned long long answers;
	unsigned long long plans;
	long long first, last;		/* 0 when plans == 0 */
};

struct ledger;

/* Open (creating when missing) and read the ledger in dirfd, which is
 * duplicated and locked (flock) against a second writer. window_s is the
 * policy's ledger_window_s. A damaged file is refused: LEDGER_E_TORN or
 * LEDGER_E_DAMAGED with *p filled in, and the file left as it is. A
 * ledger.new left by a compaction that did not finish is removed (the
 * ledger it was to replace is whole). Compacts when due. *created says
 * whether the file was new (1), or a format-1 file was migrated (2: the
 * key file made if missing, the file rewritten with digests). */
enum ledger_err ledger_open(struct ledger **out, int dirfd,
    const struct ledger_clock *clk, unsigned long long window_s,
    int *created, struct ledger_problem *p);

/* Read-only, for the audit: never creates, locks, compacts or writes.
 * On damage *out still holds every record before it (and *p says where
 * it stopped); LEDGER_E_IO with sys_errno ENOENT when there is no file. */
enum ledger_err ledger_read(struct ledger **out, int dirfd,
    const struct ledger_clock *clk, unsigned long long window_s,
    struct ledger_problem *p);

/* Parse a ledger from memory (what ledger_read does after reading the
 * file; for the fuzzer). */
enum ledger_err ledger_parse(struct ledger **out, const uint8_t *data,
    size_t len, const struct ledger_clock *clk, unsigned long long window_s,
    struct ledger_problem *p);

void ledger_close(struct ledger *l);

/* How profile's names fold (default none), before any lookup: every key
 * of that profile is then counted under its folded form. */
int ledger_set_fold(struct ledger *l, const char *profile,
    enum ledger_fold f);

/* The answers this uid had about (profile, key) inside the window now. */
void ledger_window_usage(const struct ledger *l, uid_t uid,
    const char *profile, const char *key, struct ledger_usage *u);

/* 1 when answers more would take this uid past cap on (profile, key)
 * inside the window; computed from this uid's own entry only. */
int ledger_would_pass(const struct ledger *l, uid_t uid, const char *profile,
    const char *key, unsigned answers, unsigned long long cap);

/* The object a run actually opened (a source's identity for it: device
 * and inode, a canonical path, an exact S3 key; docs/ledger.md,
 * "Aliases"): the answers this uid had about it inside the window, and
 * whether answers more would pass cap. Checked after the approval only. */
void ledger_object_usage(const struct ledger *l, uid_t uid,
    const char *profile, const char *object, struct ledger_usage *u);
int ledger_object_would_pass(const struct ledger *l, uid_t uid,
    const char *profile, const char *object, unsigned answers,
    unsigned long long cap);

/* One plan that revealed answers (sha256 NULL when no content was read,
 * a fetch failure; object NULL or "" when no object was opened or the
 * source names none): counted on the key and on the object. Appended and
 * fsync'd before it returns LEDGER_OK; on a failed write the file is cut
 * back to where it was and the ledger refuses every later call
 * (LEDGER_E_BROKEN). */
enum ledger_err ledger_record(struct ledger *l, uid_t uid,
    const char *profile, const char *key, const char *object,
    const uint8_t *sha256, unsigned answers, struct ledger_problem *p);

/* Compact when enough records were appended since the last compaction
 * (LEDGER_COMPACT_MIN, or as many as the compacted file has). */
int ledger_compact_due(const struct ledger *l);
/* Rewrite the file from memory: ledger.new, fsync, rename, fsync of the
 * directory. On failure the old file is untouched and still used. */
enum ledger_err ledger_compact(struct ledger *l, struct ledger_problem *p);

/* Write what was read into dirfd's ledger as a fresh file (after the old
 * one is moved aside as `ledger.damaged-<time>`, whose name is put in
 * aside): `lockfile audit --ledger --repair`. */
enum ledger_err ledger_rewrite(struct ledger *l, int dirfd, char *aside,
    size_t asidelen, struct ledger_problem *p);

/* What the file holds, for tests and the audit header. */
struct ledger_stats {
	unsigned long long records;	/* lines of the file now */
	unsigned long long bytes;
	unsigned long long appended;	/* since the last compaction */
	unsigned long long seq;		/* the last record's sequence number */
	long long created;		/* this generation's header time */
	size_t keys, contents;
};
void ledger_get_stats(const struct ledger *l, struct ledger_stats *st);

/* For the audit: every entry (a key's or an object's: the file does not
 * tell them apart; lifetime totals and the window's), and every content
 * entry, in the order they were first seen. The file holds digests only:
 * key and sha256 are known when this process read them from a format-1
 * file or recorded them, else NULL (ledger_key_is matches a key). */
struct ledger_key_view {
	uid_t uid;
	const char *profile;
	const char *key;			/* NULL: unknown */
	const uint8_t *id;			/* LEDGER_ID_LEN */
	struct ledger_usage total, window;
	size_t ncids;
	const uint8_t (*cids)[LEDGER_ID_LEN];	/* content ids, oldest first */
};
struct ledger_content_view {
	uid_t uid;
	const uint8_t *id;			/* LEDGER_ID_LEN */
	const uint8_t *sha256;			/* NULL: unknown */
	struct ledger_usage total;
};
/* A content's digest (what the file holds for a sha256 of this uid). */
void ledger_content_id(const struct ledger *l, uid_t uid,
    const uint8_t *sha256, uint8_t out[LEDGER_ID_LEN]);
/* The index (ledger_key_at) of uid's entry for (profile, key), or of
 * uid's content with sha256 (ledger_content_at); -1 when there is none:
 * the audit names entries from its own records. */
long ledger_key_index(const struct ledger *l, uid_t uid, const char *profile,
    const char *key);
long ledger_content_index(const struct ledger *l, uid_t uid,
    const uint8_t *sha256);
/* 1 when the entry v is key (cleaned, folded by v's profile's rule). */
int ledger_key_is(const struct ledger *l, const struct ledger_key_view *v,
    const char *key);
size_t ledger_nkeys(const struct ledger *l);
void ledger_key_at(const struct ledger *l, size_t i,
    struct ledger_key_view *v);
size_t ledger_ncontents(const struct ledger *l);
void ledger_content_at(const struct ledger *l, size_t i,
    struct ledger_content_view *v);

/* The card's line (and the hub's masked screen's): "this key: 14 answers
 * to uid 1002 in 5 plans since 2024-05-01 10:02 UTC, cap 32". Only the
 * requesting uid's own window usage goes in. */
void ledger_usage_line(const struct ledger_usage *u, uid_t uid,
    unsigned long long cap, unsigned long long window_s, char *out,
    size_t outlen);

/* The same for a screen of labelled counts (hub mode's masked screen:
 * docs/hub.md, "ledger"): at most 4 lines, each label 1..64 printable
 * ASCII. Returns the number written (at most max). */
#define LEDGER_SCREEN_LINES	4
struct ledger_screen_line {
	char label[65];
	uint32_t count;
};
size_t ledger_screen(const struct ledger_usage *u, uid_t uid,
    unsigned long long cap, unsigned long long window_s,
    struct ledger_screen_line *out, size_t max);

const char *ledger_err_name(enum ledger_err e);

/* The wall clock (CLOCK_REALTIME seconds). */
long long ledger_clock_real(void *ctx);

#endif
