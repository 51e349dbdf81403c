import t from 'tap';
import {
  activeRevision,
  applyConfigFact,
  emptyConfigState,
  listRevisions,
  loadActive,
  readRevision,
  type ConfigFact,
  type ConfigState,
} from '../../../projections/index.js';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const at = (n: number) => new Date(Date.UTC(2026, 10, 22, 0, 0, n)).toISOString();
const record = (n: number) => ({
  revision_id: id(n),
  parent_revision_id: n > 1 ? id(n - 1) : null,
  created_at: at(n),
  created_by: 'ops',
  created_by_kind: 'operator',
  source: 'api',
  summary: `change ${n}`,
  payload: { name: `Acme ${n}`, mission: 'x'.repeat(1000) },
});
/** Revision n lies at stream sequence n and weighs 1,000 bytes. */
const stored = (n: number): ConfigFact => ({ kind: 'stored', record: record(n), seq: n, bytes: 1000 });
const pointer = (n: number, epoch: number) => ({
  revision_id: id(n),
  parent_revision_id: n > 1 ? id(n - 1) : null,
  epoch,
  activated_at: at(n),
});
const activated = (n: number, epoch: number): ConfigFact => ({
  kind: 'activated',
  pointer: pointer(n, epoch),
});

/** A stream of `count` revisions, read back by sequence; `reads` counts what the cache asked of it. */
function stream(count: number) {
  const reads: number[] = [];
  const load = (seq: number, revisionId: string): Promise<{ raw: Uint8Array }> => {
    reads.push(seq);
    const found = record(seq);
    if (seq > count || found.revision_id !== revisionId) return Promise.reject(new Error('not there'));
    return Promise.resolve({ raw: new TextEncoder().encode(JSON.stringify(found.payload)) });
  };
  return { reads, load };
}

const fold = (state: ConfigState, facts: ConfigFact[]) => facts.reduce(applyConfigFact, state);

t.test('the cache holds at most its count of documents besides the active one', async (t) => {
  const { load } = stream(50);
  const state = emptyConfigState({ load, cache: { maxBytes: 1 << 20, maxEntries: 4 } });
  for (let n = 1; n <= 50; n += 1) fold(state, [stored(n), activated(n, n)]);
  const stats = state.payloads.stats();
  t.equal(stats.entries, 4);
  t.equal(stats.bytes, 4000);
  t.same(stats.active, { revision_id: id(50), bytes: 1000, resident: true });
  t.equal(state.revisions.size, 50, 'every revision is still listed');
  t.equal(listRevisions(state, { limit: 500, offset: 0 }).length, 50);
  t.notOk(
    [...state.revisions.values()].some((r) => 'payload' in r),
    'the revision table holds metadata only',
  );
});

t.test('the cache holds at most its bytes of documents besides the active one', async (t) => {
  const { load } = stream(20);
  const state = emptyConfigState({ load, cache: { maxBytes: 2500, maxEntries: 100 } });
  for (let n = 1; n <= 20; n += 1) fold(state, [stored(n), activated(n, n)]);
  t.equal(state.payloads.stats().entries, 2);
  t.ok(state.payloads.stats().bytes <= 2500);
  t.equal(activeRevision(state)?.revision_id, id(20), 'the active document is held whatever its size');
});

t.test('an evicted revision reads back equal from the stream, and is held again after', async (t) => {
  const { load, reads } = stream(30);
  const state = emptyConfigState({ load, cache: { maxBytes: 1 << 20, maxEntries: 2 } });
  for (let n = 1; n <= 30; n += 1) fold(state, [stored(n), activated(n, n)]);
  t.same(await readRevision(state, id(3)), record(3));
  t.same(reads, [3], 'one stream read by its sequence');
  t.same(await readRevision(state, id(3)), record(3));
  t.same(reads, [3], 'the second read is a hit');
  t.same(await readRevision(state, id(29)), record(29));
  t.same(reads, [3], 'the previous active revision stays held');
  t.equal(await readRevision(state, id(99)), null, 'an unknown revision is null');
  t.equal(state.payloads.stats().entries, 2);
});

t.test('concurrent reads of one evicted revision share one stream read', async (t) => {
  const { load, reads } = stream(10);
  const state = emptyConfigState({ load, cache: { maxBytes: 1 << 20, maxEntries: 1 } });
  for (let n = 1; n <= 10; n += 1) fold(state, [stored(n), activated(n, n)]);
  const all = await Promise.all(Array.from({ length: 5 }, () => readRevision(state, id(2))));
  t.ok(all.every((r) => r?.payload !== undefined && r.summary === 'change 2'));
  t.same(reads, [2]);
});

t.test('a stream that cannot answer fails the read, and a later read tries again', async (t) => {
  let fail = true;
  const state = emptyConfigState({
    load: (seq) =>
      fail ? Promise.reject(new Error('bus down')) : Promise.resolve({ parsed: record(seq).payload }),
    cache: { maxBytes: 1 << 20, maxEntries: 1 },
  });
  for (let n = 1; n <= 5; n += 1) fold(state, [stored(n), activated(n, n)]);
  await t.rejects(readRevision(state, id(1)), /bus down/);
  fail = false;
  t.same(await readRevision(state, id(1)), record(1));
});

t.test('a revision activated after the cache let it go is read back before it is served', async (t) => {
  const { load, reads } = stream(10);
  const state = emptyConfigState({ load, cache: { maxBytes: 1 << 20, maxEntries: 2 } });
  for (let n = 1; n <= 10; n += 1) fold(state, [stored(n)]);
  fold(state, [activated(1, 1)]);
  t.equal(state.active?.revision_id, id(1));
  t.equal(activeRevision(state), null, 'not served while its document is away');
  await loadActive(state);
  t.same(reads, [1]);
  t.same(activeRevision(state), record(1));
  t.same(state.payloads.stats().active, { revision_id: id(1), bytes: 1000, resident: true });
});

t.test('while the new active document is read back, the revision it replaces answers', async (t) => {
  const { load, reads } = stream(10);
  const state = emptyConfigState({ load, cache: { maxBytes: 1 << 20, maxEntries: 2 } });
  for (let n = 1; n <= 9; n += 1) fold(state, [stored(n)]);
  fold(state, [activated(9, 1), activated(2, 2)]);
  t.equal(state.active?.revision_id, id(2));
  t.same(activeRevision(state), record(9), 'the prior active revision, whole');
  await loadActive(state);
  t.same(reads, [2]);
  t.same(activeRevision(state), record(2));
  t.same(await readRevision(state, id(9)), record(9), 'the prior one joined the cache');
  t.same(reads, [2]);
  t.ok(state.payloads.stats().entries <= 2);
});

t.test('a pointer read ahead of the record pins it once the record lands', async (t) => {
  const { load, reads } = stream(3);
  const state = emptyConfigState({ load, cache: { maxBytes: 1 << 20, maxEntries: 1 } });
  fold(state, [stored(1), activated(1, 1), { kind: 'pointer', pointer: pointer(2, 2) }]);
  t.same(activeRevision(state), record(1), 'the prior revision answers meanwhile');
  await loadActive(state);
  t.same(reads, [], 'nothing to read before the record is stored');
  fold(state, [stored(2), stored(3)]);
  t.same(activeRevision(state), record(2));
});

t.test('without a stream every document stays held (a fold fed by hand)', async (t) => {
  const state = emptyConfigState({ cache: { maxBytes: 0, maxEntries: 0 } });
  for (let n = 1; n <= 5; n += 1) fold(state, [{ kind: 'stored', record: record(n) }, activated(n, n)]);
  for (let n = 1; n <= 5; n += 1) t.same(await readRevision(state, id(n)), record(n));
});
