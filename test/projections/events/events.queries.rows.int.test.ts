// Events listing rows: what a row carries, which types are admitted, and an event stored twice as one row.
import t from 'tap';
import { Subjects } from '../../../bus/index.js';
import {
  eventsProjection,
  feedRows,
  getEvent,
  listEvents,
  runProjection,
  traceEvents,
} from '../../../projections/index.js';
import { event, eventBus, publishAll, sourceOf } from '../fixtures/events.js';
import { allPages, listQuery, stamp } from '../fixtures/events-paging.js';

t.test('rows carry no payload, with failed and category decided by the maps', async (t) => {
  const bus = await eventBus(t);
  const failing = event('llm_unavailable', stamp(1, 0), { failed: false, agent_id: 'ada' });
  await publishAll(bus, [failing, event('TaskCreated', stamp(2, 0))]);
  const running = await runProjection({ bus, projection: eventsProjection });
  t.teardown(() => running.stop());
  const src = sourceOf(bus, running);
  const page = await listEvents(src, listQuery('agent_id=ada'));
  t.equal(page.rows.length, 1);
  const row = page.rows[0]!;
  t.equal(row.id, failing.id);
  t.equal(row.failed, true, 'a failure type is failed whatever its own flag');
  t.equal(row.category, 'system');
  t.notOk('payload' in row);
  t.equal((await listEvents(src, listQuery('seat=ada'))).rows.length, 1, 'seat is the same filter');
  t.equal((await listEvents(src, listQuery('agent_id=nobody'))).rows.length, 0);
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
    for (const row of (await listEvents(src, listQuery(''))).rows)
      t.equal(row.topic, topics.get(row.id), 'page row');
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
    t.equal((await listEvents(src, listQuery(''))).rows[0]?.id, spend.id);
    t.notOk((await listEvents(src, listQuery('feed_only=true'))).rows.some((r) => r.id === spend.id));
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
  const page = await listEvents(src, listQuery(''));
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
