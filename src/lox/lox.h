/* lox: the human's launcher for the Docker deployment (docs/docker.md).
 *
 * lox builds every `docker` command line itself, as an argument vector,
 * and execs the docker client with it (never a shell string): the console's
 * container always gets the hardened flags below, agents get only the
 * socket volume, and options that would open the console to another
 * account (another pid namespace, capabilities, an unconfined seccomp
 * profile, the Docker socket, a user-namespace opt-out...) are refused.
 * Each command group lives in its own file (cmd_*.c) and registers in the
 * table of lox.c. */
#ifndef LOCKFILE_LOX_H
#define LOCKFILE_LOX_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>
#include <stdio.h>

#include "lib/paths.h"
#include "hubclient/hubclient.h"

#define LOX_EX_USAGE		64	/* bad usage, or a refused option */
#define LOX_EX_NOINPUT		66	/* a file named on the command line */
#define LOX_EX_UNAVAILABLE	69	/* the docker client cannot be run */
#define LOX_EX_SOFTWARE		70

/* The detach keys (two control characters: no printable text ever typed
 * contains them). */
#define LOX_DETACH_KEYS		"ctrl-],ctrl-]"
/* The images' IDs docker/build-images.sh records ($LOX_IMAGES overrides;
 * images.c). */
#define LOX_IMAGES_DEFAULT	"/etc/lockfile/images"
#define LOX_IMAGE_ID_MAX	80	/* "sha256:" and 64 hex digits */
/* The volumes' mount points are lib/paths.h's LF_SOCKET_DIR,
 * LF_IMAGE_HOME and LF_IMAGE_SOURCES. */

/* A growing argument vector, NULL-terminated for execvp. */
struct argv {
	char **v;
	size_t n, cap;
};

void argv_add(struct argv *a, const char *s);
void argv_addf(struct argv *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void argv_free(struct argv *a);

/* Shell-quoted on one line: what --dry-run and `lox agent --print` show. */
void argv_print(FILE *f, const struct argv *a);

#define LOX_MAX_SOURCES 32
struct lox_sources {
	struct argv mounts;		/* the --mount options */
	char names[LOX_MAX_SOURCES][40];
	size_t n;
};

/* The text as PEM CERTIFICATE blocks (1 to 16), blank lines between them
 * and nothing else, each one X.509 certificate to its last byte; out (an
 * OpenSSL BIO) gets them re-encoded (instance.c). 0, or -1 with *why. */
struct bio_st;
int lox_pem_certs(const char *t, size_t n, struct bio_st *out,
    const char **why);

/* Hub mode under Docker (instance.c, docs/docker.md "Hub mode"): what
 * `lox run --instance NAME --hub URL [--hub-ca FILE]` keeps for NAME. */
#define LOX_HUB_CA		"/etc/lockfile/hub-ca.pem"	/* in the container */
#define LOX_HUB_NET_LABEL	"org.lockfile.hub-network"
/* lockhub's container (cmd_hub_run.c): its uid label (docker/Dockerfile). */
#define LOX_HUB_UID_LABEL	"org.lockfile.hub-uid"
struct lox_hub {
	int on;
	char url[HC_MAX_URL + 1];
	char ca[PATH_MAX + 32];	/* lox's checked copy on the host, or "" */
	char network[80];	/* lockfile-NAME-hub: the console's, never an agent's */
};

struct lox {
	int dry_run;		/* print the docker command instead of running it */
	const char *docker;	/* $LOX_DOCKER, else "docker" on PATH */
	char instance[40];	/* "" for the default instance */
	char container[64];	/* lockfile[-INSTANCE]-console */
	char home_volume[64];	/* lockfile[-INSTANCE]-home */
	char run_volume[64];	/* lockfile[-INSTANCE]-run */
	struct lox_sources sources;	/* --source, freed by main */
	struct lox_hub hub;	/* the instance's hub mode (lox_hub_load) */
};

/* Validate NAME ([a-z0-9][a-z0-9_-]{0,31}) and derive the names. 0 or -1. */
int lox_set_instance(struct lox *l, const char *name);
/* Write len bytes of data into dir/name atomically (a new file, fsync'd,
 * renamed over), with mode, owned by uid when uid is not -1 (the hub's
 * key: needs root). 0, or -1 after lox_err(). */
int lox_write_copy(const char *dir, const char *name, const char *data,
    long len, mode_t mode, long uid);

/* An error line on stderr, "lox: ...", with the formatted text escaped
 * (arguments are the user's, never raw control bytes on the terminal). */
void lox_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The instance's hub settings into h: 1 (hub mode), 0 (none kept: the
 * default instance never is), -1 after lox_err(). */
int lox_hub_load(const struct lox *l, struct lox_hub *h);
/* Check URL and the CA file (PEM certificates only, re-encoded) and, when
 * write, keep them for the instance; h gets what the console will run
 * with. 0, or -1 after lox_err(). */
int lox_hub_save(const struct lox *l, const char *url, const char *ca_file,
    int write, struct lox_hub *h);
/* $LOX_HOME/instances/NAME (instance.c), made 0700 when mk: 1 when it
 * exists, 0 when not, -1 after lox_err(). */
int lox_instance_dir(const struct lox *l, char *out, size_t len, int mk);

/* Forget them (lox run --no-hub). 0, or -1. */
int lox_hub_forget(const struct lox *l);
/* The instance's hub network exists, labelled as lox's (made when it does
 * not). 0, or -1 after lox_err(). */
int lox_hub_network(const struct lox *l, const struct lox_hub *h);

/* The console container's flags (docs/docker.md, "What lox run passes"):
 * everything between `docker run` and the image, volumes included, but
 * not -it, --rm or the name. network: leave the default network instead of
 * --network none. In hub mode (l->hub.on) and without network: the
 * instance's hub network and its CA copy, read-only, at LOX_HUB_CA. 0, or
 * -1 after lox_err() (the seccomp profile, the hub network). */
int lox_console_flags(const struct lox *l, struct argv *a, int network);
/* The flags the console's and lockhub's containers share (docker.c):
 * docker-init, --pull never, user, no capabilities, no-new-privileges,
 * the shipped profile from profile_fd, read-only root, pids, memory. */
void lox_hardened(struct argv *a, const char *user, int profile_fd,
    const char *pids, const char *memory);

/* The shipped seccomp profile, checked against its compiled-in sha256, in
 * a sealed memfd docker reads as /dev/fd/N (docker.c). The descriptor
 * (inherited by the docker client), or -1 after lox_err(). */
int lox_seccomp_fd(void);

/* An image ID, "sha256:" and 64 lowercase hex digits: never a tag, which
 * can be moved. 0, or -1 after lox_err(). */
int lox_check_image(const char *image);

/* The recorded ID of the "console" or "agent" image. 0, or -1 after
 * lox_err() (no record, a record another account could write, no such
 * line). */
int lox_image(const char *role, char *out, size_t outlen);

/* 1 when the instance's console container is running, 0 when not (or the
 * engine cannot tell). */
int lox_console_running(const struct lox *l);

/* The console account's uid: the image's label (docker/Dockerfile sets it
 * from LOCKFILE_UID), read from the instance's container or, without one,
 * the default console image. 0, or -1 when the engine cannot tell. */
#define LOX_UID_LABEL		"org.lockfile.console-uid"
#define LOX_CONSOLE_UID_DEFAULT	900	/* docker/Dockerfile's LOCKFILE_UID */
int lox_console_uid(const struct lox *l, unsigned long *uid);

/* The agent image's label naming the uids it was built to allow
 * (docker/Dockerfile, ALLOWED_UIDS). */
#define LOX_ALLOWED_LABEL	"org.lockfile.allowed-uids"

/* A uid label of IMAGE (e.g. LOX_HUB_UID_LABEL). 0, or -1 when the engine
 * cannot tell. */
int lox_image_uid(const struct lox *l, const char *image, const char *label,
    unsigned long *uid);

/* 1 when IMAGE's LOX_ALLOWED_LABEL lists uid (the image has an account for
 * it in lockfile-clients), 0 when not or the engine cannot tell. */
int lox_image_allows_uid(const struct lox *l, const char *image,
    unsigned long uid);

/* LXCFS (lxcfs.c): whether the host serves per-container /proc files,
 * and the read-only --volume options that give them to an agent
 * container (nothing when it does not). */
int lox_lxcfs_available(void);
void lox_lxcfs_mounts(struct argv *a);

/* Run (or, with --dry-run, print) the docker command and wait for it: 0
 * when it exited 0, else -1. */
int lox_spawn(const struct lox *l, struct argv *a);

/* Run (or, with --dry-run, print) the docker command; returns only on
 * failure, with an exit status. */
int lox_exec(const struct lox *l, struct argv *a);

/* 1 when v is printable ASCII and not empty (a value docker takes as is). */
int lox_plain_value(const char *v);

/* Add one --source NAME=HOSTDIR (checked: name, an existing directory,
 * nothing that holds the engine's socket or a kernel file system). 0, or
 * -1 after lox_err(). */
int lox_add_source(struct lox_sources *s, const char *spec);

/* Commands: argv[0] is the command's name. */
int cmd_run(struct lox *l, int argc, char **argv);
int cmd_attach(struct lox *l, int argc, char **argv);
int cmd_agent(struct lox *l, int argc, char **argv);
int cmd_doctor(struct lox *l, int argc, char **argv);
int cmd_policy(struct lox *l, int argc, char **argv);
int cmd_plugin(struct lox *l, int argc, char **argv);
int cmd_image(struct lox *l, int argc, char **argv);
int cmd_hub_key(struct lox *l, int argc, char **argv);
int cmd_hub_run(struct lox *l, int argc, char **argv);

/* Option scanning shared by the commands: "--name VALUE" and
 * "--name=VALUE". Returns 1 and sets *val (advancing *i) when argv[*i] is
 * that option, 0 when it is not, -1 (after lox_err) when its value is
 * missing. */
int lox_opt(int argc, char **argv, int *i, const char *name,
    const char **val);

#endif
