#!/usr/bin/env node
// A bare stdio MCP server for the tool-server benchmark (scripts/bench/toolservers.ts): it serves
// MANY_TOOLS tools (default 10,000) named t0, t1, … and answers a call to any of them with its name. It
// speaks JSON-RPC by hand, without the MCP SDK, so its own start is a node start and the figure measured
// around it is the node's work on the list rather than a server's schema library loading.
import { createInterface } from 'node:readline';

const count = Number(process.env.MANY_TOOLS ?? 10_000);
const tools = Array.from({ length: count }, (_, i) => ({
  name: `t${i}`,
  description: `extra t${i}`,
  inputSchema: { type: 'object', properties: {} },
}));
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const answer = (id, result) => send({ jsonrpc: '2.0', id, result });

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line.trim() === '') continue;
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) continue;
  if (method === 'initialize')
    answer(id, {
      protocolVersion: params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'many', version: '1' },
    });
  else if (method === 'tools/list') answer(id, { tools });
  else if (method === 'tools/call') answer(id, { content: [{ type: 'text', text: params.name }] });
  else if (method === 'ping') answer(id, {});
  else send({ jsonrpc: '2.0', id, error: { code: -32601, message: `no method ${method}` } });
}
