/** A node's history folded from its own apply announcements: what a restarted node starts from. */
import t from 'tap';
import { emptyNodeHistory, foldNodeHistory, type NodeHistory } from '../../../actors/index.js';

const R = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const announced = (
  epoch: number,
  status: 'applied' | 'unchanged' | 'failed',
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  node: 'node-a',
  revision_id: R(epoch),
  epoch,
  status,
  applied_subsystems: [],
  at: '2026-01-01T00:00:00.000Z',
  ...extra,
});
const fold = (...records: unknown[]): NodeHistory =>
  records.reduce<NodeHistory>(
    (history, record) => foldNodeHistory(history, 'node-a', record),
    emptyNodeHistory,
  );

t.test('a node that never announced has no history', async (t) => {
  t.same(fold(), { applied: null, failed: null });
});

t.test('the newest applied or unchanged epoch is the one it ran', async (t) => {
  t.same(fold(announced(1, 'applied'), announced(2, 'unchanged')), {
    applied: { epoch: 2, revision_id: R(2) },
    failed: null,
  });
});

t.test('a failure after it is remembered with the posture it left', async (t) => {
  t.same(fold(announced(1, 'applied'), announced(2, 'failed', { posture: 'stuck' })), {
    applied: { epoch: 1, revision_id: R(1) },
    failed: { epoch: 2, revision_id: R(2), posture: 'stuck' },
  });
});

t.test('a failure recorded before postures were announced reads isolated', async (t) => {
  t.match(fold(announced(1, 'applied'), announced(2, 'failed')).failed, { posture: 'isolated' });
});

t.test('a later success clears the failure', async (t) => {
  t.same(fold(announced(1, 'applied'), announced(2, 'failed'), announced(3, 'applied')), {
    applied: { epoch: 3, revision_id: R(3) },
    failed: null,
  });
});

t.test('other nodes, malformed records and older epochs change nothing', async (t) => {
  const history = fold(announced(3, 'applied'));
  t.same(
    fold(
      announced(3, 'applied'),
      { ...announced(4, 'failed'), node: 'node-b' },
      { epoch: 'five' },
      null,
      announced(2, 'applied'),
      announced(2, 'failed'),
    ),
    history,
  );
});

t.test(
  'a failure at the applied epoch itself (a restart failing its own revision) is remembered until it applies',
  async (t) => {
    const failed = fold(announced(3, 'applied'), announced(3, 'failed', { posture: 'stuck' }));
    t.same(failed, {
      applied: { epoch: 3, revision_id: R(3) },
      failed: { epoch: 3, revision_id: R(3), posture: 'stuck' },
    });
    t.same(fold(announced(3, 'applied'), announced(3, 'failed'), announced(3, 'applied')), {
      applied: { epoch: 3, revision_id: R(3) },
      failed: null,
    });
  },
);
