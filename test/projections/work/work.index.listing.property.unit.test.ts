/**
 * The work state's indexes (schema/work/state.index.ts) narrow the reads without changing them: over
 * random histories of creates, updates, moves, comments (with @mentions) and purges, the listing answers
 * what a scan of every item answers, page by page, and a state started from a snapshot answers alike.
 */
import fc from 'fast-check';
import t from 'tap';
import {
  decodeCursor,
  groupOf,
  listItems,
  ListOrder,
  priorities,
  SeqKey,
  snapshotOf,
  stateOfSnapshot,
  WorkSnapshot,
  workStatuses,
  type ListPosition,
  type WorkItem,
  type WorkState,
} from '../../../schema/index.js';
import { build, handles, history, labels, projects, types } from '../fixtures/work-history.js';

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
  // `lists` is the store `all` and `byProject` read (schema/work/creation-lists.ts): compared through them.
  return JSON.stringify(
    Object.entries(state.index)
      .filter(([name]) => name !== 'lists')
      .map(([name, value]: [string, unknown]) => [name, ids(value)]),
  );
};

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
