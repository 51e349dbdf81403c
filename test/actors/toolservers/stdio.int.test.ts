import t from 'tap';
import { echoServer } from '../../fixtures/mcp/servers.js';
import { startManager } from './harness.js';
import { isAlive } from '../../harness/proc.js';

const text = (result: { content: Array<{ text: string }> }): string =>
  result.content.map((p) => p.text).join('');

t.test('a shared stdio server lists its tools with the prefix and answers a routed call', async (t) => {
  const { manager } = startManager(t);
  const outcome = await manager.apply({
    name: 'Acme',
    mcp_servers: [echoServer('files', { tool_prefix: 'files_' })],
    roles: [{ name: 'Ada' }],
  });
  t.same(outcome.started, ['files']);
  const names = manager.toolsFor('ada').map((tool) => tool.name);
  t.same(names.sort(), ['files_crash', 'files_echo', 'files_env', 'files_fail']);
  const entry = manager.catalogue().find((tool) => tool.name === 'files_echo')!;
  t.equal(entry.source, 'mcp:files');
  t.same(entry.annotations, { readOnlyHint: true });
  t.equal((entry.input_schema as { type: string }).type, 'object');

  const result = await manager.callTool('ada', 'files_echo', { text: 'hello' });
  t.same(result, {
    content: [{ type: 'text', text: 'files: hello' }],
    is_error: false,
    source: 'mcp:files',
    server: 'files',
  });
  const failed = await manager.callTool('ada', 'files_fail', {});
  t.equal(failed.is_error, true, 'a tool error stays a tool error');
  const unknown = await manager.callTool('ada', 'echo', { text: 'x' });
  t.equal(unknown.is_error, true, 'the unprefixed name is not served');
  t.equal(unknown.source, null);

  const [status] = manager.status();
  t.match(status, {
    server: 'files',
    seat: null,
    shared: true,
    transport: 'stdio',
    started: true,
    failed: false,
    tools_served: 4,
    restarts: 0,
    first_failure: null,
  });
  t.ok(status!.pid !== null && isAlive(status!.pid), 'the child runs');
  await manager.stop();
  t.notOk(isAlive(status!.pid!), 'stop ends the child by pid');
});

t.test(
  'a per-seat server runs once per agent seat with the seat env over the unit env over the entry env',
  async (t) => {
    const { manager } = startManager(t);
    await manager.apply({
      name: 'Acme',
      mcp_servers: [
        echoServer('gh', {
          shared: false,
          env: { ECHO_NAME: 'gh', TOKEN_A: 'entry-a', TOKEN_B: 'entry-b', TOKEN_C: 'entry-c' },
        }),
      ],
      roles: [
        { name: 'Root', mcp_env: { gh: { TOKEN_A: 'root-own' } } },
        { name: 'Placed', unit: 'eng' },
        { name: 'Human', kind: 'human', contact: { chat_user_id: 'U1' } },
      ],
      units: [
        {
          name: 'eng',
          type: 'department',
          mcp_env: { gh: { TOKEN_A: 'eng-a', TOKEN_B: 'eng-b' } },
          roles: [{ name: 'Dept Seat' }],
          children: [
            {
              name: 'platform',
              type: 'team',
              mcp_env: { gh: { TOKEN_B: 'platform-b' } },
              roles: [
                { name: 'Team Seat' },
                { name: 'Own Seat', mcp_env: { gh: { TOKEN_A: 'own-a' } } },
                { name: 'Team Human', kind: 'human', contact: { chat_user_id: 'U2' } },
              ],
            },
          ],
        },
      ],
    });
    const seats = manager
      .status()
      .map((s) => s.seat)
      .sort();
    t.same(
      seats,
      ['dept-seat', 'own-seat', 'placed', 'root', 'team-seat'],
      'one instance per agent seat, none for humans',
    );
    const env = async (seat: string, name: string) => text(await manager.callTool(seat, 'env', { name }));
    t.equal(await env('root', 'TOKEN_A'), 'root-own');
    t.equal(await env('root', 'TOKEN_B'), 'entry-b');
    t.equal(await env('dept-seat', 'TOKEN_A'), 'eng-a', 'unit env over entry env');
    t.equal(await env('placed', 'TOKEN_B'), 'eng-b', 'a root seat placed by `unit` inherits that unit');
    t.equal(await env('team-seat', 'TOKEN_A'), 'eng-a', 'inherited from the parent unit');
    t.equal(await env('team-seat', 'TOKEN_B'), 'platform-b', 'the nearer unit wins');
    t.equal(await env('own-seat', 'TOKEN_A'), 'own-a', 'the seat wins');
    t.equal(await env('team-seat', 'TOKEN_C'), 'entry-c');
    t.equal(
      (await manager.callTool('team-human', 'env', { name: 'TOKEN_A' })).is_error,
      true,
      'a human seat has no tools',
    );
    const pids = new Set(manager.status().map((s) => s.pid));
    t.equal(pids.size, 5, 'a process per seat');
  },
);

t.test('${VAR} references resolve through the resolver, the seat env first', async (t) => {
  const { manager } = startManager(t, {
    resolve: (name) => ({ STORE_TOKEN: 'from-store', ARG_VALUE: 'from-arg' })[name],
  });
  await manager.apply({
    name: 'Acme',
    mcp_servers: [echoServer('gh', { shared: false, env: { ECHO_NAME: 'gh', PLAIN: 'x-${ARG_VALUE}-y' } })],
    roles: [{ name: 'Ada', mcp_env: { gh: { SEAT_TOKEN: '${STORE_TOKEN}', MISSING: '${NOT_SET}' } } }],
  });
  t.equal(text(await manager.callTool('ada', 'env', { name: 'SEAT_TOKEN' })), 'from-store');
  t.equal(text(await manager.callTool('ada', 'env', { name: 'PLAIN' })), 'x-from-arg-y');
  t.equal(
    text(await manager.callTool('ada', 'env', { name: 'MISSING' })),
    '',
    'an unanswered reference is empty',
  );
  t.equal(text(await manager.callTool('ada', 'env', { name: 'HOME_SECRET_OF_NODE' })), '<unset>');
});

t.test('the node environment does not leak into a child beyond the basic variables', async (t) => {
  process.env['SVC_TEST_NODE_SECRET'] = 'node-only-value';
  t.teardown(() => delete process.env['SVC_TEST_NODE_SECRET']);
  const { manager } = startManager(t);
  await manager.apply({ name: 'Acme', mcp_servers: [echoServer('files')] });
  t.equal(text(await manager.callTool('x', 'env', { name: 'SVC_TEST_NODE_SECRET' })), '<unset>');
  t.not(text(await manager.callTool('x', 'env', { name: 'PATH' })), '<unset>');
});

t.test(
  "a call whose caller's signal fires is abandoned at once and the server gets notifications/cancelled",
  async (t) => {
    const { manager, logs } = startManager(t);
    await manager.apply({
      name: 'Acme',
      mcp_servers: [echoServer('files', { env: { ECHO_NAME: 'files', ECHO_HANG_TOOLS: 'stall' } })],
      roles: [{ name: 'Ada' }],
    });
    const stderr = (pattern: RegExp) => (l: { msg: string; [k: string]: unknown }) =>
      l.msg === 'tool server stderr' &&
      String(l['stderr'])
        .split('\n')
        .some((line) => pattern.test(line));

    const turn = new AbortController();
    const pending = manager.callTool('ada', 'stall', {}, turn.signal);
    const waits = await logs.waitFor(stderr(/^call \d+ waits$/));
    const id = String(waits['stderr'])
      .split('\n')
      .find((line) => / waits$/.test(line))!
      .split(' ')[1]!;
    turn.abort('scheduled_timeout: the deadline passed');
    const result = await pending;
    t.same(result, {
      content: [
        { type: 'text', text: 'tool stall on files was cancelled: scheduled_timeout: the deadline passed' },
      ],
      is_error: true,
      source: 'mcp:files',
      server: 'files',
    });
    await logs.waitFor(stderr(new RegExp(`^call ${id} cancelled: scheduled_timeout: the deadline passed$`)));
    t.ok(
      logs.lines.some((l) => l.msg === 'tool call cancelled' && l['tool'] === 'stall'),
      'the cancellation is logged',
    );

    // An aborted signal sends nothing; the server, not restarted, answers the next call.
    const refused = await manager.callTool('ada', 'stall', {}, turn.signal);
    t.match(refused, { is_error: true, content: [{ text: /was cancelled/ }] });
    const waitLines = logs.lines
      .filter(stderr(/ waits$/))
      .flatMap((l) => String(l['stderr']).split('\n'))
      .filter((line) => / waits$/.test(line));
    t.equal(waitLines.length, 1, 'no second call reached the server');
    t.equal(text(await manager.callTool('ada', 'echo', { text: 'still here' })), 'files: still here');
    t.match(manager.status(), [{ server: 'files', restarts: 0, started: true }]);
  },
);

t.test('a tool result over the 10 MiB stdio limit is reported as such, not as a clean exit', async (t) => {
  // 11 MiB made, piped and buffered by the SDK can pass the usual 15 s call deadline on a loaded machine.
  const { manager, logs } = startManager(t, {
    backoffBaseMs: 60_000,
    backoffCapMs: 60_000,
    callTimeoutMs: 120_000,
  });
  await manager.apply({
    name: 'Acme',
    mcp_servers: [echoServer('huge', { env: { ECHO_NAME: 'huge', ECHO_BIG_MB: '11' } })],
    roles: [{ name: 'Ada' }],
  });
  const result = await manager.callTool('ada', 'big', {});
  t.equal(result.is_error, true);
  t.match(text(result), /over the 10 MiB limit of a stdio message/);
  const failed = await logs.waitFor((l) => l.msg === 'tool server failed; restarting after backoff');
  t.match(failed['error'], /over the 10 MiB limit/);
  t.match(manager.status()[0], { state: 'backoff', last_failure: { error: /over the 10 MiB limit/ } });
});

t.test('a served tool whose full name is no function name is left out, with a warning', async (t) => {
  const { manager, logs } = startManager(t);
  await manager.apply({
    name: 'Acme',
    mcp_servers: [
      echoServer('files', {
        tool_prefix: 'f_',
        env: { ECHO_NAME: 'files', ECHO_EXTRA_TOOLS: `files.read all,${'n'.repeat(63)}` },
      }),
    ],
    roles: [{ name: 'Ada' }],
  });
  const names = manager.toolsFor('ada').map((tool) => tool.name);
  t.same(names.sort(), ['f_crash', 'f_echo', 'f_env', 'f_fail']);
  t.notOk(
    manager.catalogue().some((tool) => tool.name.includes(' ')),
    'nor in the catalogue',
  );
  const warned = await logs.waitFor((l) => l.msg === 'tools left out: names not usable as function names');
  t.same(warned['tools'], ['f_files.read all', `f_${'n'.repeat(63)}`]);
  t.match(manager.status()[0], { state: 'started', tools_served: 4 });
});

t.test('a tool list the MCP schema refuses is one clear line in last_failure', async (t) => {
  const { manager } = startManager(t, { backoffBaseMs: 60_000, backoffCapMs: 60_000 });
  await manager.apply({
    name: 'Acme',
    mcp_servers: [echoServer('bad', { env: { ECHO_NAME: 'bad', ECHO_BAD_TOOLS: '1' } })],
  });
  const error = manager.status()[0]!.last_failure!.error;
  t.notMatch(error, '\n', 'one line');
  t.match(
    error,
    /^the tool server's answer does not match the MCP schema: tools\[\d+\]\.\S+: .+ \(and \d+ more\)$/,
  );
});
