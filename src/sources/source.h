/* Sources: where a profile's files live. One interface for every kind:
 * validate a profile's policy table, open it once at console start, fetch a
 * cleaned key into an opened spool file with the reserved cap as a hard
 * limit, hashing while streaming. The agent only ever learns E_FETCH_FAILED;
 * the precise cause (and a scrubbed detail) goes to the audit. */
#ifndef LOCKFILE_SOURCE_H
#define LOCKFILE_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "lib/crypto.h"

enum fetch_cause {
	FC_OK = 0,
	FC_MISSING,		/* no such key */
	FC_TOO_BIG,		/* over the reserved cap */
	FC_DENIED,		/* permission refused by the source */
	FC_NETWORK,		/* connection refused, reset, DNS */
	FC_TIMEOUT,		/* stalled or too slow */
	FC_HOSTKEY,		/* SFTP host key differs from the pin */
	FC_BAD_CREDENTIALS,	/* authentication refused */
	FC_TLS,			/* certificate or handshake */
	FC_NOT_REGULAR,		/* a directory, device, symlink... */
	FC_IO,			/* local read or spool write error (disk full) */
	FC_PROTOCOL,		/* the server answered something unexpected */
	FC_CREDENTIAL_SOURCE,	/* credentials file or command refused */
	FC_UNAVAILABLE,		/* the profile could not be opened at start */
	FC_EXPOSED,		/* another account may read it (local.h) */
	FC__COUNT
};

const char *fetch_cause_name(enum fetch_cause c);

#define FETCH_OBJECT_MAX	1100	/* PROTO_MAX_KEY and a bucket or a host */

struct fetch_result {
	unsigned long long size;
	uint8_t sha256[SHA256_LEN];
	/* Static or scrubbed text for the audit (never secrets, never file
	 * bytes); empty when there is nothing to add to the cause. */
	char detail[200];
	/* The object actually read, as the source knows it (local: device and
	 * inode; SFTP: the server's canonical path; S3: bucket and exact key),
	 * so the ledger can count aliases of one object together
	 * (docs/ledger.md, "Aliases"); empty when the source names none. */
	char object[FETCH_OBJECT_MAX];
};

struct source;

/* A directory of this host a kind reads from, named in its profile. */
struct source_read_path {
	const char *key;	/* the profile key ("path") */
	const char *path;	/* its value, pointing into the profile table */
};

struct source_kind {
	const char *name;	/* "local", "s3", "sftp" */
	/* Check a profile table (the policy's [profiles.X] minus the common
	 * keys production/source/prefix). 0, or -1 with a static message. */
	int (*validate)(const json_t *table, const char **why);
	/* The checks a human can act on before the console runs (policy
	 * approve refuses, doctor fails, open repeats them): who may read a
	 * local directory (local.h). NULL for kinds with none. 0, or -1 with
	 * why naming the path and the reason, escaped for a terminal. */
	int (*check)(const json_t *table, char *why, size_t whylen);
	/* Open for the console's session (home = console account's home):
	 * everything a fetch needs that is not the network (credentials, CA
	 * certificates) is read here, before the console confines itself. */
	int (*open)(const json_t *table, const char *home, struct source **out,
	    const char **why);
	/* Stream key into outfd, at most cap bytes (more is FC_TOO_BIG). The
	 * caller deletes the spool file on any failure. src NULL (the open
	 * failed) answers FC_UNAVAILABLE. */
	enum fetch_cause (*fetch)(struct source *src, const char *key, int outfd,
	    unsigned long long cap, struct fetch_result *res);
	/* Words the scrubber must remove from window and audit text (path,
	 * bucket, endpoint, host, user, base directory). Up to max entries. */
	size_t (*location_words)(const struct source *src, const char **words,
	    size_t max);
	/* The directories of this host a fetch reads, from the profile
	 * table: the console's self-confinement allows reading them, the
	 * policy refuses one that overlaps the console's own files
	 * (docs/security.md). NULL for a kind that reads none. Up to max. */
	size_t (*read_paths)(const json_t *table, struct source_read_path *out,
	    size_t max);
	/* The TCP ports a fetch connects to (the console confines itself to
	 * them, and allows the network only for a kind that has this). NULL
	 * for a source without network. Up to max entries. */
	size_t (*tcp_ports)(const struct source *src, unsigned *ports,
	    size_t max);
	void (*close)(struct source *src);
};

/* The kind named in a profile, or NULL. */
const struct source_kind *source_kind_find(const char *name);

#endif
