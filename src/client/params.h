/* Building a request's params from what the agent gave (CLI flags or MCP
 * tool arguments), strictly and in one place: names in their alphabets,
 * lengths within the protocol's limits, no key or field outside the list.
 * Plugin input values are passed on as written: the console alone decides
 * that anything but a placeholder is E_LITERAL_INPUT (and never echoes it).
 * Every function returns a new params object, or NULL with *why set to a
 * static text naming what is wrong (never the agent's text itself). */
#ifndef LOCKFILE_CLIENT_PARAMS_H
#define LOCKFILE_CLIENT_PARAMS_H

#include <jansson.h>

#include "protocol/table.h"

#define PARAMS_MAX_VALUE 256	/* a plugin input binding, as written */

/* status: profile may be NULL (then no params at all: returns NULL with
 * *why NULL). */
json_t *params_status(const char *profile, const char **why);

/* file.plan by key (profile + key) or by handle (profile and key NULL);
 * plugins is taken (an array built with params_plugin_spec or checked by
 * params_plugins_json). */
json_t *params_plan(const char *profile, const char *key, const char *handle,
    json_t *plugins, const char **why);

/* One CLI plugin spec NAME[@VERSION][:INPUT=VALUE[,INPUT=VALUE...]],
 * appended to plugins. 0 or -1. */
int params_plugin_spec(json_t *plugins, const char *spec, const char **why);

/* A plugins array from MCP arguments: [{name, version?, inputs?}] with
 * nothing else. A new array or NULL. */
json_t *params_plugins_json(const json_t *arr, const char **why);

/* The CLI's shorthand INPUT "input": a plugin bound as {"input": V} whose
 * manifest (in a checked file.plugins result) has exactly one input, of
 * another name, gets that name. Returns 1 when plugins names "input". */
int params_needs_manifests(const json_t *plugins);
void params_bind_only_inputs(json_t *plugins, const json_t *listing);

json_t *params_run(const char *plan, const char **why);
json_t *params_release(const char *handle, const char **why);
json_t *params_change(const char *text, size_t len, const char **why);

#endif
