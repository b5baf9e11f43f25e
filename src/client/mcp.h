/* The MCP server's face: `lockfile mcp` (cmd_mcp) runs one on stdio; the
 * fuzz target feeds it messages directly. Every answer goes to stdout. */
#ifndef LOCKFILE_CLIENT_MCP_H
#define LOCKFILE_CLIENT_MCP_H

#include <stddef.h>

#include "client/client.h"

struct mcp;

struct mcp *mcp_new(const struct client_cfg *cfg);
/* One message from the host (a line without its newline). */
void mcp_message(struct mcp *s, const char *line, size_t len);
/* Drops every call in flight. */
void mcp_free(struct mcp *s);

#endif
