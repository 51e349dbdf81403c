import { newEvent } from '../../../bus/index.js';
import fc from 'fast-check';
import t from 'tap';
import type { StoredMessage } from '../../../bus/index.js';
import {
  applyDecoded,
  applyEvent,
  categoryCodes,
  EventIndex,
  EventKind,
  eventsProjection,
  windowRows,
  type EventsState,
} from '../../../projections/index.js';
import { type EventCategory } from '../../../schema/index.js';

const entry = (ms: number, id: string, seq: number) => ({
  instant: { ms, ns: 0 },
  id,
  seq,
  category: 'task' as EventCategory,
  feed: true,
  agentId: undefined,
  traceId: 't',
  type: 'TaskCreated',
});

t.test('an id is found through the id table, newest first when an id is held twice', async (t) => {
  const index = new EventIndex();
  // Out of order on purpose: inserts in the middle move positions, not what the table answers.
  for (let i = 0; i < 5000; i += 1) index.insert(entry(1_000_000 + ((i * 7919) % 5000), `id-${i}`, i + 1));
  t.equal(index.size, 5000);
  for (const i of [0, 1, 2500, 4999])
    t.same(index.findId(`id-${i}`), [{ seq: i + 1, ms: 1_000_000 + ((i * 7919) % 5000) }]);
  t.same(index.findId('id-5000'), [], 'an id never held');
  index.insert(entry(2_000_000, 'id-7', 9999));
  t.same(
    index.findId('id-7').map((h) => h.seq),
    [9999, 8],
    'the same id at a later instant comes first',
  );
  t.same(index.findId('ïd-wide-ĳ'), []);
  t.ok(index.insert(entry(3_000_000, 'ïd-wide-ĳ', 10_000)), 'an id beyond Latin-1 is held two bytes a unit');
  t.same(index.findId('ïd-wide-ĳ'), [{ seq: 10_000, ms: 3_000_000 }]);
  t.equal(index.idAt(index.size - 1), 'ïd-wide-ĳ');
});

t.test('the id table and the arena shrink as entries age out', async (t) => {
  const index = new EventIndex();
  for (let i = 0; i < 100_000; i += 1) index.insert(entry(i, `old-event-${i}`, i + 1));
  const full = index.idFootprint;
  for (let i = 0; i < 100; i += 1) index.insert(entry(1_000_000 + i, `new-event-${i}`, 100_001 + i));
  t.equal(index.dropBefore(1_000_000), 100_000);
  const after = index.idFootprint;
  t.ok(
    after.tableSlots <= 2048 && after.tableSlots < full.tableSlots,
    `table ${full.tableSlots} -> ${after.tableSlots}`,
  );
  t.ok(
    after.arenaBytes <= 1 << 16 && after.arenaBytes < full.arenaBytes,
    `arena ${full.arenaBytes} -> ${after.arenaBytes}`,
  );
  t.same(index.findId('old-event-5'), [], 'an aged-out id is gone');
  t.same(index.findId('new-event-42'), [{ seq: 100_043, ms: 1_000_042 }]);
  t.equal(index.idAt(0), 'new-event-0');
  t.equal(index.lowerBound(1_000_050, 0, 'new-event-50'), 50, 'ordering still reads the compacted ids');
});

t.test('a checkpointed index answers ids the same after load', async (t) => {
  const index = new EventIndex();
  for (let i = 0; i < 300; i += 1) index.insert(entry(i % 17, `e-${i}`, i + 1));
  index.insert(entry(5, 'ĳ-wide', 301));
  const loaded = EventIndex.load(JSON.parse(JSON.stringify(index.save())) as ReturnType<EventIndex['save']>);
  t.same(loaded.save(), index.save());
  for (const id of ['e-0', 'e-150', 'e-299', 'ĳ-wide']) t.same(loaded.findId(id), index.findId(id));
});

t.test('an entry keeps its kind beside its category, through a checkpoint too', async (t) => {
  const index = new EventIndex();
  const kinds = [EventKind.Other, EventKind.TurnCompleted, EventKind.PhaseCompleted];
  for (let i = 0; i < 30; i += 1)
    index.insert({ ...entry(i, `k-${i}`, i + 1), category: 'lifecycle', kind: kinds[i % 3] });
  const loaded = EventIndex.load(JSON.parse(JSON.stringify(index.save())) as ReturnType<EventIndex['save']>);
  for (const ix of [index, loaded]) {
    const turns = ix.scanBack(ix.size, { kind: EventKind.TurnCompleted }, 100, 0);
    t.same(
      turns.map((i) => ix.idAt(i)),
      Array.from({ length: 10 }, (_, k) => `k-${28 - 3 * k}`),
    );
    t.equal(
      ix.scanBack(ix.size, { kind: EventKind.PhaseCompleted, category: 'lifecycle' }, 100, 0).length,
      10,
    );
    t.equal(
      ix.scanBack(ix.size, { category: 'lifecycle' }, 100, 0).length,
      30,
      'the kind leaves the category whole',
    );
    t.equal(ix.categoryCodeAt(0), categoryCodes.indexOf('lifecycle'));
  }
});

// ---- the replay's fast path agrees with the general decoder -------------------------------------------

const base = newEvent({
  type: 'TaskCreated',
  category: 'task',
  source: 'seat/ada',
  summary: 'a task',
  actor: 'ada',
  agent_id: 'ada',
  payload: { n: 1, topic: 'nested', agent_id: 'nested' },
});

const text = fc.oneof(
  fc.constantFrom('', 'ada', 'grace', 'a"quote', 'back\\slash', 'new\nline', 'ünï', '𝄞', 'tab\t', 'ĳ'),
  fc.string({ maxLength: 6 }),
);
const value = fc.oneof(text, fc.constant(null), fc.boolean(), fc.integer(), fc.constant(undefined));
const stamp = fc.constantFrom(
  '2026-03-01T10:00:00.000Z',
  '2026-03-01T10:00:00.000Z',
  '2026-02-29T10:00:00.000Z',
  '2024-02-29T10:00:00.000Z',
  '2026-03-01T12:00:00.000000001+02:00',
  '0099-01-01T00:00:00.000Z',
  'yesterday',
  '2026-13-01T10:00:00.000Z',
);

/** A record's text: usually as `publishEvent` writes it, sometimes with odd fields, spacing or key order. */
const recordText = fc
  .record({
    id: fc.oneof(fc.constantFrom('e-1', 'e-2', 'e-3', 'e-4'), text),
    type: fc.oneof(
      fc.constantFrom(
        'TaskCreated',
        'auxiliary_spend',
        'webhook_received',
        'agent_turn_completed',
        'agent_phase_completed',
        'nope',
      ),
      text,
    ),
    timestamp: fc.oneof(stamp, value),
    category: fc.oneof(fc.constantFrom('task', 'system', 'webhook', 'bogus'), value),
    summary: fc.oneof(text, value),
    agent_id: fc.oneof(fc.constantFrom('ada', 'grace'), value),
    topic: value,
    trace_id: fc.oneof(fc.constantFrom('t1', 't2'), text),
    parent_span_id: value,
    failed: fc.oneof(fc.boolean(), value),
    extra: value,
    order: fc.constantFrom('writer', 'writer', 'publish', 'payload-first', 'optional-last'),
    spaced: fc.boolean(),
  })
  .map(({ order, spaced, ...f }) => {
    const head: Record<string, unknown> = { ...base, payload: undefined, ...f };
    const { agent_id, topic, ...rest } = head;
    const payload = base.payload;
    let o: Record<string, unknown>;
    if (order === 'writer') {
      // As newEvent lays a record out: the optional keys (and here any extra one) just before the payload.
      const { extra, payload: _payload, ...core } = rest;
      o = { ...core, agent_id, topic, extra, payload };
    } else if (order === 'payload-first') o = { payload, ...head };
    else if (order === 'optional-last') o = { ...rest, payload, agent_id, topic };
    else o = { ...head, payload };
    const json = JSON.stringify(o);
    return spaced ? json.replace(/,"/g, ', "') : json;
  });

function fold(apply: (s: EventsState, m: StoredMessage) => void, texts: string[]) {
  const state = eventsProjection.init();
  texts.forEach((body, i) =>
    apply(state, {
      stream: 'SVC_EVENTS',
      seq: i + 1,
      subject: 'svc.events.x',
      time: new Date(1_750_000_000_000 + i),
      headers: {},
      data: new TextEncoder().encode(body),
    }),
  );
  return {
    index: state.index.save(),
    window: windowRows(state).map((w) => ({ ...w.instant, seq: w.seq, row: w.row })),
  };
}

t.test('the replay fast path gives exactly what the general decoder gives', async (t) => {
  fc.assert(
    fc.property(fc.array(recordText, { minLength: 1, maxLength: 12 }), (texts) => {
      t.same(fold(applyEvent, texts), fold(applyDecoded, texts));
      return true;
    }),
    { numRuns: 400 },
  );
});

t.test('a long replay out of order keeps the newest 400 feed rows, as the general path does', async (t) => {
  // 2,000 records (a fifth not in the feed), ten to a millisecond, in a scrambled order, some repeated.
  const records = Array.from({ length: 2_000 }, (_, i) =>
    JSON.stringify(
      newEvent({
        type: i % 5 === 0 ? 'auxiliary_spend' : 'TaskCreated',
        category: i % 5 === 0 ? 'system' : 'task',
        source: 'seat/ada',
        summary: `event ${i}`,
        actor: 'ada',
        agent_id: 'ada',
        now: new Date(1_750_000_000_000 + Math.floor(i / 10)),
        payload: { i },
      }),
    ),
  );
  let seed = 7;
  const next = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0);
  const order = records.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = next() % (i + 1);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const texts = [...order.map((i) => records[i] as string), ...records.slice(1_990)];
  const fast = fold(applyEvent, texts);
  t.same(fast, fold(applyDecoded, texts));
  const feed = records
    .filter((_, i) => i % 5 !== 0)
    .map((r) => JSON.parse(r) as { id: string; timestamp: string });
  const newest = feed
    .sort((a, b) => a.timestamp.localeCompare(b.timestamp) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(-400)
    .map((r) => r.id);
  t.same(
    fast.window.map((w) => w.row.id),
    newest,
  );
});
