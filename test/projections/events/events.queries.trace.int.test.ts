// A trace's answer when the index's trace hash names records of another trace (a collision).
import t from 'tap';
import { eventsProjection, runProjection, traceEvents } from '../../../projections/index.js';
import { event, eventBus, publishAll, sourceOf } from '../fixtures/events.js';
import { stamp } from '../fixtures/events-paging.js';

/** The spec's cap on a trace's events. */
const MAX = 500;

t.test(
  'a trace total counts only the records of that trace, and its events fill to 500 past colliding ones',
  async (t) => {
    const bus = await eventBus(t);
    const trace = 'e'.repeat(32);
    const other = 'f'.repeat(32);
    const events = Array.from({ length: MAX + 3 }, (_, i) =>
      event('TaskAssigned', stamp(i * 10, 0), { trace_id: trace }),
    );
    await publishAll(bus, events);
    const running = await runProjection({ bus, projection: eventsProjection });
    t.teardown(() => running.stop());
    const src = sourceOf(bus, running);
    // The index finds a trace by a 64-bit hash: a colliding trace's records are among its hits. Two hits,
    // one among the first 500 and one past them, are read back as records of another trace.
    const colliding = new Set([events[10]!.id, events[MAX + 1]!.id]);
    const collided = {
      ...src,
      fetch: async (seq: number) => {
        const record = await src.fetch(seq);
        return record !== null && colliding.has(record.id) ? { ...record, trace_id: other } : record;
      },
    };
    const answer = await traceEvents(collided, trace);
    t.equal(answer.total, MAX + 1, 'the colliding records are not counted');
    t.equal(answer.events.length, MAX, 'at most 500, filled past the collision');
    t.notOk(
      answer.events.some((e) => colliding.has(e.id)),
      'no record of the other trace is listed',
    );
    const listed = events.filter((e) => !colliding.has(e.id)).slice(0, MAX);
    t.same(
      answer.events.map((e) => e.id),
      listed.map((e) => e.id),
      'oldest first',
    );
  },
);
