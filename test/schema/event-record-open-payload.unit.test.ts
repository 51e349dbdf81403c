import t from 'tap';
import { EventRecord, EventRecordOpenPayload } from '../../schema/index.js';

const record = (payload: unknown): Record<string, unknown> => ({
  id: 'e-1',
  type: 'agent_phase_completed',
  source: 'node-0/seat/ada',
  timestamp: '2026-11-23T10:00:00.000Z',
  category: 'lifecycle',
  summary: 'ada: agent_phase_completed',
  actor: 'ada',
  trace_id: 't',
  span_id: 's',
  parent_span_id: null,
  failed: false,
  agent_id: 'ada',
  payload,
});

t.test('an event with its payload unwalked accepts and refuses what the event record does', async (t) => {
  const bare = Object.create(null) as Record<string, unknown>;
  bare['turn_id'] = 'turn-1';
  const payloads: unknown[] = [
    {},
    { turn_id: 'turn-1', rounds: [{ round: 0 }], nested: { a: [1, 'two', null] } },
    bare,
    [],
    null,
    'text',
    3,
    new Date(0),
    undefined,
  ];
  for (const payload of payloads) {
    const full = EventRecord.safeParse(record(payload));
    const open = EventRecordOpenPayload.safeParse(record(payload));
    t.equal(open.success, full.success, JSON.stringify(payload) ?? String(payload));
    if (full.success && open.success) t.same(open.data, full.data);
  }
  t.equal(
    EventRecordOpenPayload.safeParse({ ...record({}), id: '' }).success,
    false,
    'the envelope is checked',
  );
  // JSON's own `__proto__` key stays an own key of the payload; it never becomes its prototype.
  const open = EventRecordOpenPayload.parse(record(JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}')));
  t.equal(Object.getPrototypeOf(open.payload), Object.prototype);
  t.equal((open.payload as { polluted?: unknown }).polluted, undefined);
  t.equal(({} as { polluted?: unknown }).polluted, undefined);
});
