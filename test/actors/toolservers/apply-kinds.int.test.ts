import t from 'tap';
import { toolServersApplier } from '../../../actors/index.js';
import { echoServer } from '../../fixtures/mcp/servers.js';
import { base, doc } from './company.fixture.js';
import { startManager } from './harness.js';

t.test('seat kind flips and rollback', async (t) => {
  const { manager } = startManager(t);
  const applier = toolServersApplier(manager);
  const current = base();
  current.mcp_servers = [echoServer('gh', { shared: false })];

  await t.test(
    'a seat flipped to human loses its per-seat servers; flipped back gets them again',
    async (t) => {
      await manager.apply(doc(current));
      t.same(
        manager
          .status()
          .map((s) => s.seat)
          .sort(),
        ['ada', 'bob'],
      );
      current.units = [
        {
          name: 'eng',
          type: 'team',
          roles: [{ name: 'Bob', kind: 'human', contact: { chat_user_id: 'U1' } }],
        },
      ];
      const outcome = await manager.apply(doc(current));
      t.same(outcome.stopped, ['gh@bob']);
      t.same(
        manager.status().map((s) => s.seat),
        ['ada'],
      );
      current.units = [{ name: 'eng', type: 'team', roles: [{ name: 'Bob' }] }];
      t.same((await manager.apply(doc(current))).started, ['gh@bob']);
    },
  );

  await t.test('rollback brings back the previous document', async (t) => {
    const previous = doc(current);
    const failed = doc({ ...current, mcp_servers: [] });
    await applier.apply(failed, previous);
    t.same(manager.status(), []);
    await applier.rollback!(previous, failed);
    t.same(
      manager
        .status()
        .map((s) => s.seat)
        .sort(),
      ['ada', 'bob'],
    );
  });
});
