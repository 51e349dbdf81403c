/**
 * A purge removes every activity row of the item held at that point and keeps its own row, and takes the
 * item out of the listing's lists: whether the log is read between purges or not, whether an id purged
 * once is created again and purged again, and whether the state comes from the fold or from a snapshot.
 */
import t from 'tap';
import {
  defaultFields,
  emptyWorkState,
  foldWork,
  snapshotOf,
  stateOfSnapshot,
  WorkRecord,
  WorkSnapshot,
  type WorkState,
} from '../../schema/index.js';

const at = '2026-11-26T12:00:00.000Z';
const base = (op_id: string, id: string) => ({ op_id, at, actor: 'ada', turn_id: null, id });
const created = (op: string, id: string, project: string, n: number) => ({
  kind: 'item.created',
  ...base(op, id),
  project,
  key: `${project}-${n}`,
  number: n,
  status: 'backlog',
  fields: { ...defaultFields(), title: `Item ${n}` },
});
const commented = (op: string, id: string) => ({
  kind: 'item.commented',
  ...base(op, id),
  comment: { id: `k-${op}`, author: 'ada', body: 'hi', at },
});
const purged = (op: string, id: string) => ({ kind: 'item.purged', ...base(op, id), reason: 'spam' });

const records = [
  created('c1', 'x', 'ENG', 1), // 1
  created('c2', 'y', 'ENG', 2), // 2
  commented('m1', 'x'), // 3
  created('c3', 'z', 'OPS', 1), // 4
  purged('p1', 'x'), // 5
  commented('m2', 'y'), // 6
  created('c4', 'x', 'ENG', 3), // 7: the purged id again, a new item
  commented('m3', 'x'), // 8
  purged('p2', 'y'), // 9
  purged('p3', 'x'), // 10: the second x and the first x's purge row go
  created('c5', 'w', 'ENG', 4), // 11
  purged('p4', 'z'), // 12
];

/** Folds the records; `readAfter` reads the log after those sequences (a read between purges). */
function fold(readAfter: readonly number[] = []): WorkState {
  const state = emptyWorkState();
  records.forEach((r, i) => {
    foldWork(state, WorkRecord.parse(r), i + 1);
    if (readAfter.includes(i + 1)) state.activity.rows();
  });
  return state;
}

const log = (state: WorkState) => state.activity.rows().map((r) => `${r.seq}:${r.kind}:${r.item}`);
const listed = (state: WorkState) => ({
  all: state.index.all.map((i) => i.key),
  byProject: [...state.index.byProject].map(([p, items]) => [p, items.map((i) => i.key)]),
  ordinals: [...state.index.ordinal.values()],
});

const expected = ['9:item.purged:y', '10:item.purged:x', '11:item.created:w', '12:item.purged:z'];

t.test('a purge leaves only rows appended after it of the id, and its own row', async (t) => {
  const state = fold();
  t.same(log(state), expected);
  t.same(listed(state), { all: ['ENG-4'], byProject: [['ENG', ['ENG-4']]], ordinals: [11] });
  t.same(
    state.items.get('w')?.history.map((r) => r.seq),
    [11],
  );
});

t.test('reading the log between purges changes nothing', async (t) => {
  for (const reads of [[5], [5, 6, 7, 8], [9], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]]) {
    const state = fold(reads);
    t.same(log(state), expected, `read after ${reads.join(',')}`);
    t.same(listed(state), listed(fold()), `read after ${reads.join(',')}`);
  }
  const partway = emptyWorkState();
  records.slice(0, 8).forEach((r, i) => foldWork(partway, WorkRecord.parse(r), i + 1));
  t.same(
    log(partway),
    [
      '2:item.created:y',
      '4:item.created:z',
      '5:item.purged:x',
      '6:item.commented:y',
      '7:item.created:x',
      '8:item.commented:x',
    ],
    'between the two purges of x, the second x and the first purge row are held',
  );
  t.same(listed(partway).all, ['ENG-2', 'OPS-1', 'ENG-3']);
});

t.test('a state from a snapshot taken with purges pending folds on to the same log', async (t) => {
  const live = emptyWorkState();
  records.slice(0, 9).forEach((r, i) => foldWork(live, WorkRecord.parse(r), i + 1));
  const back = stateOfSnapshot(WorkSnapshot.parse(JSON.parse(JSON.stringify(snapshotOf(live)))));
  records.slice(9).forEach((r, i) => {
    foldWork(live, WorkRecord.parse(r), i + 10);
    foldWork(back, WorkRecord.parse(r), i + 10);
  });
  t.same(log(back), expected);
  t.same(listed(back), listed(live));
});
