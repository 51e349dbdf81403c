/**
 * The work state's indexes (schema/work/state.index.ts) narrow the reads without changing them: over
 * random histories of creates, updates, moves, comments (with @mentions) and purges, the inbox answers
 * what a scan of the whole log answers.
 */
import fc from 'fast-check';
import t from 'tap';
import { inboxPage } from '../../../projections/index.js';
import { mentionsIn, type ActivityRow, type WorkState } from '../../../schema/index.js';
import { build, handles, history } from '../fixtures/work-history.js';

/** The inbox as a scan of the whole log (the implementation before the indexes): row ids, unread, next. */
function scanInbox(state: WorkState, who: string, limit: number, before: number | null) {
  const ids: number[] = [];
  let unread = 0;
  let more = false;
  for (const row of state.activity.rows().toReversed()) {
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
