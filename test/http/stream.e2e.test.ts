import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import t from 'tap';
import { publishEvent, Subjects, newEvent } from '../../bus/index.js';
import { ApiError } from '../../http/index.js';
import { UpgradeRefusedError } from '../../scripts/ws-client.js';
import { dashboard, startEventsNode } from './fixtures/events-node.js';
import { call, OPS, openAuth } from './fixtures/gateway-harness.js';

/** The HTTP status an upgrade was refused with, or 101 when it was accepted. */
async function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  try {
    const d = await dashboard(url, headers);
    d.client.close();
    return 101;
  } catch (e) {
    if (e instanceof UpgradeRefusedError) return e.status;
    throw e;
  }
}

/** The head of the server's answer to an upgrade request carrying `headers` (the socket then closed). */
async function rawUpgrade(ws: string, headers: Record<string, string>): Promise<string> {
  const { hostname, port } = new URL(ws);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  const lines = [
    'GET /ws/stream HTTP/1.1',
    `Host: ${hostname}:${port}`,
    'Upgrade: websocket',
    'Connection: Upgrade',
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
    'Sec-WebSocket-Version: 13',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  let head = '';
  for await (const chunk of socket) {
    head += (chunk as Buffer).toString('latin1');
    if (head.includes('\r\n\r\n')) break;
  }
  socket.destroy();
  return head.slice(0, head.indexOf('\r\n\r\n') + 2);
}

const ev = (type: string, category: string, extra = {}) =>
  newEvent({
    type,
    category: category as 'task',
    source: 'test',
    summary: type,
    actor: 'system',
    payload: { secret_ish: 'payload only by id' },
    ...extra,
  });

t.test('the snapshot has every section; sections not provided answer their empty value', async (t) => {
  const { h, bus, events } = await startEventsNode(t);
  const e = ev('TaskCreated', 'task');
  await publishEvent(bus, e);
  await events.projection.until(1, 30_000);
  const snap = await call(`${h.base}/stream/snapshot`);
  t.equal(snap.status, 200);
  const body = snap.json!;
  t.same(Object.keys(body), [
    'health',
    'agents',
    'events',
    'sandboxes',
    'tools',
    'org',
    'tokens',
    'budget',
    'schedules',
  ]);
  t.same(
    [body['agents'], body['sandboxes'], body['tools'], body['org'], body['tokens'], body['schedules']],
    [[], [], [], [], [], []],
  );
  t.equal(body['budget'], null);
  t.match(body['health'], { status: 'ok' });
  const rows = body['events'] as Array<Record<string, unknown>>;
  t.equal(rows[0]?.['id'], e.id);
  t.notOk('payload' in rows[0]!, 'feed rows carry no payload');
  t.equal(rows[0]?.['failed'], false);
});

t.test('the socket sends the snapshot first, answers ping with pong, pushes feed events only', async (t) => {
  const { ws, bus } = await startEventsNode(t);
  const d = await dashboard(`${ws}/ws/stream`);
  t.teardown(() => d.client.close());
  const first = await d.next(() => true);
  t.equal(first.kind, 'snapshot');
  t.ok(first.data.events && 'health' in first.data);
  t.ok(!Number.isNaN(Date.parse(first.ts)), 'ts is ISO 8601');
  d.client.send(JSON.stringify({ kind: 'ping' }));
  const pong = await d.next((f) => f.kind === 'pong');
  t.equal(pong.data, null);

  const spend = ev('auxiliary_spend', 'system');
  const task = ev('TaskCreated', 'task', { agent_id: 'ada' });
  await publishEvent(bus, spend);
  await publishEvent(bus, task);
  const pushed = await d.next((f) => f.kind === 'event');
  t.equal(pushed.data.id, task.id, 'auxiliary_spend was not pushed; the task was');
  t.equal(pushed.data.agent_id, 'ada');
  t.notOk('payload' in pushed.data);
});

t.test('a reconnecting dashboard gets the snapshot again, with what it missed', async (t) => {
  const { ws, bus, events } = await startEventsNode(t);
  const d1 = await dashboard(`${ws}/ws/stream`);
  await d1.next((f) => f.kind === 'snapshot');
  d1.client.close();
  await d1.client.closed;
  const missed = ev('TaskCompleted', 'task');
  await publishEvent(bus, missed);
  await events.projection.until(1, 30_000);
  const d2 = await dashboard(`${ws}/ws/stream`);
  t.teardown(() => d2.client.close());
  const snap = await d2.next(() => true);
  t.equal(snap.kind, 'snapshot');
  t.equal(snap.data.events[0].id, missed.id);
});

t.test(
  'section pushes become frames; seats, org and tools are re-sent whole on every config apply',
  async (t) => {
    const { ws, bus, events } = await startEventsNode(t);
    let push: ((data: unknown, mode: 'replace' | 'merge') => void) | null = null;
    let seats: unknown = [{ handle: 'ada' }];
    events.sections.register({
      name: 'seats',
      current: () => seats,
      subscribe: (p) => ((push = p), () => undefined),
    });
    events.sections.register({ name: 'agents', current: () => [], subscribe: () => () => undefined });
    const d = await dashboard(`${ws}/ws/stream`);
    t.teardown(() => d.client.close());
    await d.next((f) => f.kind === 'snapshot');
    push!({ ada: { live_call: null, last_error: null } }, 'merge');
    seats = [{ handle: 'ada' }, { handle: 'bob' }];
    await bus.publish(Subjects.configRevisionApplied, new TextEncoder().encode('{"status":"applied"}'));
    const resent = await d.next((f) => f.kind === 'seats' && Array.isArray(f.data));
    t.same(resent.data, seats);
    t.ok(
      d.frames.some((f) => f.kind === 'org') && d.frames.some((f) => f.kind === 'tools'),
      'org and tools too',
    );
    t.same(d.frames.find((f) => f.kind === 'seats' && !Array.isArray(f.data))?.data, {
      ada: { live_call: null, last_error: null },
    });
  },
);

t.test(
  'one shared health tick: every socket gets the same health frame, clients counts dashboards',
  async (t) => {
    const { ws } = await startEventsNode(t, { healthIntervalMs: 100 });
    const a = await dashboard(`${ws}/ws/stream`);
    const b = await dashboard(`${ws}/ws/stream`);
    t.teardown(() => (a.client.close(), b.client.close()));
    const ha = await a.next((f) => f.kind === 'health' && f.data.clients === 2);
    const hb = await b.next((f) => f.kind === 'health' && f.ts === ha.ts);
    t.same(hb, ha, 'the frame was encoded once for both');
  },
);

t.test('the query channel answers registered questions and refuses with a closed set of codes', async (t) => {
  const questions = new Map([
    ['config_audit', { guarded: true, answer: () => [{ revision_id: 'r1' }] }],
    [
      'boom',
      {
        guarded: false,
        answer: () => {
          throw new Error('inner detail');
        },
      },
    ],
    [
      'bad',
      {
        guarded: false,
        answer: () => {
          throw new ApiError('bad_params', { detail: 'x' });
        },
      },
    ],
    [
      'unconfigured',
      {
        guarded: false,
        answer: () => {
          throw new ApiError('no_active_revision');
        },
      },
    ],
  ]);
  const { ws, bus, events } = await startEventsNode(t, { questions });
  const e = ev('TaskCreated', 'task');
  await publishEvent(bus, e);
  await events.projection.until(1, 30_000);
  const d = await dashboard(`${ws}/ws/stream`);
  t.teardown(() => d.client.close());
  await d.next((f) => f.kind === 'snapshot');
  const ask = async (frame: Record<string, unknown>) => {
    d.client.send(JSON.stringify({ kind: 'query', ...frame }));
    return d.next((f) => (f.kind === 'result' || f.kind === 'error') && f.data.id === frame['id']);
  };
  const page = await ask({ id: 1, what: 'events', params: { limit: 5 } });
  t.equal(page.kind, 'result');
  t.equal(page.data.what, 'events');
  t.equal(page.data.data.rows[0].id, e.id);
  t.match(page.data.data.coverage, { complete: true });
  const one = await ask({ id: 'e', what: 'event', params: { event_id: e.id } });
  t.same(one.data.data.payload, e.payload);
  t.match((await ask({ id: 2, what: 'event', params: { event_id: 'nope' } })).data, {
    error: 'not_found',
    what: 'event',
  });
  t.match(
    (await ask({ id: 3, what: 'nonesuch' })).data,
    { error: 'unknown_query', detail: /nonesuch/, hint: /Questions here: .*events/ },
    "a refusal carries the route's detail and hint, as over HTTP",
  );
  t.match((await ask({ id: 4, what: 'config_audit' })).data, { error: 'unauthorized' });
  t.match((await ask({ id: 5, what: 'config_audit', token: 'wrong' })).data, { error: 'unauthorized' });
  const audited = await ask({ id: 6, what: 'config_audit', token: openAuth.tokens[0]!.token });
  t.same(audited.data.data, [{ revision_id: 'r1' }]);
  t.match((await ask({ id: 7, what: 'events', params: { before_id: 'x' } })).data, {
    error: 'invalid_query',
  });
  const failed = await ask({ id: 8, what: 'boom' });
  t.same(failed.data, { id: 8, what: 'boom', error: 'query_failed' }, 'no inner detail leaks');
  t.match((await ask({ id: 9, what: 'bad' })).data, { error: 'invalid_query' });
  // Nothing active yet is a state to show, not a failure of the node.
  t.match((await ask({ id: 11, what: 'unconfigured' })).data, {
    error: 'not_found',
    detail: 'No configuration revision is active yet.',
  });
  d.client.send('not json');
  t.match((await d.next((f) => f.kind === 'error')).data, { id: null, error: 'bad_frame' });
  d.client.send(JSON.stringify({ kind: 'write', id: 10 }));
  t.match(
    (await d.next((f) => f.kind === 'error')).data,
    { id: 10, error: 'bad_frame' },
    'the socket carries no write',
  );
});

t.test('with the guard off, a query frame with any token is answered as over HTTP', async (t) => {
  const questions = new Map([['config_audit', { guarded: true, answer: () => ['ok'] }]]);
  const { ws, h } = await startEventsNode(t, { questions, auth: { ...openAuth, disabled: true } });
  t.equal(
    (await call(`${h.base}/query/config_audit`, { headers: { authorization: 'Bearer x' } })).status,
    200,
  );
  const d = await dashboard(`${ws}/ws/stream`);
  t.teardown(() => d.client.close());
  d.client.send(JSON.stringify({ kind: 'query', id: 1, what: 'config_audit', token: 'x' }));
  t.match(await d.next((f) => f.kind === 'result' || f.kind === 'error'), {
    kind: 'result',
    data: { data: ['ok'] },
  });
});

t.test('a socket opened with a token asks guarded questions without repeating it', async (t) => {
  const questions = new Map([['config_audit', { guarded: true, answer: () => ['ok'] }]]);
  const { ws } = await startEventsNode(t, { questions });
  const d = await dashboard(`${ws}/ws/stream`, { Authorization: OPS });
  t.teardown(() => d.client.close());
  d.client.send(JSON.stringify({ kind: 'query', id: 1, what: 'config_audit' }));
  t.same((await d.next((f) => f.kind === 'result')).data.data, ['ok']);
});

t.test(
  'authentication: tokens in Authorization or ?token= when anonymous reads are off; 401 and 426 without Upgrade',
  async (t) => {
    const closed = { ...openAuth, allowAnonymousRead: false };
    const { ws, h } = await startEventsNode(t, { auth: closed });
    const token = openAuth.tokens[0]!.token;
    t.equal(await upgradeStatus(`${ws}/ws/stream`), 401, 'no credential');
    const refused = await dashboard(`${ws}/ws/stream?token=wrong`).catch((e: unknown) => e);
    t.ok(
      refused instanceof UpgradeRefusedError &&
        refused.status === 401 &&
        refused.body.includes('invalid_token'),
    );
    for (const d of [
      await dashboard(`${ws}/ws/stream?token=${token}`),
      await dashboard(`${ws}/ws/stream`, { Authorization: OPS }),
    ]) {
      t.equal((await d.next(() => true)).kind, 'snapshot');
      d.client.close();
    }
    t.equal((await call(`${h.base}/ws/stream`)).status, 401, 'no Upgrade, no credential: 401');
    t.equal(
      (await call(`${h.base}/ws/stream?token=wrong`)).status,
      401,
      'no Upgrade, refused credential: 401',
    );
    const accepted = await call(`${h.base}/ws/stream?token=${token}`);
    t.equal(accepted.status, 426, 'no Upgrade, accepted credential: 426');
    t.equal(accepted.headers.get('upgrade'), 'websocket');
    t.equal((await call(`${h.base}/ws/stream`, { headers: { Authorization: OPS } })).status, 426);
    t.equal((await call(`${h.base}/events`, { headers: { Authorization: OPS } })).status, 200);
    t.equal(
      (await call(`${h.base}/events?token=${token}`)).status,
      401,
      'a query token authenticates nobody elsewhere',
    );
  },
);

t.test(
  'when anonymous reads are off, the socket takes its token as a subprotocol, never echoed',
  async (t) => {
    const { ws } = await startEventsNode(t, { auth: { ...openAuth, allowAnonymousRead: false } });
    const token = openAuth.tokens[0]!.token;
    const offer = (value: string): Record<string, string> => ({
      'Sec-WebSocket-Protocol': `svc.stream, svc.token.${Buffer.from(value).toString('base64url')}`,
    });
    const d = await dashboard(`${ws}/ws/stream`, offer(token));
    t.equal((await d.next(() => true)).kind, 'snapshot', 'the token in the subprotocol opens the stream');
    d.client.close();
    const refused = await dashboard(`${ws}/ws/stream`, offer('wrong')).catch((e: unknown) => e);
    t.ok(refused instanceof UpgradeRefusedError && refused.status === 401, 'a wrong one is refused');
    const raw = await rawUpgrade(ws, offer(token));
    t.match(raw, /^HTTP\/1\.1 101/, 'switching protocols');
    t.match(raw, /sec-websocket-protocol: svc\.stream\r\n/i, 'answered with the stream protocol');
    t.notMatch(raw, /svc\.token/, 'the token is not echoed');
  },
);

t.test('with anonymous reads on, a wrong token is still refused and no token is accepted', async (t) => {
  const { ws, h } = await startEventsNode(t);
  t.equal(await upgradeStatus(`${ws}/ws/stream`, { Authorization: 'Bearer wrong' }), 401);
  const d = await dashboard(`${ws}/ws/stream`);
  t.equal((await d.next(() => true)).kind, 'snapshot');
  d.client.close();
  t.equal((await call(`${h.base}/ws/stream`)).status, 426);
});

t.test('REST adapters answer like the questions they adapt', async (t) => {
  const { h, bus, events } = await startEventsNode(t);
  const e = ev('TaskCreated', 'task');
  await publishEvent(bus, e);
  await events.projection.until(1, 30_000);
  const list = await call(`${h.base}/events?limit=10&feed_only=true`);
  t.equal(list.status, 200);
  t.match(list.json, {
    exhausted: true,
    next: null,
    coverage: { nodes: [{ id: 'node-0', answered: true }], complete: true },
  });
  const half = await call(`${h.base}/events?before_time=2026-01-01T00:00:00Z`);
  t.equal(half.status, 400);
  t.equal(half.json?.['error'], 'bad_params');
  const one = await call(`${h.base}/events/${e.id}`);
  t.same(one.json?.['payload'], e.payload);
  const missing = await call(`${h.base}/events/nope`);
  t.equal(missing.status, 404);
  t.equal(missing.json?.['error'], 'not_found');
  const trace = await call(`${h.base}/events/trace/${e.trace_id}`);
  t.equal(trace.json?.['total'], 1);
  t.equal((await call(`${h.base}/query/events?limit=1`)).json?.['exhausted'], true);
  const unknown = await call(`${h.base}/query/nonesuch`);
  t.equal(unknown.status, 404);
  t.equal(unknown.json?.['error'], 'unknown_query');
});
