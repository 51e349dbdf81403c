/**
 * Tool servers that misbehave at start (ops/tool-servers.md "Failures and backoff"): one that never answers
 * the handshake, one that prints garbage on stdout, and one serving 10,000 tools. `/mcp-servers` (the
 * manager's status) says which it is in one readable line, secrets scrubbed; a large list is served whole.
 */
import t from 'tap';
import { echoServer } from '../../fixtures/mcp/servers.js';
import { startManager } from './harness.js';

const secret = 'garbage-secret-value-77';

t.test('a server that never answers the handshake is a start timeout, named as such', async (t) => {
  const { manager } = startManager(t, { startTimeoutMs: 1_500, backoffBaseMs: 60_000, backoffCapMs: 60_000 });
  await manager.apply({
    name: 'Acme',
    mcp_servers: [{ name: 'mute', command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] }],
  });
  const status = manager.status()[0];
  t.match(status, { state: 'backoff', started: false, failed: true, tools_served: 0 });
  t.equal(
    status?.first_failure?.error,
    'the tool server did not complete the MCP handshake within 1.5 s',
    'the failure says what did not happen, not an SDK timeout code',
  );
});

t.test('garbage on stdout is named in the failure, without quoting it', async (t) => {
  const { manager } = startManager(t, { startTimeoutMs: 1_500, backoffBaseMs: 60_000, backoffCapMs: 60_000 });
  const script = [
    "process.stdout.write(process.env.K + ' loaded\\n');",
    'process.stdout.write(\'{"not": "json-rpc"}\\n\');',
    'setInterval(() => {}, 1000);',
  ].join(' ');
  await manager.apply({
    name: 'Acme',
    mcp_servers: [{ name: 'chatty', command: process.execPath, args: ['-e', script], env: { K: secret } }],
  });
  const status = manager.status()[0];
  t.match(status, { state: 'backoff', failed: true });
  const error = status?.first_failure?.error ?? '';
  t.match(error, /^the tool server did not complete the MCP handshake within 1\.5 s; /);
  t.match(error, /it wrote 2 lines on stdout that are not MCP messages \(the first is not JSON; .*stderr\)$/);
  t.notMatch(error, secret.slice(0, 8), 'not even the start of an env value printed on stdout is shown');
});

t.test('a server serving 10,000 tools starts, lists them all and answers a call to the last', async (t) => {
  const { manager } = startManager(t, { startTimeoutMs: 30_000 });
  const extra = Array.from({ length: 10_000 }, (_, i) => `t${i}`);
  const began = Date.now();
  await manager.apply({
    name: 'Acme',
    mcp_servers: [echoServer('many', { env: { ECHO_NAME: 'many', ECHO_EXTRA_TOOLS: extra.join(',') } })],
  });
  const status = manager.status()[0];
  t.match(status, { state: 'started', started: true, failed: false, first_failure: null });
  t.equal(status?.tools_served, 10_004, 'every tool is served');
  t.comment(`started in ${Date.now() - began} ms`);
  const call = await manager.callTool('ada', 't9999', {});
  t.equal(call.is_error, false);
});

t.test(
  'servers that hang at start hold only their own start slots: the others start meanwhile',
  async (t) => {
    const { manager, logs } = startManager(t, { startTimeoutMs: 120_000 });
    const mute = (name: string) => ({
      name,
      command: process.execPath,
      args: ['-e', 'setInterval(() => {}, 1000)'],
    });
    let applied = false;
    const apply = manager
      .apply({
        name: 'Acme',
        // Four start at a time: two hang, and the three others share the two slots left.
        mcp_servers: [
          mute('mute-a'),
          mute('mute-b'),
          echoServer('one'),
          echoServer('two'),
          echoServer('three'),
        ],
      })
      .then(() => (applied = true));
    await logs.waitForNth((l) => l.msg === 'tool server started', 3, 60_000);
    const started = manager
      .status()
      .filter((s) => s.state === 'started')
      .map((s) => s.server)
      .sort();
    t.same(started, ['one', 'three', 'two'], 'the third healthy server did not wait for the hanging two');
    t.equal(applied, false, 'the hanging two still hold their starts');
    await manager.stop();
    await apply;
  },
);
