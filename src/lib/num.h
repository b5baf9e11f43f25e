/* Strict number parsing: the one parser for a decimal number read from
 * untrusted or human text (options, configuration, /proc, headers, the
 * ledger). lint-banned refuses atoi and friends, and strtoul without an
 * end check, in favour of this (docs/hacking.md, "Conventions"). */
#ifndef LOCKFILE_NUM_H
#define LOCKFILE_NUM_H

/* Strict decimal parse of a whole string into [min,max]: digits only (no
 * sign, no space), no leading zeros (one spelling per number), no
 * overflow. 0 or -1; *out is set only on success. */
int parse_u64(const char *s, unsigned long long min, unsigned long long max,
    unsigned long long *out);

#endif
