/**
 * `WS /ws/stream` of a real `svc serve` node (dist/), spoken to byte by byte (spec "WebSocket and
 * snapshot"): frames `{kind, data, ts}` with `ts` ISO 8601, `snapshot` first and again on every reconnect
 * (the same bundle as `GET /stream/snapshot`), `ping` answered `pong` with `data: null`, queries answered on
 * the socket (ops/events.md frame format). A stalled client dropping its oldest envelope is
 * test/http/stream-backpressure.e2e.test.ts (a real listener, the hub's queue counted).
 */
import t from 'tap';
import { rawWebSocket, type RawUpgrade } from '../harness/ws-raw.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

interface Frame {
  readonly kind: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- frames are read loosely in tests
  readonly data: any;
  readonly ts: string;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const auth: Array<[string, string]> = [['Authorization', `Bearer ${TOKEN}`]];

/** Pushes that may arrive between a query and its answer: the health pulse, a fleet change (a duty taken). */
const pushed = (f: Frame): boolean => f.kind === 'health' || f.kind === 'fleet';

async function next(u: RawUpgrade, match: (f: Frame) => boolean = () => true): Promise<Frame> {
  for (;;) {
    const f = JSON.parse(await u.nextText()) as Frame;
    if (match(f)) return f;
  }
}

t.test('a real node: snapshot first on every connection, pong, queries answered on the socket', async (t) => {
  const node = await startNode(t);
  const snapshotKeys = Object.keys(
    (await (await fetch(`${node.url}/stream/snapshot`)).json()) as Record<string, unknown>,
  ).sort();
  t.same(
    snapshotKeys,
    ['agents', 'budget', 'events', 'health', 'org', 'sandboxes', 'schedules', 'tokens', 'tools'],
    'GET /stream/snapshot is the spec bundle',
  );

  for (const attempt of ['first connection', 'reconnect']) {
    const u = await rawWebSocket(node.port, '/ws/stream', auth);
    t.teardown(() => u.destroy());
    t.equal(u.status, 101, attempt);
    const first = JSON.parse(await u.nextText()) as Frame;
    t.equal(first.kind, 'snapshot', `${attempt}: the first frame is the snapshot`);
    t.match(first.ts, ISO, `${attempt}: ts is ISO 8601`);
    t.same(Object.keys(first.data as object).sort(), snapshotKeys, `${attempt}: the same bundle`);
    t.same(Object.keys(first).sort(), ['data', 'kind', 'ts'], `${attempt}: {kind, data, ts}`);

    u.sendText(JSON.stringify({ kind: 'ping' }));
    const pong = await next(u, (f) => f.kind === 'pong');
    t.equal(pong.data, null, `${attempt}: pong carries data null`);
    t.match(pong.ts, ISO);

    u.sendText(JSON.stringify({ kind: 'query', id: 'q1', what: 'events', params: { limit: 5 } }));
    const result = await next(u, (f) => f.kind === 'result' || f.kind === 'error');
    t.equal(result.kind, 'result', `${attempt}: events answered`);
    t.match(result.data, { id: 'q1', what: 'events', data: { coverage: Object } });

    u.sendText(JSON.stringify({ kind: 'query', id: 2, what: 'agent' }));
    const refused = await next(u, (f) => f.kind === 'error');
    t.match(
      refused.data,
      { id: 2, what: 'agent', error: 'invalid_query', code: 'bad_params', status: 400 },
      `${attempt}: a bad parameter is refused on the socket as over HTTP`,
    );
    u.sendText(JSON.stringify({ kind: 'query', id: 3, what: 'config_audit' }));
    t.match((await next(u, (f) => !pushed(f))).data, { id: 3, what: 'config_audit' });
    u.sendText('not json');
    t.match((await next(u, (f) => !pushed(f))).data, { error: 'bad_frame', id: null });
    u.sendText(JSON.stringify({ kind: 'event', data: {} }));
    t.match(
      (await next(u, (f) => !pushed(f))).data,
      { error: 'bad_frame' },
      `${attempt}: the socket carries no write`,
    );
    // A query naming a write (a secret's value, a config put) finds no source: questions only read.
    for (const what of ['secrets_put', 'config_put', 'secret_reveal']) {
      u.sendText(JSON.stringify({ kind: 'query', id: what, what, params: { name: 'A_NAME', value: 'v' } }));
      t.match(
        (await next(u, (f) => !pushed(f))).data,
        { id: what, what, error: 'unknown_query', code: 'unknown_query', status: 404 },
        `${attempt}: ${what} is no question`,
      );
    }
    u.destroy();
  }
});
