import t from 'tap';
import {
  eventsProjection,
  feedRows,
  getEvent,
  listEvents,
  parseListQuery,
  runProjection,
  traceEvents,
} from '../../../projections/index.js';
import { event, eventBus, publishAll, sourceOf } from '../fixtures/events.js';

const q = (s: string) => parseListQuery(new URLSearchParams(s));
const failureTypes = ['sandbox_run_failed', 'llm_unavailable', 'budget_exhausted', 'turn.guard_breach'];
const stamp = (i: number) => new Date(Date.now() - 60_000 + i * 10).toISOString();

for (const when of ['replayed', 'live'] as const)
  t.test(`every failure type reads failed in every answer (${when})`, async (t) => {
    const bus = await eventBus(t);
    const trace = 'c'.repeat(32);
    const events = failureTypes.map((type, i) => event(type, stamp(i), { failed: false, trace_id: trace }));
    const plain = event('TaskCreated', stamp(9), { failed: false, trace_id: trace });
    const flagged = event('TaskCreated', stamp(10), {
      failed: true,
      trace_id: trace,
      parent_span_id: 'e'.repeat(16),
      agent_id: 'ada',
      // Escapes and characters beyond ASCII in the strings a listing reads from the stored bytes.
      summary: 'a "quoted" \\ back\nslash, ü, 😀, \u2028',
      actor: 'op-ü',
    });
    if (when === 'replayed') await publishAll(bus, [...events, plain, flagged]);
    const running = await runProjection({ bus, projection: eventsProjection });
    t.teardown(() => running.stop());
    if (when === 'live') {
      await publishAll(bus, [...events, plain, flagged]);
      t.ok(await running.when((s) => s.index.size === 6, 10_000));
    }
    const src = sourceOf(bus, running);
    const expected = new Map([
      ...events.map((e) => [e.id, true] as const),
      [plain.id, false],
      [flagged.id, true],
    ]);
    const rows = (await listEvents(src, q('limit=400'))).rows;
    t.equal(rows.length, 6);
    for (const row of rows) {
      const { payload: _payload, ...record } = [...events, plain, flagged].find((e) => e.id === row.id)!;
      t.same(
        row,
        { ...record, failed: expected.get(row.id), topic: `svc.events.${record.type}` },
        `listing ${row.type}: every field but the payload`,
      );
      t.equal(row.failed, expected.get(row.id), `listing ${row.type}`);
      t.notOk('payload' in row, `listing ${row.type} has no payload`);
      if (row.id !== flagged.id) t.notOk('agent_id' in row, `listing ${row.type} names no seat`);
    }
    for (const row of feedRows(src)) {
      t.equal(row.failed, expected.get(row.id), `snapshot ${row.type}`);
      t.notOk('payload' in row);
    }
    for (const e of [...events, plain, flagged]) {
      const one = await getEvent(src, e.id);
      t.equal(one.failed, expected.get(e.id), `by id ${e.type}`);
      t.same(one.payload, e.payload);
    }
    for (const one of (await traceEvents(src, trace)).events) {
      t.equal(one.failed, expected.get(one.id), `by trace ${one.type}`);
      t.ok('payload' in one);
    }
  });
