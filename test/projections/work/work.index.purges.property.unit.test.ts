/**
 * The listing's ordered lists drop a purged item when next read, not at its purge
 * (schema/work/creation-lists.ts). Over random runs of creates, moves, purges (one at a time and in runs
 * of the oldest, as retention purges), reads and snapshot round trips, every read answers what a plain
 * model of the items in creation order answers: the lists, each project's counts, and the listing page by
 * page, a cursor kept from an earlier read included.
 */
import fc from 'fast-check';
import t from 'tap';
import { projectCounts } from '../../../projections/index.js';
import {
  decodeCursor,
  defaultFields,
  emptyWorkState,
  foldWork,
  groupOf,
  listItems,
  ListOrder,
  SeqKey,
  snapshotOf,
  stateOfSnapshot,
  WorkSnapshot,
  workStatuses,
  type ListPosition,
  type StatusGroup,
  type WorkRecord,
  type WorkState,
} from '../../../schema/index.js';

const projects = ['ENG', 'OPS', 'WEB'] as const;
type WorkStatus = (typeof workStatuses)[number];
const groups: readonly StatusGroup[] = ['todo', 'active', 'done', 'closed'];

const step = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('create' as const),
      project: fc.constantFrom(...projects),
      status: fc.constantFrom(...workStatuses),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('move' as const),
      n: fc.nat(),
      to: fc.constantFrom(...workStatuses),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('purge' as const), n: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('purgeOldest' as const), count: fc.integer({ min: 1, max: 8 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('read' as const),
      project: fc.option(fc.constantFrom(...projects, 'NOPE'), { nil: null }),
      group: fc.option(fc.constantFrom(...groups), { nil: null }),
      limit: fc.integer({ min: 1, max: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: 'snapshot' as const }) },
);
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;
type Read = Extract<Step, { op: 'read' }>;

/** The model: the held items in creation order, each with the sequence of its create record. */
interface Held {
  readonly id: string;
  readonly project: string;
  status: WorkStatus;
  readonly seq: number;
}

const at = '2026-11-26T12:00:00.000Z';
const base = (seq: number, id: string) => ({ op_id: `op-${seq}`, at, actor: 'ada', turn_id: null, id });

/** Newest first, the model's items a read with `read`'s filters lists, strictly after `after`. */
function modelList(model: readonly Held[], read: Read, after: ListPosition<number> | null): string[] {
  return model
    .filter(
      (h) =>
        (read.project === null || h.project === read.project) &&
        (read.group === null || groupOf[h.status] === read.group) &&
        (after === null || h.seq < after.key || (h.seq === after.key && h.id < after.id)),
    )
    .map((h) => h.id)
    .reverse();
}

/** Every page from `after` on, each page's total, following each answer's `next`. */
function walk(state: WorkState, read: Read, after: ListPosition<number> | null) {
  const query = {
    project: read.project,
    statuses: [],
    groups: read.group === null ? [] : [read.group],
    assignee: null,
    type: null,
    priority: null,
    label: null,
    q: null,
    limit: read.limit,
  };
  const ids: string[] = [];
  const totals: number[] = [];
  let from = after;
  for (;;) {
    const page = listItems(state, { ...query, after: from });
    ids.push(...page.items.map((i) => i.id));
    totals.push(page.total);
    if (page.next === null || totals.length > 100) return { ids, totals };
    from = decodeCursor(page.next, ListOrder.WorkNewest, SeqKey) as ListPosition<number>;
  }
}

/** Whether every read of `state` answers what the model does; `kept` is a cursor from an earlier read. */
function agrees(state: WorkState, model: readonly Held[], read: Read, kept: ListPosition<number> | null) {
  const index = state.index;
  const byProject = projects
    .map((p) => [p, model.filter((h) => h.project === p).map((h) => h.id)] as const)
    .filter(([, ids]) => ids.length > 0);
  const counts = (p: string) => {
    const want = { todo: 0, active: 0, done: 0, closed: 0 };
    for (const h of model) if (h.project === p) want[groupOf[h.status]] += 1;
    return want;
  };
  const total = modelList(model, read, null).length;
  const fromStart = walk(state, read, null);
  const fromKept = walk(state, read, kept);
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  return (
    same(
      index.all.map((i) => i.id),
      model.map((h) => h.id),
    ) &&
    same(
      [...index.byProject]
        .map(([p, items]) => [p, items.map((i) => i.id)] as const)
        .sort(([a], [b]) => a.localeCompare(b)),
      byProject,
    ) &&
    same(
      model.map((h) => index.ordinal.get(state.items.get(h.id)!)),
      model.map((h) => h.seq),
    ) &&
    [...projects, 'NOPE'].every((p) => same(projectCounts(state, p), counts(p))) &&
    same(fromStart.ids, modelList(model, read, null)) &&
    fromStart.totals.every((n) => n === total) &&
    same(fromKept.ids, modelList(model, read, kept))
  );
}

/** Folds the steps, checking every read (and the end) against the model; false at the first difference. */
function run(steps: readonly Step[]): boolean {
  let state = emptyWorkState();
  const model: Held[] = [];
  const counters = new Map<string, number>();
  let seq = 0;
  let made = 0;
  let kept: ListPosition<number> | null = null;
  const fold = (record: WorkRecord) => foldWork(state, record, ++seq);
  const purge = (held: Held) => {
    fold({ kind: 'item.purged', ...base(seq + 1, held.id), reason: 'gone' });
    model.splice(model.indexOf(held), 1);
  };
  for (const s of steps) {
    if (s.op === 'create') {
      const number = (counters.get(s.project) ?? 0) + 1;
      counters.set(s.project, number);
      const id = `id-${++made}`;
      fold({
        kind: 'item.created',
        ...base(seq + 1, id),
        project: s.project,
        key: `${s.project}-${number}`,
        number,
        status: s.status,
        fields: { ...defaultFields(), title: 'Item' },
      });
      model.push({ id, project: s.project, status: s.status, seq });
    } else if (s.op === 'move' || s.op === 'purge') {
      const held = model[s.n % Math.max(1, model.length)];
      if (!held) continue;
      if (s.op === 'purge') purge(held);
      else {
        fold({ kind: 'item.moved', ...base(seq + 1, held.id), from: held.status, to: s.to });
        held.status = s.to;
      }
    } else if (s.op === 'purgeOldest') for (const held of model.slice(0, s.count)) purge(held);
    else if (s.op === 'snapshot')
      state = stateOfSnapshot(WorkSnapshot.parse(JSON.parse(JSON.stringify(snapshotOf(state)))));
    else {
      if (!agrees(state, model, s, kept)) return false;
      // A cursor on the newest item this read listed: later reads page on from its place, purged or not.
      const first = modelList(model, s, null)[0];
      const held = model.find((h) => h.id === first);
      if (held) kept = { key: held.seq, id: held.id };
    }
  }
  return agrees(state, model, { op: 'read', project: null, group: null, limit: 3 }, kept);
}

t.test('reads between and after purges answer what a model of the held items answers', async (t) => {
  fc.assert(fc.property(fc.array(step, { minLength: 1, maxLength: 80 }), run), { numRuns: 400 });
  t.pass('held');
});

t.test('a long run of purges with no read between leaves the lists a read expects', async (t) => {
  const steps: Step[] = [
    ...Array.from({ length: 40 }, (_, i) => ({
      op: 'create' as const,
      project: projects[i % projects.length]!,
      status: workStatuses[i % workStatuses.length]!,
    })),
    { op: 'read', project: null, group: null, limit: 5 },
    { op: 'purgeOldest', count: 8 },
    { op: 'purge', n: 7 },
    { op: 'purgeOldest', count: 8 },
    { op: 'purgeOldest', count: 8 },
    { op: 'read', project: 'ENG', group: null, limit: 2 },
    { op: 'purgeOldest', count: 8 },
    { op: 'snapshot' },
    { op: 'purgeOldest', count: 6 },
  ];
  t.ok(run(steps));
});
