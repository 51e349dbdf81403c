import t from 'tap';
import { publishEvent } from '../../bus/index.js';
import { event } from '../projections/fixtures/events.js';
import { turnWithPhases } from '../projections/fixtures/turns.js';
import { dashboard, startEventsNode } from './fixtures/events-node.js';
import { call } from './fixtures/gateway-harness.js';

const coverage = { nodes: [{ id: 'node-0', answered: true }], complete: true };

t.test('the history questions answer on /query/{what} over a real listener', async (t) => {
  const { h, bus, events } = await startEventsNode(t);
  const at = new Date(Date.now() - 60_000);
  const records = [
    ...turnWithPhases({ seat: 'ada', turnId: 'turn-a', trace: 'tr-a', at }),
    ...turnWithPhases({ seat: 'grace', turnId: 'turn-b', trace: 'tr-b', at: new Date(at.getTime() + 1000) }),
    event('TaskCreated', at.toISOString()),
  ];
  for (const r of records) await publishEvent(bus, r);
  await events.projection.until(records.length, 30_000);

  const series = await call(`${h.base}/query/event_series?since_hours=2`);
  t.equal(series.status, 200);
  t.match(series.json, { bucket: 'hour', total: 7, coverage });
  t.equal((series.json?.['series'] as unknown[]).length, 3);

  const turns = await call(`${h.base}/query/turns?limit=1`);
  t.equal(turns.status, 200);
  t.match(turns.json, { rows: [{ turn_id: 'turn-b', agent_id: 'grace' }], exhausted: false, coverage });
  const next = turns.json?.['next'] as { before_time: string; before_id: string };
  const older = await call(
    `${h.base}/query/turns?limit=1&before_time=${encodeURIComponent(next.before_time)}&before_id=${next.before_id}`,
  );
  t.match(older.json, { rows: [{ turn_id: 'turn-a' }], exhausted: true, next: null });

  const turn = await call(`${h.base}/query/turn?turn_id=turn-a`);
  t.equal(turn.status, 200);
  t.match(turn.json, {
    turn: { turn_id: 'turn-a' },
    phases: [{ phase: 'plan' }, { phase: 'execute' }],
    coverage,
  });
  const phases = await call(`${h.base}/query/phases?seat=grace`);
  t.match(phases.json, { rows: [{ phase: 'execute' }, { phase: 'plan' }], exhausted: true, coverage });

  const missing = await call(`${h.base}/query/turn?turn_id=nope`);
  t.equal(missing.status, 404);
  t.equal(missing.json?.['error'], 'not_found');
  t.type(missing.json?.['hint'], 'string');
  for (const q of [
    'turns?before_id=x',
    'event_series?bucket=week',
    'phases?turn_id=turn-a&limit=2',
    'turn',
    // The event and trace questions name what they read: without it they are refused, not answered empty.
    'event',
    'event?event_id=',
    'trace',
    'trace?trace_id=',
  ]) {
    const bad = await call(`${h.base}/query/${q}`);
    t.equal(bad.status, 400, q);
    t.equal(bad.json?.['error'], 'bad_params', q);
    t.notMatch(String(bad.json?.['hint']), /dry_run/, `${q}: the hint is about the refused parameter`);
  }
  for (const [q, hint] of [
    ['event_series?bucket=week', /bucket=hour or bucket=day/],
    ['event_series?since_hours=0', /since_hours as digits/],
    ['turns?limit=0', /limit as digits/],
    ['turns?before_time=x&before_id=y', /next/],
  ] as const) {
    const bad = await call(`${h.base}/query/${q}`);
    t.match(bad.json, { error: 'bad_params', hint }, q);
  }
});

t.test('the socket query channel reaches the same history answers', async (t) => {
  const { ws, h, bus, events } = await startEventsNode(t);
  const records = turnWithPhases({
    seat: 'ada',
    turnId: 'turn-ws',
    trace: 'tr-ws',
    at: new Date(Date.now() - 1000),
  });
  for (const r of records) await publishEvent(bus, r);
  await events.projection.until(records.length, 30_000);
  const d = await dashboard(`${ws}/ws/stream`);
  t.teardown(() => d.client.close());
  await d.next((f) => f.kind === 'snapshot');
  const ask = async (frame: Record<string, unknown>) => {
    d.client.send(JSON.stringify({ kind: 'query', ...frame }));
    return d.next((f) => (f.kind === 'result' || f.kind === 'error') && f.data.id === frame['id']);
  };
  for (const [i, [what, params]] of (
    [
      ['turns', { limit: 5 }],
      ['turn', { turn_id: 'turn-ws' }],
      ['phases', { turn_id: 'turn-ws' }],
      ['event_series', { bucket: 'day', since_hours: 48 }],
    ] as const
  ).entries()) {
    const frame = await ask({ id: i, what, params });
    t.equal(frame.kind, 'result', what);
    const query = new URLSearchParams(
      Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]),
    );
    const http = await call(`${h.base}/query/${what}?${query.toString()}`);
    // event_series stamps `to` with the clock: compare the rest.
    const strip = (v: unknown) => ({ ...(v as Record<string, unknown>), to: null, from: null });
    t.same(strip(frame.data.data), strip(http.json), `${what}: the same answer on both surfaces`);
  }
  t.match((await ask({ id: 9, what: 'turn', params: { turn_id: 'nope' } })).data, {
    error: 'not_found',
    what: 'turn',
  });
  t.match((await ask({ id: 10, what: 'turns', params: { before_time: 'x' } })).data, {
    error: 'invalid_query',
  });
});
