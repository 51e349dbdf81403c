import t from 'tap';
import {
  createLagWatch,
  emptyRevisionTable,
  foldRevisionFact,
  peerApplied,
  POSTURE_LAG_MS,
} from '../../actors/index.js';

const revision = '0b6c3f2e-7d4a-4c1e-9f00-2a5b6c7d8e9f';
const applied = (node: string, epoch: number, status = 'applied') => ({
  node,
  revision_id: revision,
  epoch,
  status,
  applied_subsystems: [],
  at: '2026-11-23T10:00:00.000Z',
});

t.test('a node behind a peer that has the active epoch lags, and is shed past 45 s', async (t) => {
  let now = 1_000_000;
  // The revision table the node follows: revision 2 won epoch 2.
  const table = emptyRevisionTable();
  foldRevisionFact(table, {
    kind: 'activated',
    pointer: {
      revision_id: revision,
      parent_revision_id: null,
      epoch: 2,
      activated_at: '2026-11-23T10:00:00.000Z',
    },
  });
  const announced = (record: unknown) => foldRevisionFact(table, { kind: 'applied', announcement: record });
  const lag = createLagWatch({ peerHas: (epoch) => peerApplied(table, epoch, 'node-a'), now: () => now });
  t.same(lag.check(2, 1), { lagSeconds: 0, lagged: false }, 'alone, there is nobody to lag behind');
  announced(applied('node-a', 2));
  t.same(lag.check(2, 1), { lagSeconds: 0, lagged: false }, 'its own announcement is not a peer');
  announced(applied('node-b', 2, 'failed'));
  announced({ node: 'node-c' });
  t.same(lag.check(2, 1), { lagSeconds: 0, lagged: false }, 'a failed or malformed announcement neither');

  announced(applied('node-b', 2));
  t.same(lag.check(2, 1), { lagSeconds: 0, lagged: false }, 'behind from now');
  now += 30_000;
  t.same(lag.check(2, 1), { lagSeconds: 30, lagged: false });
  now += POSTURE_LAG_MS - 30_000 + 1;
  t.same(lag.check(2, 1), { lagSeconds: 45, lagged: true }, 'more than 45 s behind: shed');
  t.same(lag.check(2, 2), { lagSeconds: 0, lagged: false }, 'caught up');
  now += 60_000;
  t.same(lag.check(3, 2), { lagSeconds: 0, lagged: false }, 'a newer epoch no peer has yet is no lag');
});
