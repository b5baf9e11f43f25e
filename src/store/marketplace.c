/* Fetching and checking a marketplace's index and plugins (see
 * marketplace.h). */
#include "store/marketplace.h"
#include "store/fetch.h"
#include "sandbox/sandbox.h"
#include "lib/buf.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/paths.h"
#include "lib/str.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct lock_index *
recorded_index(const struct lockdb *db, const char *market)
{
	size_t i;

	for (i = 0; i < db->nidx; i++)
		if (strcmp(db->idx[i].marketplace, market) == 0)
			return &db->idx[i];
	return NULL;
}

/* Fetch m's index and its bundle, parse the index strictly and check that
 * it names m's repository. 0 with *ix filled and *bundle kept (buf_free
 * it), or -1 with why. */
static int
index_and_bundle(const struct market_conf *m, struct mindex *ix,
    struct buf **bundle, char *why, size_t whylen)
{
	struct buf *data = buf_new(INDEX_MAX_BYTES);
	char fwhy[256];
	const char *pwhy;
	int ret = -1;

	memset(ix, 0, sizeof(*ix));
	*bundle = buf_new(MK_BUNDLE_MAX);
	if (fetch_to_buf(m->url, LF_MARKET_INDEX, data, fwhy, sizeof(fwhy)) != 0) {
		str_msg(why, whylen, "%s: %s", LF_MARKET_INDEX, fwhy);
		goto out;
	}
	if (fetch_to_buf(m->url, LF_MARKET_INDEX LF_BUNDLE_SUFFIX, *bundle, fwhy,
	    sizeof(fwhy)) != 0) {
		str_msg(why, whylen, "%s: %s", LF_MARKET_INDEX LF_BUNDLE_SUFFIX, fwhy);
		goto out;
	}
	if (index_parse(buf_str(data), buf_len(data), ix, &pwhy) != 0) {
		str_msg(why, whylen, "%s refused: %s", LF_MARKET_INDEX, pwhy);
		goto out;
	}
	if (strcmp(ix->repo, m->repo) != 0) {
		str_msg(why, whylen, "%s names another repository than the "
		    "marketplace's", LF_MARKET_INDEX);
		index_free(ix);
		goto out;
	}
	ret = 0;
out:
	buf_free(data);
	if (ret != 0) {
		buf_free(*bundle);
		*bundle = NULL;
	}
	return ret;
}

int
market_identity(const struct trust *t, const struct market_conf *m,
    unsigned long long *version, char *repo_id, char *owner_id, char *why,
    size_t whylen)
{
	struct buf *bundle;
	struct mindex ix;
	char tag[TAG_MAX];
	int ret = -1;

	repo_id[0] = owner_id[0] = '\0';
	if (index_and_bundle(m, &ix, &bundle, why, whylen) != 0)
		return -1;
	*version = ix.version;
	if (index_tag(ix.version, tag, sizeof(tag)) == 0 &&
	    trust_verify_names(t, m, tag, ix.sha256, buf_data(bundle),
	    buf_len(bundle), repo_id, owner_id, why, whylen) == 0)
		ret = 0;
	index_free(&ix);
	buf_free(bundle);
	return ret;
}

int
market_fetch_index(const struct trust *t, const struct market_conf *m,
    const struct lockdb *db, time_t now, struct mindex *ix, char *why,
    size_t whylen)
{
	struct buf *bundle = NULL;
	const struct lock_index *rec;
	char tag[TAG_MAX];
	int ret = -1;

	if (index_and_bundle(m, ix, &bundle, why, whylen) != 0)
		return -1;
	if (index_tag(ix->version, tag, sizeof(tag)) != 0 ||
	    trust_verify(t, m, tag, ix->sha256, buf_data(bundle),
	    buf_len(bundle), why, whylen) != 0)
		goto fail;
	/* Freeze: an index past its expiry may hide a yank. */
	if ((long long)now >= ix->expires) {
		str_msg(why, whylen, "index version %llu expired (a frozen "
		    "marketplace is refused)", ix->version);
		goto fail;
	}
	/* A floor root pinned: the first index a fresh store reads is not
	 * taken on trust alone (docs/marketplace.md, residuals). */
	if (ix->version < m->index_floor) {
		str_msg(why, whylen, "index version %llu is below the floor "
		    "%llu trust.toml pins (rollback refused)", ix->version,
		    m->index_floor);
		goto fail;
	}
	rec = recorded_index(db, m->name);
	if (rec != NULL && ix->version < rec->version) {
		str_msg(why, whylen, "index version %llu is older than version "
		    "%llu recorded in plugins.lock (rollback refused)",
		    ix->version, rec->version);
		goto fail;
	}
	if (rec != NULL && ix->version == rec->version &&
	    !ct_equal(ix->sha256, rec->sha256, SHA256_LEN)) {
		str_msg(why, whylen, "index version %llu differs from the one "
		    "recorded with that version (refused)", ix->version);
		goto fail;
	}
	ret = 0;
	goto out;
fail:
	index_free(ix);
out:
	buf_free(bundle);
	return ret;
}

/* Read a whole small regular file of dirfd (not a symlink). */
static struct buf *
read_small(int dirfd, const char *name, size_t max, char *why, size_t whylen)
{
	char chunk[4096];
	struct stat st;
	struct buf *b;
	ssize_t n;
	int fd;

	fd = openat(dirfd, name, OPEN_RO_SAFE | O_NONBLOCK);
	if (fd < 0) {
		str_msg(why, whylen, "%s: %s", name, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
	    (unsigned long long)st.st_size > max) {
		str_msg(why, whylen, "%s: not a regular file within its limit",
		    name);
		close(fd);
		return NULL;
	}
	b = buf_new(max);
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || buf_append(b, chunk, (size_t)n) != 0)
			break;
	}
	close(fd);
	if (n != 0) {
		str_msg(why, whylen, "%s: cannot be read whole", name);
		buf_free(b);
		return NULL;
	}
	return b;
}

int
market_check_plugin(const struct trust *t, const struct market_conf *mk,
    const char *name, const char *version,
    const uint8_t manifest_sha256[SHA256_LEN],
    const uint8_t binary_sha256[SHA256_LEN], int dirfd, struct manifest *m,
    char *why, size_t whylen)
{
	struct buf *man = NULL, *mb = NULL, *bb = NULL;
	char tag[TAG_MAX], sub[256];
	uint8_t h[SHA256_LEN];
	const char *pwhy;
	struct stat st;
	int binfd = -1, ret = -1;

	memset(m, 0, sizeof(*m));
	if (plugin_tag(name, version, tag, sizeof(tag)) != 0) {
		str_msg(why, whylen, "invalid plugin name or version");
		return -1;
	}
	if ((man = read_small(dirfd, LF_PLUGIN_MANIFEST, MANIFEST_MAX_BYTES - 1, why,
	    whylen)) == NULL ||
	    (mb = read_small(dirfd, LF_PLUGIN_MANIFEST LF_BUNDLE_SUFFIX, MK_BUNDLE_MAX, why,
	    whylen)) == NULL ||
	    (bb = read_small(dirfd, LF_PLUGIN_BINARY LF_BUNDLE_SUFFIX, MK_BUNDLE_MAX, why,
	    whylen)) == NULL)
		goto out;
	sha256_mem(buf_data(man), buf_len(man), h);
	if (trust_verify(t, mk, tag, h, buf_data(mb), buf_len(mb), sub,
	    sizeof(sub)) != 0) {
		str_msg(why, whylen, "manifest %s", sub);
		goto out;
	}
	if (!ct_equal(h, manifest_sha256, SHA256_LEN)) {
		str_msg(why, whylen, "manifest hash differs from the one the "
		    "index names");
		goto out;
	}
	if (manifest_parse(buf_str(man), buf_len(man), m, &pwhy) != 0) {
		str_msg(why, whylen, "manifest refused: %s", pwhy);
		goto out;
	}
	if (strcmp(m->name, name) != 0 || strcmp(m->version, version) != 0) {
		str_msg(why, whylen, "manifest names another plugin or version");
		goto out;
	}
	if (!ct_equal(m->binary_sha256, binary_sha256, SHA256_LEN)) {
		str_msg(why, whylen, "manifest binary_sha256 differs from the "
		    "index's");
		goto out;
	}
	binfd = openat(dirfd, LF_PLUGIN_BINARY, OPEN_RO_SAFE | O_NONBLOCK);
	if (binfd < 0 || fstat(binfd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < 0 || (unsigned long long)st.st_size > MK_BINARY_MAX) {
		str_msg(why, whylen, "binary missing, not a regular file or "
		    "over its limit");
		goto out;
	}
	if (sha256_fd_pread(binfd, h) != 0) {
		str_msg(why, whylen, "binary cannot be read");
		goto out;
	}
	if (trust_verify(t, mk, tag, h, buf_data(bb), buf_len(bb), sub,
	    sizeof(sub)) != 0) {
		str_msg(why, whylen, "binary %s", sub);
		goto out;
	}
	if (!ct_equal(h, binary_sha256, SHA256_LEN)) {
		str_msg(why, whylen, "binary hash differs from the one the "
		    "index names");
		goto out;
	}
	if (elf_check_static(binfd, &pwhy) != 0) {
		str_msg(why, whylen, "binary refused: %s", pwhy);
		goto out;
	}
	ret = 0;
out:
	if (binfd >= 0)
		close(binfd);
	buf_free(man);
	buf_free(mb);
	buf_free(bb);
	if (ret != 0)
		memset(m, 0, sizeof(*m));
	return ret;
}

int
market_read_manifest(int dirfd, const uint8_t manifest_sha256[SHA256_LEN],
    struct manifest *m, char *why, size_t whylen)
{
	struct buf *b = read_small(dirfd, LF_PLUGIN_MANIFEST, MANIFEST_MAX_BYTES - 1,
	    why, whylen);
	uint8_t h[SHA256_LEN];
	const char *pwhy;
	int ret = -1;

	memset(m, 0, sizeof(*m));
	if (b == NULL)
		return -1;
	sha256_mem(buf_data(b), buf_len(b), h);
	if (!ct_equal(h, manifest_sha256, SHA256_LEN))
		str_msg(why, whylen, "installed manifest differs from "
		    "plugins.lock");
	else if (manifest_parse(buf_str(b), buf_len(b), m, &pwhy) != 0)
		str_msg(why, whylen, "installed manifest refused: %s", pwhy);
	else
		ret = 0;
	buf_free(b);
	return ret;
}

static int
fetch_one(const struct market_conf *m, const char *dir, const char *file,
    size_t max, mode_t mode, int dirfd, char *why, size_t whylen)
{
	char rel[256], fwhy[256];
	int fd, ret = -1;

	if (str_fmt(rel, sizeof(rel), "%s/%s", dir, file) != STR_OK) {
		str_msg(why, whylen, "name too long");
		return -1;
	}
	fd = openat(dirfd, file, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd < 0) {
		str_msg(why, whylen, "cannot create %s: %s", file,
		    strerror(errno));
		return -1;
	}
	if (fetch_to_fd(m->url, rel, max, fd, fwhy, sizeof(fwhy)) != 0) {
		str_msg(why, whylen, "%s: %s", rel, fwhy);
		goto out;
	}
	if (fchmod(fd, mode) != 0 || fsync(fd) != 0) {
		str_msg(why, whylen, "cannot store %s: %s", file,
		    strerror(errno));
		goto out;
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

int
market_fetch_plugin(const struct trust *t, const struct market_conf *m,
    const struct index_entry *e, int dirfd, struct manifest *man, char *why,
    size_t whylen)
{
	char dir[128];

	if (str_fmt(dir, sizeof(dir), "plugins/%s/%s", e->name, e->version) !=
	    STR_OK) {
		str_msg(why, whylen, "name too long");
		return -1;
	}
	if (fetch_one(m, dir, LF_PLUGIN_MANIFEST, MANIFEST_MAX_BYTES - 1, 0400, dirfd,
	    why, whylen) != 0 ||
	    fetch_one(m, dir, LF_PLUGIN_MANIFEST LF_BUNDLE_SUFFIX, MK_BUNDLE_MAX, 0400, dirfd,
	    why, whylen) != 0 ||
	    fetch_one(m, dir, LF_PLUGIN_BINARY, MK_BINARY_MAX, 0500, dirfd, why,
	    whylen) != 0 ||
	    fetch_one(m, dir, LF_PLUGIN_BINARY LF_BUNDLE_SUFFIX, MK_BUNDLE_MAX, 0400, dirfd, why,
	    whylen) != 0)
		return -1;
	if (fsync(dirfd) != 0) {
		str_msg(why, whylen, "cannot sync the download: %s",
		    strerror(errno));
		return -1;
	}
	return market_check_plugin(t, m, e->name, e->version,
	    e->manifest_sha256, e->binary_sha256, dirfd, man, why, whylen);
}
