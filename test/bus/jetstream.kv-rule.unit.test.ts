import fc from 'fast-check';
import t from 'tap';
import {
  apply,
  continueWalk,
  emptyState,
  judge,
  live,
  parentAt,
  type KeyState,
  type KvRecord,
} from '../../bus/jetstream/kv-rule.js';

const none = new Uint8Array(0);
let clock = 1_000;
function rec(seq: number, parent: number | null, opts: Partial<KvRecord> = {}): KvRecord {
  clock += 10;
  return { key: 'k', seq, time: clock, value: none, operation: 'put', parent, ...opts };
}

/** The reference: every record of the key from its very first, applied in order. */
function fullWalk(records: readonly KvRecord[]): { state: KeyState; valid: Map<number, boolean> } {
  let state = emptyState;
  const valid = new Map<number, boolean>();
  for (const record of records) {
    const step = apply(state, record, undefined);
    valid.set(record.seq, step.valid);
    state = step.state;
  }
  return { state, valid };
}

t.test('the first claimant of a parent wins and later claimants of it are ignored', async (t) => {
  const log = [rec(1, 0), rec(2, 1), rec(3, 1), rec(4, 2), rec(5, 1)];
  const { state, valid } = fullWalk(log);
  t.same([...valid.values()], [true, true, false, true, false]);
  t.equal(state.current?.seq, 4);
  t.same(judge(log, undefined).state.current?.seq, 4, 'a judgement from scratch agrees');
});

t.test('a create claims the tombstone it follows, so a create that read an older state loses', async (t) => {
  const log = [
    rec(1, 0),
    rec(2, 0),
    rec(3, 1, { operation: 'delete' }),
    rec(4, 0),
    rec(5, 3),
    rec(6, null),
    rec(7, 5),
  ];
  const { state, valid } = fullWalk(log);
  t.same([...valid.values()], [true, false, true, false, true, true, false]);
  t.equal(state.current?.seq, 6);
});

t.test('an expired record counts as absent at the time of the next record', async (t) => {
  const a = rec(1, 0, { time: 0 });
  const b = rec(2, 0, { time: 5_000 });
  const step1 = apply(emptyState, a, 1_000);
  t.equal(live(step1.state, 1_000, 500)?.seq, 1);
  t.equal(parentAt(step1.state, 1_000, 5_000), 0, 'a create after expiry names no parent');
  const step2 = apply(step1.state, b, 1_000);
  t.ok(step2.valid, 'create after expiry wins');
  t.equal(live(step2.state, 1_000, 5_500)?.seq, 2);
  t.equal(live(step2.state, 1_000, 6_000), null, 'and expires in turn');
});

t.test('a trimmed window is anchored on the newest trimmed parent anyone claims', async (t) => {
  // 1 create, 2 wins over 3 (both claim 1), 4 builds on 2; records 1 and 2 are trimmed.
  const log = [rec(1, 0), rec(2, 1), rec(3, 1), rec(4, 2), rec(5, 4)];
  const judged = judge(log.slice(2), undefined);
  t.equal(judged.verdicts.get(3)?.valid, false, 'the loser at the front is not taken for the winner');
  t.equal(judged.verdicts.get(4)?.valid, true);
  t.equal(judged.state.current?.seq, 5);
  // A conditional delete trimmed, a stale update of the deleted value, then a create after the delete.
  const del = [rec(1, null), rec(2, 1, { operation: 'delete' }), rec(3, 1), rec(4, 2), rec(5, 4)];
  t.equal(judge(del.slice(2), undefined).state.current?.seq, 5, 'the create after the delete anchors');
});

t.test('continuing a known state stops when a claimed parent was trimmed unseen', async (t) => {
  const one = rec(1, null);
  const base: KeyState = { last: 1, valid: 1, validTime: one.time, current: one };
  t.equal(continueWalk(base, [rec(5, 3)], undefined, 64), null);
  t.equal(continueWalk(base, [rec(2, 1), rec(3, 2)], undefined, 64)?.state.current?.seq, 3);
  t.equal(continueWalk(base, [rec(2, 1), rec(3, 2)], undefined, 2), null, 'a full history of new records');
});

/**
 * Writers that read the state a few records late (as racing writers do) and claim what they read.
 * Property: every window of the log that still holds a valid record judges the current value as the
 * full walk does, and agrees on every record from its first valid one on.
 */
t.test('any retained window agrees with the full log (generated races)', async (t) => {
  const step = fc.record({
    kind: fc.constantFrom('conditional', 'conditional', 'conditional', 'put', 'delete'),
    staleness: fc.integer({ min: 0, max: 8 }),
    remove: fc.boolean(),
  });
  fc.assert(
    fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
      const log: KvRecord[] = [];
      const states: KeyState[] = [emptyState];
      for (const s of steps) {
        const seq = log.length + 1;
        const view = states[Math.max(0, states.length - 1 - s.staleness)] as KeyState;
        let record: KvRecord;
        if (s.kind === 'put') record = rec(seq, null);
        else if (s.kind === 'delete') record = rec(seq, null, { operation: 'delete' });
        else {
          // update or delete of the live value, else a create naming the tombstone (or nothing)
          const parent = parentAt(view, undefined, 0);
          const operation = view.current && s.remove ? 'delete' : 'put';
          record = rec(seq, parent, { operation });
        }
        log.push(record);
        states.push(apply(states[states.length - 1] as KeyState, record, undefined).state);
      }
      const full = fullWalk(log);
      for (let start = 1; start < log.length; start += 1) {
        const window = log.slice(start);
        const firstValid = window.findIndex((r) => full.valid.get(r.seq));
        if (firstValid < 0) continue;
        const judged = judge(window, undefined);
        if (judged.state.current?.seq !== full.state.current?.seq) return false;
        for (const r of window.slice(firstValid)) {
          if (judged.verdicts.get(r.seq)?.valid !== full.valid.get(r.seq)) return false;
        }
      }
      return true;
    }),
    { numRuns: 1_000 },
  );
  t.pass('1,000 generated logs, every window agrees');
});
