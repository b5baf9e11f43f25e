/* lockhub: the command line (docs/hub.md, "Deployment"). The hub's state
 * lives in one directory of its own account (0700): its key (hub.key,
 * 0600) and its database (hub.db). */
#include "config.h"
#include "hub/hub.h"
#include "hubwire/keys.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/num.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#define EX_USAGE	64
#define EX_DATAERR	65
#define EX_UNAVAILABLE	69
#define EX_SOFTWARE	70
#define PEM_MAX		(64 * 1024)

static const char usage_text[] =
"usage: lockhub COMMAND --state DIR [--store postgresql://...] [ARGS]\n"
"\n"
"  init                 create the hub's key in DIR (0700) and its database\n"
"                       (DIR/hub.db, or the --store one), at the newest schema\n"
"  migrate              bring the database's schema to this lockhub's version\n"
"  key                  print the hub's public key and its fingerprint\n"
"  rotate               a new hub key; the old one kept as hub.key.old\n"
"  enroll device|instance NAME KEY\n"
"                       let an approver's device (lox enroll) or a console\n"
"                       instance (lockfile hub-key) sign requests\n"
"  revoke device|instance|passkey NAME\n"
"  keys                 list the enrolled keys with their fingerprints\n"
"  passkey-code NAME    a one-time code (10 minutes) with which the phone\n"
"                       page registers a passkey as NAME\n"
"  passkeys             list the passkeys with their fingerprints\n"
"  serve --listen ADDR:PORT [--tls-cert PEM --tls-key PEM] [--poll-s N]\n"
"        [--rate BURST/MS] [--max-conns N] [--max-per-ip N] [--request-s N]\n"
"        [--rp-id DNSNAME --origin https://DNSNAME[:PORT]] [--ready-fd FD]\n"
"        [--recheck-ms N] [--trusted-proxy ADDR]...\n"
"                       serve consoles and approvers (plain HTTP without\n"
"                       --tls-cert: only behind a TLS-terminating proxy;\n"
"                       --trusted-proxy: its Lockhub-Client-Addr names the\n"
"                       client, docs/hub.md \"The balancer\")\n"
"\n"
"--store URL: the state in PostgreSQL (several instances share it; the\n"
"key stays in DIR); without it, SQLite in DIR/hub.db.\n"
"\n"
"Exit status: 0 done, 64 usage, 65 a bad key or name, 69 cannot listen,\n"
"70 the state directory is unusable.\n";

static volatile int stop;

static void
on_signal(int sig)
{
	stop = 1;
}

static int
usage(void)
{
	fputs(usage_text, stderr);
	return EX_USAGE;
}

struct paths {
	char dir[PATH_MAX], key[PATH_MAX + 16], db[PATH_MAX + 16];
	const char *store;	/* a postgresql:// URL, or NULL: SQLite */
};

/* How open_state leaves the schema (docs/hub.md, "Schema migrations"). */
enum schema_use {
	SCHEMA_CHECK,		/* the version must be this build's */
	SCHEMA_MIGRATE,		/* brought to this build's version */
	SCHEMA_ANY,
};

/* Who makes the state directory: root, for the hub's account, when that
 * account cannot (lockhub never runs as root; /var/lib is root's). The
 * command to run, with this account's names (or ids) and the path when
 * they are plain (docs/hub.md, "Deployment"). */
static void
state_remedy(const char *dir)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	const struct passwd *pw = getpwuid(geteuid());
	const struct group *gr = getgrgid(getegid());
	char user[40], group[40];

	if (pw != NULL && strlen(pw->pw_name) < sizeof(user) &&
	    strspn(pw->pw_name, plain) == strlen(pw->pw_name))
		(void)!str_fmt(user, sizeof(user), "%s", pw->pw_name);
	else
		(void)!str_fmt(user, sizeof(user), "%u", (unsigned)geteuid());
	if (gr != NULL && strlen(gr->gr_name) < sizeof(group) &&
	    strspn(gr->gr_name, plain) == strlen(gr->gr_name))
		(void)!str_fmt(group, sizeof(group), "%s", gr->gr_name);
	else
		(void)!str_fmt(group, sizeof(group), "%u", (unsigned)getegid());
	logit("the state directory is made by root for the hub's account; "
	    "as root: install -d -m 0700 -o %s -g %s %s", user, group,
	    dir[0] == '/' && strspn(dir, "/abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == strlen(dir) ? dir :
	    "DIR");
	logit("then lockhub init again as this account (docs/hub.md, "
	    "\"Deployment\")");
}

/* The state directory: ours, and closed to everyone else. */
static int
state_paths(const char *dir, int create, struct paths *p)
{
	struct stat st;

	if (dir == NULL) {
		logit("--state DIR is required");
		return -1;
	}
	if (str_fmt(p->dir, sizeof(p->dir), "%s", dir) != STR_OK ||
	    str_fmt(p->key, sizeof(p->key), "%s/hub.key", dir) != STR_OK ||
	    str_fmt(p->db, sizeof(p->db), "%s/hub.db", dir) != STR_OK) {
		logit("--state: the path is too long");
		return -1;
	}
	if (create && mkdir(dir, 0700) != 0 && errno != EEXIST) {
		int e = errno;
		logit_errno("mkdir %s", dir);
		if (e == EACCES || e == EPERM || e == EROFS || e == ENOENT)
			state_remedy(dir);
		return -1;
	}
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
		logit("%s must be a directory of this account, mode 0700", dir);
		if (create)
			state_remedy(dir);
		return -1;
	}
	return 0;
}

static void
print_key(const char *what, const uint8_t pk[32])
{
	char text[HW_KEY_TEXT_LEN + 1], fp[HW_FP_LEN + 1];

	hw_key_text(pk, text);
	hw_fingerprint(pk, fp);
	printf("%s %s\nfingerprint %s\n", what, text, fp);
}

/* The database's schema to this build's version, each step in its own
 * transaction. */
static int
migrate_store(struct hub_store *s, int quiet)
{
	int from = 0, to = 0;
	enum hs_status st = s->ops->migrate(s, &from, &to);

	if (st == HS_EXISTS) {
		logit("the database's schema is version %d, newer than this "
		    "lockhub's %d: run the newer lockhub", to, HS_SCHEMA_VERSION);
		return -1;
	}
	if (st != HS_OK) {
		logit("the migration failed at version %d", to);
		return -1;
	}
	if (!quiet)
		printf(from == to ? "schema version %d: up to date\n" :
		    "schema version %d -> %d\n", from, to);
	return 0;
}

static int
open_state(const struct paths *p, struct hub *h, int need_key,
    enum schema_use use)
{
	const char *why = NULL;
	enum hw_key_err ke;
	int rc;

	if (need_key) {
		ke = hw_key_load(p->key, HW_ROLE_HUB, &h->key);
		if (ke != HW_KEY_OK) {
			logit("%s: %s", p->key, hw_key_err_text(ke));
			return -1;
		}
	}
	rc = p->store != NULL ? hub_store_pg_open(&h->store, p->store, &why)
	    : hub_store_sqlite_open(&h->store, p->db, &why);
	if (rc != 0) {
		/* Never the URL: it may hold a password. */
		logit("%s: %s", p->store != NULL ? "--store" : p->db, why);
		return -1;
	}
	if (use == SCHEMA_CHECK &&
	    hub_store_check_version(&h->store, &why) != 0) {
		logit("%s: %s", p->store != NULL ? "--store" : p->db, why);
		h->store.ops->close(&h->store);
		return -1;
	}
	if (use == SCHEMA_MIGRATE && migrate_store(&h->store, 1) != 0) {
		h->store.ops->close(&h->store);
		return -1;
	}
	return 0;
}

static int
cmd_migrate(const struct paths *p)
{
	struct hub h;
	int rc;

	memset(&h, 0, sizeof(h));
	if (open_state(p, &h, 0, SCHEMA_ANY) != 0)
		return EX_SOFTWARE;
	rc = migrate_store(&h.store, 0);
	h.store.ops->close(&h.store);
	return rc == 0 ? 0 : EX_SOFTWARE;
}

/* The password of a postgresql:// URL in argv overwritten once copied:
 * /proc/PID/cmdline is readable by every account (docs/hub.md, "The
 * store: PostgreSQL" prefers ~/.pgpass). */
static void
scrub_password(char *url)
{
	char *auth = strstr(url, "://"), *end, *at, *colon;

	if (auth == NULL)
		return;
	auth += 3;
	end = auth + strcspn(auth, "/?");
	at = NULL;
	for (colon = auth; colon < end; colon++)
		if (*colon == '@')
			at = colon;
	if (at != NULL) {
		colon = memchr(auth, ':', (size_t)(at - auth));
		if (colon != NULL)
			memset(colon + 1, 'x', (size_t)(at - colon - 1));
	}
	/* libpq also takes ?password=... */
	for (at = strstr(end, "password="); at != NULL;
	    at = strstr(at + 1, "password="))
		if (at[-1] == '?' || at[-1] == '&')
			memset(at + 9, 'x', strcspn(at + 9, "&"));
}

static int
cmd_init(const struct paths *p)
{
	char text[HW_KEY_TEXT_LEN + 1];
	struct hw_keypair kp;
	struct hub h;
	enum hw_key_err ke;

	memset(&h, 0, sizeof(h));
	hw_key_generate(&kp);
	ke = hw_key_save(p->key, HW_ROLE_HUB, &kp);
	if (ke != HW_KEY_OK) {
		logit("%s: %s", p->key, hw_key_err_text(ke));
		hw_key_free(&kp);
		return EX_SOFTWARE;
	}
	if (open_state(p, &h, 0, SCHEMA_MIGRATE) != 0) {
		hw_key_free(&kp);
		return EX_SOFTWARE;
	}
	h.store.ops->close(&h.store);
	print_key("hub-key", kp.pk);
	/* The policy's own lines (docs/policy.md), to paste as they are. */
	hw_key_text(kp.pk, text);
	printf("Pin it in each console's policy (docs/hub.md) and compare the "
	    "fingerprint there:\n\n[hub]\nkeys = [\"%s\"]\n", text);
	hw_key_free(&kp);
	return 0;
}

/* The old key stays next to the new one until the consoles' policies pin
 * the new key (docs/hub.md, "Rotation"); a second rotation first needs
 * the old one removed by hand. */
static int
cmd_rotate(const struct paths *p)
{
	char old[PATH_MAX + 32];
	struct hw_keypair kp;
	enum hw_key_err ke;

	if (str_fmt(old, sizeof(old), "%s.old", p->key) != STR_OK)
		return EX_SOFTWARE;
	if (access(old, F_OK) == 0) {
		logit("%s exists: remove it once no policy pins it", old);
		return EX_SOFTWARE;
	}
	ke = hw_key_load(p->key, HW_ROLE_HUB, &kp);
	if (ke != HW_KEY_OK) {
		logit("%s: %s", p->key, hw_key_err_text(ke));
		return EX_SOFTWARE;
	}
	hw_key_free(&kp);
	if (link(p->key, old) != 0 || unlink(p->key) != 0) {
		logit_errno("%s", p->key);
		return EX_SOFTWARE;
	}
	hw_key_generate(&kp);
	ke = hw_key_save(p->key, HW_ROLE_HUB, &kp);
	if (ke != HW_KEY_OK) {
		logit("%s: %s", p->key, hw_key_err_text(ke));
		hw_key_free(&kp);
		return EX_SOFTWARE;
	}
	print_key("hub-key", kp.pk);
	printf("Pin it in each console's policy next to the old key, then "
	    "restart the hub.\n");
	hw_key_free(&kp);
	return 0;
}

static int
parse_role(const char *s, enum hw_role *r)
{
	if (strcmp(s, "device") == 0)
		*r = HW_ROLE_DEVICE;
	else if (strcmp(s, "instance") == 0)
		*r = HW_ROLE_INSTANCE;
	else
		return -1;
	return 0;
}

static int
cmd_enroll(const struct paths *p, int argc, char **argv, int revoke)
{
	struct hub h;
	struct hs_key k;
	enum hs_status st;
	char fp[HW_FP_LEN + 1];

	if (argc != (revoke ? 2 : 3))
		return usage();
	memset(&k, 0, sizeof(k));
	if (parse_role(argv[0], &k.role) != 0 ||
	    !hw_text_ok(HW_T_INSTANCE, argv[1], strlen(argv[1]))) {
		logit("a role (device or instance) and a name "
		    "[a-z0-9][a-z0-9_-]{0,31}");
		return EX_DATAERR;
	}
	if (str_fmt(k.name, sizeof(k.name), "%s", argv[1]) != STR_OK)
		return EX_DATAERR;
	if (!revoke && hw_key_parse_text(argv[2], k.pk) != 0) {
		logit("KEY: ed25519: and 64 lowercase hex digits");
		return EX_DATAERR;
	}
	memset(&h, 0, sizeof(h));
	if (open_state(p, &h, 0, SCHEMA_CHECK) != 0)
		return EX_SOFTWARE;
	st = revoke ? h.store.ops->revoke(&h.store, k.role, k.name)
	    : h.store.ops->enroll(&h.store, &k);
	h.store.ops->close(&h.store);
	if (st == HS_EXISTS) {
		logit("that name or key is enrolled already (revoke it first)");
		return EX_DATAERR;
	}
	if (st == HS_NOT_FOUND) {
		logit("no such enrolled name");
		return EX_DATAERR;
	}
	if (st != HS_OK)
		return EX_SOFTWARE;
	if (!revoke) {
		hw_fingerprint(k.pk, fp);
		printf("enrolled %s %s, fingerprint %s\n"
		    "Compare it with the one `%s` printed.\n", argv[0], k.name,
		    fp, k.role == HW_ROLE_DEVICE ? "lox enroll" :
		    "lockfile hub-key");
	} else {
		printf("revoked %s %s\n", argv[0], k.name);
	}
	return 0;
}

/* The phone page's passkeys (docs/hub.md, "Approving from a phone"). */
static int
cmd_passkey_code(const struct paths *p, const char *name)
{
	static struct hub h;
	char code[HUB_CODE_TEXT + 1];
	int rc;

	if (!hw_text_ok(HW_T_INSTANCE, name, strlen(name))) {
		logit("NAME: [a-z0-9][a-z0-9_-]{0,31}");
		return EX_DATAERR;
	}
	memset(&h, 0, sizeof(h));
	if (open_state(p, &h, 0, SCHEMA_CHECK) != 0)
		return EX_SOFTWARE;
	h.clock_ms = hub_wall_ms;
	rc = hub_passkey_code(&h, name, code);
	h.store.ops->close(&h.store);
	if (rc != 0)
		return EX_SOFTWARE;
	printf("%s\nThe page registers a passkey as %s with this code, once, "
	    "within 10 minutes.\n", code, name);
	sodium_memzero(code, sizeof(code));
	return 0;
}

static int
cmd_passkeys(const struct paths *p, const char *revoke)
{
	static struct hs_passkey pks[256];
	struct hub h;
	size_t n = 0, i;
	char fp[HW_FP_LEN + 1];
	enum hs_status st;

	memset(&h, 0, sizeof(h));
	if (open_state(p, &h, 0, SCHEMA_CHECK) != 0)
		return EX_SOFTWARE;
	if (revoke != NULL) {
		st = h.store.ops->passkey_revoke(&h.store, revoke);
		h.store.ops->close(&h.store);
		if (st == HS_NOT_FOUND) {
			logit("no such passkey");
			return EX_DATAERR;
		}
		if (st != HS_OK)
			return EX_SOFTWARE;
		printf("revoked passkey %s (and its sessions)\n", revoke);
		return 0;
	}
	st = h.store.ops->passkeys(&h.store, pks, 256, &n);
	h.store.ops->close(&h.store);
	if (st != HS_OK)
		return EX_SOFTWARE;
	for (i = 0; i < n; i++) {
		hw_fingerprint(pks[i].id, fp);
		printf("passkey  %-32s %s\n", pks[i].name, fp);
	}
	return 0;
}

/* --rp-id: a DNS name (WebAuthn refuses an IP address); --origin: https://
 * and that name, with a port or not. */
static int
page_names_ok(const char *rp, const char *origin)
{
	size_t n = strlen(rp), i;
	int alpha = 0;
	unsigned long long port;

	if (n == 0 || n > 253 || rp[0] == '.' || rp[0] == '-' ||
	    rp[n - 1] == '.')
		return 0;
	for (i = 0; i < n; i++) {
		if ((rp[i] >= 'a' && rp[i] <= 'z') || rp[i] == '-')
			alpha = 1;
		else if (!(rp[i] >= '0' && rp[i] <= '9') && rp[i] != '.')
			return 0;
	}
	if (!alpha || strncmp(origin, "https://", 8) != 0 ||
	    strncmp(origin + 8, rp, n) != 0)
		return 0;
	origin += 8 + n;
	return *origin == '\0' || (*origin == ':' &&
	    parse_u64(origin + 1, 1, 65535, &port) == 0);
}

static int
cmd_keys(const struct paths *p)
{
	static struct hs_key keys[1024];
	struct hub h;
	size_t n = 0, i;
	char fp[HW_FP_LEN + 1];

	memset(&h, 0, sizeof(h));
	if (open_state(p, &h, 0, SCHEMA_CHECK) != 0)
		return EX_SOFTWARE;
	if (h.store.ops->keys(&h.store, keys, 1024, &n) != HS_OK) {
		h.store.ops->close(&h.store);
		return EX_SOFTWARE;
	}
	h.store.ops->close(&h.store);
	for (i = 0; i < n; i++) {
		hw_fingerprint(keys[i].pk, fp);
		printf("%-8s %-32s %s\n", keys[i].role == HW_ROLE_DEVICE ?
		    "device" : "instance", keys[i].name, fp);
	}
	return 0;
}

/* A PEM file: ours and closed to others when it holds a key. */
static char *
read_pem(const char *path, int secret)
{
	struct stat st;
	char *b;
	ssize_t n;
	int fd = open(path, OPEN_RO_SAFE);

	if (fd < 0) {
		logit_errno("%s", path);
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (secret && (st.st_uid != geteuid() || (st.st_mode & 077) != 0))) {
		logit("%s: must be a regular file%s", path,
		    secret ? " of this account, mode 0600" : "");
		close(fd);
		return NULL;
	}
	b = xcalloc(1, PEM_MAX + 1);
	n = read_full(fd, b, PEM_MAX + 1);
	close(fd);
	if (n <= 0 || n > PEM_MAX) {
		logit("%s: empty or too large", path);
		free(b);
		return NULL;
	}
	return b;
}

static int
parse_listen(const char *s, char *addr, size_t alen, unsigned *port)
{
	const char *colon;
	unsigned long long v;
	size_t n;

	if (s[0] == '[') {
		const char *rb = strchr(s, ']');
		if (rb == NULL || rb[1] != ':')
			return -1;
		n = (size_t)(rb - s - 1);
		colon = rb + 1;
		s++;
	} else {
		colon = strrchr(s, ':');
		if (colon == NULL)
			return -1;
		n = (size_t)(colon - s);
	}
	if (n == 0 || n >= alen || parse_u64(colon + 1, 0, 65535, &v) != 0)
		return -1;
	memcpy(addr, s, n);
	addr[n] = '\0';
	*port = (unsigned)v;
	return 0;
}

static int
cmd_serve(const struct paths *p, int argc, char **argv)
{
	static struct hub h;
	struct hub_tls tls = { NULL, NULL };
	const char *listen = NULL, *cert = NULL, *key = NULL;
	char addr[64];
	unsigned port = 0, bound = 0;
	unsigned long long v;
	int i, ready_fd = -1, rc;
	struct sigaction sa;

	memset(&h, 0, sizeof(h));
	hub_cfg_defaults(&h.cfg);
	for (i = 0; i < argc; i += 2) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (val == NULL)
			return usage();
		if (strcmp(a, "--listen") == 0)
			listen = val;
		else if (strcmp(a, "--tls-cert") == 0)
			cert = val;
		else if (strcmp(a, "--tls-key") == 0)
			key = val;
		else if (strcmp(a, "--poll-s") == 0 &&
		    parse_u64(val, 1, 300, &v) == 0)
			h.cfg.poll_ms = (long long)v * 1000;
		else if (strcmp(a, "--max-conns") == 0 &&
		    parse_u64(val, 1, 65536, &v) == 0)
			h.cfg.max_conns = (unsigned)v;
		else if (strcmp(a, "--max-per-ip") == 0 &&
		    parse_u64(val, 1, 65536, &v) == 0)
			h.cfg.max_per_ip = (unsigned)v;
		else if (strcmp(a, "--request-s") == 0 &&
		    parse_u64(val, 1, 300, &v) == 0)
			h.cfg.request_ms = (long long)v * 1000;
		else if (strcmp(a, "--rp-id") == 0)
			h.rp_id = val;
		else if (strcmp(a, "--origin") == 0)
			h.origin = val;
		else if (strcmp(a, "--recheck-ms") == 0 &&
		    parse_u64(val, 50, 60000, &v) == 0)
			h.cfg.recheck_ms = (long long)v;
		else if (strcmp(a, "--trusted-proxy") == 0) {
			if (h.cfg.ntrusted == HUB_MAX_TRUSTED ||
			    hub_addr_parse(val,
			    &h.cfg.trusted[h.cfg.ntrusted]) != 0) {
				logit("--trusted-proxy: an IP address, at most "
				    "%d of them", HUB_MAX_TRUSTED);
				return usage();
			}
			h.cfg.ntrusted++;
		} else if (strcmp(a, "--ready-fd") == 0 &&
		    parse_u64(val, 3, 1024, &v) == 0)
			ready_fd = (int)v;
		else if (strcmp(a, "--rate") == 0) {
			char b[32], *slash;
			unsigned long long burst, ms;
			if (str_fmt(b, sizeof(b), "%s", val) != STR_OK)
				return usage();
			slash = strchr(b, '/');
			if (slash == NULL)
				return usage();
			*slash = '\0';
			if (parse_u64(b, 1, 1000000, &burst) != 0 ||
			    parse_u64(slash + 1, 1, 3600000, &ms) != 0)
				return usage();
			h.cfg.rate_burst = (unsigned)burst;
			h.cfg.rate_refill_ms = (long long)ms;
		} else
			return usage();
	}
	if (listen == NULL || parse_listen(listen, addr, sizeof(addr), &port) != 0
	    || (cert == NULL) != (key == NULL) ||
	    (h.rp_id == NULL) != (h.origin == NULL))
		return usage();
	if (h.rp_id != NULL && !page_names_ok(h.rp_id, h.origin)) {
		logit("--rp-id: a DNS name (not an IP address); --origin: "
		    "https:// and that name, with a port or not");
		return EX_USAGE;
	}
	if (cert != NULL) {
		tls.cert_pem = read_pem(cert, 0);
		tls.key_pem = read_pem(key, 1);
		if (tls.cert_pem == NULL || tls.key_pem == NULL)
			return EX_SOFTWARE;
	}
	if (open_state(p, &h, 1, SCHEMA_CHECK) != 0)
		return EX_SOFTWARE;
	h.clock_ms = hub_wall_ms;
	rl_init(&h.rl, h.cfg.rate_burst, h.cfg.rate_refill_ms);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	rc = hub_serve(&h, addr, port, &tls, &stop, &bound, ready_fd);
	h.store.ops->close(&h.store);
	hw_key_free(&h.key);
	if (tls.key_pem != NULL) {
		sodium_memzero((void *)tls.key_pem, PEM_MAX);
		free((void *)tls.key_pem);
	}
	free((void *)tls.cert_pem);
	return rc == 0 ? 0 : EX_UNAVAILABLE;
}

int
main(int argc, char **argv)
{
	const struct rlimit nocore = { 0, 0 };
	struct paths p;
	const char *cmd, *state = NULL, *store = NULL;
	int i, rest_at;
	char *rest[32];
	int nrest = 0;

	log_init("lockhub");
	sanitise_stdfds();
	(void)setrlimit(RLIMIT_CORE, &nocore);
	if (sodium_init() < 0)
		fatal("libsodium cannot be initialised");
	if (argc < 2)
		return usage();
	cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("lockhub %s\n", LOCKFILE_VERSION);
		return 0;
	}
	if (geteuid() == 0) {
		logit("lockhub never runs as root: use an account of its own");
		return EX_USAGE;
	}
	rest_at = 2;
	for (i = rest_at; i < argc; i++) {
		if (strcmp(argv[i], "--state") == 0 && i + 1 < argc) {
			state = argv[++i];
			continue;
		}
		if (strcmp(argv[i], "--store") == 0 && i + 1 < argc &&
		    store == NULL) {
			static char url[4096];
			if (str_fmt(url, sizeof(url), "%s", argv[++i]) != STR_OK)
				return usage();
			store = url;
			scrub_password(argv[i]);
			continue;
		}
		if (nrest == (int)(sizeof(rest) / sizeof(rest[0])))
			return usage();
		rest[nrest++] = argv[i];
	}
	if (state_paths(state, strcmp(cmd, "init") == 0, &p) != 0)
		return EX_SOFTWARE;
	p.store = store;
	if (strcmp(cmd, "init") == 0 && nrest == 0)
		return cmd_init(&p);
	if (strcmp(cmd, "migrate") == 0 && nrest == 0)
		return cmd_migrate(&p);
	if (strcmp(cmd, "key") == 0 && nrest == 0) {
		struct hw_keypair kp;
		enum hw_key_err ke = hw_key_load(p.key, HW_ROLE_HUB, &kp);
		if (ke != HW_KEY_OK) {
			logit("%s: %s", p.key, hw_key_err_text(ke));
			return EX_SOFTWARE;
		}
		print_key("hub-key", kp.pk);
		hw_key_free(&kp);
		return 0;
	}
	if (strcmp(cmd, "rotate") == 0 && nrest == 0)
		return cmd_rotate(&p);
	if (strcmp(cmd, "enroll") == 0)
		return cmd_enroll(&p, nrest, rest, 0);
	if (strcmp(cmd, "revoke") == 0 && nrest == 2 &&
	    strcmp(rest[0], "passkey") == 0)
		return cmd_passkeys(&p, rest[1]);
	if (strcmp(cmd, "revoke") == 0)
		return cmd_enroll(&p, nrest, rest, 1);
	if (strcmp(cmd, "passkey-code") == 0 && nrest == 1)
		return cmd_passkey_code(&p, rest[0]);
	if (strcmp(cmd, "passkeys") == 0 && nrest == 0)
		return cmd_passkeys(&p, NULL);
	if (strcmp(cmd, "keys") == 0 && nrest == 0)
		return cmd_keys(&p);
	if (strcmp(cmd, "serve") == 0)
		return cmd_serve(&p, nrest, rest);
	return usage();
}
