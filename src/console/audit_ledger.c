/* `lockfile audit --ledger [--key K] [--uid U] [--json] [--repair]`: the
 * answer ledger for the console account (docs/ledger.md). Everything the
 * ledger holds is shown here, content-keyed totals included: this is the
 * human's view, never an agent's. */
#include "console/audit.h"
#include "console/ledger.h"
#include "console/policy.h"
#include "lib/fd.h"
#include "lib/jsonx.h"
#include "lib/log.h"
#include "lib/num.h"
#include "lib/paths.h"
#include "lib/render.h"
#include "lib/str.h"
#include "lib/xmalloc.h"
#include "protocol/key.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct filter {
	int by_key, by_uid;
	char key[LEDGER_MAX_KEY_BYTES + 1];
	uid_t uid;
};

static void
iso_time(long long t, char *out, size_t outlen)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(out, outlen, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		str_msg(out, outlen, "%lld", t);
}

static void
put_usage(json_t *o, const char *prefix, const struct ledger_usage *u)
{
	char name[32], ts[32];

	str_msg(name, sizeof(name), "%sanswers", prefix);
	json_object_set_new(o, name, json_integer((json_int_t)u->answers));
	str_msg(name, sizeof(name), "%splans", prefix);
	json_object_set_new(o, name, json_integer((json_int_t)u->plans));
	if (u->plans == 0)
		return;
	iso_time(u->first, ts, sizeof(ts));
	str_msg(name, sizeof(name), "%sfirst", prefix);
	json_object_set_new(o, name, json_string(ts));
	iso_time(u->last, ts, sizeof(ts));
	str_msg(name, sizeof(name), "%slast", prefix);
	json_object_set_new(o, name, json_string(ts));
}

static json_t *
hex_string(const uint8_t *sha)
{
	char hex[SHA256_HEX_LEN + 1];

	hex_encode(sha, SHA256_LEN, hex);
	return json_string(hex);
}

/* A key as text when it is UTF-8 (what the console writes), else its
 * bytes in hex under another name: the listing is total. */
static void
put_key(json_t *o, const char *key)
{
	json_t *s = json_stringn(key, strlen(key));
	char hex[2 * LEDGER_MAX_KEY_BYTES + 1];

	if (s != NULL) {
		json_object_set_new(o, "key", s);
		return;
	}
	hex_encode((const uint8_t *)key, strlen(key), hex);
	json_object_set_new(o, "key_hex", json_string(hex));
}

/* One record: JSON as stored by the audit (ASCII), or name=value pairs
 * rendered as on the card (the audit's own printer). */
static void
emit(json_t *o, int json_out)
{
	if (json_out) {
		char *line = jsonx_dump_line(o);
		printf("%s\n", line);
		free(line);
	} else {
		audit_print_record(o);
	}
	json_decref(o);
}

/* --key K matches an entry by its digest (the file holds no key): K is
 * folded as the entry's profile folds (docs/ledger.md). */
static int
key_matches(const struct ledger *l, const struct filter *f,
    const struct ledger_key_view *v)
{
	return (!f->by_uid || v->uid == f->uid) &&
	    (!f->by_key || ledger_key_is(l, v, f->key));
}

static json_t *
id_string(const uint8_t *id)
{
	char hex[2 * LEDGER_ID_LEN + 1];

	hex_encode(id, LEDGER_ID_LEN, hex);
	return json_string(hex);
}

/* What the ledger file does not say, from the audit log (the one place
 * file metadata rests, docs/security.md "Data at rest"): the key of each
 * entry and the sha256 of each content some record names. */
struct names {
	char **key;			/* per entry, or NULL */
	uint8_t (*sha)[SHA256_LEN];	/* per content */
	uint8_t *sha_known;
};

#define AUDIT_LINE_MAX	(1u << 20)

static void
name_from_record(const struct ledger *l, const json_t *rec, struct names *nm)
{
	const json_t *u = json_object_get(rec, "peer_uid");
	const char *profile = json_string_value(json_object_get(rec, "profile"));
	const char *key = json_string_value(json_object_get(rec, "key"));
	const char *sha = json_string_value(json_object_get(rec, "sha256"));
	uint8_t b[SHA256_LEN];
	uid_t uid;
	long i;

	if (!json_is_integer(u) || json_integer_value(u) < 0 ||
	    json_integer_value(u) > 0xfffffffeLL)
		return;
	uid = (uid_t)json_integer_value(u);
	if (profile != NULL && key != NULL &&
	    (i = ledger_key_index(l, uid, profile, key)) >= 0 &&
	    nm->key[i] == NULL)
		nm->key[i] = xstrdup(key);
	if (sha != NULL && strlen(sha) == SHA256_HEX_LEN &&
	    hex_decode(sha, b, SHA256_LEN) == 0 &&
	    (i = ledger_content_index(l, uid, b)) >= 0) {
		memcpy(nm->sha[i], b, SHA256_LEN);
		nm->sha_known[i] = 1;
	}
}

/* Best effort: an audit log that cannot be read leaves digests shown. */
static void
names_read(const char *home, const struct ledger *l, struct names *nm)
{
	char path[4200], *line = NULL;
	size_t cap = 0;
	struct stat st;
	ssize_t n;
	FILE *f;
	int fd;

	nm->key = xcalloc(ledger_nkeys(l) + 1, sizeof(*nm->key));
	nm->sha = xcalloc(ledger_ncontents(l) + 1, sizeof(*nm->sha));
	nm->sha_known = xcalloc(ledger_ncontents(l) + 1, 1);
	if (str_fmt(path, sizeof(path), "%s/%s", home, LF_HOME_AUDIT) != STR_OK)
		return;
	fd = open(path, OPEN_RO_SAFE);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || st.st_uid != getuid() ||
	    (f = fdopen(fd, "r")) == NULL) {
		close(fd);
		return;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		json_t *rec;
		if ((size_t)n > AUDIT_LINE_MAX)
			continue;
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		rec = jsonx_parse(line, (size_t)n, AUDIT_LINE_MAX, 8);
		if (json_is_object(rec))
			name_from_record(l, rec, nm);
		json_decref(rec);
	}
	free(line);
	fclose(f);
}

static void
names_free(struct names *nm, size_t nkeys)
{
	size_t i;

	for (i = 0; nm->key != NULL && i < nkeys; i++)
		free(nm->key[i]);
	free(nm->key);
	free(nm->sha);
	free(nm->sha_known);
}

static const uint8_t *
content_sha(const struct names *nm, size_t i,
    const struct ledger_content_view *cv)
{
	return cv->sha256 != NULL ? cv->sha256 : nm->sha_known[i] ?
	    nm->sha[i] : NULL;
}

/* The content an entry had last: its sha256 when known (a format-1 file,
 * the audit log), else its digest. */
static void
put_last_content(json_t *o, const struct ledger *l, const struct names *nm,
    const struct ledger_key_view *v)
{
	const uint8_t *cid = v->cids[v->ncids - 1];
	size_t i;

	for (i = 0; i < ledger_ncontents(l); i++) {
		struct ledger_content_view cv;
		ledger_content_at(l, i, &cv);
		if (cv.uid == v->uid && content_sha(nm, i, &cv) != NULL &&
		    memcmp(cv.id, cid, LEDGER_ID_LEN) == 0) {
			json_object_set_new(o, "last_sha256",
			    hex_string(content_sha(nm, i, &cv)));
			return;
		}
	}
	json_object_set_new(o, "last_content", id_string(cid));
}

static int
show(const struct ledger *l, const struct names *nm, const struct filter *f,
    const struct policy *pol, int have_policy, int json_out)
{
	struct ledger_stats st;
	size_t i, j, k;
	json_t *o;

	ledger_get_stats(l, &st);
	o = json_object();
	json_object_set_new(o, "ledger", json_string("summary"));
	json_object_set_new(o, "records", json_integer((json_int_t)st.records));
	json_object_set_new(o, "bytes", json_integer((json_int_t)st.bytes));
	json_object_set_new(o, "keys", json_integer((json_int_t)st.keys));
	json_object_set_new(o, "contents",
	    json_integer((json_int_t)st.contents));
	json_object_set_new(o, "window_s",
	    json_integer((json_int_t)pol->ledger_window_s));
	json_object_set_new(o, "cap",
	    json_integer((json_int_t)pol->max_answers_per_key));
	json_object_set_new(o, "policy", json_string(have_policy ? "approved" :
	    "defaults (no approved policy readable)"));
	emit(o, json_out);
	for (i = 0; i < ledger_nkeys(l); i++) {
		struct ledger_key_view v;
		ledger_key_at(l, i, &v);
		if (!key_matches(l, f, &v) || v.total.plans == 0)
			continue;
		o = json_object();
		json_object_set_new(o, "ledger", json_string("key"));
		json_object_set_new(o, "uid", json_integer((json_int_t)v.uid));
		json_object_set_new(o, "profile", json_string(v.profile));
		/* the file names an entry by its digest only: the key is
		 * shown when known (a format-1 file, the audit log, --key) */
		if (v.key != NULL || nm->key[i] != NULL)
			put_key(o, v.key != NULL ? v.key : nm->key[i]);
		else if (f->by_key)
			put_key(o, f->key);
		else
			json_object_set_new(o, "id", id_string(v.id));
		put_usage(o, "", &v.total);
		put_usage(o, "window_", &v.window);
		if (v.ncids > 0)
			put_last_content(o, l, nm, &v);
		emit(o, json_out);
	}
	/* Content totals: every name the same bytes were asked under adds
	 * up. With --key, the contents that key had. */
	for (i = 0; i < ledger_ncontents(l); i++) {
		struct ledger_content_view cv;
		size_t nkeys = 0;
		int shown = !f->by_key;

		ledger_content_at(l, i, &cv);
		if (f->by_uid && cv.uid != f->uid)
			continue;
		for (j = 0; j < ledger_nkeys(l); j++) {
			struct ledger_key_view v;
			ledger_key_at(l, j, &v);
			if (v.uid != cv.uid)
				continue;
			for (k = 0; k < v.ncids; k++)
				if (memcmp(v.cids[k], cv.id, LEDGER_ID_LEN) == 0)
					break;
			if (k == v.ncids)
				continue;
			nkeys++;
			if (key_matches(l, f, &v))
				shown = 1;
		}
		if (!shown)
			continue;
		o = json_object();
		json_object_set_new(o, "ledger", json_string("content"));
		json_object_set_new(o, "uid", json_integer((json_int_t)cv.uid));
		if (content_sha(nm, i, &cv) != NULL)
			json_object_set_new(o, "sha256",
			    hex_string(content_sha(nm, i, &cv)));
		else
			json_object_set_new(o, "content", id_string(cv.id));
		put_usage(o, "", &cv.total);
		json_object_set_new(o, "keys", json_integer((json_int_t)nkeys));
		emit(o, json_out);
	}
	return 0;
}

static int
parse_filter(const char *key, const char *uid, struct filter *f)
{
	memset(f, 0, sizeof(*f));
	if (key != NULL) {
		/* cleaned as the console cleans a typed key: "a/./b" is "a/b" */
		if (key_clean(key, strlen(key), f->key, sizeof(f->key)) != KEY_OK) {
			logit("--key: not a key the console would accept");
			return -1;
		}
		f->by_key = 1;
	}
	if (uid != NULL) {
		unsigned long long v;
		struct passwd *pw;
		if (parse_u64(uid, 0, 0xfffffffeULL, &v) == 0) {
			f->uid = (uid_t)v;
		} else if ((pw = getpwnam(uid)) != NULL) {
			f->uid = pw->pw_uid;
		} else {
			logit("--uid: neither a number nor an account");
			return -1;
		}
		f->by_uid = 1;
	}
	return 0;
}

/* The approved policy's window and cap, for the window columns; the
 * defaults when it cannot be read (said in the summary). */
static int
read_policy(const char *home, struct policy *pol)
{
	char edit[4200], approved[4200], why[256];
	const char *rwhy = NULL;
	size_t len = 0;
	char *text;
	int ok;

	policy_paths(home, edit, sizeof(edit), approved, sizeof(approved));
	text = approved[0] ? policy_read_file(approved, &len, &rwhy) : NULL;
	ok = text != NULL && policy_parse(text, len, home, pol, why,
	    sizeof(why)) == 0;
	free(text);
	if (!ok && policy_parse("", 0, home, pol, why, sizeof(why)) != 0)
		fatal("the default policy does not parse");
	return ok;
}

static int
repair(struct ledger *l, enum ledger_err e, const struct ledger_problem *p,
    int dirfd, const char *home)
{
	struct ledger_problem rp;
	struct audit a;
	const char *why = NULL;
	char aside[64];
	json_t *rec;

	if (e == LEDGER_OK) {
		printf("the ledger is whole: nothing to repair\n");
		return 0;
	}
	if (e != LEDGER_E_TORN && e != LEDGER_E_DAMAGED) {
		logit("the ledger cannot be repaired here: %s", p->msg);
		return 70;
	}
	if (ledger_rewrite(l, dirfd, aside, sizeof(aside), &rp) != LEDGER_OK) {
		logit("repair failed: %s", rp.msg);
		return rp.err == LEDGER_E_BUSY ? 75 : 70;
	}
	printf("ledger repaired: kept the %llu records before record %llu "
	    "(byte %llu); the damaged file is kept as %s\n", p->good_records,
	    p->record, p->good_bytes, aside);
	if (e == LEDGER_E_TORN)
		printf("the dropped record was torn: the console writes a record "
		    "before the answer it counts leaves, so that answer never "
		    "left\n");
	else
		printf("the counts of the records from the damaged one on are "
		    "lost; read them in %s and the audit log\n", aside);
	/* The human's explicit act is in the audit too. */
	if (audit_open(&a, home, &why) != 0) {
		logit("the audit log cannot be opened: %s", why);
		return 70;
	}
	rec = json_object();
	json_object_set_new(rec, "event", json_string("ledger_repaired"));
	json_object_set_new(rec, "problem", json_string(ledger_err_name(e)));
	json_object_set_new(rec, "kept_records",
	    json_integer((json_int_t)p->good_records));
	json_object_set_new(rec, "kept_bytes",
	    json_integer((json_int_t)p->good_bytes));
	json_object_set_new(rec, "damaged_file", json_string(aside));
	if (audit_write(&a, rec) != 0) {
		audit_close(&a);
		return 70;
	}
	audit_close(&a);
	return 0;
}

int
audit_ledger(const char *home, int json_out, const char *key,
    const char *uid, int do_repair)
{
	struct ledger_clock clk = { ledger_clock_real, NULL };
	struct ledger_problem p;
	struct names nm;
	struct policy pol;
	struct filter f;
	struct ledger *l = NULL;
	struct stat st;
	char dir[4200];
	enum ledger_err e;
	int dirfd, have_policy, ret = 0;

	if (parse_filter(key, uid, &f) != 0)
		return 64;
	if (str_fmt(dir, sizeof(dir), "%s/%s", home, LF_HOME_LEDGER_DIR) != STR_OK) {
		logit("the home path is too long");
		return 70;
	}
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd < 0) {
		if (errno == ENOENT && !do_repair) {
			printf("no ledger yet (no plan has been answered)\n");
			return 0;
		}
		logit_errno("the ledger's directory");
		return 70;
	}
	if (fstat(dirfd, &st) != 0 || st.st_uid != getuid()) {
		logit("the ledger belongs to another account");
		close(dirfd);
		return 77;
	}
	have_policy = read_policy(home, &pol);
	e = ledger_read(&l, dirfd, &clk, pol.ledger_window_s, &p);
	for (size_t i = 0; i < pol.nprofiles; i++)
		(void)ledger_set_fold(l, pol.profiles[i].name,
		    (enum ledger_fold)pol.profiles[i].key_fold);
	if (do_repair) {
		ret = repair(l, e, &p, dirfd, home);
		goto out;
	}
	if (e == LEDGER_E_IO && p.sys_errno == ENOENT) {
		printf("no ledger yet (no plan has been answered)\n");
		goto out;
	}
	if (e != LEDGER_OK && e != LEDGER_E_TORN && e != LEDGER_E_DAMAGED) {
		logit("the ledger cannot be read: %s", p.msg);
		ret = e == LEDGER_E_UNSAFE ? 77 : 70;
		goto out;
	}
	names_read(home, l, &nm);
	show(l, &nm, &f, &pol, have_policy, json_out);
	names_free(&nm, ledger_nkeys(l));
	if (e != LEDGER_OK) {
		/* What was shown is what came before the problem. */
		fflush(stdout);
		logit("the ledger is %s: %s; shown: the %llu records before it. "
		    "A console refuses to start on it; `lockfile audit --ledger "
		    "--repair` keeps those records (docs/ledger.md)",
		    e == LEDGER_E_TORN ? "torn" : "damaged", p.msg,
		    p.good_records);
		ret = 65;
	}
out:
	policy_free(&pol);
	ledger_close(l);
	close(dirfd);
	return ret;
}
