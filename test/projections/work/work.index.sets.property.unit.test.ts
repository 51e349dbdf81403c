/**
 * The work state's indexes (schema/work/state.index.ts) narrow the reads without changing them: over
 * random histories of creates, updates, moves, comments (with @mentions) and purges, every index set
 * holds exactly the items it names.
 */
import fc from 'fast-check';
import t from 'tap';
import { mentionsIn, type WorkItem } from '../../../schema/index.js';
import { build, history, projects } from '../fixtures/work-history.js';

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
