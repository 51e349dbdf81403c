import t from 'tap';
import { Subjects } from '../../../bus/index.js';
import {
  eventsProjection,
  feedRows,
  getEvent,
  listEvents,
  parseListQuery,
  QueryError,
  runProjection,
  traceEvents,
  type EventsSource,
} from '../../../projections/index.js';
import { compareInstants, parseInstant, type EventRow } from '../../../schema/index.js';
import { event, eventBus, publishAll, sourceOf } from '../fixtures/events.js';

const q = (s: string) => parseListQuery(new URLSearchParams(s));

async function allPages(
  src: EventsSource,
  base: string,
  limit: number,
): Promise<{ rows: EventRow[]; pages: number }> {
  const rows: EventRow[] = [];
  let cursor = '';
  for (let pages = 1; ; pages++) {
    const page = await listEvents(src, q(`${base}&limit=${limit}${cursor}`));
    rows.push(...page.rows);
    if (page.exhausted) {
      if (page.next !== null) throw new Error('exhausted page with a cursor');
      return { rows, pages };
    }
    if (page.next === null) throw new Error('a page that is not the last has no cursor');
    cursor = `&before_time=${encodeURIComponent(page.next.before_time)}&before_id=${encodeURIComponent(page.next.before_id)}`;
    if (pages > 10_000) throw new Error('paging does not end');
  }
}

const now = Date.now();
const stamp = (offsetMs: number, form: number): string => {
  const iso = new Date(now - 3600_000 + offsetMs).toISOString();
  // Three encodings of the same instant: Z with ms, +00:00 with µs, +02:00 local time.
  if (form === 0) return iso;
  if (form === 1) return iso.replace('Z', '000+00:00');
  const local = new Date(now - 3600_000 + offsetMs + 2 * 3600_000).toISOString();
  return local.replace('Z', '+02:00');
};

t.test('keyset paging over 2,000 events with tied timestamps loses and repeats no row', async (t) => {
  const bus = await eventBus(t);
  const events = Array.from({ length: 2000 }, (_, i) => event('TaskCreated', stamp((i % 37) * 1000, i % 3)));
  await publishAll(bus, events);
  const running = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => running.stop());
  const src = sourceOf(bus, running);
  for (const limit of [1, 37, 400]) {
    const { rows, pages } = await allPages(src, 'category=task', limit);
    t.equal(rows.length, 2000, `limit ${limit}: every row once`);
    t.equal(new Set(rows.map((r) => r.id)).size, 2000, `limit ${limit}: no row repeated`);
    t.equal(pages, Math.ceil(2000 / limit), `limit ${limit}: the last full page already says exhausted`);
    for (let i = 1; i < rows.length; i++) {
      const a = rows[i - 1]!;
      const b = rows[i]!;
      const c = compareInstants(parseInstant(a.timestamp)!, parseInstant(b.timestamp)!);
      if (c < 0 || (c === 0 && a.id < b.id)) {
        t.fail(`limit ${limit}: row ${i} out of (timestamp, id) descending order`);
        break;
      }
    }
  }
  const rows = (await allPages(src, 'feed_only=true', 400)).rows;
  t.equal(rows.length, 2000);
});

t.test('a page is at most 400 rows; bad parameters answer invalid_query', async (t) => {
  const bus = await eventBus(t);
  await publishAll(
    bus,
    Array.from({ length: 450 }, (_, i) => event('TaskCreated', stamp(i, 0))),
  );
  const running = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => running.stop());
  const src = sourceOf(bus, running);
  const page = await listEvents(src, q('limit=1000'));
  t.equal(page.rows.length, 400);
  t.equal(page.exhausted, false);
  t.same(page.coverage, { nodes: [{ id: 'node-0', answered: true }], complete: true });
  const refused = (s: string) => {
    try {
      q(s);
      t.fail(`${s} was accepted`);
    } catch (e) {
      t.ok(e instanceof QueryError && e.code === 'invalid_query', s);
      // The hint speaks of the parameter refused, not of another route's.
      t.ok(e instanceof QueryError && e.hint !== undefined && !e.hint.includes('dry_run'), `${s}: own hint`);
    }
  };
  refused('before_time=2026-11-22T10:00:00Z');
  refused('before_id=abc');
  refused('before_time=yesterday&before_id=abc');
  refused('limit=0');
  refused('limit=ten');
  refused('category=nonsense');
  refused('feed_only=yes');
  refused('limit=1&limit=2');
  refused('type=NoSuchType');
  refused('type=TaskCreated&type=TaskAssigned');
  refused('agent_id=ada&seat=bob');
  t.equal(q('').limit, 100);
  // `seat` is the seat filter's other name: a blank `agent_id` beside it does not widen the read.
  t.equal(q('agent_id=&seat=ada').agentId, 'ada');
  t.equal(q('agent_id=ada&seat=ada').agentId, 'ada');
});

t.test('type lists one event type across pages, from replay and from the live stream alike', async (t) => {
  const bus = await eventBus(t);
  const types = ['TaskCreated', 'TaskAssigned', 'TaskCompleted'];
  await publishAll(
    bus,
    Array.from({ length: 600 }, (_, i) => event(types[i % 3]!, stamp(i * 10, i % 3))),
  );
  const running = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => running.stop());
  const src = sourceOf(bus, running);
  const replayed = await allPages(src, 'type=TaskAssigned', 37);
  t.equal(replayed.rows.length, 200, 'every TaskAssigned row, through the pages');
  t.ok(
    replayed.rows.every((r) => r.type === 'TaskAssigned'),
    'and no other type',
  );
  await publishAll(bus, [event('TaskAssigned', stamp(7000, 0)), event('TaskCreated', stamp(7001, 0))]);
  t.ok(await running.when((s) => s.index.size === 602, 10_000), 'the live rows are folded');
  const live = await listEvents(src, q('type=TaskAssigned&limit=400'));
  t.equal(live.rows.length, 201, 'the live TaskAssigned row is listed with the replayed ones');
  const combined = await listEvents(src, q('type=TaskCreated&category=task&limit=400'));
  t.equal(combined.rows.length, 201, 'type combines with the other filters');
  const none = await listEvents(src, q('type=ConfigRevisionApplied'));
  t.same(
    [none.rows.length, none.exhausted, none.next],
    [0, true, null],
    'a stored type never seen: empty, exhausted',
  );
});

t.test('rows carry no payload, with failed and category decided by the maps', async (t) => {
  const bus = await eventBus(t);
  const failing = event('llm_unavailable', stamp(1, 0), { failed: false, agent_id: 'ada' });
  await publishAll(bus, [failing, event('TaskCreated', stamp(2, 0))]);
  const running = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => running.stop());
  const src = sourceOf(bus, running);
  const page = await listEvents(src, q('agent_id=ada'));
  t.equal(page.rows.length, 1);
  const row = page.rows[0]!;
  t.equal(row.id, failing.id);
  t.equal(row.failed, true, 'a failure type is failed whatever its own flag');
  t.equal(row.category, 'system');
  t.notOk('payload' in row);
  t.equal((await listEvents(src, q('seat=ada'))).rows.length, 1, 'seat is the same filter');
  t.equal((await listEvents(src, q('agent_id=nobody'))).rows.length, 0);
  const one = await getEvent(src, failing.id);
  t.same(one.payload, failing.payload, 'by id the payload is there');
  t.equal(one.failed, true);
  await t.rejects(getEvent(src, 'no-such-id'), { code: 'not_found' });
});

t.test(
  'every served record names its topic: the bus topic of its type, or the one it was given',
  async (t) => {
    const bus = await eventBus(t);
    const plain = event('TaskCreated', stamp(1, 0), { trace_id: 'b'.repeat(32) });
    const given = { ...event('TaskAssigned', stamp(2, 0)), topic: 'work.eng' };
    await publishAll(bus, [plain, given]);
    const running = await runProjection({ bus, projection: eventsProjection });
    t.teardown(() => running.stop());
    const src = sourceOf(bus, running);
    const topics = new Map([
      [plain.id, 'svc.events.TaskCreated'],
      [given.id, 'work.eng'],
    ]);
    for (const row of (await listEvents(src, q(''))).rows) t.equal(row.topic, topics.get(row.id), 'page row');
    for (const row of feedRows(src)) t.equal(row.topic, topics.get(row.id), 'snapshot row');
    t.equal((await getEvent(src, plain.id)).topic, 'svc.events.TaskCreated', 'by id');
    t.equal((await traceEvents(src, 'b'.repeat(32))).events[0]?.topic, 'svc.events.TaskCreated', 'by trace');
  },
);

t.test(
  'auxiliary_spend is listed without feed_only, never with it, never in the snapshot rows',
  async (t) => {
    const bus = await eventBus(t);
    const spend = event('auxiliary_spend', stamp(5, 0));
    await publishAll(bus, [event('TaskCreated', stamp(1, 0)), spend]);
    const running = await runProjection({ bus, projection: eventsProjection });
    t.teardown(() => running.stop());
    const src = sourceOf(bus, running);
    t.equal((await listEvents(src, q(''))).rows[0]?.id, spend.id);
    t.notOk((await listEvents(src, q('feed_only=true'))).rows.some((r) => r.id === spend.id));
    t.notOk(feedRows(src).some((r) => r.id === spend.id));
  },
);

t.test('types without a category on the stream are not admitted; duplicates count once', async (t) => {
  const bus = await eventBus(t);
  const raw = event('TaskCreated', stamp(3, 0), { type: 'made_up' });
  const twice = event('TaskCreated', stamp(4, 0));
  const bytes = (e: object) => new TextEncoder().encode(JSON.stringify(e));
  await bus.publish(Subjects.event('made_up'), bytes(raw));
  // Outside the de-duplication window a repeat is stored again (no msgId here).
  await bus.publish(Subjects.event('TaskCreated'), bytes(twice));
  await bus.publish(Subjects.event('TaskCreated'), bytes(twice));
  await bus.publish(Subjects.event('TaskCreated'), new TextEncoder().encode('not json'));
  const running = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => running.stop());
  const src = sourceOf(bus, running);
  const page = await listEvents(src, q(''));
  t.same(
    page.rows.map((r) => r.id),
    [twice.id],
  );
  t.equal(feedRows(src).length, 1);
});

t.test(
  'an event stored again under its id at another instant is one row: in pages, the feed and its trace',
  async (t) => {
    const bus = await eventBus(t);
    const trace = 'd'.repeat(32);
    // A re-delivery restamped outside the de-duplication window: the same id at a newer instant.
    const first = event('TaskCreated', stamp(0, 0), { trace_id: trace });
    const again = { ...first, timestamp: stamp(60_000, 1) };
    const between = Array.from({ length: 5 }, (_, i) =>
      event('TaskAssigned', stamp(10_000 + i * 1000, 0), { trace_id: trace }),
    );
    const bytes = (e: object) => new TextEncoder().encode(JSON.stringify(e));
    await publishAll(bus, [first, ...between]);
    await bus.publish(Subjects.event('TaskCreated'), bytes(again));
    const running = await runProjection({ bus, projection: eventsProjection });
    t.teardown(() => running.stop());
    const src = sourceOf(bus, running);
    for (const limit of [1, 2, 400]) {
      const { rows } = await allPages(src, '', limit);
      t.same(
        rows.map((r) => r.id),
        [first.id, ...between.map((e) => e.id).reverse()],
        `limit ${limit}: listed once, at its newest instant`,
      );
      t.equal(rows[0]?.timestamp, again.timestamp);
    }
    t.same(
      feedRows(src).map((r) => r.id),
      [first.id, ...between.map((e) => e.id).reverse()],
      'the snapshot feed lists it once',
    );
    const answer = await traceEvents(src, trace);
    t.equal(answer.total, 6, 'the trace counts it once');
    t.same(
      answer.events.map((e) => [e.id, e.timestamp]),
      [...between.map((e) => [e.id, e.timestamp]), [first.id, again.timestamp]],
      'at its newest instant, as /events/{id} answers it',
    );
    t.equal((await getEvent(src, first.id)).timestamp, again.timestamp);
  },
);

t.test('a row stamped past the year 9999 by its offset gives a cursor that pages on', async (t) => {
  const bus = await eventBus(t);
  // Valid RFC 3339 whose instant (UTC) falls in the year 10000: the cursor cannot be written as 9999-….
  const far = event('TaskCreated', '9999-12-31T23:59:59.5-01:00');
  const older = event('TaskCreated', stamp(0, 0));
  await publishAll(bus, [far, older]);
  const running = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => running.stop());
  const { rows } = await allPages(sourceOf(bus, running), '', 1);
  t.same(
    rows.map((r) => r.id),
    [far.id, older.id],
  );
});

t.test('a trace answers oldest first, at most 500, with the total', async (t) => {
  const bus = await eventBus(t);
  const trace = 'a'.repeat(32);
  const events = Array.from({ length: 520 }, (_, i) =>
    event('agent_phase_started', stamp(i * 10, i % 3), { trace_id: trace }),
  );
  await publishAll(bus, [...events, event('TaskCreated', stamp(0, 0))]);
  const running = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => running.stop());
  const src = sourceOf(bus, running);
  const answer = await traceEvents(src, trace);
  t.equal(answer.total, 520);
  t.equal(answer.events.length, 500);
  t.same(
    answer.events.map((e) => e.id),
    events.slice(0, 500).map((e) => e.id),
    'oldest first',
  );
  t.ok(
    answer.events.every((e) => e.payload !== undefined),
    'with payloads',
  );
  t.equal((await traceEvents(src, 'none')).total, 0);
});

t.test('the 30-day floor: nothing older is answered, and a cursor past it pages empty forever', async (t) => {
  const bus = await eventBus(t);
  const old = event('TaskCreated', new Date(now - 31 * 86400_000).toISOString());
  const fresh = event('TaskCreated', new Date(now - 1000).toISOString());
  await publishAll(bus, [old, fresh]);
  const running = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => running.stop());
  const src = sourceOf(bus, running);
  const page = await listEvents(src, q(''));
  t.same(
    page.rows.map((r) => r.id),
    [fresh.id],
  );
  t.equal(page.exhausted, true);
  t.equal(page.next, null);
  await t.rejects(getEvent(src, old.id), { code: 'not_found' });
  const past = new Date(now - 40 * 86400_000).toISOString();
  for (let i = 0; i < 3; i++) {
    const beyond = await listEvents(src, q(`before_time=${past}&before_id=x`));
    t.same([beyond.rows, beyond.exhausted, beyond.next], [[], true, null]);
  }
  t.same(
    feedRows(src).map((r) => r.id),
    [fresh.id],
  );
});

t.test(
  'the feed window orders by instant across encodings; an older event never displaces a newer one',
  async (t) => {
    const bus = await eventBus(t);
    const base = new Date(now - 60_000).toISOString().slice(0, 19);
    const later = event('TaskCreated', `${base}.5+00:00`);
    const earlier = event('TaskCreated', `${base}.123456Z`);
    const latest = event('TaskCreated', `${base}.500000001Z`);
    const local = event(
      'TaskCreated',
      new Date(Date.parse(`${base}Z`) + 2 * 3600_000).toISOString().slice(0, 19) + '+02:00',
    );
    await publishAll(bus, [later]);
    await publishAll(bus, [latest]);
    await publishAll(bus, [earlier]);
    await publishAll(bus, [local]);
    const running = await runProjection({ bus, projection: eventsProjection });
    t.teardown(() => running.stop());
    const src = sourceOf(bus, running);
    t.same(
      feedRows(src).map((r) => r.id),
      [latest.id, later.id, earlier.id, local.id],
    );
    t.same(
      (await listEvents(src, q(''))).rows.map((r) => r.id),
      [latest.id, later.id, earlier.id, local.id],
    );

    // A full window keeps the newest 400: an event older than all of them stays out of it but is listed.
    await publishAll(
      bus,
      Array.from({ length: 400 }, (_, i) => event('TaskCreated', stamp(3_000_000 + i, i % 3))),
    );
    const stale = event('TaskCreated', new Date(now - 7200_000).toISOString());
    await publishAll(bus, [stale]);
    await running.until((await bus.streamInfo('SVC_EVENTS')).lastSeq, 5000);
    const feed = feedRows(src);
    t.equal(feed.length, 400);
    t.notOk(
      feed.some((r) => r.id === stale.id),
      'the stale event is not in the window',
    );
    t.ok(
      feed.every((r) => compareInstants(parseInstant(r.timestamp)!, parseInstant(stamp(3_000_000, 0))!) >= 0),
    );
    const everything = await allPages(src, '', 400);
    t.equal(
      everything.rows[everything.rows.length - 1]?.id,
      stale.id,
      'the stale event is still listed, last',
    );
  },
);

t.test('entries past the floor are forgotten by the index without changing any answer', async (t) => {
  const bus = await eventBus(t);
  const old = Array.from({ length: 20 }, (_, i) =>
    event('TaskCreated', new Date(now - 40 * 86400_000 + i).toISOString()),
  );
  const fresh = Array.from({ length: 20 }, (_, i) => event('TaskCreated', stamp(i * 1000, i % 3)));
  await publishAll(bus, [...old, ...fresh]);
  const running = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => running.stop());
  const src = sourceOf(bus, running);
  const before = await allPages(src, '', 7);
  t.equal(running.state().index.dropBefore(now - 30 * 86400_000), 20);
  t.equal(running.state().index.size, 20);
  t.same(await allPages(src, '', 7), before);
  t.same((await getEvent(src, fresh[3]!.id)).id, fresh[3]!.id);
});
