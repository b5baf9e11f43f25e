/* Building responses (console side). Every line the console writes to a
 * client comes out of these two functions, and each asserts that what it
 * sends is in the closed list (table.h): a result that does not fit its
 * method's shape, or an error the method may not answer, aborts the console
 * rather than leaving it. */
#ifndef LOCKFILE_RESPONSE_H
#define LOCKFILE_RESPONSE_H

#include <jansson.h>

#include "protocol/table.h"

/* A result line (with its newline). Takes the reference to result. Caller
 * frees the string. */
char *proto_result_line(enum lf_method m, const json_t *id, json_t *result);

/* An error line. m is M__COUNT when the method could not be read (only
 * E_BAD_REQUEST and E_PEER_REFUSED are possible then). */
char *proto_error_line(enum lf_method m, const json_t *id, enum lf_err e);

#endif
