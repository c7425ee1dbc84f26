// Called by Go tests (api/agent_ts_test.go): the TypeScript SDK client (2025-11-25) connects to the
// link in argv[2] and makes the calls of argv[3], a JSON array of {name, arguments} ("tools/list"
// as a name lists the tools). It prints one JSON array: per call, the result as the SDK returned
// it and its size in bytes as JSON.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
const client = new Client({ name: 'call-tools', version: '1.0.0' });
await client.connect(transport);
const out = [];
for (const { name, arguments: args } of JSON.parse(process.argv[3])) {
  const result = name === 'tools/list' ? await client.listTools() : await client.callTool({ name, arguments: args ?? {} });
  out.push({ result, bytes: Buffer.byteLength(JSON.stringify(result), 'utf8') });
}
console.log(JSON.stringify(out));
await client.close();
