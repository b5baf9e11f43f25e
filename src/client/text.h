/* Human-readable output of the CLI, composed only from checked values: a
 * result that passed the closed list (names, versions, ids and manifest
 * text are already known to be printable ASCII of bounded length), or an
 * outcome's static code and hint. Strings still go through escape_text():
 * nothing reaches the terminal that the client did not compose. */
#ifndef LOCKFILE_CLIENT_TEXT_H
#define LOCKFILE_CLIENT_TEXT_H

#include <stdio.h>
#include <jansson.h>

#include "client/client.h"

void text_result(FILE *f, enum lf_method m, const json_t *result);
/* "CODE: hint" for anything but a result. */
void text_failure(FILE *f, enum cl_outcome o, enum lf_err e);

#endif
