import t from 'tap';
import { Subjects } from '../../../bus/index.js';
import type { Test } from 'tap';
import {
  eventSeries,
  eventsProjection,
  getTurn,
  listPhases,
  listTurns,
  parseSeriesQuery,
  QueryError,
  runProjection,
  type EventsSource,
  type HistoryPage,
} from '../../../projections/index.js';
import type { EventRecord } from '../../../schema/index.js';
import { event, eventBus, publishAll, sourceOf } from '../fixtures/events.js';
import { turnRecord, turnWithPhases, type TurnSpec } from '../fixtures/turns.js';

const p = (s: string) => new URLSearchParams(s);

async function sourceWith(t: Test, records: EventRecord[], now?: () => number): Promise<EventsSource> {
  const bus = await eventBus(t);
  await publishAll(bus, records);
  const running = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => running.stop());
  return sourceOf(bus, running, now ? { now } : {});
}

/** Every page of a paged question, following `next` until `exhausted`. */
async function allPages<Row extends { id: string; timestamp: string }>(
  ask: (params: URLSearchParams) => Promise<HistoryPage<Row>>,
  base: string,
  limit: number,
): Promise<{ rows: Row[]; pages: number }> {
  const rows: Row[] = [];
  let cursor = '';
  for (let pages = 1; ; pages++) {
    const page = await ask(p(`${base}&limit=${limit}${cursor}`));
    rows.push(...page.rows);
    if (page.exhausted) {
      if (page.next !== null) throw new Error('an exhausted page with a cursor');
      return { rows, pages };
    }
    if (page.next === null) throw new Error('a page that is not the last has no cursor');
    cursor = `&before_time=${encodeURIComponent(page.next.before_time)}&before_id=${encodeURIComponent(page.next.before_id)}`;
    if (pages > 10_000) throw new Error('paging does not end');
  }
}

function descending(rows: ReadonlyArray<{ id: string; timestamp: string }>): boolean {
  for (let i = 1; i < rows.length; i++) {
    const a = rows[i - 1]!;
    const b = rows[i]!;
    const c = Date.parse(a.timestamp) - Date.parse(b.timestamp);
    if (c < 0 || (c === 0 && a.id < b.id)) return false;
  }
  return true;
}

async function refusal(t: Test, fn: () => unknown, code: string, what: string): Promise<void> {
  try {
    await fn();
    t.fail(`${what}: answered`);
  } catch (e) {
    t.ok(e instanceof QueryError && e.code === code && e.detail.length > 0, `${what}: ${code}`);
  }
}

// 300 turns, two seats, ended on only 23 distinct seconds (ties), three turns sharing each trace.
const base = Date.now() - 3600_000;
const specs: TurnSpec[] = Array.from({ length: 300 }, (_, i) => ({
  seat: i % 2 === 0 ? 'ada' : 'grace',
  turnId: `t-${String(i).padStart(3, '0')}`,
  trace: `trace-${Math.floor(i / 3)}`,
  at: new Date(base + (i % 23) * 1000),
  failed: i % 10 === 0,
}));
const history = [
  ...specs.flatMap(turnWithPhases),
  ...Array.from({ length: 100 }, (_, i) => event('TaskCreated', new Date(base + i * 10).toISOString())),
];

t.test('turns pages completed turns newest first, losing and repeating none across ties', async (t) => {
  const src = await sourceWith(t, history);
  for (const limit of [1, 7, 400]) {
    const { rows, pages } = await allPages((q) => listTurns(src, q), '', limit);
    t.equal(rows.length, 300, `limit ${limit}: every turn`);
    t.equal(new Set(rows.map((r) => r.turn_id)).size, 300, `limit ${limit}: none repeated`);
    t.equal(pages, Math.ceil(300 / limit), `limit ${limit}: a full last page already says exhausted`);
    t.ok(descending(rows), `limit ${limit}: (timestamp, id) descending`);
  }
  const first = await listTurns(src, p('limit=2'));
  t.match(first, {
    exhausted: false,
    next: { before_time: String, before_id: String },
    coverage: { nodes: [{ id: 'node-0', answered: true }], complete: true },
  });
  const row = first.rows[0]!;
  const spec = specs.find((s) => s.turnId === row.turn_id)!;
  t.same(Object.keys(row).sort(), [
    'agent_id',
    'duration_ms',
    'ended_at',
    'error',
    'failed',
    'id',
    'needs',
    'phases',
    'review',
    'started_at',
    'timestamp',
    'total_tokens',
    'trace_id',
    'trigger',
    'turn_id',
    'work_item',
  ]);
  t.match(row, {
    id: `turn-${spec.turnId}`,
    agent_id: spec.seat,
    phases: ['plan', 'execute'],
    total_tokens: 60,
  });
  const ada = await allPages((q) => listTurns(src, q), 'seat=ada', 50);
  t.equal(ada.rows.length, 150);
  t.ok(
    ada.rows.every((r) => r.agent_id === 'ada'),
    'the seat filter keeps its seat only',
  );
  t.same((await listTurns(src, p('agent_id=nobody'))).rows, []);
  t.equal(
    (await allPages((q) => listTurns(src, q), 'seat=Ada', 50)).rows.length,
    150,
    'handles are lowercase: the filter written with capitals reads the same seat',
  );
  t.equal(
    (await listTurns(src, p('agent_id=&seat=ada'))).rows.length,
    50,
    'a blank name beside it is absent',
  );
  const failed = (await allPages((q) => listTurns(src, q), '', 400)).rows.filter((r) => r.failed);
  t.equal(failed.length, 30);
  t.ok(failed.every((r) => r.error === 'it broke'));
});

t.test('turns and phases refuse what they do not read with bad_params', async (t) => {
  const src = await sourceWith(t, history.slice(0, 10));
  for (const [q, why] of [
    ['before_time=2026-01-01T00:00:00Z', 'half a cursor'],
    ['before_id=x', 'the other half'],
    ['before_time=yesterday&before_id=x', 'a time that is not RFC 3339'],
    ['limit=0', 'a limit under 1'],
    ['limit=ten', 'a limit that is not a number'],
    ['limit=5&limit=6', 'a parameter twice'],
    ['sinse=1', 'an unknown parameter'],
    ['agent_id=ada&seat=grace', 'two different seats'],
  ] as const) {
    await refusal(t, () => listTurns(src, p(q)), 'bad_params', `turns: ${why}`);
    await refusal(t, () => listPhases(src, p(q)), 'bad_params', `phases: ${why}`);
  }
  t.equal(
    (await listTurns(src, p('limit=100000'))).rows.length,
    3,
    'a limit above 400 is clamped, not refused',
  );
  await refusal(t, () => getTurn(src, p('')), 'bad_params', 'turn needs turn_id');
  await refusal(t, () => getTurn(src, p('turn_id=t-000&limit=3')), 'bad_params', 'turn reads turn_id only');
  await refusal(
    t,
    () => listPhases(src, p('turn_id=t-000&limit=3')),
    'bad_params',
    'phases of a turn is no page',
  );
});

t.test(
  'turn answers one completed turn with its phases and token totals; unknown is not_found',
  async (t) => {
    const src = await sourceWith(t, history);
    const answer = await getTurn(src, p('turn_id=t-004'));
    t.match(answer.turn, { turn_id: 't-004', agent_id: 'ada', trace_id: 'trace-1', failed: false });
    t.same(
      answer.phases.map((ph) => [ph.phase, ph.iteration]),
      [
        ['plan', 0],
        ['execute', 0],
      ],
      'its own phases only (three turns share its trace), oldest first',
    );
    t.match(answer.phases[0], {
      model: 'model-a',
      total_tokens: 30,
      input_tokens: 20,
      tool_calls: 0,
      rounds: 0,
    });
    t.notOk('response' in answer.phases[0]!, 'a phase summary carries no response text');
    t.same(answer.tokens, { total: 60, input: 40, output: 20, cache_read: 8, cache_write: 0, cost_usd: 0.5 });
    t.match(answer.coverage, { complete: true, nodes: [{ id: 'node-0', answered: true }] });
    await refusal(t, () => getTurn(src, p('turn_id=t-999')), 'not_found', 'an unknown turn');
    await refusal(t, () => listPhases(src, p('turn_id=t-999')), 'not_found', 'phases of an unknown turn');
  },
);

t.test('a turn past the history floor is not found', async (t) => {
  const old: TurnSpec = {
    seat: 'ada',
    turnId: 'old',
    trace: 'tr-old',
    at: new Date(Date.now() - 2 * 3600_000),
  };
  const bus = await eventBus(t);
  await publishAll(bus, turnWithPhases(old));
  const running = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => running.stop());
  const src = sourceOf(bus, running, { historySeconds: 3600 });
  await refusal(t, () => getTurn(src, p('turn_id=old')), 'not_found', 'older than the history');
  t.same((await listTurns(src, p(''))).rows, []);
});

t.test('phases answers llm_history rows of a turn, or pages of them across seats', async (t) => {
  const src = await sourceWith(t, history);
  const ofTurn = await listPhases(src, p('turn_id=t-007'));
  t.match(ofTurn, { turn_id: 't-007', exhausted: true, next: null, coverage: { complete: true } });
  t.same(
    ofTurn.rows.map((r) => r.phase),
    ['plan', 'execute'],
  );
  const row = ofTurn.rows[0]!;
  t.match(row, {
    turn_id: 't-007',
    agent_id: 'grace',
    response: 'the plan answer',
    tool_executions: [],
    error: null,
  });
  t.notOk('system_prompt' in row || 'timeline' in row, 'no system prompt, no timeline');
  for (const limit of [13, 400]) {
    const { rows } = await allPages((q) => listPhases(src, q), '', limit);
    t.equal(rows.length, 600, `limit ${limit}: every phase`);
    t.equal(new Set(rows.map((r) => r.id)).size, 600, `limit ${limit}: none repeated`);
    t.ok(descending(rows), `limit ${limit}: newest first`);
  }
  const grace = await allPages((q) => listPhases(src, q), 'seat=grace', 400);
  t.equal(grace.rows.length, 300);
});

t.test('a turn record stored twice under its id is one row', async (t) => {
  const spec: TurnSpec = { seat: 'ada', turnId: 'twice', trace: 'tr-2', at: new Date(Date.now() - 60_000) };
  const again = { ...turnRecord(spec), timestamp: new Date(Date.now() - 59_000).toISOString() };
  const bus = await eventBus(t);
  await publishAll(bus, turnWithPhases(spec));
  // Past the bus's de-duplication (no message id): the stream holds the record twice, at two instants.
  await bus.publish(Subjects.event(again.type), new TextEncoder().encode(JSON.stringify(again)));
  const running = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => running.stop());
  t.equal(running.state().index.size, 4, 'both copies are in the index');
  const src = sourceOf(bus, running);
  const page = await listTurns(src, p(''));
  t.same(
    page.rows.map((r) => r.turn_id),
    ['twice'],
  );
  t.equal((await getTurn(src, p('turn_id=twice'))).phases.length, 2);
});

t.test('event_series counts the index per hour or day, oldest first, empty buckets included', async (t) => {
  const now = Date.UTC(2026, 10, 23, 12, 30);
  const at = (msAgo: number) => new Date(now - msAgo).toISOString();
  const src = await sourceWith(
    t,
    [
      event('TaskCreated', at(30 * 60_000), { agent_id: 'ada' }),
      event('webhook_received', at(90 * 60_000)),
      event('webhook_received', at(90 * 60_000)),
      event('alarm_raised', at(25 * 3600_000)),
      event('alarm_raised', at(40 * 86_400_000)),
      event('TaskCreated', at(-60_000)),
    ],
    () => now,
  );
  const ask = (q: string) => eventSeries(src, parseSeriesQuery(p(q), src.historySeconds));
  const hours = ask('');
  t.match(hours, {
    bucket: 'hour',
    from: at(24 * 3600_000),
    to: at(0),
    total: 3,
    coverage: { complete: true },
  });
  t.equal(hours.series.length, 25, 'a day of hours, the partial first and current ones included');
  t.equal(hours.series[0]!.start, '2026-11-22T12:00:00.000Z');
  t.equal(hours.series[24]!.start, '2026-11-23T12:00:00.000Z');
  t.match(hours.series[24], { total: 1, by_category: { task: 1, webhook: 0 } });
  t.match(hours.series[23], { total: 2, by_category: { webhook: 2 } });
  t.equal(Object.keys(hours.series[0]!.by_category).length, 8, 'every category, zero or not');
  t.equal(hours.series.filter((b) => b.total === 0).length, 23, 'empty buckets are kept');
  const days = ask('bucket=day');
  t.equal(days.total, 4, 'the whole history in days; past the floor is not counted');
  t.equal(days.from, at(30 * 86_400_000));
  t.equal(days.series.length, 31);
  t.equal(
    ask('bucket=day&since_hours=100000').from,
    at(30 * 86_400_000),
    'since_hours is clamped to the history',
  );
  t.equal(ask('category=webhook').total, 2);
  t.equal(ask('seat=ada').total, 1);
  t.equal(ask('agent_id=nobody').total, 0);
  t.equal(ask('agent_id=nobody').series.length, 25);
  t.equal(ask('feed_only=true&since_hours=2').total, 3);
  for (const q of [
    'bucket=week',
    'since_hours=0',
    'since_hours=1.5',
    'category=bogus',
    'feed_only=yes',
    'sinse_hours=3',
  ])
    await refusal(t, () => ask(q), 'bad_params', q);
});
