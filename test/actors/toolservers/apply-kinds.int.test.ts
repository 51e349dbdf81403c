import t from 'tap';
import { toolServersApplier } from '../../../actors/index.js';
import { echoServerPath } from '../../fixtures/mcp/servers.js';
import { startManager } from './harness.js';
import { Company } from '../../../schema/index.js';

const echo = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  command: process.execPath,
  args: [echoServerPath],
  env: { ECHO_NAME: name },
  ...extra,
});

interface Doc {
  mcp_servers: Array<Record<string, unknown>>;
  roles: Array<Record<string, unknown>>;
  units: Array<Record<string, unknown>>;
}

const base = (): Doc => ({
  mcp_servers: [echo('files', { tool_prefix: 'f_' }), echo('gh', { shared: false })],
  roles: [{ name: 'Ada', mcp_env: { gh: { GH_TOKEN: 'ada-1' } } }],
  units: [{ name: 'eng', type: 'team', mcp_env: { gh: { GH_TOKEN: 'eng-1' } }, roles: [{ name: 'Bob' }] }],
});
const doc = (d: Doc): Company => Company.parse({ name: 'Acme', ...d });

t.test('seat kind flips and rollback', async (t) => {
  const { manager } = startManager(t);
  const applier = toolServersApplier(manager);
  const current = base();
  current.mcp_servers = [echo('gh', { shared: false })];

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
