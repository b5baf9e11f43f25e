/* A hub-mode plan as it waits (docs/hub.md, "The console's side"): its
 * record, made when its ticket is, kept by the hub side (hub_store.c,
 * sealed) and read back by file.run or a renewal after a restart. No
 * secret is in it. plan_restore() is the one reader, strict as for bytes
 * from outside (tests/fuzz/fuzz_plan_record.c). */
#ifndef LOCKFILE_CONSOLE_PLAN_RECORD_H
#define LOCKFILE_CONSOLE_PLAN_RECORD_H

#include "console/plan_steps.h"

/* The pending plan's record: what a renewal after a restart needs. */
json_t *plan_record(const struct plan *pl, const char *planid,
    const char *ticket, enum plan_content content, const uint8_t *sha,
    unsigned long long size);
/* What the ticket's fetch found, into the record r. */
void plan_record_content(json_t *r, enum plan_content content,
    const uint8_t *sha, unsigned long long size);
/* Rebuild pl's request (pl->own_req), pins and content from its record
 * r, for the plan planid of pl->peer under pl->e's policy: 0, or -1 when
 * the record does not hold. */
int plan_restore(struct plan *pl, const json_t *r, const char *planid,
    enum plan_content *content, uint8_t sha[32], unsigned long long *size);
/* The string k of r, at most max bytes and no NUL in it, or NULL. */
const char *plan_rstr(const json_t *r, const char *k, size_t max);

#endif
