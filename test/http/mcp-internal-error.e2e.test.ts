/**
 * An MCP endpoint's own failure is JSON-RPC -32603 with no detail: a tool surface that throws (its message
 * quoting a secret) or that answers a result MCP does not allow (which the SDK would call -32602, the
 * caller's fault) is answered `Internal error`, over a real listener, and the secret is in no answer or log.
 */
import t from 'tap';
import { serveMcp, type McpSurface } from '../../http/mcp-bridge.js';
import type { RouteDef } from '../../http/index.js';
import type { ToolResult } from '../../schema/index.js';
import { startHarness } from './fixtures/gateway-harness.js';

const SECRET = 'sk-live-0123456789abcdefSECRET';
const entry = (name: string) => ({
  name,
  description: name,
  source: 'builtin',
  annotations: {},
  delivers: null,
  input_schema: { type: 'object' },
});
const surface: McpSurface = {
  name: 'svc-test',
  version: '1',
  tools: () => [entry('throws'), entry('misanswers')],
  call(name) {
    if (name === 'throws') return Promise.reject(new Error(`upstream refused key ${SECRET}`));
    // A content item of no type MCP knows: the SDK refuses our own result.
    return Promise.resolve({
      content: [{ type: 'nope', secret: SECRET }],
      is_error: false,
    } as unknown as ToolResult);
  },
};
const routes: RouteDef[] = [
  { method: 'POST', pattern: '/mcp/:token', access: 'open', handler: (req) => serveMcp(req, surface) },
];

t.test('the endpoint’s own failures are -32603 Internal error, the detail kept back', async (t) => {
  const h = await startHarness({ routes });
  t.teardown(() => h.gw.close());
  for (const [id, tool] of [
    [1, 'throws'],
    [2, 'misanswers'],
  ] as const) {
    const res = await fetch(`${h.base}/mcp/x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: tool, arguments: {} },
      }),
    });
    t.equal(res.status, 200, tool);
    const text = await res.text();
    t.match(JSON.parse(text), { id, error: { code: -32603, message: 'Internal error' } }, tool);
    t.notOk(text.includes(SECRET), `${tool}: the secret is not in the answer`);
    t.notOk(text.includes('Invalid tools/call result'), `${tool}: nor the SDK's words`);
  }
  t.ok(
    h.logs.some((l) => l['event'] === 'mcp_internal_error'),
    'the failure is logged',
  );
  t.notOk(h.rawLogs().includes(SECRET), 'the secret is in no log line');
});
