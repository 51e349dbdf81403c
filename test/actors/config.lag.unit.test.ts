import t from 'tap';
import { createLagWatch, POSTURE_LAG_MS } from '../../actors/index.js';

const applied = (node: string, epoch: number, status = 'applied') => ({
  node,
  revision_id: '0b6c3f2e-7d4a-4c1e-9f00-2a5b6c7d8e9f',
  epoch,
  status,
  applied_subsystems: [],
  at: '2026-11-23T10:00:00.000Z',
});

t.test('a node behind a peer that has the active epoch lags, and is shed past 45 s', async (t) => {
  let now = 1_000_000;
  const lag = createLagWatch({ nodeId: 'node-a', now: () => now });
  t.same(lag.check(2, 1), { lagSeconds: 0, lagged: false }, 'alone, there is nobody to lag behind');
  lag.announced(applied('node-a', 2));
  t.same(lag.check(2, 1), { lagSeconds: 0, lagged: false }, 'its own announcement is not a peer');
  lag.announced(applied('node-b', 2, 'failed'));
  lag.announced({ node: 'node-c' });
  t.same(lag.check(2, 1), { lagSeconds: 0, lagged: false }, 'a failed or malformed announcement neither');

  lag.announced(applied('node-b', 2));
  t.same(lag.check(2, 1), { lagSeconds: 0, lagged: false }, 'behind from now');
  now += 30_000;
  t.same(lag.check(2, 1), { lagSeconds: 30, lagged: false });
  now += POSTURE_LAG_MS - 30_000 + 1;
  t.same(lag.check(2, 1), { lagSeconds: 45, lagged: true }, 'more than 45 s behind: shed');
  t.same(lag.check(2, 2), { lagSeconds: 0, lagged: false }, 'caught up');
  now += 60_000;
  t.same(lag.check(3, 2), { lagSeconds: 0, lagged: false }, 'a newer epoch no peer has yet is no lag');
});
