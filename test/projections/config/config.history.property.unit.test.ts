/**
 * The activation history is a pure function of the log (DESIGN.md "Agreement comes from log order"):
 * for each epoch the first announcement in stream order wins, the active revision is the winner with the
 * highest epoch, and no epoch is dropped for arriving after a newer one. A live follower folds the stream
 * interleaved with reads of the coordination store's pointer; a replay folds the stream, then reads the
 * pointer once. Both must give one history.
 */
import { deepStrictEqual } from 'node:assert/strict';
import fc from 'fast-check';
import t from 'tap';
import {
  activationHistory,
  activeRevision,
  applyConfigFact,
  emptyConfigState,
  listRevisions,
  type ConfigFact,
  type ConfigState,
} from '../../../projections/index.js';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const at = (n: number) => new Date(Date.UTC(2026, 10, 22, 0, 0, n)).toISOString();
const stored = (n: number): ConfigFact => ({
  kind: 'stored',
  record: {
    revision_id: id(n),
    parent_revision_id: null,
    created_at: at(n),
    created_by: 'ops',
    created_by_kind: 'operator',
    source: 'api',
    summary: `change ${n}`,
    payload: { name: `Acme ${n}` },
  },
});
const pointer = (n: number, epoch: number) => ({
  revision_id: id(n),
  parent_revision_id: epoch > 1 ? id(epoch - 1) : null,
  epoch,
  activated_at: at(n),
});
const announced = (n: number, epoch: number): ConfigFact => ({
  kind: 'activated',
  pointer: pointer(n, epoch),
});
const read = (n: number, epoch: number): ConfigFact => ({ kind: 'pointer', pointer: pointer(n, epoch) });
const fold = (facts: readonly ConfigFact[]): ConfigState => facts.reduce(applyConfigFact, emptyConfigState());
const view = (state: ConfigState) => ({
  history: activationHistory(state),
  active: state.active,
  revisions: listRevisions(state, { limit: 100, offset: 0 }),
});

t.test('an activation announced after a newer epoch is still in the history', async (t) => {
  // Writer of epoch 1 paused between winning and announcing; the writer of epoch 2 announced first.
  const state = fold([stored(1), stored(2), announced(2, 2), announced(1, 1)]);
  t.same(
    activationHistory(state).map((p) => [p.epoch, p.revision_id]),
    [
      [1, id(1)],
      [2, id(2)],
    ],
  );
  t.equal(state.active?.revision_id, id(2), 'the highest epoch is active');
  t.match(listRevisions(state, { limit: 10, offset: 0 }), [
    { revision_id: id(2), is_active: true, activated_at: at(2) },
    { revision_id: id(1), is_active: false, activated_at: at(1) },
  ]);
});

t.test(
  'the first claim of an epoch in stream order wins; a later claim and a pointer read do not',
  async (t) => {
    const state = fold([stored(1), stored(2), announced(1, 1), announced(2, 1), read(2, 1)]);
    t.same(
      activationHistory(state).map((p) => p.revision_id),
      [id(1)],
    );
    t.equal(activeRevision(state)?.revision_id, id(1));
    t.match(listRevisions(state, { limit: 10, offset: 0 }), [
      { revision_id: id(2), is_active: false, activated_at: null },
      { revision_id: id(1), is_active: true },
    ]);
  },
);

t.test('a pointer read fills an epoch until its announcement lands, which then decides', async (t) => {
  const state = fold([stored(1), stored(2), read(2, 1)]);
  t.equal(state.active?.revision_id, id(2), 'the pointer is active before its announcement lands');
  applyConfigFact(state, announced(1, 1));
  t.equal(state.active?.revision_id, id(1), 'the stream decides once it speaks');
  t.same(
    activationHistory(state).map((p) => p.revision_id),
    [id(1)],
  );
  t.equal(
    listRevisions(state, { limit: 10, offset: 0 })[0]?.activated_at,
    null,
    'the displaced claim is not',
  );
});

interface Scenario {
  /** The log: stored records, then announcements in the order writers landed them. */
  readonly stream: ConfigFact[];
  /** The coordination store's valid pointer records a live follower is told of, in epoch order. */
  readonly pointers: ConfigFact[];
  /** How the live follower's two inputs interleave (true: the next pointer read comes first). */
  readonly interleave: boolean[];
}

/**
 * Writers win epochs 1..n (revision e wins epoch e; revisions above n+1 lost and are stored inactive).
 * Announcements land in any order; some are repeated (a repair, a late original) and some epochs get a
 * second, different claim after the first. The newest epoch's announcement may still be in flight.
 */
const scenario: fc.Arbitrary<Scenario> = fc.integer({ min: 1, max: 8 }).chain((n) =>
  fc
    .record({
      order: fc.shuffledSubarray(
        Array.from({ length: n }, (_, i) => i + 1),
        { minLength: n, maxLength: n },
      ),
      extras: fc.array(
        fc.record({ epoch: fc.integer({ min: 1, max: n }), conflicting: fc.boolean(), after: fc.nat() }),
        { maxLength: 5 },
      ),
      inFlight: fc.boolean(),
      joinedAt: fc.integer({ min: 1, max: n }),
      interleave: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
    })
    .map(({ order, extras, inFlight, joinedAt, interleave }) => {
      const last = inFlight ? n + 1 : n;
      const announcements: ConfigFact[] = order.map((epoch) => announced(epoch, epoch));
      for (const [i, extra] of extras.entries()) {
        // A repeat or rival claim always lands after the epoch's first claim.
        const first = announcements.findIndex(
          (fact) => fact.kind === 'activated' && (fact.pointer as { epoch: number }).epoch === extra.epoch,
        );
        const at = first + 1 + (extra.after % (announcements.length - first));
        const loser = 100 + i;
        announcements.splice(
          at,
          0,
          extra.conflicting ? announced(loser, extra.epoch) : announced(extra.epoch, extra.epoch),
        );
      }
      const losers = extras.flatMap((extra, i) => (extra.conflicting ? [100 + i] : []));
      const stream = [
        ...Array.from({ length: last }, (_, i) => stored(i + 1)),
        ...losers.map(stored),
        ...announcements,
      ];
      const pointers = Array.from({ length: last - joinedAt + 1 }, (_, i) =>
        read(joinedAt + i, joinedAt + i),
      );
      return { stream, pointers, interleave };
    }),
);

function live({ stream, pointers, interleave }: Scenario): ConfigFact[] {
  const out: ConfigFact[] = [];
  let s = 0;
  let p = 0;
  for (let step = 0; s < stream.length || p < pointers.length; step += 1) {
    const takePointer = p < pointers.length && (s >= stream.length || interleave[step % interleave.length]);
    out.push(takePointer ? (pointers[p++] as ConfigFact) : (stream[s++] as ConfigFact));
  }
  return out;
}

t.test('any interleaving a live follower can see gives the history a replay from zero gives', async (t) => {
  fc.assert(
    fc.property(scenario, (sc) => {
      const replay = fold([...sc.stream, sc.pointers[sc.pointers.length - 1] as ConfigFact]);
      deepStrictEqual(view(fold(live(sc))), view(replay));
      // Every epoch's winner is in it, once, at its epoch.
      const newest = (sc.pointers[sc.pointers.length - 1] as { pointer: { epoch: number } }).pointer.epoch;
      deepStrictEqual(
        activationHistory(replay).map((p) => [p.epoch, p.revision_id]),
        Array.from({ length: newest }, (_, i) => [i + 1, id(i + 1)]),
      );
    }),
    { numRuns: 500 },
  );
  t.pass('500 logs, each folded live in one interleaving and replayed: one history');
});
