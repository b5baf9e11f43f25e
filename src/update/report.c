/* doctor's "launcher" line (see update.h): which release this binary is,
 * checked now rather than taken from the record. It runs as the console
 * account, which can read the root-owned record and trust configuration
 * but change neither. */
#include "config.h"
#include "update/update.h"
#include "update/state.h"
#include "store/trust.h"
#include "lib/crypto.h"
#include "lib/fd.h"
#include "lib/str.h"
#include "lib/sysconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The SHA-256 of dirfd/name (a root-owned regular file), 0 or -1. */
static int
hash_at(int dirfd, const char *name, uint8_t sha[SHA256_LEN])
{
	int fd = openat(dirfd, name, OPEN_RO_SAFE | O_NONBLOCK), ret = -1;

	if (fd < 0)
		return -1;
	if (check_fd_owner_mode(fd, 0, 1) == 0 && sha256_fd_pread(fd, sha) == 0)
		ret = 0;
	close(fd);
	return ret;
}

/* Every installed artifact of the manifest that is present under the
 * prefix has its SHA-256; this binary (lockfile-console, which runs
 * doctor) is the manifest's artifact of its name, and every executable of
 * a role (paths.h) is in the manifest: a release that left one out would
 * leave an older one running beside the new. */
static int
check_files(const struct upd_dirs *d, const struct relman *m, int selffd,
    const char *self, char *bad, size_t badlen)
{
	uint8_t sha[SHA256_LEN];
	const struct relart *me = relman_find(m, self);
	const char *missing = relman_missing_exe(m);
	size_t i;

	if (me == NULL || me->kind != RELART_BIN ||
	    sha256_fd_pread(selffd, sha) != 0 ||
	    !ct_equal(sha, me->sha256, SHA256_LEN)) {
		str_msg(bad, badlen, "this binary is not the %s the signed "
		    "manifest names", self);
		return -1;
	}
	if (missing != NULL) {
		str_msg(bad, badlen, "the signed manifest names no bin %s",
		    missing);
		return -1;
	}
	for (i = 0; i < m->n; i++) {
		const struct relart *a = &m->a[i];
		if (!relart_installed(a) || strcmp(a->name, self) == 0)
			continue;
		if (hash_at(upd_dir_for(d, a), a->name, sha) != 0) {
			if (errno == ENOENT)
				continue;	/* not installed here */
			str_msg(bad, badlen, "%s cannot be read safely",
			    a->name);
			return -1;
		}
		if (!ct_equal(sha, a->sha256, SHA256_LEN)) {
			str_msg(bad, badlen, "%s is not the file the signed "
			    "manifest names", a->name);
			return -1;
		}
	}
	return 0;
}

int
update_report(char *detail, size_t len)
{
	char exe[PATH_MAX], prefix[PATH_MAX], why[512], bad[160], *slash;
	struct upd_dirs d = { -1, -1, -1, -1 };
	struct upd_record rec;
	struct trust t;
	const char *rwhy;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int selffd = -1, ok = 0;

	memset(&rec, 0, sizeof(rec));
	memset(&t, 0, sizeof(t));
	if (n <= 0) {
		str_msg(detail, len, "/proc/self/exe cannot be read");
		return 0;
	}
	exe[n] = '\0';
	if (str_fmt(prefix, sizeof(prefix), "%s", exe) != STR_OK)
		prefix[0] = '\0';
	slash = strrchr(prefix, '/');
	if (slash != NULL && slash - prefix >= 4 &&
	    strncmp(slash - 4, "/bin", 4) == 0)
		slash[-4] = '\0';
	else
		prefix[0] = '\0';
	if (prefix[0] == '\0') {
		str_msg(detail, len, "lockfile %s, a build: not installed "
		    "from a signed release (not in a bin/ directory)",
		    LOCKFILE_VERSION);
		ok = 1;
		goto out;
	}
	if (upd_dirs_open(prefix, 0, &d) != UPD_FILES_OK) {
		/* No layout and no record: a build (make build, meson
		 * install). A record in a layout that is not root's is not
		 * trusted. */
		struct stat st;
		char p[PATH_MAX + 64];
		ok = str_fmt(p, sizeof(p), "%s/lib/lockfile/%s/%s", prefix,
		    UPD_RELEASE_DIR, RELMAN_FILE) == STR_OK &&
		    lstat(p, &st) != 0 && errno == ENOENT;
		str_msg(detail, len, ok ? "lockfile %s, a build: not installed "
		    "from a signed release (no lib/lockfile/release/release.json "
		    "beside its bin/)" : "lockfile %s: a release record exists, "
		    "but bin/, share/lockfile/ and lib/lockfile/ are not all "
		    "root's directories closed to writes", LOCKFILE_VERSION);
		goto out;
	}
	if (upd_record_load(d.lib, UPD_RELEASE_DIR, &rec, &rwhy) !=
	    UPD_FILES_OK) {
		str_msg(detail, len, "lockfile %s: the release record under "
		    "lib/lockfile/%s is unusable: %s", LOCKFILE_VERSION,
		    UPD_RELEASE_DIR, rwhy ? rwhy : "unreadable");
		goto out;
	}
	if (!rec.present) {
		str_msg(detail, len, "lockfile %s, a build: not installed "
		    "from a signed release (no lib/lockfile/release/release.json "
		    "beside its bin/)", LOCKFILE_VERSION);
		ok = 1;
		goto out;
	}
	if (trust_load(&t, why, sizeof(why)) != 0) {
		str_msg(detail, len, "%s recorded, but the trust configuration "
		    "cannot check it: %s", rec.m.tag, why);
		goto out;
	}
	if (strcmp(t.release_repo, rec.m.repo) != 0) {
		str_msg(detail, len, "%s recorded for repository %s, not the "
		    "release_repository of trust.toml", rec.m.tag, rec.m.repo);
		goto out;
	}
	if (upd_verify(&t, rec.m.tag, rec.m.sha256, (const uint8_t *)rec.bundle,
	    rec.blen, why, sizeof(why)) != UPD_VERIFIED) {
		str_msg(detail, len, "%s recorded, but its manifest does not "
		    "verify: %s", rec.m.tag, why);
		goto out;
	}
	selffd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (selffd < 0 || check_files(&d, &rec.m, selffd,
	    strrchr(exe, '/') + 1, bad, sizeof(bad)) != 0) {
		str_msg(detail, len, "%s recorded, but %s", rec.m.tag,
		    selffd < 0 ? "this binary cannot be read" : bad);
		goto out;
	}
	str_msg(detail, len, "%s (commit %.12s, %s), installed by %s; its "
	    "signed manifest verifies now and names this binary and the "
	    "files beside it", rec.m.tag, rec.m.commit, rec.m.repo,
	    rec.by == UPD_BY_UPDATE ? "lockfile update (every bundle "
	    "verified)" : "install.sh (every sha256 pinned by the script)");
	ok = 1;
out:
	if (selffd >= 0)
		close(selffd);
	if (t.root != NULL)
		trust_free(&t);
	upd_record_free(&rec);
	upd_dirs_close(&d);
	return ok;
}
