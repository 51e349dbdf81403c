/**
 * The event record's fields as every answer serves them over a real listener (spec "Event record",
 * "WebSocket and snapshot"): `failed` counts the failure types whatever the event's own flag, `agent_id`
 * is absent when no seat is concerned, and only a fetch by id or by trace carries the payload.
 */
import t from 'tap';
import { newEvent, publishEvent } from '../../bus/index.js';
import { categoryOf } from '../../schema/index.js';
import { dashboard, startEventsNode } from './fixtures/events-node.js';
import { call } from './fixtures/gateway-harness.js';

const trace = 'd'.repeat(32);
const ev = (type: string, failed: boolean, extra = {}) =>
  newEvent({
    type,
    category: categoryOf(type) ?? 'system',
    source: 'test',
    summary: type,
    actor: 'system',
    trace: { trace_id: trace, parent_span_id: null },
    failed,
    payload: { only: 'by id or trace' },
    ...extra,
  });

t.test(
  'every answer reads a failure type as failed, names no seat when none, and lists no payload',
  async (t) => {
    const { h, ws, bus, events } = await startEventsNode(t);
    const d = await dashboard(`${ws}/ws/stream`);
    t.teardown(() => d.client.close());
    await d.next((f) => f.kind === 'snapshot');
    const failures = ['sandbox_run_failed', 'llm_unavailable', 'budget_exhausted', 'turn.guard_breach'].map(
      (type) => ev(type, false),
    );
    const plain = ev('TaskCreated', false, { agent_id: 'ada' });
    const flagged = ev('TaskCreated', true);
    const all = [...failures, plain, flagged];
    for (const e of all) await publishEvent(bus, e);
    await events.projection.until(all.length, 30_000);
    const failed = new Map(all.map((e) => [e.id, e !== plain]));

    const listed = (await call(`${h.base}/events?limit=400`)).json!['rows'] as Array<Record<string, unknown>>;
    const snapshot = (await call(`${h.base}/stream/snapshot`)).json!['events'] as Array<
      Record<string, unknown>
    >;
    const frames = await Promise.all(all.map((e) => d.next((f) => f.kind === 'event' && f.data.id === e.id)));
    for (const [where, rows] of [
      ['listing', listed],
      ['snapshot', snapshot],
      ['event frame', frames.map((f) => f.data as Record<string, unknown>)],
    ] as const) {
      t.equal(rows.length, all.length, `${where}: every row`);
      for (const row of rows) {
        const id = row['id'] as string;
        const { payload: _payload, ...record } = all.find((e) => e.id === id)!;
        t.same(
          row,
          { ...record, failed: failed.get(id), topic: `svc.events.${record.type}` },
          `${where}: every field of the record but its payload`,
        );
        t.equal(row['failed'], failed.get(id), `${where}: ${String(row['type'])} failed`);
        t.notOk('payload' in row, `${where}: no payload`);
        if (id === plain.id) t.equal(row['agent_id'], 'ada', `${where}: the seat concerned`);
        else t.notOk('agent_id' in row, `${where}: no seat, no agent_id key`);
      }
    }
    for (const e of all) {
      const one = (await call(`${h.base}/events/${encodeURIComponent(e.id)}`)).json!;
      t.equal(one['failed'], failed.get(e.id), `by id: ${e.type}`);
      t.same(one['payload'], e.payload, `by id: ${e.type} payload`);
    }
    const traced = (await call(`${h.base}/events/trace/${trace}`)).json!;
    t.equal(traced['total'], all.length);
    for (const one of traced['events'] as Array<Record<string, unknown>>) {
      t.equal(one['failed'], failed.get(one['id'] as string), `by trace: ${String(one['type'])}`);
      t.same(one['payload'], { only: 'by id or trace' });
    }
  },
);
