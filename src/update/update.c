/* lockfile update and --rollback (see update.h, docs/releases.md). */
#include "config.h"
#include "update/update.h"
#include "update/state.h"
#include "store/fetch.h"
#include "store/trust.h"
#include "lib/buf.h"
#include "lib/crypto.h"
#include "lib/fd.h"
#include "lib/str.h"
#include "lib/log.h"
#include "lib/paths.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOCK_FILE ".lock"

/* One file on its way into bin/ or share/: a complete, checked temporary
 * file in the destination directory, renamed over the target at commit. */
struct staged {
	char name[RELMAN_NAME_MAX + 1];
	int kind;		/* RELART_BIN or RELART_SHARE */
	int dirfd;		/* borrowed from struct upd_dirs */
	int fd;
	char tmp[160];
};

struct run {
	struct upd_dirs d;
	int lockfd;
	struct trust t;
	int have_trust;
	struct upd_record cur;		/* release/ */
	char base[TRUST_URL_MAX + 32];
	struct fetch_opts fo;
	size_t n;
	struct staged s[RELMAN_MAX_ARTIFACTS];
};

static void
run_init(struct run *r)
{
	memset(r, 0, sizeof(*r));
	r->d.prefix = r->d.bin = r->d.share = r->d.lib = -1;
	r->lockfd = -1;
}

/* Remove what was staged (a refusal, or after a rollback copy). */
static void
unstage(struct run *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (r->s[i].fd >= 0)
			close(r->s[i].fd);
		if (r->s[i].tmp[0] != '\0')
			(void)unlinkat(r->s[i].dirfd, r->s[i].tmp, 0);
	}
	r->n = 0;
}

static void
run_end(struct run *r)
{
	unstage(r);
	if (r->d.lib >= 0)
		upd_rm_tree(r->d.lib, UPD_ROLLBACK_NEW);
	upd_record_free(&r->cur);
	if (r->have_trust)
		trust_free(&r->t);
	if (r->lockfd >= 0)
		close(r->lockfd);
	upd_dirs_close(&r->d);
}

static const char *
files_why(enum upd_files_status st)
{
	switch (st) {
	case UPD_FILES_MISSING: return "missing";
	case UPD_FILES_UNSAFE: return "not root's, or writable by group or "
	    "others (here or in a directory above)";
	case UPD_FILES_INVALID: return "not a valid record";
	default: return strerror(errno);
	}
}

enum layout { LAYOUT_MAKE, LAYOUT_MAY_BE_MISSING, LAYOUT_MUST_EXIST };

/* Root only, the layout opened (and made) safely, one update at a time,
 * leftovers of an interrupted run removed, the installed record read. A
 * missing layout is "nothing installed" for --check. */
static enum upd_status
run_begin(struct run *r, const char *prefix, enum layout lay)
{
	enum upd_files_status st;
	const char *why;
	int fd;

	if (getuid() != 0 || geteuid() != 0) {
		logit("run lockfile update as root (it replaces root's files)");
		return UPD_CANNOT;
	}
	st = upd_dirs_open(prefix, lay == LAYOUT_MAKE, &r->d);
	if (st == UPD_FILES_MISSING && lay == LAYOUT_MAY_BE_MISSING)
		return UPD_OK;
	if (st != UPD_FILES_OK) {
		logit("%s (or its bin, share/lockfile, lib/lockfile): %s",
		    prefix, files_why(st));
		return UPD_CANNOT;
	}
	r->lockfd = openat(r->d.lib, LOCK_FILE, O_RDWR | O_CREAT | O_CLOEXEC |
	    O_NOFOLLOW, 0600);
	if (r->lockfd < 0 || check_fd_owner_mode(r->lockfd, 0, 1) != 0) {
		logit("%s/lib/lockfile/%s: cannot open it safely", prefix,
		    LOCK_FILE);
		return UPD_CANNOT;
	}
	if (flock(r->lockfd, LOCK_EX | LOCK_NB) != 0) {
		logit("another lockfile update is running on %s", prefix);
		return UPD_CANNOT;
	}
	upd_sweep(r->d.bin);
	upd_sweep(r->d.share);
	upd_sweep(r->d.lib);
	if (upd_subdir(r->d.lib, UPD_RELEASE_DIR, 0, &fd) == UPD_FILES_OK) {
		upd_sweep(fd);
		close(fd);
	}
	upd_rm_tree(r->d.lib, UPD_ROLLBACK_NEW);
	st = upd_record_load(r->d.lib, UPD_RELEASE_DIR, &r->cur, &why);
	if (st != UPD_FILES_OK) {
		logit("the installed release record (%s/lib/lockfile/%s): %s",
		    prefix, UPD_RELEASE_DIR, why ? why : files_why(st));
		return UPD_CANNOT;
	}
	return UPD_OK;
}

/* ---- fetching and verifying ---- */

static int
verify(struct run *r, const struct relman *m, const char *what,
    const uint8_t sha[SHA256_LEN], const struct buf *bundle)
{
	char why[256];

	if (upd_verify(&r->t, m->tag, sha, buf_data(bundle), buf_len(bundle),
	    why, sizeof(why)) != UPD_VERIFIED) {
		logit("refused: %s: %s", what, why);
		return -1;
	}
	return 0;
}

static int
fetch_bundle(struct run *r, const char *dir, const char *name,
    struct buf *b)
{
	char rel[TAG_MAX + RELMAN_NAME_MAX + 64], why[512];

	if (str_fmt(rel, sizeof(rel), "%s%s" LF_BUNDLE_SUFFIX, dir, name) !=
	    STR_OK) {
		logit("refused: %s: the name is too long", name);
		return -1;
	}
	if (fetch_to_buf_opts(r->base, rel, b, &r->fo, why, sizeof(why)) != 0) {
		logit("refused: %s.sigstore.json (the signature of %s): %s",
		    name, name, why);
		return -1;
	}
	return 0;
}

/* The manifest of tag (or of the latest release), its bundle verified for
 * the tag it names, which must be the one asked for. */
static enum upd_status
fetch_manifest(struct run *r, const char *tag, struct relman *m,
    struct buf *mb, struct buf *bb, int check_sig)
{
	char dir[TAG_MAX + 32], rel[TAG_MAX + 64], why[512];
	const char *pwhy, *missing;

	/* tag is a checked vX.Y.Z: these fit. */
	if (str_fmt(dir, sizeof(dir), "%s%s%s", tag != NULL ? "download/" :
	    "latest/download/", tag != NULL ? tag : "", tag != NULL ? "/" :
	    "") != STR_OK ||
	    str_fmt(rel, sizeof(rel), "%s%s", dir, RELMAN_FILE) != STR_OK)
		fatal("release path too long");
	if (fetch_to_buf_opts(r->base, rel, mb, &r->fo, why, sizeof(why)) != 0) {
		logit("refused: %s (the release manifest): %s", RELMAN_FILE,
		    why);
		return UPD_REFUSED;
	}
	if (fetch_bundle(r, dir, RELMAN_FILE, bb) != 0)
		return UPD_REFUSED;
	if (relman_parse(buf_str(mb), buf_len(mb), m, &pwhy) != RELMAN_OK) {
		logit("refused: %s: %s", RELMAN_FILE, pwhy);
		return UPD_REFUSED;
	}
	if (strcmp(m->repo, r->t.release_repo) != 0) {
		logit("refused: the release manifest is for repository %s, not "
		    "the release_repository of trust.toml (%s)", m->repo,
		    r->t.release_repo);
		return UPD_REFUSED;
	}
	if (tag != NULL && strcmp(m->tag, tag) != 0) {
		logit("refused: asked for %s, the release manifest is %s's",
		    tag, m->tag);
		return UPD_REFUSED;
	}
	if (check_sig && verify(r, m, RELMAN_FILE, m->sha256, bb) != 0)
		return UPD_REFUSED;
	if ((missing = relman_missing_exe(m)) != NULL) {
		logit("refused: the release manifest has no bin %s", missing);
		return UPD_REFUSED;
	}
	return UPD_OK;
}

/* Download one installed artifact into a temporary file beside its target
 * and check it: the exact size, the manifest's SHA-256, its own bundle. */
static int
stage_artifact(struct run *r, const struct relman *m, const struct relart *a,
    struct buf *bb)
{
	struct staged *s = &r->s[r->n];
	char rel[TAG_MAX + RELMAN_NAME_MAX + 32], dir[TAG_MAX + 32], why[512];
	uint8_t sha[SHA256_LEN];
	struct stat st;

	memset(s, 0, sizeof(*s));
	memcpy(s->name, a->name, sizeof(s->name));
	s->kind = a->kind;
	s->dirfd = upd_dir_for(&r->d, a);
	s->fd = upd_tmp_open(s->dirfd, a->name, s->tmp, sizeof(s->tmp));
	if (s->fd < 0) {
		logit_errno("%s: cannot make a temporary file beside it",
		    a->name);
		s->tmp[0] = '\0';
		return -1;
	}
	r->n++;
	if (a->size > RELMAN_MAX_INSTALL_SIZE) {
		logit("refused: %s: %llu bytes is over the limit of an "
		    "installed file", a->name, a->size);
		return -1;
	}
	if (str_fmt(dir, sizeof(dir), "download/%s/", m->tag) != STR_OK ||
	    str_fmt(rel, sizeof(rel), "%s%s", dir, a->name) != STR_OK)
		fatal("release path too long");
	if (fetch_to_fd_opts(r->base, rel, (size_t)a->size, s->fd, &r->fo,
	    why, sizeof(why)) != 0) {
		logit("refused: %s: %s", a->name, why);
		return -1;
	}
	if (fstat(s->fd, &st) != 0 || (unsigned long long)st.st_size != a->size) {
		logit("refused: %s: truncated: %lld of the manifest's %llu "
		    "bytes", a->name, (long long)st.st_size, a->size);
		return -1;
	}
	if (sha256_fd_pread(s->fd, sha) != 0 ||
	    !ct_equal(sha, a->sha256, SHA256_LEN)) {
		logit("refused: %s: its SHA-256 is not the one the signed "
		    "manifest names", a->name);
		return -1;
	}
	if (fetch_bundle(r, dir, a->name, bb) != 0 ||
	    verify(r, m, a->name, sha, bb) != 0)
		return -1;
	return 0;
}

/* ---- committing ---- */

static int
finish_staged(struct staged *s)
{
	mode_t mode = s->kind == RELART_BIN ? 0755 : 0644;

	if (fchown(s->fd, 0, 0) != 0 || fchmod(s->fd, mode) != 0 ||
	    fsync(s->fd) != 0) {
		logit_errno("%s: cannot finish the new file", s->name);
		return -1;
	}
	return 0;
}

/* rollback.new: copies of the files about to be replaced and the record
 * of the install they belong to. */
static int
save_previous(struct run *r, const struct upd_record *rec)
{
	int nd = -1, sub[2] = { -1, -1 }, ret = -1;
	char tmp[160];
	size_t i;

	if (upd_subdir(r->d.lib, UPD_ROLLBACK_NEW, 1, &nd) != UPD_FILES_OK ||
	    upd_subdir(nd, "bin", 1, &sub[0]) != UPD_FILES_OK ||
	    upd_subdir(nd, "share", 1, &sub[1]) != UPD_FILES_OK) {
		logit_errno("cannot make %s", UPD_ROLLBACK_NEW);
		goto out;
	}
	for (i = 0; i < r->n; i++) {
		const struct staged *s = &r->s[i];
		int to = sub[s->kind == RELART_BIN ? 0 : 1], fd;

		fd = upd_copy_to_tmp(s->dirfd, s->name, to, tmp, sizeof(tmp));
		if (fd < 0 && errno == ENOENT)
			continue;		/* a new file: nothing to keep */
		if (fd < 0 || fchmod(fd, s->kind == RELART_BIN ? 0755 : 0644) ||
		    fsync(fd) != 0 || renameat(to, tmp, to, s->name) != 0) {
			logit_errno("cannot keep a copy of %s for a rollback",
			    s->name);
			if (fd >= 0) {
				close(fd);
				(void)unlinkat(to, tmp, 0);
			}
			goto out;
		}
		close(fd);
	}
	if (rec->present && upd_record_write(nd, rec) != UPD_FILES_OK) {
		logit_errno("cannot keep the installed release record");
		goto out;
	}
	if (fsync(sub[0]) != 0 || fsync(sub[1]) != 0 || fsync(nd) != 0)
		goto out;
	ret = 0;
out:
	if (sub[0] >= 0)
		close(sub[0]);
	if (sub[1] >= 0)
		close(sub[1]);
	if (nd >= 0)
		close(nd);
	return ret;
}

/* The staged files over their targets: from here on there is no refusal,
 * only the record to write. */
static void
commit_staged(struct run *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		struct staged *s = &r->s[i];
		if (renameat(s->dirfd, s->tmp, s->dirfd, s->name) != 0)
			fatal_errno("rename over %s", s->name);
		s->tmp[0] = '\0';
		close(s->fd);
		s->fd = -1;
	}
	if (fsync(r->d.bin) != 0 || fsync(r->d.share) != 0)
		fatal_errno("fsync");
	r->n = 0;
}

/* release/ := rec (or emptied when rec records nothing). */
static void
write_record(struct run *r, const struct upd_record *rec)
{
	int fd;

	if (upd_subdir(r->d.lib, UPD_RELEASE_DIR, 1, &fd) != UPD_FILES_OK)
		fatal_errno("cannot open %s", UPD_RELEASE_DIR);
	if (rec->present) {
		if (upd_record_write(fd, rec) != UPD_FILES_OK)
			fatal_errno("cannot write the release record");
	} else {
		(void)unlinkat(fd, RELMAN_FILE, 0);
		(void)unlinkat(fd, UPD_BUNDLE_FILE, 0);
		(void)unlinkat(fd, UPD_BY_FILE, 0);
		(void)fsync(fd);
	}
	close(fd);
}

/* rollback/ := rollback.new, the replaced one removed. */
static void
swap_rollback(struct run *r)
{
	if (renameat2(r->d.lib, UPD_ROLLBACK_NEW, r->d.lib, UPD_ROLLBACK_DIR,
	    RENAME_EXCHANGE) != 0) {
		if (errno != ENOENT ||
		    renameat(r->d.lib, UPD_ROLLBACK_NEW, r->d.lib,
		    UPD_ROLLBACK_DIR) != 0)
			fatal_errno("cannot keep the rollback");
	}
	upd_rm_tree(r->d.lib, UPD_ROLLBACK_NEW);
	(void)fsync(r->d.lib);
}

static void
names_of(const struct relman *m, char *out, size_t outlen)
{
	char tmp[1024];
	size_t i;

	out[0] = '\0';
	for (i = 0; i < m->n; i++) {
		if (!relart_installed(&m->a[i]))
			continue;
		str_msg(tmp, sizeof(tmp), "%s%s%s", out, out[0] ? ", " : "",
		    m->a[i].name);
		str_msg(out, outlen, "%s", tmp);
	}
}

/* ---- lockfile update ---- */

/* The fetched release against the installed one: newer goes on; the same
 * bytes are "up to date" (*current); anything else is refused. */
static enum upd_status
compare(const struct run *r, const struct relman *m, const struct buf *mb,
    const char *tag, int *current)
{
	const struct relman *c = &r->cur.m;
	int d;

	*current = 0;
	if (!r->cur.present)
		return UPD_OK;
	d = version_cmp(m->version, c->version);
	if (d < 0) {
		if (tag != NULL)
			logit("refused: %s is older than the installed %s (a "
			    "downgrade; lockfile update --rollback restores "
			    "the previous install)", m->tag, c->tag);
		else
			logit("refused: the release server's latest manifest "
			    "is %s, older than the installed %s (a replayed "
			    "manifest)", m->tag, c->tag);
		return UPD_REFUSED;
	}
	if (d == 0) {
		if (buf_len(mb) != r->cur.mlen ||
		    memcmp(buf_data(mb), r->cur.manifest, r->cur.mlen) != 0) {
			logit("refused: the signed manifest of %s differs from "
			    "the installed one (a release never changes)",
			    m->tag);
			return UPD_REFUSED;
		}
		*current = 1;
	}
	return UPD_OK;
}

static void
set_base(struct run *r, long stall_s)
{
	/* Both fit: the URL and the repository are capped by trust.toml. */
	if ((r->t.release_url[0] != '\0' ?
	    str_fmt(r->base, sizeof(r->base), "%s", r->t.release_url) :
	    str_fmt(r->base, sizeof(r->base), "https://github.com/%s/releases",
	    r->t.release_repo)) != STR_OK)
		fatal("release URL too long");
	r->fo.any_https_redirect = 1;
	r->fo.low_speed_time_s = stall_s;
}

enum upd_status
update_install(const struct upd_opts *o)
{
	static struct run run;
	static struct relman m;
	struct run *r = &run;
	struct buf *mb = buf_new(RELMAN_MAX_BYTES);
	struct buf *mbb = buf_new(UPD_BUNDLE_MAX), *abb = buf_new(UPD_BUNDLE_MAX);
	struct upd_record rec;
	char why[512], names[1024];
	enum upd_status ret;
	int current;
	size_t i;

	run_init(r);
	ret = run_begin(r, o->prefix, o->check ? LAYOUT_MAY_BE_MISSING :
	    LAYOUT_MAKE);
	if (ret != UPD_OK)
		goto out;
	if (trust_load(&r->t, why, sizeof(why)) != 0) {
		logit("trust configuration: %s", why);
		ret = UPD_CANNOT;
		goto out;
	}
	r->have_trust = 1;
	if (r->t.release_repo_id[0] == '\0' || r->t.release_owner_id[0] == '\0') {
		logit("trust.toml pins no release_repository_id and "
		    "release_owner_id: nothing verifies without them (lockfile "
		    "update --identity shows the ones the release's signature "
		    "carries)");
		ret = UPD_CANNOT;
		goto out;
	}
	set_base(r, o->stall_s);

	if ((ret = fetch_manifest(r, o->tag, &m, mb, mbb, 1)) != UPD_OK ||
	    (ret = compare(r, &m, mb, o->tag, &current)) != UPD_OK)
		goto out;
	if (current) {
		printf("up to date: %s is installed\n", m.tag);
		goto out;
	}
	if (o->check) {
		printf("update available: %s (installed: %s)\n", m.tag,
		    r->cur.present ? r->cur.m.tag : "no signed release");
		goto out;
	}
	ret = UPD_REFUSED;
	for (i = 0; i < m.n; i++)
		if (relart_installed(&m.a[i]) &&
		    stage_artifact(r, &m, &m.a[i], abb) != 0)
			goto out;
	ret = UPD_CANNOT;
	for (i = 0; i < r->n; i++)
		if (finish_staged(&r->s[i]) != 0)
			goto out;
	if (save_previous(r, &r->cur) != 0)
		goto out;
	/* Boundary: everything above was checked; nothing below refuses. */
	commit_staged(r);
	memset(&rec, 0, sizeof(rec));
	rec.present = 1;
	rec.manifest = (char *)buf_data(mb);
	rec.mlen = buf_len(mb);
	rec.bundle = (char *)buf_data(mbb);
	rec.blen = buf_len(mbb);
	rec.by = UPD_BY_UPDATE;
	write_record(r, &rec);
	swap_rollback(r);
	names_of(&m, names, sizeof(names));
	printf("installed %s (commit %.12s): %s\n", m.tag, m.commit, names);
	if (r->cur.present)
		printf("the previous install (%s) is kept for lockfile update "
		    "--rollback\n", r->cur.m.tag);
	ret = UPD_OK;
out:
	buf_free(mb);
	buf_free(mbb);
	buf_free(abb);
	run_end(r);
	return ret;
}

/* ---- lockfile update --identity ---- */

/* The ids a release's certificate carries, for root to confirm and pin
 * (docs/releases.md): the manifest's bundle verified by the repository's
 * name only. Nothing is installed or recorded. */
enum upd_status
update_identity(const struct upd_opts *o)
{
	static struct run run;
	static struct relman m;
	struct run *r = &run;
	struct buf *mb = buf_new(RELMAN_MAX_BYTES), *bb = buf_new(UPD_BUNDLE_MAX);
	struct market_conf mc;
	char why[512], rid[TRUST_ID_MAX], oid[TRUST_ID_MAX];
	enum upd_status ret = UPD_CANNOT;

	run_init(r);
	if (trust_load(&r->t, why, sizeof(why)) != 0) {
		logit("trust configuration: %s", why);
		goto out;
	}
	r->have_trust = 1;
	set_base(r, o->stall_s);
	if ((ret = fetch_manifest(r, o->tag, &m, mb, bb, 0)) != UPD_OK)
		goto out;
	memset(&mc, 0, sizeof(mc));
	memcpy(mc.name, "release", sizeof("release"));
	memcpy(mc.repo, r->t.release_repo, sizeof(mc.repo));
	ret = UPD_REFUSED;
	if (trust_verify_names(&r->t, &mc, m.tag, m.sha256, buf_data(bb),
	    buf_len(bb), rid, oid, why, sizeof(why)) != 0) {
		logit("refused: %s: %s", RELMAN_FILE, why);
		goto out;
	}
	if (rid[0] == '\0' || oid[0] == '\0') {
		logit("refused: the release's certificate carries no repository "
		    "or owner id");
		goto out;
	}
	printf("%s of %s is signed by release.yml of that name, with\n"
	    "release_repository_id = %s\nrelease_owner_id = %s\n", m.tag,
	    r->t.release_repo, rid, oid);
	if (r->t.release_repo_id[0] == '\0' || r->t.release_owner_id[0] == '\0')
		printf("trust.toml pins no ids: confirm these with the "
		    "repository's owner (gh api repos/%s --jq '.id, .owner.id') "
		    "before root writes them there\n", r->t.release_repo);
	else if (strcmp(rid, r->t.release_repo_id) == 0 &&
	    strcmp(oid, r->t.release_owner_id) == 0)
		printf("trust.toml pins the same ids\n");
	else {
		printf("trust.toml pins OTHER ids: %s, %s\n",
		    r->t.release_repo_id, r->t.release_owner_id);
		goto out;
	}
	ret = UPD_OK;
out:
	buf_free(mb);
	buf_free(bb);
	run_end(r);
	return ret;
}

/* ---- lockfile update --rollback ---- */

/* Stage every file kept in rollback/KIND/ (checked against the kept
 * record's manifest when it lists it). */
static int
stage_kept(struct run *r, int rbfd, const char *sub, int kind,
    const struct upd_record *rb)
{
	struct dirent *de;
	int fd, dst = kind == RELART_BIN ? r->d.bin : r->d.share;
	DIR *dd;
	int ret = 0;

	if (upd_subdir(rbfd, sub, 0, &fd) != UPD_FILES_OK)
		return 0;
	dd = fdopendir(fd);
	if (dd == NULL) {
		close(fd);
		return -1;
	}
	while (ret == 0 && (de = readdir(dd)) != NULL) {
		struct staged *s = &r->s[r->n];
		const struct relart *a;
		uint8_t sha[SHA256_LEN];

		if (de->d_name[0] == '.')
			continue;
		if (!relart_name_valid(de->d_name, (enum relart_kind)kind) ||
		    r->n >= RELMAN_MAX_ARTIFACTS) {
			logit("rollback/%s/: an unexpected file", sub);
			ret = -1;
			break;
		}
		memset(s, 0, sizeof(*s));
		memcpy(s->name, de->d_name, strlen(de->d_name) + 1);
		s->kind = kind;
		s->dirfd = dst;
		s->fd = upd_copy_to_tmp(dirfd(dd), de->d_name, dst, s->tmp,
		    sizeof(s->tmp));
		if (s->fd < 0) {
			logit_errno("rollback/%s/%s: cannot copy it", sub,
			    de->d_name);
			s->tmp[0] = '\0';
			ret = -1;
			break;
		}
		r->n++;
		a = rb->present ? relman_find(&rb->m, s->name) : NULL;
		if (a != NULL && (sha256_fd_pread(s->fd, sha) != 0 ||
		    !ct_equal(sha, a->sha256, SHA256_LEN))) {
			logit("rollback/%s/%s: not the file its release "
			    "manifest names", sub, s->name);
			ret = -1;
		}
	}
	closedir(dd);
	return ret;
}

enum upd_status
update_rollback(const struct upd_opts *o)
{
	static struct run run;
	struct run *r = &run;
	struct upd_record rb;
	enum upd_files_status st;
	const char *why;
	enum upd_status ret;
	int rbfd = -1;
	size_t i;

	run_init(r);
	memset(&rb, 0, sizeof(rb));
	ret = run_begin(r, o->prefix, LAYOUT_MUST_EXIST);
	if (ret != UPD_OK)
		goto out;
	ret = UPD_REFUSED;
	st = upd_record_load(r->d.lib, UPD_ROLLBACK_DIR, &rb, &why);
	if (st != UPD_FILES_OK) {
		logit("the kept install (lib/lockfile/%s): %s",
		    UPD_ROLLBACK_DIR, why ? why : files_why(st));
		goto out;
	}
	if (upd_subdir(r->d.lib, UPD_ROLLBACK_DIR, 0, &rbfd) != UPD_FILES_OK) {
		logit("nothing to roll back to (no earlier install is kept)");
		goto out;
	}
	if (stage_kept(r, rbfd, "bin", RELART_BIN, &rb) != 0 ||
	    stage_kept(r, rbfd, "share", RELART_SHARE, &rb) != 0)
		goto out;
	if (r->n == 0) {
		logit("nothing to roll back to (no earlier install is kept)");
		goto out;
	}
	ret = UPD_CANNOT;
	for (i = 0; i < r->n; i++)
		if (finish_staged(&r->s[i]) != 0)
			goto out;
	if (save_previous(r, &r->cur) != 0)
		goto out;
	commit_staged(r);
	write_record(r, &rb);
	swap_rollback(r);
	printf("rolled back to %s; %s is kept for another --rollback\n",
	    rb.present ? rb.m.tag : "the files kept (no signed release "
	    "record)", r->cur.present ? r->cur.m.tag : "the replaced install");
	ret = UPD_OK;
out:
	if (rbfd >= 0)
		close(rbfd);
	upd_record_free(&rb);
	run_end(r);
	return ret;
}
