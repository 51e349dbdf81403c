/**
 * The spec's byte and length limits held by a built `svc serve` (the gateway's own tests hold them on an
 * in-process listener): a webhook body of exactly 25 MiB is delivered and one byte more is refused 413
 * `body_too_large`, declared or chunked; an API body of 8 MiB is read and one byte more is refused 413
 * `body_too_large`, declared or chunked; a secret of 64 KiB is stored and one byte more, chunked, is
 * refused 413 `body_too_large`; the monitor token counts from 26 characters; an op_id of 128 bytes is a
 * retry handle; a body still arriving after 30 s is refused 400 `unreadable_body`. Each refusal is a
 * problem body with a hint, and leaves nothing behind.
 */
import { once } from 'node:events';
import t, { type Test } from 'tap';
import { openConnection } from '../harness/raw-http.js';
import { startNode, TOKEN, type ServedNode } from '../harness/serve-node.js';
import { keyringYaml } from './fixtures/secrets-node.js';

type Json = Record<string, unknown>;
const MiB = 1024 * 1024;
const KiB = 1024;
const auth = { authorization: `Bearer ${TOKEN}` };
const MONITOR = 'm'.repeat(26);

/** The answer to a request whose head and first bytes are written raw; the node hangs up behind it. */
async function rawAnswer(
  node: ServedNode,
  head: string,
  ...chunks: string[]
): Promise<Json & { status: number }> {
  const conn = await openConnection(node.port);
  const closed = once(conn.socket, 'close');
  conn.write(head);
  for (const chunk of chunks) conn.write(chunk);
  const answer = await conn.response();
  await closed;
  return { status: answer.status, ...(JSON.parse(answer.body) as Json) };
}

const monitorHead = (headers: string): string =>
  `POST /webhooks/monitor HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n` +
  `x-service-token: ${MONITOR}\r\n${headers}\r\n`;

/** A monitor alert padded with spaces to exactly `bytes`. */
function alertOf(bytes: number, title: string): Buffer {
  const text = JSON.stringify({ status: 'firing', title });
  return Buffer.from(text + ' '.repeat(bytes - Buffer.byteLength(text)));
}

/** Monitor deliveries this node counted, by outcome. */
async function monitorArrivals(node: ServedNode): Promise<Json> {
  const answer = (await (await fetch(`${node.url}/integrations`, { headers: auth })).json()) as Json;
  const monitor = (answer['surfaces'] as Json[]).find((s) => s['surface'] === 'monitor');
  return monitor?.['arrivals'] as Json;
}

/** A node with a document (a node without one answers every webhook 503) and the monitor token set. */
async function monitorNode(t: Test, token: string): Promise<ServedNode> {
  const node = await startNode(t, '', 'memory', { SVC_MONITOR_WEBHOOK_TOKEN: token });
  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'first' },
    body: JSON.stringify({ name: 'Acme', roles: [{ name: 'Ada' }] }),
  });
  t.equal(put.status, 201, 'the document is stored');
  await node.run.waitForLog((line) => line.msg === 'config applied');
  return node;
}

t.test('a webhook body of 25 MiB is delivered; one byte more is refused 413 body_too_large', async (t) => {
  const node = await monitorNode(t, MONITOR);
  const full = await fetch(`${node.url}/webhooks/monitor`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': MONITOR },
    body: alertOf(25 * MiB, 'exactly the limit'),
  });
  t.equal(full.status, 200, 'exactly 25 MiB is read');
  t.match(await full.json(), { accepted: true });
  const before = await monitorArrivals(node);

  const declared = await rawAnswer(
    node,
    monitorHead(`content-length: ${25 * MiB + 1}\r\n`),
    'a'.repeat(64 * KiB),
  );
  t.match(declared, { status: 413, error: 'body_too_large', max_bytes: 25 * MiB, hint: /\S/ });

  // A chunked body has no length to refuse from: it is counted as it arrives and cut once past the limit.
  const chunk = ' '.repeat(MiB);
  const chunked = await rawAnswer(
    node,
    monitorHead('transfer-encoding: chunked\r\n'),
    `${(1).toString(16)}\r\n{\r\n`,
    ...Array.from({ length: 25 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`),
  );
  t.match(chunked, { status: 413, error: 'body_too_large', max_bytes: 25 * MiB, hint: /\S/ });

  t.same(await monitorArrivals(node), before, 'neither refusal was received');
  const after = await fetch(`${node.url}/webhooks/monitor`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-token': MONITOR },
    body: alertOf(100, 'still serving'),
  });
  t.equal(after.status, 200, 'the node still takes deliveries');
  t.match(await monitorArrivals(node), { accepted: 2 });
});

t.test('a secret of 64 KiB is stored; one byte more, chunked, is refused and nothing stored', async (t) => {
  const node = await startNode(t, keyringYaml('k1', ['k1', 1]));
  const put = (name: string, body: Buffer): Promise<Response> =>
    fetch(`${node.url}/secrets/${name}`, { method: 'PUT', headers: auth, body });
  const limit = Buffer.alloc(64 * KiB, 0x61);
  t.equal((await put('AT_LIMIT', limit)).status, 200);
  const back = await fetch(`${node.url}/secrets/AT_LIMIT?reveal=true`, { headers: auth });
  t.same(Buffer.from(await back.arrayBuffer()), limit, 'stored whole');

  const chunkedHead = (name: string): string =>
    `PUT /secrets/${name} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\n` +
    `transfer-encoding: chunked\r\nconnection: close\r\n\r\n`;
  const half = 'a'.repeat(32 * KiB);
  const over = await rawAnswer(
    node,
    chunkedHead('OVER_LIMIT'),
    ...[half, half, 'a'].map((c) => `${c.length.toString(16)}\r\n${c}\r\n`),
  );
  t.match(over, {
    status: 413,
    error: 'body_too_large',
    max_bytes: 64 * KiB,
    detail: /65536 bytes, 64 KiB/,
    hint: /secret value is at most 64 KiB/,
  });
  t.equal((await fetch(`${node.url}/secrets/OVER_LIMIT`, { headers: auth })).status, 404, 'nothing stored');
  const exact = await rawAnswer(
    node,
    chunkedHead('CHUNKED_AT_LIMIT'),
    ...[half, half].map((c) => `${c.length.toString(16)}\r\n${c}\r\n`),
    '0\r\n\r\n',
  );
  t.match(exact, { status: 200, name: 'CHUNKED_AT_LIMIT' }, '64 KiB chunked is a value');
});

t.test('an API body of 8 MiB is read; one byte more is refused 413 body_too_large', async (t) => {
  const node = await startNode(t);
  const configHead = (headers: string): string =>
    `PUT /config HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\ncontent-type: application/json\r\n` +
    `x-summary: big\r\n${headers}\r\n`;
  // Exactly the limit is read whole and judged as a document: not JSON, so invalid_body, never the limit.
  const full = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'big' },
    body: Buffer.alloc(8 * MiB, 0x61),
  });
  t.equal(full.status, 400, 'exactly 8 MiB is read');
  t.match(await full.json(), { error: 'invalid_body' });

  const declared = await rawAnswer(node, configHead(`content-length: ${8 * MiB + 1}\r\n`), 'a'.repeat(KiB));
  const refusal = {
    status: 413,
    error: 'body_too_large',
    max_bytes: 8 * MiB,
    detail: /8388608 bytes, 8 MiB/,
    hint: /\S/,
  };
  t.match(declared, refusal, 'refused from the declared length');
  const chunk = 'a'.repeat(MiB);
  const chunked = await rawAnswer(
    node,
    configHead('transfer-encoding: chunked\r\n'),
    ...Array.from({ length: 9 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`),
  );
  t.match(chunked, refusal, 'a chunked body is cut once past the limit');
  const line = await node.run.waitForLog((l) => l['event'] === 'body_unreadable');
  t.match(line, { reason: 'too_large', route: '/config', max_bytes: 8 * MiB });
  const config = await fetch(`${node.url}/config`, { headers: auth });
  t.equal(config.status, 404, 'no revision was stored');
});

t.test(
  'the monitor token counts from 26 characters: a shorter one leaves the route unconfigured',
  async (t) => {
    const short = 'm'.repeat(25);
    const node = await monitorNode(t, short);
    const res = await fetch(`${node.url}/webhooks/monitor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': short },
      body: alertOf(100, 'short token'),
    });
    t.equal(res.status, 503, '25 characters: unset');
    t.equal(res.headers.get('retry-after'), '30');
    t.notOk(((await res.json()) as Json)['error'], 'codeless (spec)');
  },
);

t.test('an op_id of 128 visible ASCII bytes is a retry handle; 129 is refused', async (t) => {
  const node = await startNode(t, 'tracker: {backend: native}');
  const send = (method: string, path: string, body?: Json): Promise<Response> =>
    fetch(`${node.url}${path}`, {
      method,
      headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'seed' },
      body: body === undefined ? null : JSON.stringify(body),
    });
  const company = {
    name: 'Acme',
    units: [
      {
        name: 'Engineering',
        type: 'team',
        lead: 'Ada',
        roles: [{ name: 'Ada', kind: 'human', contact: { chat_user_id: 'U1' } }],
        integrations: { work: { project: 'ENG' } },
      },
    ],
  };
  t.equal((await send('PUT', '/config', company)).status, 201);
  const at = '~'.repeat(127) + '!';
  const first = await send('POST', '/work', { project: 'ENG', title: 'one', op_id: at });
  t.equal(first.status, 201, '128 bytes');
  const retried = await send('POST', '/work', { project: 'ENG', title: 'one', op_id: at });
  t.match(await first.json(), { key: 'ENG-1', op_id: at });
  t.match(await retried.json(), { key: 'ENG-1' }, 'the retry is the same create');
  const over = await send('POST', '/work', { project: 'ENG', title: 'two', op_id: 'o'.repeat(129) });
  t.equal(over.status, 400);
  t.match(await over.json(), { error: 'op_id_invalid', detail: /129 bytes; at most 128/, hint: /\S/ });
  const items = (await (await send('GET', '/work?project=ENG')).json()) as Json;
  t.equal((items['items'] as unknown[]).length, 1, 'one item: the retry and the refusal made none');
});

t.test('a body still arriving after 30 s is refused 400 unreadable_body and nothing is stored', async (t) => {
  const node = await startNode(t);
  const conn = await openConnection(node.port);
  const closed = once(conn.socket, 'close');
  const started = Date.now();
  conn.write(
    `PUT /config HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\ncontent-type: application/json\r\n` +
      `x-summary: slow\r\ncontent-length: ${8 * MiB}\r\n\r\n{"name":"Acme"`,
  );
  // Paced well above the library's own cut for a trickle (about 16 KB/s), so the 30 s deadline is what ends it.
  const pace = setInterval(() => conn.socket.writable && conn.write(' '.repeat(20 * KiB)), 400);
  t.teardown(() => clearInterval(pace));
  const answer = await conn.response();
  const elapsed = Date.now() - started;
  clearInterval(pace);
  await closed;
  t.equal(answer.status, 400);
  t.match(JSON.parse(answer.body), { error: 'unreadable_body', detail: /30000 ms/, hint: /\S/ });
  t.ok(elapsed >= 30_000 && elapsed < 40_000, `answered at the deadline (${elapsed} ms)`);
  const line = await node.run.waitForLog((l) => l['event'] === 'body_unreadable');
  t.match(line, { reason: 'timeout', route: '/config' });
  const config = await fetch(`${node.url}/config`, { headers: auth });
  t.equal(config.status, 404, 'no revision was stored');
  t.match(await config.json(), { error: 'no_active_revision' });
});
