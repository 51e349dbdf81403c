/**
 * The listener's budget of request-body bytes in flight: a body that would pass it is refused with 503
 * `overloaded` and `Retry-After` before it is read, and the listener accepts again once bodies are done.
 * The cap is 1 MiB here (64 MiB by default) so a test can fill it.
 */
import { once } from 'node:events';
import t from 'tap';
import type { Test } from 'tap';
import { defaultLimits, type RouteDef } from '../../http/index.js';
import { openConnection, type RawResponse } from '../harness/raw-http.js';
import { deferred, startHarness, type Harness } from './fixtures/gateway-harness.js';

const KiB = 1024;
const CAP = 1024 * KiB;

/** `/hold` keeps its body until the test lets go; `/take` answers at once. */
function routes(gate: { entered: () => void; release: Promise<void> }): RouteDef[] {
  return [
    {
      method: 'POST',
      pattern: '/hold',
      access: 'open',
      handler: async (req) => {
        gate.entered();
        await gate.release;
        return { status: 200, body: { bytes: req.body.length } };
      },
    },
    {
      method: 'POST',
      pattern: '/take',
      access: 'open',
      maxBodyBytes: 4 * CAP,
      handler: (req) => ({ status: 200, body: { bytes: req.body.length } }),
    },
  ];
}

async function start(t: Test) {
  const entered = deferred();
  const release = deferred();
  const h = await startHarness({
    routes: routes({ entered: () => entered.resolve(), release: release.promise }),
    limits: { bodyBytesInFlightMax: CAP },
  });
  t.teardown(() => h.gw.close());
  return { h, entered: entered.promise, release: () => release.resolve() };
}

/** Holds `bytes` on the listener: a whole body sent to `/hold`, whose handler waits. */
function holdBody(h: Harness, bytes: number): Promise<Response> {
  return fetch(`${h.base}/hold`, { method: 'POST', body: 'h'.repeat(bytes) });
}

/** Declares `declared` bytes, sends one KiB, and waits for the answer and the close. */
async function declareOnly(port: number, path: string, declared: number): Promise<RawResponse> {
  const conn = await openConnection(port);
  const closed = once(conn.socket, 'close');
  conn.write(`POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-length: ${declared}\r\n\r\n${'d'.repeat(KiB)}`);
  const answer = await conn.response();
  await closed;
  return answer;
}

const bodyOf = (r: RawResponse): Record<string, unknown> => JSON.parse(r.body) as Record<string, unknown>;

t.test('the default budget is 64 MiB per listener', async (t) => {
  t.equal(defaultLimits.bodyBytesInFlightMax, 64 * 1024 * KiB);
});

t.test(
  'a body that would pass the budget answers 503 overloaded with Retry-After, unread; accepted again once freed',
  async (t) => {
    const { h, entered, release } = await start(t);
    const held = holdBody(h, 700 * KiB);
    await entered;
    const refused = await declareOnly(h.gw.port, '/take', 500 * KiB);
    t.equal(refused.status, 503, 'refused with 1 KiB of 500 KiB sent');
    t.equal(bodyOf(refused)['error'], 'overloaded');
    t.equal(refused.headers['retry-after'], '5');
    t.equal(refused.headers['connection'], 'close');
    const line = await h.waitForLog((l) => l['event'] === 'body_refused_overloaded');
    t.equal(line['max_bytes'], CAP);
    t.equal(line['in_flight'], 700 * KiB, 'the held body is what fills the listener');
    const small = await fetch(`${h.base}/take`, { method: 'POST', body: 'x'.repeat(200 * KiB) });
    t.equal(small.status, 200, 'a body that still fits is read');
    release();
    t.equal((await held).status, 200);
    const again = await fetch(`${h.base}/take`, { method: 'POST', body: 'x'.repeat(500 * KiB) });
    t.equal(again.status, 200, 'accepted again once the held body is done');
    t.same(await again.json(), { bytes: 500 * KiB });
  },
);

t.test('a chunked body is counted as it arrives and refused once it passes the budget', async (t) => {
  const { h, entered, release } = await start(t);
  t.teardown(release);
  const held = holdBody(h, 700 * KiB);
  await entered;
  const conn = await openConnection(h.gw.port);
  const closed = once(conn.socket, 'close');
  conn.write(`POST /take HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n`);
  const chunk = 'c'.repeat(100 * KiB);
  // Four chunks of 100 KiB pass 1 MiB beside the 700 KiB held; the answer comes without the terminator.
  for (let i = 0; i < 4; i++) conn.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
  const answer = await conn.response();
  await closed;
  t.equal(answer.status, 503);
  t.equal(bodyOf(answer)['error'], 'overloaded');
  release();
  t.equal((await held).status, 200);
});

t.test('a body the client abandons gives its bytes back', async (t) => {
  const { h } = await start(t);
  const conn = await openConnection(h.gw.port);
  conn.write(`POST /take HTTP/1.1\r\nhost: x\r\ncontent-length: ${900 * KiB}\r\n\r\n${'a'.repeat(KiB)}`);
  // The exchange exists (and holds its 900 KiB) once the gateway is reading the body.
  while (h.gw.inFlight() === 0) await new Promise((resolve) => setImmediate(resolve));
  conn.close();
  await h.waitForLog((l) => l['event'] === 'client_disconnected');
  const next = await fetch(`${h.base}/take`, { method: 'POST', body: 'x'.repeat(900 * KiB) });
  t.equal(next.status, 200, 'the abandoned 900 KiB no longer count');
});

t.test('one body passes alone whatever the budget (the route limit still applies)', async (t) => {
  const { h } = await start(t);
  const res = await fetch(`${h.base}/take`, { method: 'POST', body: 'x'.repeat(2 * CAP) });
  t.equal(res.status, 200);
  t.same(await res.json(), { bytes: 2 * CAP });
});

t.test(
  'a sender that half-closes mid-body gets no answer (the transport closes on FIN) and gives its bytes back',
  async (t) => {
    // Declared length (held whole from the headers) and chunked (held as it arrives): 900 KiB or 300 KiB
    // still held would refuse the next 900 KiB body, the cap being 1 MiB.
    const cases: Array<[string, string, number]> = [
      ['declared length', `content-length: ${900 * KiB}\r\n\r\n${'a'.repeat(KiB)}`, KiB],
      [
        'chunked',
        `transfer-encoding: chunked\r\n\r\n${(300 * KiB).toString(16)}\r\n${'c'.repeat(300 * KiB)}\r\n`,
        300 * KiB,
      ],
    ];
    for (const [what, rest, received] of cases) {
      const { h } = await start(t);
      const conn = await openConnection(h.gw.port);
      const got: Buffer[] = [];
      conn.socket.on('data', (chunk: Buffer) => got.push(chunk));
      const closed = once(conn.socket, 'close');
      conn.write(`POST /take HTTP/1.1\r\nhost: x\r\n${rest}`);
      while (h.gw.inFlight() === 0) await new Promise((resolve) => setImmediate(resolve));
      conn.socket.end(); // shutdown(SHUT_WR): the rest of the body never comes, the socket still reads
      await closed;
      t.equal(Buffer.concat(got).length, 0, `${what}: no answer, uWebSockets.js closes on the FIN`);
      const line = await h.waitForLog((l) => l['event'] === 'client_disconnected');
      t.match(line, { phase: 'body', route: '/take', received }, `${what}: logged while reading the body`);
      const next = await fetch(`${h.base}/take`, { method: 'POST', body: 'x'.repeat(900 * KiB) });
      t.equal(next.status, 200, `${what}: the half-closed body no longer holds the listener budget`);
      t.equal(h.gw.inFlight(), 0, `${what}: nothing left in flight`);
    }
  },
);
