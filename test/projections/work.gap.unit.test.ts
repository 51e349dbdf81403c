import t from 'tap';
import { watchedApply } from '../../projections/work/work.projection.js';
import { emptyWorkState } from '../../schema/index.js';

const message = (seq: number) => ({
  seq,
  subject: 'svc.work.retention.node_acked.n1',
  data: new TextEncoder().encode('{}'),
  time: new Date(0),
});

t.test(
  'a record past the next one tells of a trim this node was behind, and nothing else does',
  async (t) => {
    const gaps: Array<[number, number]> = [];
    const apply = watchedApply((applied, arrived) => gaps.push([applied, arrived]));
    const state = emptyWorkState();
    apply(state, message(1));
    apply(state, message(2));
    t.same(gaps, [], 'consecutive records: no gap');
    apply(state, message(7));
    t.same(gaps, [[2, 7]], 'records 3 to 6 went before this node applied them');
    t.equal(state.seq, 7, 'the record that arrived is still folded');

    const seeded = emptyWorkState();
    const fresh = watchedApply((applied, arrived) => gaps.push([applied, arrived]));
    fresh(seeded, message(40));
    t.same(gaps, [[2, 7]], 'a state at zero (a start on a trimmed log) is the runner’s to judge, not a gap');
  },
);
