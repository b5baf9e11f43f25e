/* Strict readers for a profile's policy table (the [profiles.X] keys a
 * source kind owns). A profile is human-approved configuration, but it is
 * still parsed in one place, with types, lengths and character sets
 * checked, unknown keys refused, and every message static. */
#ifndef LOCKFILE_SOURCES_PTABLE_H
#define LOCKFILE_SOURCES_PTABLE_H

#include <stddef.h>
#include <jansson.h>

/* Unknown keys: jsonx_only_keys() (lib/jsonx.h). */
#include "lib/jsonx.h"

/* A string value: 0 absent, 1 present and valid (copied to out, which
 * holds outlen bytes including the NUL), -1 present but not a string, too
 * long, or holding a NUL or a control byte. */
int pt_str(const json_t *t, const char *key, char *out, size_t outlen);

/* An integer in [min,max]: 0 absent (out = def), 1 present and valid,
 * -1 otherwise. */
int pt_uint(const json_t *t, const char *key, unsigned long long min,
    unsigned long long max, unsigned long long def, unsigned long long *out);

/* A boolean: 0 absent (out = def), 1 present, -1 not a boolean. */
int pt_bool(const json_t *t, const char *key, int def, int *out);

/* A path below the console home written "~/...": clean (no "." or ".."
 * components, no "//", no trailing "/"), printable ASCII. 0 or -1. */
int pt_home_path_ok(const char *s);

/* An absolute path, clean in the same way ("/" alone allowed when
 * allow_root). 0 or -1. */
int pt_abs_path_ok(const char *s, int allow_root);

#endif
