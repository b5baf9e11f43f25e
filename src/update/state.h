/* What lockfile update installs, and where (docs/releases.md):
 *
 *   PREFIX/bin/NAME                 the launchers (lockfile, lox, ...), 0755
 *   PREFIX/share/lockfile/NAME      the shipped files (seccomp.json), 0644
 *   PREFIX/lib/lockfile/release/    the installed release: release.json,
 *                                   its bundle, installed-by
 *   PREFIX/lib/lockfile/rollback/   the previous one: the same three files
 *                                   and copies of its bin/ and share/ files
 *
 * Boundary: "Plugins and releases are what their publisher built". Every
 * directory here is root's and closed to writes by group and others, all
 * the way up (checked on the opened descriptors), so only root can change
 * what the launcher is or what was recorded about it. Every file is walked
 * with *at() calls and O_NOFOLLOW, and replaced by a rename in its own
 * directory of a complete, fsync'ed file. */
#ifndef LOCKFILE_UPDATE_STATE_H
#define LOCKFILE_UPDATE_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/paths.h"
#include "update/manifest.h"

#define UPD_RELEASE_DIR "release"
#define UPD_ROLLBACK_DIR "rollback"
#define UPD_ROLLBACK_NEW "rollback.new"
#define UPD_BUNDLE_FILE RELMAN_FILE LF_BUNDLE_SUFFIX
#define UPD_BY_FILE "installed-by"
#define UPD_TMP_PREFIX ".lockfile-update."
#define UPD_BUNDLE_MAX (256 * 1024)

enum upd_files_status {
	UPD_FILES_OK = 0,
	UPD_FILES_MISSING,	/* ENOENT: nothing there */
	UPD_FILES_UNSAFE,	/* not root's, writable by others, a symlink... */
	UPD_FILES_IO,		/* a system call failed (errno kept) */
	UPD_FILES_INVALID,	/* the recorded release does not parse */
};

/* How a release was installed (installed-by). */
enum upd_by {
	UPD_BY_UPDATE,		/* lockfile update: every bundle verified */
	UPD_BY_INSTALL_SH,	/* scripts/install.sh: every sha256 pinned */
};

struct upd_dirs {
	int prefix, bin, share, lib;	/* fds, -1 when not open */
};

/* A recorded release (release/ or rollback/). */
struct upd_record {
	int present;
	struct relman m;
	char *manifest;			/* malloc'ed bytes */
	size_t mlen;
	char *bundle;
	size_t blen;
	enum upd_by by;
};

/* Open PREFIX and its bin, share/lockfile and lib/lockfile directories,
 * making missing ones (0755, root's) when create is set. Every one must be
 * root's and not writable by group or others; so must PREFIX's ancestors. */
enum upd_files_status upd_dirs_open(const char *prefix, int create,
    struct upd_dirs *d);
void upd_dirs_close(struct upd_dirs *d);
/* The directory an installed artifact goes to. */
int upd_dir_for(const struct upd_dirs *d, const struct relart *a);

/* A subdirectory of parent (root's, closed to writes), made when create. */
enum upd_files_status upd_subdir(int parent, const char *name, int create,
    int *out);

/* Read a small root-owned regular file whole (at most max bytes). */
enum upd_files_status upd_read_at(int dirfd, const char *name, size_t max,
    char **data, size_t *len);
/* Write data as dirfd/name: a temporary file in the same directory,
 * fchown root, mode, fsync, rename over name, fsync of the directory. */
enum upd_files_status upd_write_at(int dirfd, const char *name,
    const void *data, size_t len, mode_t mode);
/* A fresh temporary file in dirfd (O_EXCL, 0600, UPD_TMP_PREFIX + name +
 * random); its name in tmp (at least 128 bytes). */
int upd_tmp_open(int dirfd, const char *name, char *tmp, size_t tmplen);
/* Copy the regular file srcdir/name into a fresh temporary file of dstdir
 * (named in tmp); returns its fd (offset at the end) or -1. */
int upd_copy_to_tmp(int srcdir, const char *name, int dstdir, char *tmp,
    size_t tmplen);
/* Remove dirfd/name and everything below it (at most 4 levels). */
void upd_rm_tree(int dirfd, const char *name);
/* Remove our temporary files left in dirfd by an interrupted run. */
void upd_sweep(int dirfd);

/* Load a record from lib/<dirname>. present 0 when it has no release.json
 * (nothing recorded). */
enum upd_files_status upd_record_load(int libfd, const char *dirname,
    struct upd_record *r, const char **why);
/* Write a record's three files into dirfd. */
enum upd_files_status upd_record_write(int dirfd, const struct upd_record *r);
void upd_record_free(struct upd_record *r);
const char *upd_by_name(enum upd_by by);

enum upd_verify_status {
	UPD_VERIFIED = 0,
	UPD_E_UNPINNED,		/* trust.toml pins no release repository ids */
	UPD_E_SIGNATURE,	/* the bundle does not verify (why says how) */
};

struct trust;

/* A bundle over an artifact whose SHA-256 is sha, signed by "the
 * release.yml workflow of trust.toml's release_repository, run on tag",
 * the repository's and owner's numeric ids the ones trust.toml pins. */
enum upd_verify_status upd_verify(const struct trust *t, const char *tag,
    const uint8_t sha[SHA256_LEN], const uint8_t *bundle, size_t len,
    char *why, size_t whylen);

#endif
