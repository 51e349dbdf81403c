/**
 * A project's task counts (`/work/projects/{key}`) read its own items off the index: over random histories
 * of creates, moves and purges they are what a scan of every item counts, an unknown project all zeros.
 */
import fc from 'fast-check';
import t from 'tap';
import { projectCounts } from '../../../projections/index.js';
import { groupOf } from '../../../schema/index.js';
import { build, history, projects } from '../fixtures/work-history.js';

t.test("a project's counts are those of a scan of every item", async (t) => {
  fc.assert(
    fc.property(history, fc.constantFrom(...projects, 'NOPE'), (steps, key) => {
      const state = build(steps);
      const want = { todo: 0, active: 0, done: 0, closed: 0 };
      for (const item of state.items.values()) if (item.project === key) want[groupOf[item.status]] += 1;
      return JSON.stringify(projectCounts(state, key)) === JSON.stringify(want);
    }),
    { numRuns: 300 },
  );
  t.pass('held');
});
