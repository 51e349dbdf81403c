/**
 * The projects' task counts (`/work/projects`, `/work/projects/{key}`) are the ones the fold keeps
 * (state.index.ts `counts`): over random histories of creates, updates, moves, comments and purges they are
 * what a scan of every item counts, an unknown project all zeros, and so they stay when the state goes
 * through a snapshot partway and the fold goes on from it.
 */
import fc from 'fast-check';
import t from 'tap';
import { projectCounts, projectRows } from '../../../projections/index.js';
import {
  WorkSnapshot,
  foldWork,
  groupOf,
  snapshotOf,
  stateOfSnapshot,
  type WorkProject,
  type WorkState,
} from '../../../schema/index.js';
import { build, history, projects, recordsOf } from '../fixtures/work-history.js';

const keys = [...projects, 'NOPE'];

function scanned(state: WorkState, key: string) {
  const want = { todo: 0, active: 0, done: 0, closed: 0 };
  for (const item of state.items.values()) if (item.project === key) want[groupOf[item.status]] += 1;
  return want;
}

const listed: WorkProject[] = keys.map((key) => ({
  key,
  name: key,
  unit: null,
  lead: null,
  description: null,
  target_date: null,
  archived: false,
  members: [],
}));
const query = { q: null, unit: null, archived: 'false' as const, sort: 'key', limit: 200 };

/** Every project's counts, one project's read and the list's, against a scan of every item. */
function countsHeld(state: WorkState): boolean {
  const rows = projectRows(state, listed, query).projects;
  return keys.every((key) => {
    const want = JSON.stringify(scanned(state, key));
    const row = rows.find((r) => r.key === key);
    return JSON.stringify(projectCounts(state, key)) === want && JSON.stringify(row?.task_counts) === want;
  });
}

t.test("a project's counts are those of a scan of every item", async (t) => {
  fc.assert(
    fc.property(history, (steps) => countsHeld(build(steps))),
    { numRuns: 300 },
  );
  t.pass('held');
});

t.test('the counts survive a snapshot taken partway, and the fold going on from it', async (t) => {
  fc.assert(
    fc.property(history, fc.nat(), (steps, at) => {
      const { records, state: live } = recordsOf(steps);
      const cut = at % (records.length + 1);
      const before = build([]);
      for (const { record, seq } of records.slice(0, cut)) foldWork(before, record, seq);
      const json = JSON.parse(JSON.stringify(snapshotOf(before))) as unknown;
      const loaded = stateOfSnapshot(WorkSnapshot.parse(json));
      if (!countsHeld(loaded)) return false;
      for (const { record, seq } of records.slice(cut)) foldWork(loaded, record, seq);
      return (
        countsHeld(loaded) &&
        countsHeld(live) &&
        JSON.stringify([...loaded.index.counts].sort()) === JSON.stringify([...live.index.counts].sort())
      );
    }),
    { numRuns: 300 },
  );
  t.pass('held');
});

t.test('a list read does not change as the fold goes on', async (t) => {
  const { records } = recordsOf([{ op: 'create', project: 'ENG', fields: {}, actor: 'ada', status: 'todo' }]);
  const state = build([]);
  for (const { record, seq } of records) foldWork(state, record, seq);
  const row = projectRows(state, listed, query).projects.find((r) => r.key === 'ENG')!;
  const one = projectCounts(state, 'ENG');
  const first = records[0]!.record;
  if (first.kind !== 'item.created') throw new Error('a create first');
  foldWork(state, { ...first, op_id: 'again', id: 'id-2', key: 'ENG-2', number: 2 }, 2);
  t.same(row.task_counts, { todo: 1, active: 0, done: 0, closed: 0 });
  t.same(one, { todo: 1, active: 0, done: 0, closed: 0 });
  t.same(projectCounts(state, 'ENG'), { todo: 2, active: 0, done: 0, closed: 0 });
});
