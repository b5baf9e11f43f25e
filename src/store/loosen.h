/* A loosening (docs/marketplace.md, "Loosening"): a new version of an installed plugin that
 * asks another question, gives 1 or 0 another meaning, takes a wider input
 * or larger limits (manifest_is_tightening() says no). The human must see
 * the old and the new text side by side on the console terminal and type
 * to accept; without a terminal there is no acceptance. Boundary: "A
 * plugin answers only its signed question" -- nothing through the socket
 * reaches this, and no flag accepts in advance. */
#ifndef LOCKFILE_LOOSEN_H
#define LOCKFILE_LOOSEN_H

#include "store/manifest.h"

#define LOOSEN_ANSWER "accept"
#define LOOSEN_TIMEOUT_S 600

/* old may be NULL when the installed manifest cannot be read (then all of
 * the new one is shown as new). Returns 1 when the human typed
 * LOOSEN_ANSWER, 0 when not, -1 when there is no terminal or it fails the
 * console's terminal checks (host/terminal.h; why names the first failing
 * condition, and nothing is shown on that terminal). */
int loosen_ask(const char *marketplace, int official,
    const struct manifest *old, const char *oldversion,
    const struct manifest *new, char *why, size_t whylen);

#endif
