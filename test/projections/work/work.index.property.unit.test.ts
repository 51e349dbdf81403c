/**
 * The work state's indexes (schema/work/state.index.ts) narrow the reads without changing them: over
 * random histories of creates, updates, moves, comments (with @mentions) and purges, the listing, the
 * inbox and my-work answer what a scan of every item (and of the whole log) answers, and every index set
 * holds exactly the items it names.
 */
import fc from 'fast-check';
import t from 'tap';
import { inboxPage, listItems, myWork } from '../../../projections/index.js';
import {
  decodeCursor,
  defaultFields,
  mentionsIn,
  ListOrder,
  SeqKey,
  type ListPosition,
  snapshotOf,
  stateOfSnapshot,
  WorkSnapshot,
  emptyWorkState,
  foldWork,
  groupOf,
  itemByRef,
  priorities,
  priorityRank,
  workStatuses,
  type ActivityRow,
  type WorkItem,
  type WorkRecord,
  type WorkState,
} from '../../../schema/index.js';

const handles = ['ada', 'adam', 'bob', 'cy'] as const;
const projects = ['ENG', 'OPS', 'WEB'] as const;
// Bodies the mentions reader (schema/work/mentions.ts) tells apart: case, addresses, a longer handle.
const bodies = [
  'hi',
  '@ada look',
  'cc @adam',
  '@bob @cy',
  'mail x@ada.io',
  '@@ada',
  'no one',
  'to @Ada-',
  '(@BOB)',
];
const types = ['task', 'bug'];
const labels = ['ui', 'api'];

const handle = fc.constantFrom(...handles);
const some = <T>(arb: fc.Arbitrary<T>) => fc.uniqueArray(arb, { maxLength: 3 });
const fields = fc.record(
  {
    title: fc.constantFrom('Fix login', 'Ship ada', 'Write docs'),
    description: fc.constantFrom('', 'the api', 'login broken'),
    type: fc.constantFrom(...types),
    priority: fc.constantFrom(...priorities),
    assignees: some(handle),
    watchers: some(handle),
    asked_of: some(handle),
    labels: some(fc.constantFrom(...labels)),
    checklist: fc.array(fc.record({ done: fc.boolean(), assignee: fc.option(handle, { nil: null }) }), {
      maxLength: 2,
    }),
    links: fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 1 }),
  },
  { requiredKeys: [] },
);

/** One step: an op on the n-th item ever created (mod how many exist), by an actor. */
const step = fc.oneof(
  fc.record({
    op: fc.constant('create' as const),
    project: fc.constantFrom(...projects),
    fields,
    actor: handle,
    status: fc.constantFrom(...workStatuses),
  }),
  fc.record({ op: fc.constant('update' as const), n: fc.nat(), fields, actor: handle }),
  fc.record({
    op: fc.constant('move' as const),
    n: fc.nat(),
    to: fc.constantFrom(...workStatuses),
    actor: handle,
  }),
  fc.record({
    op: fc.constant('comment' as const),
    n: fc.nat(),
    body: fc.constantFrom(...bodies),
    actor: handle,
  }),
  fc.record({ op: fc.constant('purge' as const), n: fc.nat(), actor: handle }),
);
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;
type Drawn = Partial<{
  title: string;
  description: string;
  type: string;
  priority: (typeof priorities)[number];
  assignees: string[];
  watchers: string[];
  asked_of: string[];
  labels: string[];
  checklist: Array<{ done: boolean; assignee: string | null }>;
  links: number[];
}>;

function changes(drawn: Drawn) {
  const { checklist, links, ...rest } = drawn;
  return {
    ...rest,
    ...(checklist ? { checklist: checklist.map((e, i) => ({ id: `c${i}`, text: 'step', ...e })) } : {}),
    ...(links ? { links: links.map((n) => ({ kind: 'blocked_by' as const, item: `id-${n}` })) } : {}),
  };
}

function build(steps: readonly Step[]): WorkState {
  const state = emptyWorkState();
  const created: string[] = [];
  const counters = new Map<string, number>();
  let seq = 0;
  for (const s of steps) {
    seq += 1;
    const at = new Date(Date.UTC(2026, 0, 1) + seq * 3_600_000).toISOString();
    const base = { op_id: `op-${seq}`, at, actor: s.actor, turn_id: null };
    let record: WorkRecord;
    if (s.op === 'create') {
      const number = (counters.get(s.project) ?? 0) + 1;
      counters.set(s.project, number);
      const id = `id-${created.length + 1}`;
      created.push(id);
      record = {
        ...base,
        kind: 'item.created',
        id,
        project: s.project,
        key: `${s.project}-${number}`,
        number,
        status: s.status,
        fields: { ...defaultFields(), title: 'Item', ...changes(s.fields) },
      };
    } else {
      if (created.length === 0) continue;
      const id = created[s.n % created.length]!;
      if (s.op === 'update') record = { ...base, kind: 'item.updated', id, changes: changes(s.fields) };
      else if (s.op === 'move') {
        const from = state.items.get(id)?.status ?? 'backlog';
        record = { ...base, kind: 'item.moved', id, from, to: s.to };
      } else if (s.op === 'comment')
        record = {
          ...base,
          kind: 'item.commented',
          id,
          comment: { id: `m${seq}`, author: s.actor, body: s.body, at },
        };
      else record = { ...base, kind: 'item.purged', id, reason: 'gone' };
    }
    foldWork(state, record, seq);
  }
  return state;
}

type ListQuery = Omit<Parameters<typeof listItems>[1], 'after'> & { readonly skip: number };

/** Every match as a scan of every item finds it (the implementation before the indexes), newest first. */
function scanAll(state: WorkState, q: ListQuery): WorkItem[] {
  const needle = q.q?.toLowerCase() ?? null;
  const rows = [...state.items.values()].filter((item) => {
    const f = item.fields;
    if (q.project !== null && item.project !== q.project) return false;
    if (q.statuses.length > 0 && !q.statuses.includes(item.status)) return false;
    if (q.groups.length > 0 && !q.groups.includes(groupOf[item.status])) return false;
    if (q.assignee !== null && !f.assignees.includes(q.assignee)) return false;
    if (q.type !== null && f.type !== q.type) return false;
    if (q.priority !== null && f.priority !== q.priority) return false;
    if (q.label !== null && !f.labels.includes(q.label)) return false;
    return needle === null || `${item.key} ${f.title} ${f.description}`.toLowerCase().includes(needle);
  });
  return rows.reverse();
}

/** The query with a cursor after the scan's `skip`-th row (or its last; none when it skips nothing). */
function withCursor(state: WorkState, q: ListQuery): Parameters<typeof listItems>[1] {
  const { skip, ...rest } = q;
  const rows = scanAll(state, q);
  const last = rows[Math.min(skip, rows.length) - 1];
  return { ...rest, after: last ? { key: state.index.ordinal.get(last) ?? 0, id: last.id } : null };
}

/** The page a scan answers after the `skip`-th row. */
function scanList(state: WorkState, q: ListQuery) {
  const rows = scanAll(state, q);
  const skip = Math.min(q.skip, rows.length);
  const page = rows.slice(skip, skip + q.limit);
  return { ids: page.map((i) => i.id), total: rows.length, more: skip + page.length < rows.length };
}

const query = fc.record({
  project: fc.option(fc.constantFrom(...projects, 'NOPE'), { nil: null }),
  statuses: fc.uniqueArray(fc.constantFrom(...workStatuses), { maxLength: 3 }),
  groups: fc.uniqueArray(fc.constantFrom('todo', 'active', 'done', 'closed', 'bogus'), { maxLength: 2 }),
  assignee: fc.option(fc.constantFrom(...handles, 'zed'), { nil: null }),
  type: fc.option(fc.constantFrom(...types), { nil: null }),
  priority: fc.option(fc.constantFrom(...priorities), { nil: null }),
  label: fc.option(fc.constantFrom(...labels), { nil: null }),
  q: fc.option(fc.constantFrom('login', 'ENG-1', 'ada', 'api'), { nil: null }),
  limit: fc.integer({ min: 1, max: 6 }),
  skip: fc.integer({ min: 0, max: 8 }),
});

const history = fc.array(step, { minLength: 1, maxLength: 60 });

t.test('the indexed listing answers what a scan of every item answers', async (t) => {
  fc.assert(
    fc.property(history, fc.array(query, { minLength: 1, maxLength: 8 }), (steps, queries) => {
      const state = build(steps);
      for (const q of queries) {
        const got = listItems(state, withCursor(state, q));
        const want = scanList(state, q);
        if (
          JSON.stringify({ ids: got.items.map((i) => i.id), total: got.total, more: got.next !== null }) !==
          JSON.stringify(want)
        )
          return false;
      }
      return true;
    }),
    { numRuns: 300 },
  );
  t.pass('held');
});

t.test("paging with each answer's next lists every match once, newest first", async (t) => {
  fc.assert(
    fc.property(history, query, (steps, q) => {
      const state = build(steps);
      const want = scanAll(state, q).map((i) => i.id);
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let n = 0; n <= want.length; n++) {
        const after: ListPosition<number> | null =
          cursor === null
            ? null
            : (decodeCursor(cursor, ListOrder.WorkNewest, SeqKey) as ListPosition<number>);
        const got = listItems(state, { ...withCursor(state, { ...q, skip: 0 }), after });
        seen.push(...got.items.map((i) => i.id));
        cursor = got.next;
        if (cursor === null) break;
      }
      return JSON.stringify(seen) === JSON.stringify(want);
    }),
    { numRuns: 200 },
  );
  t.pass('held');
});

/** The inbox as a scan of the whole log (the implementation before the indexes): row ids, unread, next. */
function scanInbox(state: WorkState, who: string, limit: number, before: number | null) {
  const ids: number[] = [];
  let unread = 0;
  let more = false;
  for (const row of state.activity.toReversed()) {
    const item = state.items.get(row.item);
    if (!item || row.actor === who) continue;
    const mentioned =
      row.comment && mentionsIn(item.comments.find((c) => c.id === row.comment)?.body ?? '').includes(who);
    const f = item.fields;
    if (!mentioned && !f.assignees.includes(who) && !f.asked_of.includes(who) && !f.watchers.includes(who))
      continue;
    unread += 1;
    if (before !== null && row.seq >= before) continue;
    if (ids.length === limit) {
      more = true;
      continue;
    }
    ids.push(row.seq);
  }
  return { ids, unread, more };
}

t.test('the indexed inbox answers what a scan of the log answers', async (t) => {
  fc.assert(
    fc.property(
      history,
      fc.constantFrom(...handles, 'zed', 'ad', 'Ada'),
      fc.integer({ min: 1, max: 5 }),
      fc.option(fc.integer({ min: 1, max: 60 }), { nil: null }),
      (steps, who, limit, before) => {
        const state = build(steps);
        const got = inboxPage(state, {
          handle: who,
          unread: null,
          primaryOnly: false,
          snoozed: 'include',
          reasons: [],
          limit,
          before,
          since: 0,
          now: new Date(Date.UTC(2027, 0, 1)),
        });
        const want = scanInbox(state, who, limit, before);
        return (
          JSON.stringify({
            ids: got.items.map((r: ActivityRow) => r.seq),
            unread: got.unread,
            more: got.next !== null,
          }) === JSON.stringify(want)
        );
      },
    ),
    { numRuns: 300 },
  );
  t.pass('held');
});

const open = (i: WorkItem) => groupOf[i.status] === 'todo' || groupOf[i.status] === 'active';

/** my-work's lists as scans of every item (the implementation before the indexes), as item ids. */
function scanMyWork(state: WorkState, who: string, now: Date) {
  const recent = now.getTime() - 7 * 24 * 3600 * 1000;
  const items = [...state.items.values()];
  const byPriority = (a: WorkItem, b: WorkItem) =>
    priorityRank[a.fields.priority] - priorityRank[b.fields.priority] ||
    b.updated_at.localeCompare(a.updated_at);
  const mine = items.filter((i) => open(i) && i.fields.assignees.includes(who)).sort(byPriority);
  const finished = (i: WorkItem | null) => i !== null && !open(i);
  const ids = (list: WorkItem[]) => list.slice(0, 50).map((i) => i.id);
  return {
    assigned: ids(mine),
    asked_of_me: ids(items.filter((i) => open(i) && i.fields.asked_of.includes(who))),
    checklist_items: items
      .flatMap((i) =>
        open(i)
          ? i.fields.checklist.filter((e) => !e.done && e.assignee === who).map((e) => `${i.id}/${e.id}`)
          : [],
      )
      .slice(0, 50),
    collaborating: ids(
      items.filter(
        (i) =>
          open(i) &&
          !i.fields.assignees.includes(who) &&
          (i.created_by === who || i.comments.some((c) => c.author === who)),
      ),
    ),
    watching_recent: ids(
      items
        .filter((i) => i.fields.watchers.includes(who) && Date.parse(i.updated_at) >= recent)
        .sort((a, b) => b.updated_at.localeCompare(a.updated_at)),
    ),
    unblocked_recent: ids(
      mine.filter((item) => {
        const blockers = item.fields.links
          .filter((l) => l.kind === 'blocked_by')
          .map((l) => itemByRef(state, l.item));
        return (
          blockers.length > 0 &&
          blockers.every(finished) &&
          blockers.some((b) => b !== null && Date.parse(b.updated_at) >= recent)
        );
      }),
    ),
  };
}

t.test('the indexed my-work answers what a scan of every item answers', async (t) => {
  fc.assert(
    fc.property(
      history,
      fc.constantFrom(...handles, 'zed'),
      fc.integer({ min: 0, max: 70 }),
      (steps, who, hours) => {
        const state = build(steps);
        const now = new Date(Date.UTC(2026, 0, 1) + hours * 3_600_000 * 4);
        const got = myWork(state, who, now);
        const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((r) => r.id);
        return (
          JSON.stringify({
            assigned: ids(got.assigned),
            asked_of_me: ids(got.asked_of_me),
            checklist_items: got.checklist_items.map((c) => `${c.id}/${c.entry.id}`),
            collaborating: ids(got.collaborating),
            watching_recent: ids(got.watching_recent),
            unblocked_recent: ids(got.unblocked_recent),
          }) === JSON.stringify(scanMyWork(state, who, now))
        );
      },
    ),
    { numRuns: 300 },
  );
  t.pass('held');
});

t.test('every index set holds exactly the items it names, purges and edits included', async (t) => {
  fc.assert(
    fc.property(history, (steps) => {
      const state = build(steps);
      const index = state.index;
      const items = [...state.items.values()];
      // The index holds the live items themselves, not copies.
      const live = (held: Iterable<WorkItem>) => [...held].every((i) => state.items.get(i.id) === i);
      const expect = (map: Map<string, Set<WorkItem>>, keysOf: (i: WorkItem) => readonly string[]) => {
        if (![...map.values()].every(live)) return false;
        const want = new Map<string, string[]>();
        for (const i of items)
          for (const k of new Set(keysOf(i))) want.set(k, [...(want.get(k) ?? []), i.id]);
        const norm = (m: Map<string, Iterable<string | WorkItem>>) =>
          JSON.stringify(
            [...m]
              .map(([k, v]) => [k, [...v].map((i) => (typeof i === 'string' ? i : i.id)).sort()])
              .sort(([a], [b]) => String(a).localeCompare(String(b))),
          );
        return norm(map) === norm(want);
      };
      const mentions = (i: WorkItem) => i.comments.flatMap((c) => mentionsIn(c.body));
      return (
        live(index.all) &&
        JSON.stringify(index.all.map((i) => i.id)) === JSON.stringify(items.map((i) => i.id)) &&
        index.ordinal.size === items.length &&
        [...index.ordinal].every(([i, seq]) => state.items.get(i.id) === i && i.history[0]!.seq === seq) &&
        JSON.stringify([...index.byProject].map(([p, held]) => [p, held.map((i) => i.id)]).sort()) ===
          JSON.stringify(
            projects
              .map((p) => [p, items.filter((i) => i.project === p).map((i) => i.id)] as const)
              .filter(([, ids]) => ids.length > 0),
          ) &&
        expect(index.byStatus, (i) => [i.status]) &&
        expect(index.assignees, (i) => i.fields.assignees) &&
        expect(index.askedOf, (i) => i.fields.asked_of) &&
        expect(index.watchers, (i) => i.fields.watchers) &&
        expect(index.checklist, (i) => i.fields.checklist.flatMap((e) => (e.assignee ? [e.assignee] : []))) &&
        expect(index.creators, (i) => [i.created_by]) &&
        expect(index.commenters, (i) => i.comments.map((c) => c.author)) &&
        expect(index.mentions, mentions)
      );
    }),
    { numRuns: 300 },
  );
  t.pass('held');
});

/** The index as ids (items by their id), comparable across states. */
const indexIds = (state: WorkState): string => {
  const id = (v: unknown): unknown => (v !== null && typeof v === 'object' && 'id' in v ? v.id : v);
  const ids = (v: unknown): unknown =>
    v instanceof Map
      ? [...(v as Map<unknown, unknown>)]
          .map(([k, x]) => [id(k), ids(x)])
          .sort((a, b) => String(a[0]).localeCompare(String(b[0])))
      : v instanceof Set || Array.isArray(v)
        ? [...(v as Iterable<unknown>)].map(id).sort()
        : id(v);
  return JSON.stringify(
    Object.entries(state.index).map(([name, value]: [string, unknown]) => [name, ids(value)]),
  );
};

t.test('a state started from a snapshot holds the indexes the fold kept, and answers alike', async (t) => {
  fc.assert(
    fc.property(history, fc.array(query, { minLength: 1, maxLength: 4 }), (steps, queries) => {
      const state = build(steps);
      const back = stateOfSnapshot(WorkSnapshot.parse(JSON.parse(JSON.stringify(snapshotOf(state)))));
      if (indexIds(back) !== indexIds(state)) return false;
      const answer = (s: WorkState, q: ListQuery) => JSON.stringify(listItems(s, withCursor(s, q)));
      return queries.every((q) => answer(back, q) === answer(state, q));
    }),
    { numRuns: 200 },
  );
  t.pass('held');
});
