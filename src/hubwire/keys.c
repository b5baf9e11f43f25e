/* Key files, key text and fingerprints (see keys.h). */
#include "hubwire/keys.h"
#include "hubwire/wire.h"
#include "lib/crypto.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/str.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#define KEYFILE_MAX	256
#define FP_DOMAIN	"lockhub/fp/v1"

static void
init_sodium(void)
{
	if (sodium_init() < 0)
		fatal("libsodium cannot be initialised");
}

static void
alloc_sk(struct hw_keypair *kp)
{
	kp->sk = sodium_malloc(crypto_sign_SECRETKEYBYTES);
	if (kp->sk == NULL)
		fatal("out of locked memory");
}

void
hw_key_generate(struct hw_keypair *kp)
{
	init_sodium();
	alloc_sk(kp);
	crypto_sign_keypair(kp->pk, kp->sk);
}

void
hw_key_from_seed(struct hw_keypair *kp, const uint8_t seed[32])
{
	init_sodium();
	alloc_sk(kp);
	crypto_sign_seed_keypair(kp->pk, kp->sk, seed);
}

void
hw_key_free(struct hw_keypair *kp)
{
	if (kp->sk != NULL)
		sodium_free(kp->sk);
	kp->sk = NULL;
	memset(kp->pk, 0, sizeof(kp->pk));
}

const char *
hw_key_err_text(enum hw_key_err e)
{
	switch (e) {
	case HW_KEY_OK: return "ok";
	case HW_KEY_MISSING: return "no key file";
	case HW_KEY_EXISTS: return "a key file is already there";
	case HW_KEY_UNSAFE: return "the key file is a symlink, another "
	    "account's, or open to group or others";
	case HW_KEY_BAD: return "not a key file of this role";
	case HW_KEY_IO: return "the key file cannot be read or written";
	}
	return "unknown";
}

/* The file: SECKEY magic, version 1, role (1 byte), the 32-byte seed and
 * the public key (checked against the seed on load). */
enum hw_key_err
hw_key_save(const char *path, enum hw_role role, const struct hw_keypair *kp)
{
	char tmp[4096 + 16], dir[4096];
	struct hw_writer w;
	struct buf *b;
	const char *slash;
	int fd, dfd, rc;

	if (access(path, F_OK) == 0)
		return HW_KEY_EXISTS;
	if (errno != ENOENT)
		return HW_KEY_IO;
	if (str_fmt(tmp, sizeof(tmp), "%s.tmp", path) != STR_OK)
		return HW_KEY_IO;
	hw_writer_init(&w, KEYFILE_MAX);
	hw_put_header(&w, HW_MAGIC_SECKEY, 1);
	hw_put_u8(&w, (uint8_t)role);
	/* libsodium's secret key is seed || public key. */
	hw_put_field(&w, kp->sk, 32);
	hw_put_field(&w, kp->pk, 32);
	if (hw_writer_done(&w, &b) != HW_OK)
		return HW_KEY_IO;
	(void)unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		buf_free(b);
		return HW_KEY_IO;
	}
	rc = write_full(fd, buf_data(b), buf_len(b)) != 0 || fsync(fd) != 0;
	buf_free(b);
	if (close(fd) != 0 || rc) {
		(void)unlink(tmp);
		return HW_KEY_IO;
	}
	/* RENAME_NOREPLACE fails on an existing target: two writers cannot
	 * both win. Not link(): the shipped container profile refuses it, and
	 * lockhub init and lockfile hub-key run under it (docs/docker.md,
	 * "Hub mode"). */
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) != 0) {
		int err = errno;
		(void)unlink(tmp);
		return err == EEXIST ? HW_KEY_EXISTS : HW_KEY_IO;
	}
	slash = strrchr(path, '/');
	if (str_fmt(dir, sizeof(dir), "%.*s", slash == NULL ? 1 :
	    (int)(slash - path == 0 ? 1 : slash - path),
	    slash == NULL ? "." : path) != STR_OK)
		return HW_KEY_IO;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd) != 0) {
		if (dfd >= 0)
			close(dfd);
		return HW_KEY_IO;
	}
	close(dfd);
	return HW_KEY_OK;
}

enum hw_key_err
hw_key_load(const char *path, enum hw_role role, struct hw_keypair *kp)
{
	struct hw_reader r;
	struct stat st;
	uint8_t *raw, seed[32], pk[32], rl;
	ssize_t n;
	enum hw_key_err ret = HW_KEY_BAD;
	int fd;

	memset(kp, 0, sizeof(*kp));
	init_sodium();
	fd = open(path, OPEN_RO_SAFE);
	if (fd < 0)
		return errno == ENOENT ? HW_KEY_MISSING :
		    errno == ELOOP ? HW_KEY_UNSAFE : HW_KEY_IO;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return HW_KEY_IO;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		close(fd);
		return HW_KEY_UNSAFE;
	}
	raw = sodium_malloc(KEYFILE_MAX + 1);
	if (raw == NULL)
		fatal("out of locked memory");
	n = read_full(fd, raw, KEYFILE_MAX + 1);
	close(fd);
	if (n < 0) {
		sodium_free(raw);
		return HW_KEY_IO;
	}
	hw_reader_init(&r, raw, (size_t)n);
	if (n <= KEYFILE_MAX &&
	    hw_get_header(&r, HW_MAGIC_SECKEY, 1) == HW_OK &&
	    hw_get_u8(&r, 255, &rl) == HW_OK && rl == (uint8_t)role &&
	    hw_get_fixed(&r, seed, 32) == HW_OK &&
	    hw_get_fixed(&r, pk, 32) == HW_OK && hw_end(&r) == HW_OK) {
		hw_key_from_seed(kp, seed);
		if (sodium_memcmp(kp->pk, pk, 32) == 0)
			ret = HW_KEY_OK;
		else
			hw_key_free(kp);
	}
	sodium_memzero(seed, sizeof(seed));
	sodium_free(raw);
	return ret;
}

void
hw_key_text(const uint8_t pk[32], char out[HW_KEY_TEXT_LEN + 1])
{
	memcpy(out, "ed25519:", 8);
	hex_encode(pk, 32, out + 8);
}

int
hw_key_parse_text(const char *s, uint8_t pk[32])
{
	if (strlen(s) != HW_KEY_TEXT_LEN || memcmp(s, "ed25519:", 8) != 0 ||
	    !is_lower_hex(s + 8, 64))
		return -1;
	return hex_decode(s + 8, pk, 32);
}

void
hw_fingerprint(const uint8_t pk[32], char out[HW_FP_LEN + 1])
{
	uint8_t in[sizeof(FP_DOMAIN) - 1 + 32], h[16];
	char hex[33];
	size_t i, o = 0;

	memcpy(in, FP_DOMAIN, sizeof(FP_DOMAIN) - 1);
	memcpy(in + sizeof(FP_DOMAIN) - 1, pk, 32);
	crypto_generichash(h, sizeof(h), in, sizeof(in), NULL, 0);
	hex_encode(h, sizeof(h), hex);
	for (i = 0; i < 32; i++) {
		if (i > 0 && i % 4 == 0)
			out[o++] = '-';
		out[o++] = hex[i];
	}
	out[o] = '\0';
}
