/* The audit: the one place file metadata exists. Append-only JSON lines in
 * ~/.local/state/lockfile/audit.log (0600), fsynced per record: time, peer
 * uid, method, plan, profile, key, size, sha256, fetch cause, each plugin's
 * precise outcome and stderr byte count, the decision, placeholder names
 * (never values). Never file bytes. */
#ifndef LOCKFILE_AUDIT_H
#define LOCKFILE_AUDIT_H

#include <jansson.h>

struct audit {
	int fd;
	char path[4096];
};

int audit_open(struct audit *a, const char *home, const char **why);
void audit_close(struct audit *a);
/* Adds "time" and writes one line; takes the reference to rec. A write
 * failure is reported to the caller (the console refuses to go on without
 * its audit). 0 or -1. */
int audit_write(struct audit *a, json_t *rec);

/* One record as `lockfile audit` prints it: name=value pairs, every name
 * and value rendered as on the card (lib/render.h). */
void audit_print_record(const json_t *rec);

/* `lockfile audit --ledger` (audit_ledger.c): the answer ledger under
 * home, filtered by a key and a uid (either may be NULL); --repair keeps
 * a damaged ledger's whole records (docs/ledger.md). An exit status. */
int audit_ledger(const char *home, int json_out, const char *key,
    const char *uid, int repair);

/* `lockfile audit [--home DIR] [--json] [--ledger [--key K] [--uid U]
 * [--repair]]` */
int cmd_audit(int argc, char **argv);

#endif
