/**
 * `svc serve`'s drain on real children (README "Stop it with Ctrl-C"; ops/turn-engine.md "Drain"): a turn
 * running at SIGTERM keeps every tool it uses through its grace, the api listener keeps answering probes
 * (and refusing writes) until the turns have settled, and a live-stream socket is closed with 1001.
 */
import { connect } from 'node:net';
import t, { type Test } from 'tap';
import { startLlmServer, type LlmServer } from '../fixtures/llm/llm-server.js';
import type { Step } from '../fixtures/llm/script.js';
import { startNode, TOKEN, type ServedNode } from '../harness/serve-node.js';
import { until } from '../harness/until.js';
import { workCompany } from './fixtures/work-company.js';

type Json = Record<string, unknown>;
const auth = { authorization: `Bearer ${TOKEN}` };
const usage = { prompt_tokens: 10, completion_tokens: 5 };

/** Plan, one `work_create` call held until the test releases `call`, the account, the review. */
const script: Step[] = [
  {
    kind: 'text',
    text: '{"decision":"plan","steps":["file it"],"success_criteria":["filed"],"tools":["work_create"]}',
    usage,
  },
  {
    kind: 'tool_calls',
    hold: 'call',
    calls: [{ id: 'c1', name: 'work_create', arguments: { project: 'ENG', title: 'Filed while draining' } }],
    usage,
  },
  { kind: 'text', text: 'Filed it.', usage },
  { kind: 'text', text: '{"verdict":"done","notes":"filed"}', usage },
];

async function send(node: ServedNode, method: string, path: string, body?: unknown) {
  const res = await fetch(`${node.url}${path}`, {
    method,
    headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'drain test' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Json };
}

/** A node with the native tracker whose seat `coder` is running a turn held on its tool call. */
async function turnHeldOnToolCall(t: Test): Promise<{ node: ServedNode; llm: LlmServer }> {
  const llm = await startLlmServer({ wire: 'openai', script });
  t.teardown(() => llm.close());
  const node = await startNode(t, 'tracker: {backend: native}\nnode: {turn_grace_seconds: 60}');
  const put = await send(node, 'PUT', '/config', workCompany(llm.baseUrl));
  t.equal(put.status, 201, JSON.stringify(put.json));
  await until(
    () => send(node, 'GET', '/work/projects'),
    (r) => (r.json['projects'] as Json[] | undefined)?.length === 1,
  );
  // Assigning an item wakes the seat; its second model call (the tool call) is held.
  const created = await send(node, 'POST', '/work', { project: 'ENG', title: 'Wake', assignees: ['coder'] });
  t.equal(created.status, 201, JSON.stringify(created.json));
  await llm.waitForRequests(2);
  return { node, llm };
}

/** The tool messages the model was sent back after its calls, from the request that followed them. */
const toolResults = (llm: LlmServer, request: number): string[] =>
  ((llm.requests[request]?.body?.['messages'] ?? []) as Json[])
    .filter((m) => m['role'] === 'tool')
    .map((m) => String(m['content']));

t.test(
  'a tool call released after SIGTERM completes: the turn keeps its tools through the grace',
  async (t) => {
    const { node, llm } = await turnHeldOnToolCall(t);
    node.run.kill('SIGTERM');
    await node.run.waitForLog((l) => l.msg === 'drain started');
    const releasedAt = Date.now();
    llm.release('call');
    t.equal(await node.run.exited, 0, 'the node exits 0 once the turn is done');
    const [result] = toolResults(llm, 2);
    t.ok(result, 'the model was sent the tool result');
    t.match(result, /"key":\s*"ENG-2"/, 'work_create answered with the item it filed, not a failure');
    t.ok(
      node.run.lines.some((l) => l.msg === 'turn completed'),
      'the turn completed before the node exited',
    );
    t.notOk(node.run.lines.some((l) => l.msg === 'turn cut for shutdown; handed over'));
    // Against the 60 s grace, with room for a slow machine: a drain that waited the grace out takes it all.
    t.ok(
      Date.now() - releasedAt < 30_000,
      `the drain ended with the turn, not the grace (${Date.now() - releasedAt} ms)`,
    );
  },
);

t.test('through the grace api.port answers probes (503 draining) and refuses writes', async (t) => {
  const { node, llm } = await turnHeldOnToolCall(t);
  node.run.kill('SIGTERM');
  await node.run.waitForLog((l) => l.msg === 'drain started');
  const ready = await fetch(`${node.url}/ready`);
  t.equal(ready.status, 503, '/ready 503');
  t.match(await ready.json(), { ready: false, draining: true, reason: 'draining' });
  const health = await fetch(`${node.url}/health`);
  t.equal(health.status, 200, '/health 200');
  t.match(await health.json(), { status: 'shutting_down' });
  const write = await send(node, 'POST', '/work', { project: 'ENG', title: 'Too late' });
  t.equal(write.status, 503, 'a write is refused');
  t.match(write.json, { error: 'draining' });
  // The Errors row: `Retry-After: 30` and a body of `{error, detail, hint}`, on every write family.
  for (const [method, path] of [
    ['POST', '/work'],
    ['PUT', '/config'],
    ['POST', '/config/reload'],
  ] as const) {
    const res = await fetch(`${node.url}${path}`, {
      method,
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'drain test' },
      body: '{}',
    });
    t.equal(res.status, 503, `${method} ${path}`);
    t.equal(res.headers.get('retry-after'), '30', `${method} ${path}: Retry-After`);
    const body = (await res.json()) as Json;
    t.same(Object.keys(body).sort(), ['detail', 'error', 'hint'], `${method} ${path}: the body's keys`);
    t.equal(body['error'], 'draining');
    t.type(body['detail'], 'string');
    t.type(body['hint'], 'string');
  }
  // An unauthenticated write is 401 whether or not the node drains: no credential, or a wrong one.
  for (const headers of [{}, { authorization: 'Bearer not-the-token-0123456789' }] as Record<
    string,
    string
  >[]) {
    const res = await fetch(`${node.url}/work`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ project: 'ENG', title: 'Anonymous' }),
    });
    t.equal(res.status, 401, 'an unauthenticated write is 401 while draining');
    t.equal(res.headers.get('retry-after'), null, 'and asks no one to come back');
    t.match(await res.json(), { error: 'invalid_token', detail: String, hint: String });
  }
  llm.release('call');
  t.equal(await node.run.exited, 0);
  const at = (match: (l: Json) => boolean): number => node.run.lines.findIndex(match);
  t.ok(
    at((l) => l['event'] === 'listener_closing') > at((l) => l['msg'] === 'turn completed'),
    'api.port started closing once the turn had completed',
  );
});

/** Opens `/ws/stream`; `code` resolves, once the connection ends, with the code of the server's close frame. */
function openStream(t: Test, port: number): { opened: Promise<void>; code: Promise<number | null> } {
  const socket = connect(port, '127.0.0.1');
  t.teardown(() => socket.destroy());
  let bytes = Buffer.alloc(0);
  let onOpen: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (onOpen = resolve));
  socket.on('data', (chunk: Buffer) => {
    bytes = Buffer.concat([bytes, chunk]);
    if (bytes.includes('\r\n\r\n')) onOpen();
  });
  socket.on('error', () => socket.destroy());
  socket.write(
    [
      'GET /ws/stream HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Version: 13',
      `Authorization: Bearer ${TOKEN}`,
      '\r\n',
    ].join('\r\n'),
  );
  const code = new Promise<number | null>((resolve) =>
    socket.on('close', () => {
      // Walk the server's frames (unmasked) after the 101 head; the close frame starts with its code.
      let at = bytes.indexOf('\r\n\r\n') + 4;
      while (at > 3 && at + 2 <= bytes.length) {
        const opcode = bytes[at]! & 0x0f;
        let len = bytes[at + 1]! & 0x7f;
        let head = 2;
        if (len === 126) [len, head] = [bytes.readUInt16BE(at + 2), 4];
        else if (len === 127) [len, head] = [Number(bytes.readBigUInt64BE(at + 2)), 10];
        if (opcode === 8) return resolve(len >= 2 ? bytes.readUInt16BE(at + head) : null);
        at += head + len;
      }
      resolve(null);
    }),
  );
  return { opened, code };
}

t.test('a live-stream socket open at SIGTERM is closed with 1001, not dropped', async (t) => {
  const node = await startNode(t);
  const ws = openStream(t, node.port);
  await ws.opened;
  await until(
    async () => (await (await fetch(`${node.url}/health`)).json()) as Json,
    (h) => h['clients'] === 1,
  );
  node.run.kill('SIGTERM');
  t.equal(await ws.code, 1001, 'the close frame says the node is going away');
  t.equal(await node.run.exited, 0);
});
