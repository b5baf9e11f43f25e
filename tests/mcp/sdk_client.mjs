// A real MCP host for the tests: the official TypeScript SDK's Client over
// stdio, driving `lockfile mcp`. It lists the tools, then makes each call
// given on the command line, and prints one JSON line per event (tools,
// progress, result, error) for tests/client/test_mcp_sdk.py to check
// against the whitelist. The SDK itself validates every structuredContent
// against the tool's outputSchema.
//
//   node sdk_client.mjs '{"command": "...", "args": [...],
//                         "calls": [{"name": "plan", "arguments": {...},
//                                    "progress": true}]}'
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const cfg = JSON.parse(process.argv[2]);
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");

const transport = new StdioClientTransport({
  command: cfg.command,
  args: cfg.args,
  stderr: "ignore",
});
const client = new Client({ name: "lockfile-tests", version: "1.0.0" });
client.onerror = (e) => out({ event: "client-error", message: String(e) });

try {
  await client.connect(transport);
  out({ event: "server", version: client.getServerVersion(),
        instructions: client.getInstructions() });
  const { tools } = await client.listTools();
  out({ event: "tools", tools });
  for (const call of cfg.calls) {
    const opts = { timeout: 120000, resetTimeoutOnProgress: true };
    if (call.progress) {
      opts.onprogress = (p) => out({ event: "progress", call: call.name, ...p });
    }
    out({ event: "calling", call: call.name });
    try {
      const result = await client.callTool(
        { name: call.name, arguments: call.arguments }, undefined, opts);
      out({ event: "result", call: call.name, result });
    } catch (e) {
      out({ event: "error", call: call.name, code: e.code ?? null,
            message: String(e.message ?? e) });
    }
  }
} finally {
  await client.close();
}
