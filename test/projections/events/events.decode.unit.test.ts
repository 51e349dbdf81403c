import { newEvent } from '../../../bus/index.js';
import fc from 'fast-check';
import t from 'tap';
import { checkRow, decodeRecord, decodeRow } from '../../../projections/index.js';
import { EventRow } from '../../../schema/index.js';

const bytes = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));
const base = newEvent({
  type: 'TaskCreated',
  category: 'task',
  source: 's',
  summary: 'x',
  actor: 'a',
  payload: { agent_id: 'nested', payload: 1 },
});

t.test('a record serialized payload-last decodes without its payload', async (t) => {
  t.same(decodeRow(bytes(base)), (({ payload: _p, ...row }) => row)(base));
  t.same(decodeRecord(bytes(base))?.payload, base.payload);
});

t.test('optional fields after the payload are not lost (slow path)', async (t) => {
  const { agent_id: _a, ...rest } = { ...base, agent_id: undefined };
  const reordered = { ...rest, agent_id: 'ada', topic: 'ops' };
  t.match(decodeRow(bytes(reordered)), { agent_id: 'ada', topic: 'ops' });
});

t.test(
  'a topic after the payload is read for the row; a record that is not whole keeps its row',
  async (t) => {
    const { payload, ...head } = base;
    t.match(decodeRow(bytes({ ...head, payload, topic: 'ops' })), { id: base.id, topic: 'ops' });
    const row = decodeRow(bytes({ ...head, agent_id: 'ada', payload, topic: 7 }));
    t.equal(row?.id, base.id, 'the head still makes the row');
    t.notOk(row && 'topic' in row, 'without a topic the schema refuses');
  },
);

t.test('a payload first, or no payload, or not JSON', async (t) => {
  const { payload, ...row } = base;
  t.match(decodeRow(bytes({ payload, ...row })), { id: base.id });
  t.equal(decodeRow(bytes(row)), null, 'a record without payload is not an event record');
  t.equal(decodeRow(new TextEncoder().encode('{"id":')), null);
});

t.test('the hand-written row check agrees with the zod schema', async (t) => {
  const field = fc.oneof(
    fc.string(),
    fc.constant(''),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
  );
  const arb = fc.record(
    {
      id: field,
      type: field,
      source: field,
      timestamp: field,
      category: fc.oneof(fc.constantFrom('task', 'system', 'bogus'), field),
      summary: field,
      actor: field,
      trace_id: field,
      span_id: field,
      parent_span_id: field,
      failed: field,
      agent_id: field,
      topic: field,
      extra: field,
    },
    { requiredKeys: [] },
  );
  fc.assert(
    fc.property(fc.oneof(arb, fc.constant({ ...base })), (raw) => {
      const z = EventRow.safeParse(raw);
      const mine = checkRow(raw);
      return z.success ? JSON.stringify(mine) === JSON.stringify(z.data) : mine === null;
    }),
    { numRuns: 3000 },
  );
  t.pass('agreed');
});
