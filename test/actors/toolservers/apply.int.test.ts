import t from 'tap';
import { toolServersApplier } from '../../../actors/index.js';
import { echoServer } from '../../fixtures/mcp/servers.js';
import { base, doc } from './company.fixture.js';
import { startManager } from './harness.js';
import { isAlive } from '../../harness/proc.js';

t.test('apply starts, stops and restarts only what changed', async (t) => {
  const { manager } = startManager(t);
  const applier = toolServersApplier(manager);
  t.equal(applier.name, 'tool_servers', 'the tool-server step of the apply');
  const pids = () =>
    Object.fromEntries(
      manager.status().map((s) => [s.seat === null ? s.server : `${s.server}@${s.seat}`, s.pid]),
    );

  let current = base();
  const first = await manager.apply(doc(current));
  t.same(first.started.sort(), ['files', 'gh@ada', 'gh@bob']);
  const before = pids();

  await t.test('the same document is no work', async (t) => {
    const outcome = await manager.apply(doc(current));
    t.same(outcome, { started: [], stopped: [], restarted: [], renamed: [] });
    t.same(pids(), before);
  });

  await t.test('a seat env change respawns only that seat', async (t) => {
    current = base();
    current.roles = [{ name: 'Ada', mcp_env: { gh: { GH_TOKEN: 'ada-2' } } }];
    const outcome = await manager.apply(doc(current));
    t.same(outcome.restarted, ['gh@ada']);
    const after = pids();
    t.not(after['gh@ada'], before['gh@ada']);
    t.notOk(isAlive(before['gh@ada']!), 'the old child is gone');
    t.equal(after['gh@bob'], before['gh@bob']);
    t.equal(after['files'], before['files']);
    const seen = await manager.callTool('ada', 'env', { name: 'GH_TOKEN' });
    t.equal(seen.content[0]!.text, 'ada-2');
  });

  await t.test('a unit env change respawns the seats that inherit it', async (t) => {
    const was = pids();
    current.units = [
      { name: 'eng', type: 'team', mcp_env: { gh: { GH_TOKEN: 'eng-2' } }, roles: [{ name: 'Bob' }] },
    ];
    const outcome = await manager.apply(doc(current));
    t.same(outcome.restarted, ['gh@bob']);
    t.equal(pids()['gh@ada'], was['gh@ada']);
    t.equal((await manager.callTool('bob', 'env', { name: 'GH_TOKEN' })).content[0]!.text, 'eng-2');
  });

  await t.test('a change that leaves the effective env alone respawns nothing', async (t) => {
    const was = pids();
    // Bob's own value equals what he inherits; Ada gains env for another server; the unit gains a goal.
    current.units = [
      {
        name: 'eng',
        type: 'team',
        mcp_env: { gh: { GH_TOKEN: 'eng-2' } },
        roles: [{ name: 'Bob', goal: 'ship', mcp_env: { gh: { GH_TOKEN: 'eng-2' } } }],
      },
    ];
    current.roles = [{ name: 'Ada', mcp_env: { gh: { GH_TOKEN: 'ada-2' }, other: { X: 'y' } } }];
    const outcome = await manager.apply(doc(current));
    t.same(outcome, { started: [], stopped: [], restarted: [], renamed: [] });
    t.same(pids(), was);
  });

  await t.test('a new tool_prefix renames tools without a restart', async (t) => {
    const was = pids();
    current.mcp_servers = [
      echoServer('files', { tool_prefix: 'docs_' }),
      echoServer('gh', { shared: false }),
    ];
    const outcome = await manager.apply(doc(current));
    t.same(outcome.renamed, ['files']);
    t.same(outcome.restarted, []);
    t.equal(pids()['files'], was['files']);
    const names = manager.toolsFor('ada').map((tool) => tool.name);
    t.ok(names.includes('docs_echo'));
    t.notOk(names.includes('f_echo'));
    t.equal((await manager.callTool('ada', 'docs_echo', { text: 'x' })).content[0]!.text, 'files: x');
  });

  await t.test(
    'an entry change restarts the shared server; a removed one stops, an added one starts',
    async (t) => {
      const was = pids();
      current.mcp_servers = [
        echoServer('files', { tool_prefix: 'docs_', env: { ECHO_NAME: 'files-v2' } }),
        echoServer('notes', { tool_prefix: 'n_' }),
      ];
      const outcome = await manager.apply(doc(current));
      t.same(outcome.restarted, ['files']);
      t.same(outcome.stopped.sort(), ['gh@ada', 'gh@bob']);
      t.same(outcome.started, ['notes']);
      t.notOk(isAlive(was['gh@ada']!));
      t.notOk(isAlive(was['gh@bob']!));
      t.notOk(isAlive(was['files']!));
      t.equal((await manager.callTool('ada', 'docs_echo', { text: 'x' })).content[0]!.text, 'files-v2: x');
      t.equal((await manager.callTool('ada', 'n_echo', { text: 'x' })).content[0]!.text, 'notes: x');
      t.equal((await manager.callTool('ada', 'env', { name: 'GH_TOKEN' })).is_error, true);
    },
  );
});

t.test('entries that cannot run are skipped with a warning, the rest still start', async (t) => {
  const { manager, logs } = startManager(t);
  await manager.apply({
    name: 'Acme',
    mcp_servers: [
      { name: 'both', command: 'x', url: 'http://127.0.0.1:1/mcp' },
      { name: 'neither' },
      echoServer('ok'),
      echoServer('ok'),
    ],
  });
  t.same(
    manager.status().map((s) => s.server),
    ['ok'],
  );
  t.equal(logs.lines.filter((l) => l.msg === 'tool-server entry skipped').length, 3);
});
