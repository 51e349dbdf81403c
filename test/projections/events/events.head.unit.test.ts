import { newEvent } from '../../../bus/index.js';
import fc from 'fast-check';
import t from 'tap';
import { scanAnyOrder } from '../../../projections/events/events.anyorder.js';
import { Head, scanWriterOrder } from '../../../projections/events/events.head.js';

const bytes = (record: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(record));

const fields = (h: Head) => ({ ...h });

const published = fc
  .record({
    summary: fc.string({ maxLength: 40 }),
    source: fc.string({ maxLength: 12 }),
    agent_id: fc.option(fc.constantFrom('ada', 'grace', ''), { nil: undefined }),
    topic: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
    parent: fc.option(fc.constantFrom('a1b2c3d4e5f60718', 'é"'), { nil: null }),
    failed: fc.boolean(),
  })
  .map((f) => ({
    ...newEvent({
      type: 'TaskCreated',
      category: 'task',
      source: f.source,
      summary: f.summary,
      actor: 'ada',
      ...(f.agent_id !== undefined ? { agent_id: f.agent_id } : {}),
      ...(f.topic !== undefined ? { topic: f.topic } : {}),
      trace: { trace_id: 'f'.repeat(32), parent_span_id: f.parent },
      payload: { n: 1 },
    }),
    // Set in place: the key keeps newEvent's position.
    ...(f.failed ? { failed: true } : {}),
  }));

t.test(
  'a record as publishEvent writes it is read in the writer order, as the any-order scan reads it',
  async (t) => {
    fc.assert(
      fc.property(published, (record) => {
        const data = bytes(record);
        const fast = new Head();
        const general = new Head();
        t.ok(scanWriterOrder(data, fast), 'the writer-order scan accepts it');
        t.ok(scanAnyOrder(data, general));
        t.same(fields(fast), fields(general));
        return true;
      }),
      { numRuns: 200 },
    );
  },
);

t.test('the writer-order scan leaves any other layout to the any-order scan', async (t) => {
  const record = newEvent({
    type: 'TaskCreated',
    category: 'task',
    source: 'seat/ada',
    summary: 'a task',
    actor: 'ada',
    agent_id: 'ada',
    payload: {},
  });
  const { agent_id, payload, ...rest } = record;
  const { source, ...sourceless } = record;
  const layouts = {
    'another key order': { source, ...sourceless },
    'an unknown key before the payload': { ...rest, agent_id, extra: 'x', payload },
    'the seat before the trace': { agent_id, ...rest, payload },
  };
  for (const [name, layout] of Object.entries(layouts)) {
    t.notOk(scanWriterOrder(bytes(layout), new Head()), name);
    const general = new Head();
    t.ok(scanAnyOrder(bytes(layout), general), `${name}: the any-order scan reads it`);
    t.equal(general.agentStart >= 0, true, `${name}: with its seat`);
  }
  const spaced = new TextEncoder().encode(JSON.stringify(record).replace(/,"/g, ', "'));
  t.notOk(scanWriterOrder(spaced, new Head()), 'spacing');
  const escaped = bytes({ ...record, id: 'e\\"1' });
  t.notOk(scanWriterOrder(escaped, new Head()), 'an escaped id');
  t.notOk(scanAnyOrder(escaped, new Head()), 'an escaped id goes to the general decoder');
});
