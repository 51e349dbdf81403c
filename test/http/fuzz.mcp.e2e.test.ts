/**
 * Fuzzing the operator's MCP endpoint (`POST /operator/mcp`) on a configured node with both native backends
 * (fixtures/seeded-node.ts): generated `tools/call` requests over every tool the endpoint lists, with its own
 * and stray arguments and values naming what the node holds. Each is answered as JSON-RPC 2.0 with a result
 * (a tool's own refusal is a result with `isError`) or a coded error, never -32603 (the endpoint's own
 * failure) and never an HTTP 5xx. `FUZZ_RUNS` sets the number of cases (default 1500, a third of it here).
 */
import fc from 'fast-check';
import t from 'tap';
import { seededAuth, startSeededNode } from './fixtures/seeded-node.js';

const runs = Math.ceil(Number(process.env['FUZZ_RUNS'] ?? 1500) / 3);
const seed = process.env['FUZZ_SEED'] !== undefined ? Number(process.env['FUZZ_SEED']) : undefined;

interface Tool {
  readonly name: string;
  readonly inputSchema?: { properties?: Record<string, unknown> };
}
interface RpcAnswer {
  readonly result?: { isError?: boolean; tools?: Tool[] };
  readonly error?: { code: number; message: string };
}

async function rpc(url: string, id: number, method: string, params: unknown): Promise<RpcAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...seededAuth, accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  const text = await res.text();
  if (res.status >= 500) throw new Error(`HTTP ${res.status} for ${JSON.stringify(params)}: ${text}`);
  // The answer comes as JSON or as one server-sent event, as the client's Accept allows.
  const json = res.headers.get('content-type')?.startsWith('text/event-stream')
    ? (text
        .split('\n')
        .find((line) => line.startsWith('data: '))
        ?.slice(6) ?? '')
    : text;
  return JSON.parse(json) as RpcAnswer;
}

t.test('generated tool calls on /operator/mcp are answered, never with an internal error', async (t) => {
  const { node, known } = await startSeededNode(t);
  const url = `${node.url}/operator/mcp`;
  const tools = (await rpc(url, 1, 'tools/list', {})).result?.tools ?? [];
  t.ok(tools.length > 5, `the endpoint lists its tools: ${tools.map((tool) => tool.name).join(' ')}`);
  const argNames = [...new Set(tools.flatMap((tool) => Object.keys(tool.inputSchema?.properties ?? {})))];
  const scalar = fc.oneof(
    fc.constantFrom(...known, 'todo', 'in_progress', 'done', 'high', '2027-02-30', '', 'ENG:board'),
    fc.string({ maxLength: 30 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  );
  const value = fc.oneof(
    { arbitrary: scalar, weight: 4 },
    { arbitrary: fc.array(scalar, { maxLength: 3 }), weight: 1 },
    { arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), scalar, { maxKeys: 3 }), weight: 1 },
  );
  const call = fc.record({
    name: fc.oneof({ arbitrary: fc.constantFrom(...tools.map((tool) => tool.name)), weight: 9 }, { arbitrary: fc.string({ maxLength: 20 }), weight: 1 }), // prettier-ignore
    arguments: fc.dictionary(fc.oneof(fc.constantFrom(...argNames), fc.string({ maxLength: 8 })), value, { maxKeys: 6 }), // prettier-ignore
  });
  let id = 1;
  const seen = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(call, async (params) => {
      const answer = await rpc(url, ++id, 'tools/call', params);
      const outcome = answer.error
        ? `error ${answer.error.code}`
        : answer.result?.isError
          ? 'refused'
          : 'result';
      seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
      if (answer.error?.code === -32603)
        throw new Error(`${JSON.stringify(params)} failed inside: ${answer.error.message}`);
      if (!answer.error && !answer.result) throw new Error(`not JSON-RPC: ${JSON.stringify(answer)}`);
    }),
    { numRuns: runs, ...(seed !== undefined ? { seed } : {}), endOnFailure: true },
  );
  t.comment(`outcomes: ${[...seen].map(([k, n]) => `${k}×${n}`).join(' ')}`);
  t.ok((seen.get('result') ?? 0) > 0, 'some calls did their work');
  t.ok((seen.get('refused') ?? 0) + (seen.get('error -32602') ?? 0) > 0, 'some were refused');
  const health = await fetch(`${node.url}/health`);
  t.equal(health.status, 200, 'the node is still up');
});
