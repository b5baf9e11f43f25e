/* Policy parsing and validation (see policy.h). Strict: unknown keys are
 * refused, every number has a range, paths are absolute after "~". */
#include "console/policy.h"
#include "console/ledger.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/num.h"
#include "lib/paths.h"
#include "lib/toml.h"
#include "lib/str.h"
#include "lib/xmalloc.h"
#include "hubwire/keys.h"
#include "hubwire/wire.h"
#include "protocol/shape.h"
#include "protocol/table.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void
policy_paths(const char *home, char *edit, size_t editlen, char *approved,
    size_t approvedlen)
{
	/* A home too long for the buffers leaves both paths empty (str_fmt
	 * empties what does not fit): every read of them then fails, none
	 * reaches a file a cut path would name. */
	if (str_fmt(edit, editlen, "%s/%s", home, LF_HOME_POLICY) != STR_OK ||
	    str_fmt(approved, approvedlen, "%s/%s", home,
	    LF_HOME_POLICY_APPROVED) != STR_OK) {
		edit[0] = '\0';
		approved[0] = '\0';
	}
}

char *
policy_read_file(const char *path, size_t *len, const char **why)
{
	struct stat st;
	char *buf = NULL;
	int fd = open(path, OPEN_RO_SAFE);

	*why = "policy file cannot be opened";
	if (fd < 0)
		return NULL;
	*why = "policy file must be a regular file of the console account, "
	    "not writable by others";
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != getuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
		goto out;
	*why = "policy file is too large";
	if (st.st_size < 0 || st.st_size > POLICY_MAX_BYTES)
		goto out;
	buf = xmalloc((size_t)st.st_size + 1);
	if (read_full(fd, buf, (size_t)st.st_size) != st.st_size) {
		*why = "policy file cannot be read";
		free(buf);
		buf = NULL;
		goto out;
	}
	buf[st.st_size] = '\0';
	*len = (size_t)st.st_size;
	*why = NULL;
out:
	close(fd);
	return buf;
}

/* Where a refused value was written (the TOML is valid; the policy is
 * not): the message then starts with its line. */
struct where {
	const json_t *table;
	const char *key;
};

static int
at(struct where *w, const json_t *table, const char *key)
{
	w->table = table;
	w->key = key;
	return -1;
}

static int
get_uint(const json_t *doc, const char *key, unsigned long long min,
    unsigned long long max, unsigned long long def, unsigned long long *out,
    char *why, size_t wl, struct where *w)
{
	const json_t *v = json_object_get(doc, key);

	if (v == NULL) {
		*out = def;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (unsigned long long)json_integer_value(v) < min ||
	    (unsigned long long)json_integer_value(v) > max) {
		str_msg(why, wl, "%s must be an integer in %llu..%llu", key, min,
		    max);
		return at(w, doc, key);
	}
	*out = (unsigned long long)json_integer_value(v);
	return 0;
}

static int
expand_path(const char *in, size_t inlen, const char *home, char *out,
    size_t outlen)
{
	if (strlen(in) != inlen || inlen == 0)
		return -1;
	if (in[0] == '~' && (in[1] == '/' || in[1] == '\0')) {
		if (str_fmt(out, outlen, "%s%s", home, in + 1) != STR_OK)
			return -1;
	} else if (in[0] == '/') {
		if (str_fmt(out, outlen, "%s", in) != STR_OK)
			return -1;
	} else {
		return -1;
	}
	/* no "." or ".." components, no "//" */
	return strstr(out, "/./") || strstr(out, "/../") || strstr(out, "//") ||
	    (strlen(out) >= 3 && strcmp(out + strlen(out) - 3, "/..") == 0) ||
	    (strlen(out) >= 2 && strcmp(out + strlen(out) - 2, "/.") == 0)
	    ? -1 : 0;
}

static int
parse_profile(const json_t *profiles, const char *name, const json_t *t,
    struct profile *pr, char *why, size_t wl, struct where *w)
{
	const json_t *prod, *src, *prefix;
	const char *k, *swhy = NULL;
	json_t *v;

	if (!name_is_profile(name)) {
		str_msg(why, wl, "profile names are [a-z0-9][a-z0-9_-]{0,63}");
		return at(w, profiles, name);
	}
	if (!json_is_object(t)) {
		str_msg(why, wl, "profiles.%s must be a table", name);
		return at(w, profiles, name);
	}
	if (str_fmt(pr->name, sizeof(pr->name), "%s", name) != STR_OK) {
		str_msg(why, wl, "profile names are [a-z0-9][a-z0-9_-]{0,63}");
		return at(w, profiles, name);
	}
	prod = json_object_get(t, "production");
	if (prod != NULL && !json_is_boolean(prod)) {
		str_msg(why, wl, "profiles.%s.production must be a boolean", name);
		return at(w, t, "production");
	}
	pr->production = json_is_true(prod);
	/* Which decisions count: lox only unless the profile says so
	 * (docs/policy.md, docs/hub.md "Passkeys"). */
	v = json_object_get(t, "approve_with");
	if (v != NULL && (!json_is_string(v) ||
	    (strcmp(json_string_value(v), "lox") != 0 &&
	    strcmp(json_string_value(v), "lox+passkey") != 0))) {
		str_msg(why, wl, "profiles.%s.approve_with must be \"lox\" or "
		    "\"lox+passkey\"", name);
		return at(w, t, "approve_with");
	}
	pr->passkeys = v != NULL && strcmp(json_string_value(v),
	    "lox+passkey") == 0;
	/* Hub mode's quorum: distinct pinned, confirmed approvers whose
	 * decisions must all hold before a plan runs (docs/hub.md). */
	pr->approvals = 1;
	v = json_object_get(t, "approvals");
	if (v != NULL) {
		if (!json_is_integer(v) || json_integer_value(v) < 1 ||
		    json_integer_value(v) > POLICY_MAX_APPROVERS) {
			str_msg(why, wl, "profiles.%s.approvals must be 1 to %d",
			    name, POLICY_MAX_APPROVERS);
			return at(w, t, "approvals");
		}
		pr->approvals = (unsigned)json_integer_value(v);
	}
	prefix = json_object_get(t, "prefix");
	if (prefix != NULL) {
		const char *s = json_string_value(prefix);
		size_t n = json_string_length(prefix);
		if (!json_is_string(prefix) || strlen(s) != n ||
		    n >= sizeof(pr->prefix) || (n > 0 && (s[n - 1] != '/' ||
		    s[0] == '/' || strstr(s, "//") || strstr(s, "./")))) {
			str_msg(why, wl, "profiles.%s.prefix must be empty or a "
			    "clean relative path ending in /", name);
			return at(w, t, "prefix");
		}
		memcpy(pr->prefix, s, n + 1);
	}
	/* How the source folds names: the ledger counts spellings that fold
	 * alike as one key (docs/ledger.md, "Spellings"). */
	v = json_object_get(t, "key_fold");
	if (v != NULL) {
		enum ledger_fold f;
		if (!json_is_string(v) ||
		    ledger_fold_parse(json_string_value(v), &f) != 0) {
			str_msg(why, wl, "profiles.%s.key_fold must be \"none\", "
			    "\"nfc\" or \"case\"", name);
			return at(w, t, "key_fold");
		}
		pr->key_fold = (int)f;
	}
	src = json_object_get(t, "source");
	if (!json_is_string(src) ||
	    (pr->kind = source_kind_find(json_string_value(src))) == NULL) {
		str_msg(why, wl, "profiles.%s.source must be a known source kind",
		    name);
		return at(w, t, "source");
	}
	pr->table = json_object();
	json_object_foreach((json_t *)t, k, v) {
		if (strcmp(k, "production") != 0 && strcmp(k, "prefix") != 0 &&
		    strcmp(k, "source") != 0 && strcmp(k, "key_fold") != 0 &&
		    strcmp(k, "approve_with") != 0 &&
		    strcmp(k, "approvals") != 0)
			json_object_set(pr->table, k, v);
	}
	if (pr->kind->validate(pr->table, &swhy) != 0) {
		str_msg(why, wl, "profiles.%s: %s", name, swhy);
		return at(w, profiles, name);
	}
	return 0;
}

/* 1 when a and b (absolute, clean) are the same directory or one holds
 * the other. */
static int
path_overlaps(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	const char *s = la <= lb ? a : b, *l = la <= lb ? b : a;
	size_t ls = la <= lb ? la : lb;

	if (la == 0 || lb == 0)
		return 0;
	while (ls > 1 && s[ls - 1] == '/')
		ls--;
	if (strncmp(s, l, ls) != 0)
		return 0;
	return l[ls] == '\0' || l[ls] == '/' || ls == 1;
}

/* The path with symlinks resolved as far as it exists (a work_dir may not
 * exist yet): its deepest existing ancestor resolved, the rest appended. */
static void
resolve_path(const char *in, char *out, size_t outlen)
{
	char head[PATH_MAX], real[PATH_MAX];
	size_t n = strlen(in);

	if (n >= sizeof(head) || n >= outlen) {
		out[0] = '\0';	/* compared with nothing (path_overlaps) */
		return;
	}
	memcpy(out, in, n + 1);
	memcpy(head, in, n + 1);
	for (;;) {
		const char *rest;
		char *slash;
		if (realpath(head, real) != NULL) {
			rest = in + (strcmp(head, "/") == 0 ? 0 : strlen(head));
			/* Too long resolved: compared with nothing (empty). */
			if (str_fmt(out, outlen, "%s%s", strcmp(real, "/") == 0 &&
			    rest[0] == '/' ? "" : real, rest) != STR_OK)
				out[0] = '\0';
			return;
		}
		slash = strrchr(head, '/');
		if (slash == NULL)
			return;
		if (slash == head)
			head[1] = '\0';	/* "/" always resolves */
		else
			*slash = '\0';
	}
}

/* Boundary: a key never reaches the console's own files. A profile
 * reading a directory (its kind's read_paths: local's path) that is,
 * holds or sits inside the console home (and so its store, credentials
 * and audit) or the work directory would let an agent ask about them;
 * refused as written and as resolved. */
static int
check_overlap_one(const struct policy *p, const struct profile *pr,
    const char *home, char *why, size_t wl, const json_t *t, struct where *w,
    const char *path, const char *key)
{
	char store[PATH_MAX + 32], a[PATH_MAX], b[PATH_MAX];
	const struct { const char *what, *path; } mine[] = {
		{ "plugin store", store }, { "work_dir", p->work_dir },
		{ "console home", home },
	};
	size_t i;
	int r;

	if (str_fmt(store, sizeof(store), "%s/%s", home, LF_HOME_STORE_DIR) !=
	    STR_OK) {
		str_msg(why, wl, "the console home's path is too long");
		return -1;
	}
	for (i = 0; i < sizeof(mine) / sizeof(mine[0]); i++) {
		for (r = 0; r < 2; r++) {
			if (r == 0) {
				/* each is shorter than PATH_MAX (policy_parse) */
				if (str_fmt(a, sizeof(a), "%s", path) != STR_OK ||
				    str_fmt(b, sizeof(b), "%s", mine[i].path) !=
				    STR_OK) {
					str_msg(why, wl, "profiles.%s: %s too long",
					    pr->name, key);
					return at(w, t, key);
				}
			} else {
				resolve_path(path, a, sizeof(a));
				resolve_path(mine[i].path, b, sizeof(b));
			}
			if (!path_overlaps(a, b))
				continue;
			str_msg(why, wl, "profiles.%s: %s %s the console's %s%s: "
			    "a key could reach the console's own files", pr->name,
			    key, strcmp(a, b) == 0 ? "is" : strlen(a) < strlen(b) ?
			    "holds" : "sits inside", mine[i].what,
			    r ? " (symlinks resolved)" : "");
			return at(w, t, key);
		}
	}
	return 0;
}

static int
check_overlap(const struct policy *p, const struct profile *pr,
    const char *home, char *why, size_t wl, const json_t *t, struct where *w)
{
	struct source_read_path rp[4];
	size_t i, n = 0;

	if (pr->kind->read_paths != NULL)
		n = pr->kind->read_paths(pr->table, rp, 4);
	for (i = 0; i < n; i++)
		if (check_overlap_one(p, pr, home, why, wl, t, w, rp[i].path,
		    rp[i].key) != 0)
			return -1;
	return 0;
}

/* TOML allows "\u0000" inside keys; jansson keeps it, and a C comparison
 * would see "work_dir\0x" as "work_dir". Refuse any such key anywhere. */
static int
keys_have_nul(const json_t *v, int depth)
{
	const char *k;
	json_t *x;
	size_t i;

	if (depth > 64)
		return 1;
	if (json_is_object(v)) {
		void *it;
		for (it = json_object_iter((json_t *)v); it != NULL;
		    it = json_object_iter_next((json_t *)v, it)) {
			k = json_object_iter_key(it);
			if (strlen(k) != json_object_iter_key_len(it))
				return 1;
			if (keys_have_nul(json_object_iter_value(it), depth + 1))
				return 1;
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			if (keys_have_nul(x, depth + 1))
				return 1;
	}
	return 0;
}

/* An rp id: a DNS name (WebAuthn refuses an IP address): labels of
 * [a-z0-9-], dots between, a letter somewhere. */
static int
rp_id_ok(const char *s)
{
	size_t n = strlen(s), i;
	int alpha = 0;

	if (n < 1 || n > 253 || s[0] == '.' || s[n - 1] == '.' ||
	    strstr(s, "..") != NULL)
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] >= 'a' && s[i] <= 'z')
			alpha = 1;
		else if (!(s[i] >= '0' && s[i] <= '9') && s[i] != '-' &&
		    s[i] != '.')
			return 0;
	}
	return alpha;
}

/* The origin the page is served from: https://HOST[:PORT], HOST the rp id
 * or a name under it. */
static int
origin_ok(const char *o, const char *rp)
{
	const char *host = o + 8, *end;
	size_t hl, rl = strlen(rp);
	unsigned long long port;

	if (strncmp(o, "https://", 8) != 0)
		return 0;
	end = host + strcspn(host, ":");
	hl = (size_t)(end - host);
	if (*end == ':' && (end[1] == '0' ||
	    parse_u64(end + 1, 1, 65535, &port) != 0))
		return 0;
	if (hl < rl || memcmp(end - rl, rp, rl) != 0)
		return 0;
	return hl == rl || end[-(long)rl - 1] == '.';
}

/* [hub.passkeys], passkey_rp_id, passkey_origin (docs/policy.md). */
static int
parse_passkeys(const json_t *t, struct policy_hub *h, char *why, size_t wl,
    struct where *w)
{
	const json_t *v = json_object_get(t, "passkeys"), *x;
	const char *k, *s;
	size_t i;

	if (v == NULL)
		return 0;
	if (!json_is_object(v) || h->napprovers + json_object_size(v) >
	    POLICY_MAX_APPROVERS) {
		str_msg(why, wl, "hub.passkeys: a table of NAME = \"cose:...\", "
		    "at most %d devices and passkeys", POLICY_MAX_APPROVERS);
		return at(w, t, "passkeys");
	}
	json_object_foreach((json_t *)v, k, x) {
		struct pk_key *pk = &h->passkeys[h->npasskeys].key;

		if (!hw_text_ok(HW_T_INSTANCE, k, strlen(k)) ||
		    !json_is_string(x) ||
		    pk_key_from_text(json_string_value(x), pk) != PK_OK ||
		    str_fmt(h->passkeys[h->npasskeys].name,
		    sizeof(h->passkeys[0].name), "%s", k) != STR_OK) {
			str_msg(why, wl, "hub.passkeys: NAME = \"cose:...\" (an "
			    "ES256 or EdDSA key, as the hub's page printed)");
			return at(w, v, k);
		}
		for (i = 0; i < h->npasskeys; i++)
			if (memcmp(h->passkeys[i].key.id, pk->id, 32) == 0) {
				str_msg(why, wl, "hub.passkeys: one passkey "
				    "under two names");
				return at(w, v, k);
			}
		h->npasskeys++;
	}
	x = json_object_get(t, "passkey_rp_id");
	s = json_string_value(x);
	if (h->npasskeys > 0 && (s == NULL || !rp_id_ok(s) ||
	    str_fmt(h->passkey_rp_id, sizeof(h->passkey_rp_id), "%s", s) !=
	    STR_OK)) {
		str_msg(why, wl, "hub.passkey_rp_id: the hub's DNS name (not an "
		    "address), required with hub.passkeys");
		return at(w, t, "passkey_rp_id");
	}
	x = json_object_get(t, "passkey_origin");
	s = json_string_value(x);
	if (h->npasskeys > 0 && (s == NULL || !origin_ok(s, h->passkey_rp_id) ||
	    str_fmt(h->passkey_origin, sizeof(h->passkey_origin), "%s", s) !=
	    STR_OK)) {
		str_msg(why, wl, "hub.passkey_origin: \"https://\" and the "
		    "rp id's host (or one under it), an optional :PORT");
		return at(w, t, "passkey_origin");
	}
	return 0;
}

/* [hub]: instance, keys, approvers, ticket_ttl_s (docs/policy.md). */
static int
parse_hub(const json_t *doc, const json_t *t, struct policy_hub *h,
    unsigned approval_timeout_s, char *why, size_t wl, struct where *w)
{
	const json_t *v;
	const char *k;
	size_t i;

	if (!json_is_object(t)) {
		str_msg(why, wl, "hub must be a table");
		return at(w, doc, "hub");
	}
	json_object_foreach((json_t *)t, k, v)
		if (strcmp(k, "instance") != 0 && strcmp(k, "keys") != 0 &&
		    strcmp(k, "approvers") != 0 && strcmp(k, "ticket_ttl_s") != 0 &&
		    strcmp(k, "max_pending_per_agent") != 0 &&
		    strcmp(k, "plan_ttl_s") != 0 && strcmp(k, "passkeys") != 0 &&
		    strcmp(k, "passkey_rp_id") != 0 &&
		    strcmp(k, "passkey_origin") != 0) {
			str_msg(why, wl, "hub: only instance, keys, approvers, "
			    "passkeys, passkey_rp_id, passkey_origin, "
			    "ticket_ttl_s, max_pending_per_agent and plan_ttl_s");
			return at(w, t, k);
		}
	/* instance may come from the command line instead (--hub-instance,
	 * what lox run gives: docs/docker.md, "Hub mode") */
	v = json_object_get(t, "instance");
	if (v == NULL)
		h->instance[0] = '\0';
	else if (!json_is_string(v) || json_string_length(v) !=
	    strlen(json_string_value(v)) || !hw_text_ok(HW_T_INSTANCE,
	    json_string_value(v), json_string_length(v)) ||
	    str_fmt(h->instance, sizeof(h->instance), "%s",
	    json_string_value(v)) != STR_OK) {
		str_msg(why, wl, "hub.instance: the name the hub enrolled, "
		    "[a-z0-9][a-z0-9_-]{0,31}");
		return at(w, t, "instance");
	}
	v = json_object_get(t, "keys");
	if (!json_is_array(v) || json_array_size(v) < 1 ||
	    json_array_size(v) > POLICY_MAX_HUB_KEYS) {
		str_msg(why, wl, "hub.keys: 1 to %d hub keys (ed25519:...)",
		    POLICY_MAX_HUB_KEYS);
		return at(w, t, "keys");
	}
	for (i = 0; i < json_array_size(v); i++) {
		const json_t *s = json_array_get(v, i);
		if (!json_is_string(s) || hw_key_parse_text(json_string_value(s),
		    h->keys[i]) != 0) {
			str_msg(why, wl, "hub.keys: \"ed25519:\" and 64 lowercase "
			    "hex digits, as lockhub init printed");
			return at(w, t, "keys");
		}
	}
	h->nkeys = json_array_size(v);
	v = json_object_get(t, "approvers");
	if (!json_is_object(v) || json_object_size(v) < 1 ||
	    json_object_size(v) > POLICY_MAX_APPROVERS) {
		str_msg(why, wl, "hub.approvers: a table of 1 to %d NAME = "
		    "\"ed25519:...\" (what lox enroll printed)",
		    POLICY_MAX_APPROVERS);
		return at(w, t, "approvers");
	}
	json_object_foreach((json_t *)v, k, t) {
		if (!hw_text_ok(HW_T_INSTANCE, k, strlen(k)) ||
		    !json_is_string(t) || hw_key_parse_text(json_string_value(t),
		    h->approvers[h->napprovers].pk) != 0 ||
		    str_fmt(h->approvers[h->napprovers].name,
		    sizeof(h->approvers[0].name), "%s", k) != STR_OK) {
			str_msg(why, wl, "hub.approvers: NAME = \"ed25519:...\"");
			return at(w, v, k);
		}
		for (i = 0; i < h->napprovers; i++)
			if (memcmp(h->approvers[i].pk, h->approvers[h->napprovers].pk,
			    32) == 0) {
				str_msg(why, wl, "hub.approvers: one device key "
				    "under two names");
				return at(w, v, k);
			}
		h->napprovers++;
	}
	if (parse_passkeys(json_object_get(doc, "hub"), h, why, wl, w) != 0)
		return -1;
	v = json_object_get(doc, "hub");
	{
		unsigned long long x;
		if (get_uint(v, "ticket_ttl_s", 5, 86400, approval_timeout_s, &x,
		    why, wl, w) != 0)
			return -1;
		h->ticket_ttl_s = (unsigned)x;
		/* docs/policy.md: one agent's share of the ticket table, and
		 * a plan's own lifetime (at least its ticket's) */
		if (get_uint(v, "max_pending_per_agent", 1, POLICY_MAX_PENDING,
		    8, &x, why, wl, w) != 0)
			return -1;
		h->max_pending_per_agent = (unsigned)x;
		if (get_uint(v, "plan_ttl_s", h->ticket_ttl_s, 30 * 86400,
		    h->ticket_ttl_s > 86400 ? h->ticket_ttl_s : 86400, &x, why,
		    wl, w) != 0)
			return -1;
		h->plan_ttl_s = (unsigned)x;
	}
	h->set = 1;
	return 0;
}

int
policy_parse(const char *text, size_t len, const char *home,
    struct policy *p, char *why, size_t wl)
{
	static const char *const known[] = { "security_level",
	    "answer_quantum_s", "approval_timeout_s", "idle_timeout_s",
	    "session_timeout_s", "max_plugins_per_handle", "handle_ttl_s",
	    "max_workspace_bytes", "work_dir", "allowed_uids", "profiles",
	    "max_answers_per_key", "ledger_window_s", "hub", NULL };
	struct toml_error terr;
	struct where w = { NULL, NULL };
	json_t *doc, *v, *lines = NULL;
	unsigned long long x;
	const char *k;
	size_t i;
	int ret = -1, line;

	memset(p, 0, sizeof(*p));
	doc = toml_parse_lines(text, len, &terr, &lines);
	if (doc == NULL) {
		str_msg(why, wl, "line %d: %s%s", terr.line, terr.msg,
		    terr.unsupported ? " (unsupported TOML feature)" : "");
		return -1;
	}
	if (keys_have_nul(doc, 0)) {
		str_msg(why, wl, "a key contains a NUL character");
		goto out;
	}
	json_object_foreach(doc, k, v) {
		for (i = 0; known[i] != NULL; i++)
			if (strcmp(k, known[i]) == 0)
				break;
		if (known[i] == NULL) {
			char safe[80];
			str_msg(safe, sizeof(safe), "%.40s", k);
			for (i = 0; safe[i]; i++)
				if (safe[i] < 0x20 || safe[i] >= 0x7f)
					safe[i] = '?';
			str_msg(why, wl, "unknown policy key \"%s\"", safe);
			at(&w, doc, k);
			goto out;
		}
	}
#define UINT(key, field, min, max, def) \
	if (get_uint(doc, key, min, max, def, &x, why, wl, &w) != 0) goto out; \
	p->field = (typeof(p->field))x;
	UINT("security_level", security_level, 0, 1, 1);
	UINT("answer_quantum_s", answer_quantum_s, 1, 3600, 5);
	UINT("approval_timeout_s", approval_timeout_s, 5, 86400, 300);
	UINT("idle_timeout_s", idle_timeout_s, 10, 30 * 86400, 3600);
	UINT("session_timeout_s", session_timeout_s, 10, 30 * 86400, 28800);
	UINT("max_plugins_per_handle", max_plugins_per_handle, 1,
	    PROTO_MAX_PLUGINS, 8);
	UINT("handle_ttl_s", handle_ttl_s, 10, 86400, 600);
	UINT("max_workspace_bytes", max_workspace_bytes, 1ULL << 20,
	    1ULL << 40, 1ULL << 30);
	UINT("max_answers_per_key", max_answers_per_key, 1, 1000000, 64);
	UINT("ledger_window_s", ledger_window_s, 60, 366 * 86400, 86400);
#undef UINT
	v = json_object_get(doc, "work_dir");
	/* the type first: a number or a table has no string to expand */
	if ((v != NULL && !json_is_string(v)) ||
	    expand_path(v ? json_string_value(v) : LF_HOME_WORK_DEFAULT,
	    v ? json_string_length(v) : strlen(LF_HOME_WORK_DEFAULT),
	    home, p->work_dir, sizeof(p->work_dir)) != 0) {
		str_msg(why, wl, "work_dir must be an absolute path or start "
		    "with ~/");
		at(&w, doc, "work_dir");
		goto out;
	}
	v = json_object_get(doc, "allowed_uids");
	if (v != NULL) {
		json_t *u;
		if (!json_is_array(v) || json_array_size(v) > POLICY_MAX_UIDS) {
			str_msg(why, wl, "allowed_uids must be an array of at most "
			    "%d uids", POLICY_MAX_UIDS);
			at(&w, doc, "allowed_uids");
			goto out;
		}
		json_array_foreach(v, i, u) {
			if (!json_is_integer(u) || json_integer_value(u) <= 0 ||
			    json_integer_value(u) >= 0x7fffffff) {
				str_msg(why, wl, "allowed_uids: uids are integers "
				    "above 0 (root is never allowed)");
				at(&w, doc, "allowed_uids");
				goto out;
			}
			/* The console account's own uid is never an agent
			 * (docs/security.md): the account reading its policy
			 * is the console's (at approve and at load). */
			if (getuid() != 0 &&
			    (uid_t)json_integer_value(u) == getuid()) {
				str_msg(why, wl, "allowed_uids: %u is the console "
				    "account's own uid (never an agent: it would "
				    "share the plugins' task count)",
				    (unsigned)getuid());
				at(&w, doc, "allowed_uids");
				goto out;
			}
			p->allowed_uids[p->nallowed++] = (uid_t)json_integer_value(u);
		}
	}
	v = json_object_get(doc, "profiles");
	if (v != NULL) {
		json_t *t;
		if (!json_is_object(v) ||
		    json_object_size(v) > POLICY_MAX_PROFILES) {
			str_msg(why, wl, "profiles must be a table of at most %d "
			    "profiles", POLICY_MAX_PROFILES);
			at(&w, doc, "profiles");
			goto out;
		}
		json_object_foreach(v, k, t) {
			if (parse_profile(v, k, t, &p->profiles[p->nprofiles], why,
			    wl, &w) != 0) {
				p->nprofiles++;
				goto out;
			}
			p->nprofiles++;
			if (check_overlap(p, &p->profiles[p->nprofiles - 1], home,
			    why, wl, t, &w) != 0)
				goto out;
		}
	}
	v = json_object_get(doc, "hub");
	if (v != NULL && parse_hub(doc, v, &p->hub, p->approval_timeout_s, why,
	    wl, &w) != 0)
		goto out;
	sha256_mem(text, len, p->fingerprint);
	ret = 0;
out:
	if (ret != 0 && w.table != NULL &&
	    (line = toml_key_line(lines, w.table, w.key)) > 0) {
		char msg[512];
		str_msg(msg, sizeof(msg), "%s", why);
		str_msg(why, wl, "line %d: %s", line, msg);
	}
	if (ret != 0)
		policy_free(p);
	json_decref(lines);
	json_decref(doc);
	return ret;
}

void
policy_free(struct policy *p)
{
	size_t i;

	for (i = 0; i < p->nprofiles; i++) {
		if (p->profiles[i].src != NULL)
			p->profiles[i].kind->close(p->profiles[i].src);
		json_decref(p->profiles[i].table);
	}
	memset(p, 0, sizeof(*p));
}

const struct profile *
policy_profile(const struct policy *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nprofiles; i++)
		if (strcmp(p->profiles[i].name, name) == 0)
			return &p->profiles[i];
	return NULL;
}

const struct profile *
policy_served_profile(const struct policy *p, const char *name)
{
	const struct profile *pr = policy_profile(p, name);

	return pr != NULL && pr->src != NULL ? pr : NULL;
}
