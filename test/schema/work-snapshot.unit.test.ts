/**
 * A work snapshot (schema/work/snapshot.ts) stands for the state it was taken of: through JSON and the
 * versioned schema it comes back as the same state (maps, sets, each item's history rebuilt from the
 * activity, purged items' keys and rows, people, retention), and a fold continued on either gives the same.
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
const created = (n: number) =>
  WorkRecord.parse({
    kind: 'item.created',
    ...base(`c-${n}`, `id-${n}`),
    project: 'ENG',
    key: `ENG-${n}`,
    number: n,
    status: 'backlog',
    fields: { ...defaultFields(), title: `Item ${n}`, labels: ['x'] },
  });

function folded(): WorkState {
  const state = emptyWorkState();
  const records = [
    created(1),
    created(2),
    created(3),
    { kind: 'item.commented', ...base('cm', 'id-1'), comment: { id: 'k1', author: 'ada', body: 'hi', at } },
    { kind: 'item.moved', ...base('mv', 'id-2'), from: 'backlog', to: 'in_progress' },
    { kind: 'item.updated', ...base('up', 'id-1'), changes: { priority: 'high' } },
    { kind: 'item.purged', ...base('pg', 'id-3'), reason: 'spam' },
    {
      kind: 'file.put',
      ...base('fp', 'ENG/a.md'),
      project: 'ENG',
      path: 'a.md',
      version: 1,
      size: 3,
      content_type: 'text/markdown',
      sha256: 'a'.repeat(64),
    },
    { kind: 'person.changed', ...base('p1', 'ada'), act: { act: 'read', seqs: [4], through: 2 } },
    { kind: 'person.changed', ...base('p2', 'ada'), act: { act: 'snooze', seqs: [5], until: at } },
  ];
  records.forEach((r, i) => foldWork(state, WorkRecord.parse(r), i + 1));
  state.retention.capacity.max_records = 10;
  state.retention.holders.set('node-0', {
    name: 'node-0',
    kind: 'node',
    generation: 1,
    seq: 9,
    acked_at: at,
    acked_by: 'node-0',
    evicted: null,
  });
  return state;
}

t.test('a snapshot through JSON and the schema is the state it was taken of', async (t) => {
  const state = folded();
  const json = JSON.parse(JSON.stringify(snapshotOf(state))) as unknown;
  const back = stateOfSnapshot(WorkSnapshot.parse(json));
  t.same(back, state);
  t.equal(back.items.get('id-1')?.history[0], back.activity.rows()[0], 'history rows are the activity rows');
  t.equal(back.everKeys.get('id-3'), 'ENG-3', 'a purged item still resolves');
  t.equal(back.counters.get('ENG'), 3);
  const next = created(4);
  foldWork(state, next, 11);
  foldWork(back, next, 11);
  t.same(back, state, 'folding on continues the same');
});

t.test('a snapshot of another version or shape is refused', async (t) => {
  const snapshot = JSON.parse(JSON.stringify(snapshotOf(folded()))) as Record<string, unknown>;
  t.notOk(WorkSnapshot.safeParse({ ...snapshot, version: 2 }).success);
  t.notOk(WorkSnapshot.safeParse({ ...snapshot, items: 'many' }).success);
});
