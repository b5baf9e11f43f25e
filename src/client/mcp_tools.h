/* The MCP server's tools: one per console method, each with an inputSchema
 * (what the agent may send, checked again here in C) and an outputSchema
 * generated from the closed table's result shape (so the schema the host
 * sees and the list the client enforces are one). A result is the checked
 * console result as structuredContent plus the same JSON as a text block;
 * a failure is an isError result whose text is {"error", "hint"} with
 * static words only. */
#ifndef LOCKFILE_MCP_TOOLS_H
#define LOCKFILE_MCP_TOOLS_H

#include <jansson.h>

#include "client/client.h"
#include "protocol/shape.h"

/* The tools array for tools/list (a new reference, stable order). */
json_t *mcp_tools_list(void);

enum mcp_args {
	MCP_ARGS_OK = 0,
	MCP_ARGS_UNKNOWN_TOOL,
	MCP_ARGS_INVALID,
};

/* Map a tools/call to a console method and its params (new, may be NULL).
 * args may be NULL (no arguments). *why is static text. */
enum mcp_args mcp_tool_params(const char *name, const json_t *args,
    enum lf_method *m, json_t **params, const char **why);

/* The CallToolResult for what a call ended in (a new object). */
json_t *mcp_tool_result(enum cl_outcome o, enum lf_err e,
    const json_t *result);

/* A JSON Schema (draft 2020-12 subset) for a shape of the table. */
json_t *shape_json_schema(const struct shape *s);

#endif
