/**
 * The revision table folded from SVC_CONFIG records: epochs decided by log order, the one before
 * superseded, each node's outcome recorded, and the same table however the subjects interleave.
 */
import t from 'tap';
import {
  emptyRevisionTable,
  foldRevisionFact,
  peerApplied,
  revisionStatus,
  type RevisionFact,
} from '../../../actors/index.js';

const R = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const stored = (n: number): RevisionFact => ({ kind: 'stored', record: { revision_id: R(n), summary: 'x' } });
const activated = (n: number, epoch: number): RevisionFact => ({
  kind: 'activated',
  pointer: { revision_id: R(n), parent_revision_id: null, epoch, activated_at: '2026-01-01T00:00:00.000Z' },
});
const applied = (node: string, n: number, epoch: number, status = 'applied'): RevisionFact => ({
  kind: 'applied',
  announcement: {
    node,
    revision_id: R(n),
    epoch,
    status,
    applied_subsystems: [],
    at: '2026-01-01T00:00:01.000Z',
  },
});

const states = (facts: RevisionFact[]) => {
  const table = emptyRevisionTable();
  for (const fact of facts) foldRevisionFact(table, fact);
  return Object.fromEntries(
    [...table.revisions.values()].map((s) => {
      const status = revisionStatus(s);
      const nodes = Object.fromEntries(Object.entries(status.nodes).map(([n, a]) => [n, a.status]));
      return [status.revision_id, { state: status.state, epoch: status.epoch, nodes }];
    }),
  );
};

const history: RevisionFact[] = [
  stored(1),
  activated(1, 1),
  applied('a', 1, 1),
  applied('b', 1, 1),
  stored(2),
  stored(3),
  activated(2, 2),
  // revision 3 lost epoch 2: its claim comes second in log order
  activated(3, 2),
  applied('a', 2, 2, 'failed'),
  applied('b', 2, 2),
];

t.test('stored → active → superseded, losers stay stored, each node recorded', async (t) => {
  t.same(states(history), {
    [R(1)]: { state: 'superseded', epoch: 1, nodes: { a: 'applied', b: 'applied' } },
    [R(2)]: { state: 'active', epoch: 2, nodes: { a: 'failed', b: 'applied' } },
    [R(3)]: { state: 'stored', epoch: null, nodes: {} },
  });
});

t.test('subjects replayed one after another give the table a live follower built', async (t) => {
  const bySubject = [
    ...history.filter((f) => f.kind === 'stored'),
    ...history.filter((f) => f.kind === 'activated'),
    ...history.filter((f) => f.kind === 'applied'),
  ];
  t.same(states(bySubject), states(history));
  const appliedFirst = [
    ...history.filter((f) => f.kind === 'applied'),
    ...history.filter((f) => f.kind !== 'applied'),
  ];
  t.same(states(appliedFirst), states(history));
});

t.test('an older epoch announced late is superseded at once', async (t) => {
  t.match(states([stored(1), stored(2), activated(2, 2), activated(1, 1)]), {
    [R(1)]: { state: 'superseded', epoch: 1 },
    [R(2)]: { state: 'active', epoch: 2 },
  });
});

t.test('malformed records change nothing', async (t) => {
  t.same(
    states([
      ...history,
      { kind: 'stored', record: null },
      { kind: 'activated', pointer: { epoch: 'x' } },
      { kind: 'applied', announcement: { node: 'a' } },
    ]),
    states(history),
  );
});

t.test('a peer has an epoch once another node applied its winner', async (t) => {
  const table = emptyRevisionTable();
  for (const fact of history) foldRevisionFact(table, fact);
  t.equal(peerApplied(table, 2, 'a'), true, 'b applied epoch 2');
  t.equal(peerApplied(table, 2, 'b'), false, "a's apply of epoch 2 failed");
  t.equal(peerApplied(table, 3, 'a'), false, 'nobody has epoch 3');
});
