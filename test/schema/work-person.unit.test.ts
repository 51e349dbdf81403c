/**
 * A person's snoozes end at the first of their records stamped at or after `until`, whatever snoozes were
 * added, moved earlier or lifted since, and whether the state was folded or came from a snapshot; rows read
 * one by one are dropped once `through` passes them.
 */
import t from 'tap';
import {
  emptyWorkState,
  foldWork,
  snapshotOf,
  stateOfSnapshot,
  WorkRecord,
  WorkSnapshot,
  type WorkState,
} from '../../schema/index.js';

const hour = (h: number) => new Date(Date.UTC(2026, 10, 26, h)).toISOString();
let n = 0;
const act = (at: number, a: Record<string, unknown>) =>
  WorkRecord.parse({
    kind: 'person.changed',
    op_id: `p${++n}`,
    at: hour(at),
    actor: 'ada',
    id: 'ada',
    act: a,
  });

const records = [
  act(0, { act: 'snooze', seqs: [1, 2], until: hour(5) }),
  act(1, { act: 'snooze', seqs: [3], until: hour(3) }),
  act(2, { act: 'read', seqs: [10, 11, 12], through: null }),
  act(3, { act: 'unsnooze', seqs: [9] }), // 3 ends here
  act(4, { act: 'snooze', seqs: [4], until: hour(6) }),
  act(4, { act: 'snooze', seqs: [4], until: hour(4) }), // moved earlier: ends at the next record
  act(5, { act: 'read', seqs: [13], through: 11 }), // 1, 2 and 4 end; 10 and 11 are under the mark
  act(5, { act: 'snooze', seqs: [5, 6], until: hour(8) }),
  act(6, { act: 'snooze', seqs: [7], until: hour(7) }),
  act(6, { act: 'unsnooze', seqs: [7] }), // the earliest lifted: 5 and 6 still end at 8
  act(7, { act: 'snooze', seqs: [8], until: 'not a time' }), // never ends
  act(8, { act: 'read', seqs: [], through: null }),
];

const person = (state: WorkState) => {
  const p = state.people.get('ada')!;
  return {
    snoozed: [...p.snoozed].sort(([a], [b]) => a - b),
    read: [...p.read].sort(),
    through: p.read_through,
  };
};

const after = [
  {
    snoozed: [
      [1, hour(5)],
      [2, hour(5)],
    ],
    read: [],
    through: 0,
  },
  {
    snoozed: [
      [1, hour(5)],
      [2, hour(5)],
      [3, hour(3)],
    ],
    read: [],
    through: 0,
  },
  {
    snoozed: [
      [1, hour(5)],
      [2, hour(5)],
      [3, hour(3)],
    ],
    read: [10, 11, 12],
    through: 0,
  },
  {
    snoozed: [
      [1, hour(5)],
      [2, hour(5)],
    ],
    read: [10, 11, 12],
    through: 0,
  },
  {
    snoozed: [
      [1, hour(5)],
      [2, hour(5)],
      [4, hour(6)],
    ],
    read: [10, 11, 12],
    through: 0,
  },
  {
    snoozed: [
      [1, hour(5)],
      [2, hour(5)],
      [4, hour(4)],
    ],
    read: [10, 11, 12],
    through: 0,
  },
  { snoozed: [], read: [12, 13], through: 11 },
  {
    snoozed: [
      [5, hour(8)],
      [6, hour(8)],
    ],
    read: [12, 13],
    through: 11,
  },
  {
    snoozed: [
      [5, hour(8)],
      [6, hour(8)],
      [7, hour(7)],
    ],
    read: [12, 13],
    through: 11,
  },
  {
    snoozed: [
      [5, hour(8)],
      [6, hour(8)],
    ],
    read: [12, 13],
    through: 11,
  },
  {
    snoozed: [
      [5, hour(8)],
      [6, hour(8)],
      [8, 'not a time'],
    ],
    read: [12, 13],
    through: 11,
  },
  { snoozed: [[8, 'not a time']], read: [12, 13], through: 11 },
];

t.test('snoozes end at the first record at or after their end, rows read drop under the mark', async (t) => {
  const state = emptyWorkState();
  records.forEach((r, i) => {
    foldWork(state, r, i + 1);
    t.same(person(state), after[i], `after record ${i + 1}`);
  });
});

t.test('from a snapshot taken at any record, the fold goes on the same', async (t) => {
  for (let cut = 1; cut < records.length; cut++) {
    const live = emptyWorkState();
    records.slice(0, cut).forEach((r, i) => foldWork(live, r, i + 1));
    const back = stateOfSnapshot(WorkSnapshot.parse(JSON.parse(JSON.stringify(snapshotOf(live)))));
    records.slice(cut).forEach((r, i) => foldWork(back, r, cut + i + 1));
    t.same(person(back), after.at(-1), `snapshot after record ${cut}`);
  }
});
