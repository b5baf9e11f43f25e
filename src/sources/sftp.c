/* The SFTP source, through libssh.
 *
 * Boundary: the server is trusted only once its host key matches the pin.
 * Only the pinned key type is offered in the key exchange, and the
 * server's key is compared (SHA-256, constant time) before any credential
 * is sent: a wrong server never sees the user name's authentication or
 * the client key's signature. Nothing is read from ~/.ssh (no config, no
 * known_hosts, no agent, no default identities). What the server sends is
 * untrusted like any source: the cap counts the bytes received (the size
 * it announces is only an early refusal), they are hashed while they
 * stream, and a short read is never taken for the end of the file. */
#include "sources/source.h"
#include "sources/cred.h"
#include "sources/ptable.h"
#include "sources/sink.h"
#include "sources/stall.h"
#include "lib/crypto.h"
#include "lib/log.h"
#include "lib/str.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libssh/libssh.h>
#include <libssh/callbacks.h>
#include <libssh/sftp.h>
#include <sodium.h>

/* Requests in flight and their size: 64 KiB is under every server's read
 * limit (OpenSSH's is 255 KiB); the window of data in flight is what
 * makes the throughput on any link with latency. */
#define SFTP_CHUNK (64 * 1024)
#define SFTP_INFLIGHT 64

struct source {
	char host[256];
	unsigned port;
	char user[65];
	char base_dir[1024];
	char key_type[32];
	char hostkeys[64];		/* what the key exchange offers */
	uint8_t pin[SHA256_LEN];
	char pin_text[60];
	unsigned connect_timeout_s, stall_timeout_s, timeout_s;
	struct cred *cred;
};

static const char *const sftp_keys[] = { "host", "port", "user",
	"base_dir", "host_key_type", "host_key_sha256", "credentials",
	"connect_timeout_s", "stall_timeout_s", "timeout_s", NULL };

static int
host_ok(const char *h)
{
	size_t i, n = strlen(h);

	if (n == 0 || n > 253 || h[0] == '-' || h[0] == '.')
		return 0;
	for (i = 0; i < n; i++)
		if (!((h[i] >= 'a' && h[i] <= 'z') || (h[i] >= '0' &&
		    h[i] <= '9') || h[i] == '-' || h[i] == '.' || h[i] == ':'))
			return 0;
	return 1;
}

static int
user_ok(const char *u)
{
	size_t i, n = strlen(u);

	if (n == 0 || n > 64 || u[0] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!((u[i] >= 'a' && u[i] <= 'z') || (u[i] >= 'A' &&
		    u[i] <= 'Z') || (u[i] >= '0' && u[i] <= '9') || u[i] == '-' ||
		    u[i] == '_' || u[i] == '.'))
			return 0;
	return 1;
}

/* The key types a pin may name, and what the key exchange then offers. */
static const char *
hostkeys_for(const char *type)
{
	static const char *const map[][2] = {
		{ "ssh-ed25519", "ssh-ed25519" },
		{ "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp256" },
		{ "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp384" },
		{ "ecdsa-sha2-nistp521", "ecdsa-sha2-nistp521" },
		{ "ssh-rsa", "rsa-sha2-512,rsa-sha2-256" },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(type, map[i][0]) == 0)
			return map[i][1];
	return NULL;
}

/* "SHA256:" and 43 characters of unpadded base64, as ssh-keygen -l. */
static int
decode_pin(const char *text, uint8_t out[SHA256_LEN])
{
	size_t bin = 0;
	const char *end = NULL;

	if (strncmp(text, "SHA256:", 7) != 0 || strlen(text) != 7 + 43)
		return -1;
	if (sodium_base642bin(out, SHA256_LEN, text + 7, 43, NULL, &bin, &end,
	    sodium_base64_VARIANT_ORIGINAL_NO_PADDING) != 0 ||
	    bin != SHA256_LEN || end != text + 7 + 43)
		return -1;
	return 0;
}

static int
sftp_parse(const json_t *t, struct source *s, const char **why)
{
	unsigned long long x;
	const char *hk;

	memset(s, 0, sizeof(*s));
	*why = "sftp profile: unknown key (see docs/sources.md)";
	if (jsonx_only_keys(t, sftp_keys) != 0)
		return -1;
	*why = "sftp profile: host must be a lowercase host name or address";
	if (pt_str(t, "host", s->host, sizeof(s->host)) != 1 ||
	    !host_ok(s->host))
		return -1;
	*why = "sftp profile: port must be an integer in 1..65535";
	if (pt_uint(t, "port", 1, 65535, 22, &x) < 0)
		return -1;
	s->port = (unsigned)x;
	*why = "sftp profile: user must be 1..64 of [A-Za-z0-9._-]";
	if (pt_str(t, "user", s->user, sizeof(s->user)) != 1 ||
	    !user_ok(s->user))
		return -1;
	*why = "sftp profile: base_dir must be a clean absolute path on the "
	    "server";
	if (pt_str(t, "base_dir", s->base_dir, sizeof(s->base_dir)) != 1 ||
	    pt_abs_path_ok(s->base_dir, 1) != 0)
		return -1;
	*why = "sftp profile: host_key_type must be ssh-ed25519, "
	    "ecdsa-sha2-nistp256/384/521 or ssh-rsa";
	if (pt_str(t, "host_key_type", s->key_type, sizeof(s->key_type)) != 1 ||
	    (hk = hostkeys_for(s->key_type)) == NULL)
		return -1;
	if (str_fmt(s->hostkeys, sizeof(s->hostkeys), "%s", hk) != STR_OK)
		return -1;
	*why = "sftp profile: host_key_sha256 must be the SHA256:... "
	    "fingerprint ssh-keygen -l prints";
	if (pt_str(t, "host_key_sha256", s->pin_text, sizeof(s->pin_text)) != 1 ||
	    decode_pin(s->pin_text, s->pin) != 0)
		return -1;
	*why = "sftp profile: connect_timeout_s must be an integer in 1..300";
	if (pt_uint(t, "connect_timeout_s", 1, 300, 10, &x) < 0)
		return -1;
	s->connect_timeout_s = (unsigned)x;
	*why = "sftp profile: stall_timeout_s must be an integer in 1..3600";
	if (pt_uint(t, "stall_timeout_s", 1, 3600, 30, &x) < 0)
		return -1;
	s->stall_timeout_s = (unsigned)x;
	*why = "sftp profile: timeout_s must be an integer in 1..86400";
	if (pt_uint(t, "timeout_s", 1, 86400, 3600, &x) < 0)
		return -1;
	s->timeout_s = (unsigned)x;
	*why = "sftp profile: credentials (the client's private key) is "
	    "required";
	if (json_object_get(t, "credentials") == NULL)
		return -1;
	return cred_validate(json_object_get(t, "credentials"), why);
}

static int
sftp_validate(const json_t *t, const char **why)
{
	struct source *s = malloc(sizeof(*s));
	int r;

	if (s == NULL) {
		*why = "sftp profile: out of memory";
		return -1;
	}
	r = sftp_parse(t, s, why);
	free(s);
	return r;
}

static void
no_log(int priority, const char *function, const char *buffer, void *data)
{
	(void)priority;
	(void)function;
	(void)buffer;
	(void)data;
}

static int
src_sftp_open(const json_t *t, const char *home, struct source **out,
    const char **why)
{
	struct source *s = malloc(sizeof(*s));
	ssh_key priv = NULL;

	if (s == NULL) {
		*why = "sftp profile: out of memory";
		return -1;
	}
	if (sftp_parse(t, s, why) != 0) {
		free(s);
		return -1;
	}
	if (cred_open(json_object_get(t, "credentials"), home, &s->cred,
	    why) != 0) {
		free(s);
		return -1;
	}
	/* libssh must never write to the console's terminal. */
	if (ssh_init() != SSH_OK) {
		*why = "sftp profile: libssh cannot be initialised";
		cred_close(s->cred);
		free(s);
		return -1;
	}
	(void)ssh_set_log_level(SSH_LOG_NOLOG);
	(void)ssh_set_log_callback(no_log);
	/* A key libssh cannot read is told at start, not at the first plan. */
	if (ssh_pki_import_privkey_base64(cred_text(s->cred), NULL, NULL, NULL,
	    &priv) != SSH_OK) {
		*why = "sftp credentials: not an unencrypted private key libssh "
		    "can read (OpenSSH, PEM or PKCS#8)";
		cred_close(s->cred);
		free(s);
		return -1;
	}
	ssh_key_free(priv);
	*out = s;
	return 0;
}

static void
src_sftp_close(struct source *s)
{
	if (s == NULL)
		return;
	cred_close(s->cred);
	explicit_bzero(s, sizeof(*s));
	free(s);
}

static size_t
sftp_words(const struct source *s, const char **words, size_t max)
{
	const char *w[] = { s->host, s->user, s->base_dir, s->pin_text };
	size_t i, n = 0;

	for (i = 0; i < sizeof(w) / sizeof(w[0]) && n < max; i++)
		if (w[i][0] != '\0' && strcmp(w[i], "/") != 0)
			words[n++] = w[i];
	return n;
}

/* ---- a fetch ------------------------------------------------------------ */

struct conn {
	struct stall stall;
	ssh_session ssh;
	sftp_session sftp;
	sftp_file file;
	const struct cred *cred;	/* for scrubbing messages */
};

static void
detail_from(const struct conn *k, struct fetch_result *res, const char *what)
{
	char full[1024] = { 0 };

	/* Scrubbed whole, then cut to the detail's size: no prefix of a
	 * secret survives the cut. A message too long to hold whole is not
	 * shown at all (its cut tail could hold a secret's first bytes). */
	if (str_fmt(full, sizeof(full), "%s: %s", what,
	    ssh_get_error(k->ssh)) != STR_OK)
		str_msg(full, sizeof(full), "%s: (the library's message is too "
		    "long to show)", what);
	cred_scrub(k->cred, full, sizeof(full));
	full[sizeof(res->detail) - 1] = '\0';
	memcpy(res->detail, full, sizeof(res->detail));
	explicit_bzero(full, sizeof(full));
}

static int
setopt_checked(ssh_session ssh, enum ssh_options_e o, const void *v)
{
	return ssh_options_set(ssh, o, v) == SSH_OK ? 0 : -1;
}

static enum fetch_cause
connect_pinned(struct source *s, struct conn *k, struct fetch_result *res)
{
	static const char ciphers[] = "aes128-gcm@openssh.com,"
	    "aes256-gcm@openssh.com,chacha20-poly1305@openssh.com,"
	    "aes256-ctr,aes128-ctr";
	bool no_config = false;
	int no = 0, yes = 1;
	long tmo = (long)s->connect_timeout_s;
	ssh_key key = NULL;
	unsigned char *hash = NULL;
	size_t hlen = 0;
	int match;

	k->ssh = ssh_new();
	if (k->ssh == NULL) {
		str_msg(res->detail, sizeof(res->detail), "out of memory");
		return FC_IO;
	}
	/* Order matters: PROCESS_CONFIG before anything that would read it;
	 * every option checked, a refused one fails the fetch. */
	if (setopt_checked(k->ssh, SSH_OPTIONS_PROCESS_CONFIG, &no_config) ||
	    setopt_checked(k->ssh, SSH_OPTIONS_HOST, s->host) ||
	    setopt_checked(k->ssh, SSH_OPTIONS_PORT, &s->port) ||
	    setopt_checked(k->ssh, SSH_OPTIONS_USER, s->user) ||
	    setopt_checked(k->ssh, SSH_OPTIONS_KNOWNHOSTS, "/dev/null") ||
	    setopt_checked(k->ssh, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null") ||
	    setopt_checked(k->ssh, SSH_OPTIONS_HOSTKEYS, s->hostkeys) ||
	    setopt_checked(k->ssh, SSH_OPTIONS_CIPHERS_C_S, ciphers) ||
	    setopt_checked(k->ssh, SSH_OPTIONS_CIPHERS_S_C, ciphers) ||
	    setopt_checked(k->ssh, SSH_OPTIONS_COMPRESSION, "no") ||
	    setopt_checked(k->ssh, SSH_OPTIONS_GSSAPI_AUTH, &no) ||
	    setopt_checked(k->ssh, SSH_OPTIONS_NODELAY, &yes) ||
	    setopt_checked(k->ssh, SSH_OPTIONS_TIMEOUT, &tmo)) {
		detail_from(k, res, "ssh options");
		return FC_PROTOCOL;
	}
	if (ssh_connect(k->ssh) != SSH_OK) {
		const char *e = ssh_get_error(k->ssh);
		detail_from(k, res, "connect");
		/* The server does not have a key of the pinned type. */
		if (strstr(e, "host key") != NULL)
			return FC_HOSTKEY;
		return strstr(e, "imeout") != NULL ? FC_TIMEOUT : FC_NETWORK;
	}
	if (ssh_get_server_publickey(k->ssh, &key) != SSH_OK ||
	    ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash,
	    &hlen) != 0) {
		ssh_key_free(key);
		detail_from(k, res, "host key");
		return FC_PROTOCOL;
	}
	match = hlen == SHA256_LEN && ct_equal(hash, s->pin, SHA256_LEN);
	match &= strcmp(ssh_key_type_to_char(ssh_key_type(key)),
	    s->key_type) == 0;
	ssh_clean_pubkey_hash(&hash);
	ssh_key_free(key);
	if (!match) {
		str_msg(res->detail, sizeof(res->detail), "the server's host key "
		    "is not the pinned one; no credential was sent");
		return FC_HOSTKEY;
	}
	return FC_OK;
}

static enum fetch_cause
authenticate(struct source *s, struct conn *k, struct fetch_result *res)
{
	ssh_key priv = NULL;
	int r;

	/* Imported for this connection only, freed once used. */
	if (ssh_pki_import_privkey_base64(cred_text(s->cred), NULL, NULL, NULL,
	    &priv) != SSH_OK) {
		str_msg(res->detail, sizeof(res->detail), "credentials: not an "
		    "unencrypted private key libssh can read");
		return FC_CREDENTIAL_SOURCE;
	}
	r = ssh_userauth_publickey(k->ssh, NULL, priv);
	ssh_key_free(priv);	/* libssh cleanses private key material */
	if (r == SSH_AUTH_DENIED || r == SSH_AUTH_PARTIAL) {
		str_msg(res->detail, sizeof(res->detail), "publickey "
		    "authentication refused");
		return FC_BAD_CREDENTIALS;
	}
	if (r != SSH_AUTH_SUCCESS) {
		detail_from(k, res, "authentication");
		return strstr(ssh_get_error(k->ssh), "imeout") != NULL ?
		    FC_TIMEOUT : FC_NETWORK;
	}
	return FC_OK;
}

static enum fetch_cause
start_sftp(struct conn *k, struct fetch_result *res)
{
	k->sftp = sftp_new(k->ssh);
	if (k->sftp == NULL || sftp_init(k->sftp) != SSH_OK) {
		detail_from(k, res, "sftp");
		return FC_PROTOCOL;
	}
	return FC_OK;
}

static enum fetch_cause
sftp_status_cause(struct conn *k, struct fetch_result *res, const char *what)
{
	int e = sftp_get_error(k->sftp);

	detail_from(k, res, what);
	switch (e) {
	case SSH_FX_NO_SUCH_FILE:
	case SSH_FX_NO_SUCH_PATH:
		return FC_MISSING;
	case SSH_FX_PERMISSION_DENIED:
	case SSH_FX_WRITE_PROTECT:
		return FC_DENIED;
	case SSH_FX_NO_CONNECTION:
	case SSH_FX_CONNECTION_LOST:
	case SSH_FX_EOF:
		return FC_NETWORK;
	default:
		if (!ssh_is_connected(k->ssh))
			return FC_NETWORK;
		if (strstr(ssh_get_error(k->ssh), "imeout") != NULL)
			return FC_TIMEOUT;
		return FC_PROTOCOL;
	}
}

/* Open base_dir/key: a regular file (a symlink, a directory or a device
 * is refused); its announced size is only an early refusal. */
static enum fetch_cause
open_remote(struct source *s, struct conn *k, const char *key,
    unsigned long long cap, struct fetch_result *res)
{
	char path[1024 + 1 + 1024 + 1], *canon;
	sftp_attributes a;
	int n;

	if (str_fmt(path, sizeof(path), "%s%s%s", s->base_dir,
	    strcmp(s->base_dir, "/") == 0 ? "" : "/", key) != STR_OK) {
		str_msg(res->detail, sizeof(res->detail), "path too long");
		return FC_PROTOCOL;
	}
	a = sftp_lstat(k->sftp, path);
	if (a == NULL)
		return sftp_status_cause(k, res, "lstat");
	if (a->type != SSH_FILEXFER_TYPE_REGULAR) {
		sftp_attributes_free(a);
		str_msg(res->detail, sizeof(res->detail), "not a regular file");
		return FC_NOT_REGULAR;
	}
	if ((a->flags & SSH_FILEXFER_ATTR_SIZE) && a->size > cap) {
		sftp_attributes_free(a);
		str_msg(res->detail, sizeof(res->detail), "announced size over "
		    "the reserved %llu bytes", cap);
		return FC_TOO_BIG;
	}
	sftp_attributes_free(a);
	k->file = sftp_open(k->sftp, path, O_RDONLY, 0);
	if (k->file == NULL)
		return sftp_status_cause(k, res, "open");
	a = sftp_fstat(k->file);
	if (a == NULL)
		return sftp_status_cause(k, res, "fstat");
	n = a->type == SSH_FILEXFER_TYPE_REGULAR;
	sftp_attributes_free(a);
	if (!n) {
		str_msg(res->detail, sizeof(res->detail), "not a regular file");
		return FC_NOT_REGULAR;
	}
	/* The server's own name for what it opened, where it gives one: a
	 * case-insensitive server answers one spelling for all (the ledger's
	 * aliases, docs/ledger.md); no answer leaves the object unnamed. */
	canon = sftp_canonicalize_path(k->sftp, path);
	if (canon != NULL) {
		if (str_fmt(res->object, sizeof(res->object), "sftp:%s", canon) !=
		    STR_OK)
			res->object[0] = '\0';
		ssh_string_free_char(canon);
	}
	return FC_OK;
}

struct req {
	uint32_t id;
	uint64_t off;
};

/* Pipelined reads: up to SFTP_INFLIGHT requests ahead, answered in order.
 * A short answer leaves a gap the requests already sent do not cover:
 * those are drained and reading resumes where the data stopped. */
static enum fetch_cause
transfer(struct conn *k, struct sink *sk, struct fetch_result *res,
    uint8_t *buf)
{
	struct req q[SFTP_INFLIGHT];
	size_t head = 0, count = 0;
	uint64_t next = 0;
	int eof = 0;

	for (;;) {
		while (!eof && count < SFTP_INFLIGHT && next <= sk->cap) {
			struct req *r = &q[(head + count) % SFTP_INFLIGHT];
			int id;
			(void)sftp_seek64(k->file, next);
			id = sftp_async_read_begin(k->file, SFTP_CHUNK);
			if (id < 0)
				return sftp_status_cause(k, res, "read");
			r->id = (uint32_t)id;
			r->off = next;
			next += SFTP_CHUNK;
			count++;
		}
		if (count == 0)
			return FC_OK;
		{
			struct req r = q[head];
			uint8_t *dst;
			size_t room;
			int n;
			enum fetch_cause fc;

			head = (head + 1) % SFTP_INFLIGHT;
			count--;
			if (eof)
				continue;	/* answers past the end */
			/* Straight into the sink's ring when a whole answer
			 * fits there, else through buf. */
			dst = sink_buffer(sk, &room);
			if (room < SFTP_CHUNK)
				dst = buf;
			n = sftp_async_read(k->file, dst, SFTP_CHUNK, r.id);
			if (n < 0)
				return sftp_status_cause(k, res, "read");
			/* Any answer is the server's progress, an end of file
			 * or a drained one too: the watchdog is for a server
			 * that stops answering, not for a slow tail. */
			stall_progress(&k->stall);
			if (n == 0) {
				eof = 1;
				continue;
			}
			if (r.off != sk->size) {
				str_msg(res->detail, sizeof(res->detail),
				    "out-of-order data");
				return FC_PROTOCOL;
			}
			stall_progress(&k->stall);
			fc = dst == buf ? sink_put(sk, buf, (size_t)n) :
			    sink_commit(sk, (size_t)n);
			if (fc == FC_TOO_BIG) {
				str_msg(res->detail, sizeof(res->detail), "over the "
				    "reserved %llu bytes", sk->cap);
				return fc;
			}
			if (fc != FC_OK) {
				str_msg(res->detail, sizeof(res->detail), "spool: %s",
				    strerror(sk->write_errno));
				return fc;
			}
			if (n < SFTP_CHUNK) {
				/* Drain what was asked past the gap. */
				while (count > 0) {
					struct req d = q[head];
					head = (head + 1) % SFTP_INFLIGHT;
					count--;
					(void)sftp_seek64(k->file, d.off);
					if (sftp_async_read(k->file, buf, SFTP_CHUNK,
					    d.id) < 0)
						return sftp_status_cause(k, res,
						    "read");
					stall_progress(&k->stall);
				}
				next = sk->size;
			}
		}
	}
}

static enum fetch_cause
sftp_fetch(struct source *s, const char *key, int outfd,
    unsigned long long cap, struct fetch_result *res)
{
	struct conn k;
	struct sink sk;
	enum fetch_cause fc;
	uint8_t *buf = NULL;

	memset(res, 0, sizeof(*res));
	if (s == NULL) {
		str_msg(res->detail, sizeof(res->detail), "the profile could not "
		    "be opened at console start (see its start-up warning)");
		return FC_UNAVAILABLE;
	}
	memset(&k, 0, sizeof(k));
	k.cred = s->cred;
	/* Connect and authenticate run under libssh's own timeout; the SFTP
	 * calls after do not, and run under the stall watchdog. */
	if ((fc = sink_init(&sk, outfd, cap)) != FC_OK)
		str_msg(res->detail, sizeof(res->detail), "spool: cannot be set "
		    "up");
	if (fc == FC_OK)
		fc = connect_pinned(s, &k, res);
	if (fc == FC_OK)
		fc = authenticate(s, &k, res);
	if (fc == FC_OK && stall_start(&k.stall, ssh_get_fd(k.ssh),
	    (long long)s->stall_timeout_s * 1000,
	    (long long)s->timeout_s * 1000) != 0) {
		str_msg(res->detail, sizeof(res->detail), "no watchdog thread");
		fc = FC_IO;
	}
	if (fc == FC_OK)
		fc = start_sftp(&k, res);
	if (fc == FC_OK)
		fc = open_remote(s, &k, key, cap, res);
	if (fc == FC_OK) {
		buf = malloc(SFTP_CHUNK);
		if (buf == NULL) {
			str_msg(res->detail, sizeof(res->detail), "out of memory");
			fc = FC_IO;
		} else {
			stall_progress(&k.stall);
			fc = transfer(&k, &sk, res, buf);
		}
	}
	/* The teardown talks to the server too (the close waits for its
	 * reply, with no timeout of libssh's): still under the watchdog, with
	 * a fresh stall window, so a server that never answers it cannot
	 * hold the console. Stopped before ssh_disconnect closes the socket:
	 * the watchdog must never shut down a descriptor number reused. */
	stall_progress(&k.stall);
	if (k.file != NULL)
		(void)sftp_close(k.file);
	if (k.sftp != NULL)
		sftp_free(k.sftp);
	/* Fired during the transfer: the transfer failed. Fired only in the
	 * teardown: the file was already whole. */
	if (stall_stop(&k.stall) && fc != FC_OK) {
		str_msg(res->detail, sizeof(res->detail), "no progress for %us, "
		    "or over %us in all", s->stall_timeout_s, s->timeout_s);
		fc = FC_TIMEOUT;
	}
	if (fc == FC_OK && (fc = sink_finish(&sk, res)) != FC_OK)
		str_msg(res->detail, sizeof(res->detail), "spool: %s",
		    strerror(sk.write_errno));
	if (k.ssh != NULL) {
		if (ssh_is_connected(k.ssh))
			ssh_disconnect(k.ssh);
		ssh_free(k.ssh);
	}
	if (buf != NULL) {
		explicit_bzero(buf, SFTP_CHUNK);
		free(buf);
	}
	sink_free(&sk);
	return fc;
}

static size_t
sftp_ports(const struct source *s, unsigned *ports, size_t max)
{
	if (max < 1)
		return 0;
	ports[0] = s->port;
	return 1;
}

const struct source_kind source_sftp = {
	.tcp_ports = sftp_ports,
	.name = "sftp",
	.validate = sftp_validate,
	.open = src_sftp_open,
	.fetch = sftp_fetch,
	.location_words = sftp_words,
	.close = src_sftp_close,
};
