// Events reads over time: a trace's bound, the 30-day floor, and the feed window across encodings.
import t from 'tap';
import {
  eventsProjection,
  feedRows,
  getEvent,
  listEvents,
  runProjection,
  traceEvents,
} from '../../../projections/index.js';
import { compareInstants, parseInstant } from '../../../schema/index.js';
import { event, eventBus, publishAll, sourceOf } from '../fixtures/events.js';
import { allPages, listQuery, now, stamp } from '../fixtures/events-paging.js';

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
  const page = await listEvents(src, listQuery(''));
  t.same(
    page.rows.map((r) => r.id),
    [fresh.id],
  );
  t.equal(page.exhausted, true);
  t.equal(page.next, null);
  await t.rejects(getEvent(src, old.id), { code: 'not_found' });
  const past = new Date(now - 40 * 86400_000).toISOString();
  for (let i = 0; i < 3; i++) {
    const beyond = await listEvents(src, listQuery(`before_time=${past}&before_id=x`));
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
      (await listEvents(src, listQuery(''))).rows.map((r) => r.id),
      [latest.id, later.id, earlier.id, local.id],
    );

    // A full window keeps the newest 400: an event older than all of them stays out of it but is listed.
    await publishAll(
      bus,
      Array.from({ length: 400 }, (_, i) => event('TaskCreated', stamp(3_000_000 + i, i % 3))),
    );
    const stale = event('TaskCreated', new Date(now - 7200_000).toISOString());
    await publishAll(bus, [stale]);
    await running.until((await bus.streamInfo('SVC_EVENTS')).lastSeq, 30_000);
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
