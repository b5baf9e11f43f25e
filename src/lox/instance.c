/* lox's per-instance hub settings (lox.h, docs/docker.md "Hub mode").
 *
 * `lox run --instance NAME --hub URL [--hub-ca FILE]` keeps them on the
 * host, in the operator's lox directory ($LOX_HOME, else ~/.config/lox,
 * the directory hub.h's state lives in): instances/NAME/ (0700) holds
 * hub-url (one line) and hub-ca.pem. A restart, `lox doctor` and the
 * other one-off containers read them back, so every console of NAME runs
 * against the same hub.
 *
 * The CA file is the operator's, and lox refuses operator mounts: it is
 * read here (a regular file of at most 256 KiB), parsed strictly as PEM
 * CERTIFICATE blocks and nothing else, each block an X.509 certificate
 * that OpenSSL decodes to its last byte, and written back re-encoded from
 * the decoded certificates (no byte of the original text goes through).
 * That copy, 0644 in the 0700 directory, is what the console's container
 * gets, read-only, as LOX_HUB_CA. */
#include "config.h"
#include "lox/lox.h"
#include "hubclient/hubclient.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/mkdir.h"
#include "lib/str.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sodium.h>

#define CA_MAX		(256 * 1024)	/* the console's own --hub-ca limit */
#define CA_MAX_CERTS	16
#define PEM_BEGIN	"-----BEGIN CERTIFICATE-----"
#define PEM_END		"-----END CERTIFICATE-----"

int
lox_instance_dir(const struct lox *l, char *out, size_t len, int mk)
{
	const char *env = getenv("LOX_HOME");
	char base[PATH_MAX];
	struct passwd *pw;
	struct stat st;

	if (l->instance[0] == '\0') {
		lox_err("hub mode names its instance: lox run --instance NAME "
		    "--hub URL (NAME is the name the hub enrolls)");
		return -1;
	}
	if (env != NULL && env[0] != '\0') {
		if (str_fmt(base, sizeof(base), "%s", env) != STR_OK)
			return -1;
	} else if ((pw = getpwuid(getuid())) == NULL ||
	    str_fmt(base, sizeof(base), "%s/.config/lox", pw->pw_dir) !=
	    STR_OK) {
		lox_err("no home directory for this account: set LOX_HOME");
		return -1;
	}
	if (str_fmt(out, len, "%s/instances/%s", base, l->instance) != STR_OK) {
		lox_err("LOX_HOME: the path is too long");
		return -1;
	}
	if (mk && mkdir_p(out, 0700) != 0) {
		lox_err("cannot create %s", out);
		return -1;
	}
	if (lstat(out, &st) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		lox_err("%s must be a directory of this account, mode 0700", out);
		return -1;
	}
	return 1;
}

/* One PEM CERTIFICATE block's base64 (between the lines) to an X.509
 * certificate, appended to out re-encoded. 0 or -1. */
static int
one_cert(const char *b64, size_t n, BIO *out)
{
	unsigned char *der = malloc(n);
	const unsigned char *p;
	size_t dlen = 0;
	const char *end = NULL;
	X509 *x = NULL;
	int ret = -1;

	if (der == NULL)
		return -1;
	if (sodium_base642bin(der, n, b64, n, "\r\n", &dlen, &end,
	    sodium_base64_VARIANT_ORIGINAL) != 0 || end != b64 + n || dlen == 0)
		goto out;
	p = der;
	x = d2i_X509(NULL, &p, (long)dlen);
	if (x == NULL || p != der + dlen)
		goto out;
	ret = PEM_write_bio_X509(out, x) == 1 ? 0 : -1;
out:
	X509_free(x);
	free(der);
	return ret;
}

int
lox_pem_certs(const char *t, size_t n, BIO *out, const char **why)
{
	const char *p = t, *e = t + n, *body, *stop;
	size_t certs = 0;

	for (;;) {
		while (p < e && (*p == '\n' || *p == '\r'))
			p++;
		if (p == e)
			break;
		if ((size_t)(e - p) < sizeof(PEM_BEGIN) ||
		    memcmp(p, PEM_BEGIN, sizeof(PEM_BEGIN) - 1) != 0) {
			*why = "only PEM CERTIFICATE blocks (no other text, "
			    "no private key)";
			return -1;
		}
		body = p + sizeof(PEM_BEGIN) - 1;
		stop = memmem(body, (size_t)(e - body), PEM_END,
		    sizeof(PEM_END) - 1);
		if (stop == NULL || ++certs > CA_MAX_CERTS) {
			*why = "1 to 16 complete CERTIFICATE blocks";
			return -1;
		}
		if (one_cert(body, (size_t)(stop - body), out) != 0) {
			*why = "a CERTIFICATE block that is not one X.509 "
			    "certificate";
			return -1;
		}
		p = stop + sizeof(PEM_END) - 1;
	}
	if (certs == 0) {
		*why = "no certificate";
		return -1;
	}
	return 0;
}

/* Read the operator's CA file, check it and, when write, write the copy
 * (atomically). */
static int
save_ca(const char *dir, const char *file, int write)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 48], *text = NULL, *data;
	const char *why = "cannot be read";
	struct stat st;
	BIO *out = NULL;
	ssize_t n = -1;
	long dlen;
	int fd, ret = -1;

	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size <= CA_MAX) {
		text = malloc(CA_MAX + 1);
		if (text == NULL)
			fatal("out of memory");
		n = read_full(fd, text, CA_MAX + 1);
	} else {
		why = "not a regular file of at most 256 KiB";
	}
	if (fd >= 0)
		close(fd);
	out = BIO_new(BIO_s_mem());
	if (out == NULL)
		fatal("out of memory");
	if (n < 0 || n > CA_MAX || lox_pem_certs(text, (size_t)n, out, &why) != 0) {
		lox_err("--hub-ca %s: %s (docs/docker.md, \"Hub mode\")", file,
		    why);
		goto out;
	}
	dlen = BIO_get_mem_data(out, &data);
	if (!write) {
		ret = 0;
		goto out;
	}
	if (str_fmt(path, sizeof(path), "%s/hub-ca.pem", dir) != STR_OK ||
	    str_fmt(tmp, sizeof(tmp), "%s/.hub-ca.pem.new", dir) != STR_OK)
		goto out;
	(void)unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
	    0644);
	/* 0644 whatever the umask: the console's account reads it in the
	 * container (the directory around it stays 0700). */
	if (fd < 0 || fchmod(fd, 0644) != 0 ||
	    write_full(fd, data, (size_t)dlen) != 0 || fsync(fd) != 0 ||
	    close(fd) != 0 || rename(tmp, path) != 0) {
		lox_err("cannot write %s: %s", path, strerror(errno));
		(void)unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	BIO_free(out);
	free(text);
	return ret;
}

/* lox.h */
int
lox_write_copy(const char *dir, const char *name, const char *data, long len,
    mode_t mode, long uid)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 48];
	int fd;

	if (str_fmt(path, sizeof(path), "%s/%s", dir, name) != STR_OK ||
	    str_fmt(tmp, sizeof(tmp), "%s/.%s.new", dir, name) != STR_OK)
		return -1;
	(void)unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd < 0 || write_full(fd, data, (size_t)len) != 0 ||
	    (uid >= 0 && fchown(fd, (uid_t)uid, (gid_t)uid) != 0) ||
	    fchmod(fd, mode) != 0 || fsync(fd) != 0 || close(fd) != 0 ||
	    rename(tmp, path) != 0) {
		lox_err("cannot write %s: %s%s", path, strerror(errno),
		    uid >= 0 ? " (the key goes to the hub image's uid: run "
		    "as root)" : "");
		(void)unlink(tmp);
		return -1;
	}
	return 0;
}

int
lox_hub_save(const struct lox *l, const char *url, const char *ca_file,
    int write, struct lox_hub *h)
{
	char dir[PATH_MAX], line[HC_MAX_URL + 2];

	memset(h, 0, sizeof(*h));
	if (hc_url_ok(url) != 0 || !lox_plain_value(url) ||
	    str_fmt(line, sizeof(line), "%s\n", url) != STR_OK ||
	    str_fmt(h->url, sizeof(h->url), "%s", url) != STR_OK) {
		lox_err("--hub: http(s)://HOST[:PORT] and nothing else");
		return -1;
	}
	if (lox_instance_dir(l, dir, sizeof(dir), write) < 0 ||
	    str_fmt(h->network, sizeof(h->network), "lockfile-%s-hub",
	    l->instance) != STR_OK)
		return -1;
	if (ca_file != NULL) {
		if (save_ca(dir, ca_file, write) != 0 ||
		    str_fmt(h->ca, sizeof(h->ca), "%s/hub-ca.pem", dir) != STR_OK)
			return -1;
		if (strpbrk(h->ca, ",\"") != NULL) {
			/* docker's --mount is comma-separated */
			lox_err("%s: a path with a comma or a quote cannot be "
			    "mounted (set LOX_HOME)", h->ca);
			return -1;
		}
	}
	h->on = 1;
	if (!write)
		return 0;
	if (ca_file == NULL && lox_hub_forget(l) != 0)
		return -1;
	return lox_write_copy(dir, "hub-url", line, (long)strlen(line), 0600,
	    -1);
}

int
lox_hub_forget(const struct lox *l)
{
	char dir[PATH_MAX], path[PATH_MAX + 32];
	int r = lox_instance_dir(l, dir, sizeof(dir), 0);

	if (r <= 0)
		return r;
	if (str_fmt(path, sizeof(path), "%s/hub-url", dir) != STR_OK ||
	    (unlink(path) != 0 && errno != ENOENT) ||
	    str_fmt(path, sizeof(path), "%s/hub-ca.pem", dir) != STR_OK ||
	    (unlink(path) != 0 && errno != ENOENT)) {
		lox_err("cannot remove %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int
lox_hub_load(const struct lox *l, struct lox_hub *h)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], buf[HC_MAX_URL + 2];
	struct stat st;
	ssize_t n;
	int fd, r;

	memset(h, 0, sizeof(*h));
	if (l->instance[0] == '\0')
		return 0;	/* the default instance is never in hub mode */
	if ((r = lox_instance_dir(l, dir, sizeof(dir), 0)) <= 0)
		return r;
	if (str_fmt(path, sizeof(path), "%s/hub-url", dir) != STR_OK)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	n = read_full(fd, buf, sizeof(buf) - 1);
	close(fd);
	/* lox's own file, read as strictly as any: one URL and a newline */
	if (n <= 1 || (size_t)n > sizeof(buf) - 1 || buf[n - 1] != '\n') {
		lox_err("%s: not one URL line (lox run --hub writes it)", path);
		return -1;
	}
	buf[n - 1] = '\0';
	if (strchr(buf, '\n') != NULL || hc_url_ok(buf) != 0 ||
	    !lox_plain_value(buf) ||
	    str_fmt(h->url, sizeof(h->url), "%s", buf) != STR_OK) {
		lox_err("%s: not a hub URL", path);
		return -1;
	}
	if (str_fmt(h->ca, sizeof(h->ca), "%s/hub-ca.pem", dir) != STR_OK)
		return -1;
	if (lstat(h->ca, &st) != 0) {
		if (errno != ENOENT)
			return -1;
		h->ca[0] = '\0';
	} else if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) != 0 || strpbrk(h->ca, ",\"") != NULL) {
		lox_err("%s must be a file of this account lox wrote", h->ca);
		return -1;
	}
	if (str_fmt(h->network, sizeof(h->network), "lockfile-%s-hub",
	    l->instance) != STR_OK)
		return -1;
	h->on = 1;
	return 1;
}
