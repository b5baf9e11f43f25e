/* lox hub-run: lockhub in its container, as lox runs the console
 * (docs/docker.md, "Hub mode").
 *
 *   lox hub-run --instance NAME [--image IMAGE] init|migrate
 *   lox hub-run --instance NAME [--image IMAGE] --tls-cert FILE
 *       --tls-key FILE [--ip ADDR] [--publish [HOSTADDR:]PORT] [--poll-s N]
 *
 * The same checks as lox run: the image by ID (`lox image hub`) with
 * --pull never, the shipped seccomp profile checked by sha256 and handed
 * to docker as the checked bytes (lox_seccomp_fd), no capabilities, a
 * read-only root. Its state is the volume lockfile-NAME-lockhub-state; it
 * serves on the instance's hub network (lockfile-NAME-hub, the console's,
 * labelled as lox's), at --ip when given; with --publish it starts on the
 * default bridge with the port published for the approvers, then joins
 * the hub network.
 *
 * The TLS files are the operator's, and lox refuses operator mounts: as
 * the console's CA (instance.c), each is read (a regular file of at most
 * 256 KiB), parsed strictly (the certificate as PEM CERTIFICATE blocks,
 * the key as one unencrypted PEM private key that matches it) and written
 * re-encoded into the instance's directory: lockhub-cert.pem (0644) and
 * lockhub-key.pem (0600, the hub image's uid, which lockhub requires).
 * Those copies are mounted read-only. */
#include "config.h"
#include "lox/lox.h"
#include "lib/fd.h"
#include "lib/str.h"
#include "lib/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#define TLS_MAX		(256 * 1024)
#define HUB_STATE_DIR	"/var/lib/lockhub"
#define HUB_CERT	"/etc/lockhub/cert.pem"	/* in the container */
#define HUB_KEY		"/etc/lockhub/key.pem"

/* The operator's file, whole: a regular file of at most TLS_MAX bytes.
 * NUL-terminated in *out (freed by the caller). The length, or -1. */
static ssize_t
read_small(const char *file, char **out)
{
	struct stat st;
	ssize_t n = -1;
	int fd;

	*out = NULL;
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size <= TLS_MAX) {
		*out = xmalloc(TLS_MAX + 1);
		n = read_full(fd, *out, TLS_MAX + 1);
		if (n > TLS_MAX)
			n = -1;
		if (n >= 0)
			(*out)[n] = '\0';
	}
	if (fd >= 0)
		close(fd);
	return n;
}

/* A passphrase callback that gives none: an encrypted key is refused
 * (lockhub cannot ask for one). */
static int
no_pass(char *buf, int size, int rw, void *u)
{
	(void)buf; (void)size; (void)rw; (void)u;
	return -1;
}

/* The key's text: one PEM private key block and nothing else but line
 * ends, unencrypted, matching cert (the first certificate); out gets it
 * re-encoded as PKCS#8. 0, or -1 with *why. */
static int
parse_key(const char *t, size_t n, X509 *cert, BIO *out, const char **why)
{
	BIO *in = BIO_new_mem_buf(t, (int)n);
	EVP_PKEY *k = NULL;
	char rest[64];
	int got, i, ret = -1;

	*why = "one unencrypted PEM private key and nothing else";
	/* OpenSSL skips text and other blocks before the key: lox does
	 * not, the file starts with the key's block */
	t += strspn(t, "\r\n");
	if (strncmp(t, "-----BEGIN PRIVATE KEY-----", 27) != 0 &&
	    strncmp(t, "-----BEGIN EC PRIVATE KEY-----", 30) != 0 &&
	    strncmp(t, "-----BEGIN RSA PRIVATE KEY-----", 31) != 0) {
		BIO_free(in);
		return -1;
	}
	if (in == NULL)
		return -1;
	k = PEM_read_bio_PrivateKey(in, NULL, no_pass, NULL);
	if (k == NULL)
		goto out;
	while ((got = BIO_read(in, rest, sizeof(rest))) > 0)
		for (i = 0; i < got; i++)
			if (rest[i] != '\n' && rest[i] != '\r')
				goto out;
	if (X509_check_private_key(cert, k) != 1) {
		*why = "not the key of the --tls-cert certificate";
		goto out;
	}
	ret = PEM_write_bio_PKCS8PrivateKey(out, k, NULL, NULL, 0, NULL,
	    NULL) == 1 ? 0 : -1;
out:
	EVP_PKEY_free(k);
	BIO_free(in);
	return ret;
}


/* Check the operator's certificate and key and, when write, keep the
 * re-encoded copies in dir (the key for hub_uid). 0, or -1 after
 * lox_err. */
static int
check_tls(const char *dir, const char *certf, const char *keyf, int write,
    long hub_uid)
{
	char *ct = NULL, *kt = NULL, *cd, *kd;
	const char *why = "not a regular file of at most 256 KiB";
	BIO *co = BIO_new(BIO_s_mem()), *ko = BIO_new(BIO_s_secmem()), *first;
	X509 *x = NULL;
	ssize_t cn, kn;
	long cl, kl;
	int ret = -1;

	if (co == NULL || ko == NULL)
		goto out;
	cn = read_small(certf, &ct);
	if (cn < 0 || lox_pem_certs(ct, (size_t)cn, co, &why) != 0) {
		lox_err("--tls-cert %s: %s (docs/docker.md, \"Hub mode\")",
		    certf, why);
		goto out;
	}
	/* the first certificate, read from a view of the copy (reading co
	 * itself would consume it) */
	cl = BIO_get_mem_data(co, &cd);
	if ((first = BIO_new_mem_buf(cd, (int)cl)) != NULL)
		x = PEM_read_bio_X509(first, NULL, NULL, NULL);
	BIO_free(first);
	why = "not a regular file of at most 256 KiB";
	kn = read_small(keyf, &kt);
	if (x == NULL || kn < 0 || parse_key(kt, (size_t)kn, x, ko, &why) != 0) {
		lox_err("--tls-key %s: %s (docs/docker.md, \"Hub mode\")",
		    keyf, why);
		goto out;
	}
	kl = BIO_get_mem_data(ko, &kd);
	ret = !write ? 0 :
	    lox_write_copy(dir, "lockhub-cert.pem", cd, cl, 0644, -1) != 0 ||
	    lox_write_copy(dir, "lockhub-key.pem", kd, kl, 0600, hub_uid) != 0 ?
	    -1 : 0;
out:
	X509_free(x);
	BIO_free(co);
	BIO_free_all(ko);
	if (kt != NULL)
		OPENSSL_cleanse(kt, (size_t)TLS_MAX);
	free(kt);
	free(ct);
	return ret;
}

/* What every lockhub container gets, between `docker run` and the image
 * (the compose file's hub service says the same). */
static int
hub_flags(const struct lox *l, struct argv *a)
{
	int profile = lox_seccomp_fd();

	if (profile < 0)
		return -1;
	lox_hardened(a, "lockhub", profile, "128", "512m");
	argv_add(a, "--volume");
	argv_addf(a, "lockfile-%s-lockhub-state:%s", l->instance,
	    HUB_STATE_DIR);
	return 0;
}

struct hub_opts {
	const char *image, *cert, *key, *ip, *publish, *poll;
	int init;		/* 1: init, 2: migrate (a one-off, no network) */
};

/* docker run -d ... lockhub serve, and with --publish the network
 * connect after it. */
static int
hub_serve(struct lox *l, const struct hub_opts *o, const char *dir)
{
	struct argv a = { 0 }, c = { 0 };
	char ctr[80];
	int ret = LOX_EX_NOINPUT;

	if (str_fmt(ctr, sizeof(ctr), "lockfile-%s-lockhub", l->instance) !=
	    STR_OK || strpbrk(dir, ",\"") != NULL) {
		lox_err("%s: a path with a comma or a quote cannot be mounted "
		    "(set LOX_HOME)", dir);
		return ret;
	}
	if (!l->dry_run && lox_hub_network(l, &l->hub) != 0)
		return ret;
	argv_add(&a, l->docker);
	argv_add(&a, "run");
	argv_add(&a, "-d");
	argv_add(&a, "--name");
	argv_add(&a, ctr);
	argv_add(&a, "--restart");
	argv_add(&a, "unless-stopped");
	if (hub_flags(l, &a) != 0)
		goto out;
	argv_add(&a, "--mount");
	argv_addf(&a, "type=bind,src=%s/lockhub-cert.pem,dst=%s,readonly", dir,
	    HUB_CERT);
	argv_add(&a, "--mount");
	argv_addf(&a, "type=bind,src=%s/lockhub-key.pem,dst=%s,readonly", dir,
	    HUB_KEY);
	if (o->publish != NULL) {
		/* the default bridge ("front") for the approvers, then the
		 * console's network: docker run takes one network */
		argv_add(&a, "--publish");
		argv_addf(&a, "%s:8443", o->publish);
		argv_add(&c, l->docker);
		argv_add(&c, "network");
		argv_add(&c, "connect");
		if (o->ip != NULL) {
			argv_add(&c, "--ip");
			argv_add(&c, o->ip);
		}
		argv_add(&c, l->hub.network);
		argv_add(&c, ctr);
	} else {
		argv_add(&a, "--network");
		argv_add(&a, l->hub.network);
		if (o->ip != NULL) {
			argv_add(&a, "--ip");
			argv_add(&a, o->ip);
		}
	}
	argv_add(&a, o->image);
	argv_add(&a, "/usr/local/bin/lockhub");
	argv_add(&a, "serve");
	argv_add(&a, "--state");
	argv_add(&a, HUB_STATE_DIR);
	argv_add(&a, "--listen");
	argv_add(&a, "0.0.0.0:8443");
	argv_add(&a, "--tls-cert");
	argv_add(&a, HUB_CERT);
	argv_add(&a, "--tls-key");
	argv_add(&a, HUB_KEY);
	if (o->poll != NULL) {
		argv_add(&a, "--poll-s");
		argv_add(&a, o->poll);
	}
	if (c.n == 0) {
		ret = lox_exec(l, &a);
	} else if (lox_spawn(l, &a) != 0) {
		lox_err("docker run %s failed", ctr);
		ret = LOX_EX_UNAVAILABLE;
	} else {
		ret = lox_exec(l, &c);
	}
out:
	argv_free(&a);
	argv_free(&c);
	return ret;
}

/* --ip and --publish values: digits, dots, colons (IPv4, a port). */
static int
addr_ok(const char *v)
{
	return v[0] != '\0' && strlen(v) < 48 &&
	    strspn(v, "0123456789.:") == strlen(v);
}

static int
hub_args(struct lox *l, int argc, char **argv, struct hub_opts *o)
{
	const char *v;
	int k, r;

	for (k = 1; k < argc; k++) {
		if ((r = lox_opt(argc, argv, &k, "--instance", &v)) != 0) {
			if (r < 0 || lox_set_instance(l, v) != 0)
				return -1;
		} else if ((r = lox_opt(argc, argv, &k, "--image", &v)) != 0) {
			if (r < 0 || lox_check_image(v) != 0)
				return -1;
			o->image = v;
		} else if ((r = lox_opt(argc, argv, &k, "--tls-cert", &v)) != 0) {
			if (r < 0)
				return -1;
			o->cert = v;
		} else if ((r = lox_opt(argc, argv, &k, "--tls-key", &v)) != 0) {
			if (r < 0)
				return -1;
			o->key = v;
		} else if ((r = lox_opt(argc, argv, &k, "--ip", &v)) != 0) {
			if (r < 0 || !addr_ok(v) || strchr(v, ':') != NULL)
				goto bad;
			o->ip = v;
		} else if ((r = lox_opt(argc, argv, &k, "--publish", &v)) != 0) {
			if (r < 0 || !addr_ok(v))
				goto bad;
			o->publish = v;
		} else if ((r = lox_opt(argc, argv, &k, "--poll-s", &v)) != 0) {
			if (r < 0 || v[0] == '\0' || strlen(v) > 3 ||
			    strspn(v, "0123456789") != strlen(v))
				goto bad;
			o->poll = v;
		} else if (strcmp(argv[k], "init") == 0 && k == argc - 1) {
			o->init = 1;
		} else if (strcmp(argv[k], "migrate") == 0 && k == argc - 1) {
			o->init = 2;	/* docs/hub.md, "Schema migrations" */
		} else {
			goto bad;
		}
	}
	if (l->instance[0] == '\0' || (o->init && (o->cert != NULL ||
	    o->key != NULL || o->ip != NULL || o->publish != NULL ||
	    o->poll != NULL)) || (!o->init && (o->cert == NULL ||
	    o->key == NULL)))
		goto bad;
	return 0;
bad:
	lox_err("lox hub-run --instance NAME [--image IMAGE] init|migrate | "
	    "--tls-cert FILE --tls-key FILE [--ip ADDR] [--publish "
	    "[HOSTADDR:]PORT] [--poll-s N] (see lox hub-run --help)");
	return -1;
}

int
cmd_hub_run(struct lox *l, int argc, char **argv)
{
	struct hub_opts o = { 0 };
	struct argv a = { 0 };
	char id[LOX_IMAGE_ID_MAX], dir[PATH_MAX];
	unsigned long uid = 0;
	int ret;

	if (hub_args(l, argc, argv, &o) != 0)
		return LOX_EX_USAGE;
	if (o.image == NULL) {
		if (lox_image("hub", id, sizeof(id)) != 0)
			return LOX_EX_NOINPUT;
		o.image = id;
	}
	if (str_fmt(l->hub.network, sizeof(l->hub.network), "lockfile-%s-hub",
	    l->instance) != STR_OK)
		return LOX_EX_USAGE;
	if (o.init) {
		/* lockhub init prints the hub key, migrate the schema's
		 * versions; no network at all */
		argv_add(&a, l->docker);
		argv_add(&a, "run");
		argv_add(&a, "--rm");
		ret = LOX_EX_NOINPUT;
		if (hub_flags(l, &a) == 0) {
			argv_add(&a, "--network");
			argv_add(&a, "none");
			argv_add(&a, o.image);
			argv_add(&a, "/usr/local/bin/lockhub");
			argv_add(&a, o.init == 2 ? "migrate" : "init");
			argv_add(&a, "--state");
			argv_add(&a, HUB_STATE_DIR);
			ret = lox_exec(l, &a);
		}
		argv_free(&a);
		return ret;
	}
	if (!l->dry_run && lox_image_uid(l, o.image, LOX_HUB_UID_LABEL,
	    &uid) != 0) {
		lox_err("the image %s has no %s label (docker/build-images.sh "
		    "--hub builds it)", o.image, LOX_HUB_UID_LABEL);
		return LOX_EX_NOINPUT;
	}
	if (lox_instance_dir(l, dir, sizeof(dir), !l->dry_run) < 0 ||
	    check_tls(dir, o.cert, o.key, !l->dry_run, (long)uid) != 0)
		return LOX_EX_NOINPUT;
	return hub_serve(l, &o, dir);
}
