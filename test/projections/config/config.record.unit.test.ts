import fc from 'fast-check';
import t from 'tap';
import {
  activeRevision,
  applyConfigFact,
  emptyConfigState,
  parsePayload,
  splitRecord,
} from '../../../projections/index.js';

const enc = new TextEncoder();
const bytes = (value: unknown): Uint8Array => enc.encode(JSON.stringify(value));

const record = {
  revision_id: '00000000-0000-4000-8000-000000000001',
  parent_revision_id: null,
  created_at: '2026-11-22T00:00:00.000Z',
  created_by: 'ops',
  created_by_kind: 'operator',
  source: 'api',
  summary: 'a "quoted" summary with } and { and \\ and ünïcödé',
  payload: {
    name: 'Acme',
    mission: 'braces } { ] [ "quotes" \\ and émoji 🚀',
    list: [1, true, null, { a: [] }],
  },
};

t.test('a record splits into its metadata and the exact bytes of its payload', async (t) => {
  const split = splitRecord(bytes(record));
  const { payload, ...head } = record;
  t.same(split?.head, head);
  t.equal(Buffer.from(split!.payload!).toString(), JSON.stringify(payload), 'byte-identical payload');
  t.same(parsePayload(split!.payload), payload);
});

t.test('member order, whitespace and a record without payload', async (t) => {
  const text = ` { "payload" : {"x": "}"} ,\n "summary":"s", "n": -1.5e3 , "ok": false }\n`;
  const split = splitRecord(enc.encode(text));
  t.same(split?.head, { summary: 's', n: -1500, ok: false });
  t.same(parsePayload(split!.payload), { x: '}' });
  const none = splitRecord(bytes({ summary: 's' }));
  t.same(none, { head: { summary: 's' }, payload: null });
  t.equal(parsePayload(null), undefined);
});

t.test('what is not one JSON object reads as null, never throws', async (t) => {
  for (const text of [
    '',
    'null',
    '[1]',
    '"x"',
    '{',
    '{"a":1',
    '{"a":1}}',
    '{"a" 1}',
    '{a:1}',
    '{"a":}',
    '{"payload":{"x":1}',
  ]) {
    t.equal(splitRecord(enc.encode(text)), null, JSON.stringify(text));
  }
});

t.test('any JSON record splits into what JSON.parse gives', async (t) => {
  fc.assert(
    fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue(), (members, payload) => {
      const whole = { ...members, payload };
      const split = splitRecord(bytes(whole));
      const { payload: expected, ...head } = JSON.parse(JSON.stringify(whole)) as Record<string, unknown>;
      t.same(split?.head, head);
      t.same(parsePayload(split?.payload ?? null), expected);
    }),
    { numRuns: 300 },
  );
});

t.test('a fold fed split records serves the same documents as one fed parsed records', async (t) => {
  const split = splitRecord(bytes(record))!;
  const pointer = {
    revision_id: record.revision_id,
    parent_revision_id: null,
    epoch: 1,
    activated_at: record.created_at,
  };
  const fromBytes = emptyConfigState();
  applyConfigFact(fromBytes, {
    kind: 'stored',
    record: split.head,
    payload: split.payload,
    seq: 1,
    bytes: 10,
  });
  applyConfigFact(fromBytes, { kind: 'activated', pointer });
  const fromParsed = emptyConfigState();
  applyConfigFact(fromParsed, { kind: 'stored', record });
  applyConfigFact(fromParsed, { kind: 'activated', pointer });
  t.same(activeRevision(fromBytes), record);
  t.same(activeRevision(fromBytes), activeRevision(fromParsed));
});

t.test('a split record that had no payload member is skipped as malformed, as a parsed one is', async (t) => {
  const { payload: _payload, ...head } = record;
  const split = splitRecord(bytes(head))!;
  t.equal(split.payload, null);
  const state = emptyConfigState();
  applyConfigFact(state, { kind: 'stored', record: split.head, payload: split.payload, seq: 1, bytes: 10 });
  applyConfigFact(state, { kind: 'stored', record: head });
  t.equal(state.revisions.size, 0);
});
