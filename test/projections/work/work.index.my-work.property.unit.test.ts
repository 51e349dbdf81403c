/**
 * The work state's indexes (schema/work/state.index.ts) narrow the reads without changing them: over
 * random histories of creates, updates, moves, comments (with @mentions) and purges, my-work answers
 * what a scan of every item answers.
 */
import fc from 'fast-check';
import t from 'tap';
import { myWork } from '../../../projections/index.js';
import { groupOf, itemByRef, priorityRank, type WorkItem, type WorkState } from '../../../schema/index.js';
import { build, handles, history } from '../fixtures/work-history.js';

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
