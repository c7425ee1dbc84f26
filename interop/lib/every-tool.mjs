// Called by the Go test TestMCP_BothGenerations_TypeScript (api/mcp_modern_test.go): the TypeScript
// SDK client (2025-11-25) connects to the link in argv[2], calls every tool of tools/list with the
// example its help gives (clear_logs with confirm: false), and prints one JSON line: the protocol
// version, the session ID and, per tool, whether the answer was a tool error.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
const client = new Client({ name: 'every-tool', version: '1.0.0' });
await client.connect(transport);
const { tools } = await client.listTools();
const out = { protocolVersion: transport.protocolVersion, sessionId: transport.sessionId, tools: {} };
for (const { name } of tools) {
  const help = await client.callTool({ name: 'help', arguments: { tool: name } });
  const args = name === 'clear_logs' ? { confirm: false } : help.structuredContent.tools[0].example;
  const r = await client.callTool({ name, arguments: args });
  out.tools[name] = { isError: Boolean(r.isError), text: (r.content?.[0]?.text ?? '').slice(0, 200) };
}
console.log(JSON.stringify(out));
await client.close();
