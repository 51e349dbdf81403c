import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { backoffDelay } from '../../../actors/index.js';
import { echoServerPath, startRemote } from '../../fixtures/mcp/servers.js';
import { startManager, tempDir } from './harness.js';

const secret = 'sekret-value-0123456789';
const seatSecret = 'seat-token-abcdef';

t.test('backoff doubles from the base and stops growing at the cap', async (t) => {
  t.same(
    [1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, 1000, 10_000)),
    [1000, 2000, 4000, 8000, 10_000, 10_000],
  );
  t.equal(backoffDelay(500, 1000, 60_000), 60_000, 'no overflow on long outages');
});

t.test('a server crashing on start is restarted with growing, capped delays and reported', async (t) => {
  const dir = tempDir(t);
  const startsFile = join(dir, 'starts');
  const { manager, logs } = startManager(t, { backoffBaseMs: 100, backoffCapMs: 400 });
  await manager.apply({
    name: 'Acme',
    mcp_servers: [
      {
        name: 'flaky',
        command: process.execPath,
        args: [echoServerPath],
        env: {
          ECHO_SECRET: secret,
          ECHO_CRASH_FILE: join(dir, 'crashes'),
          ECHO_CRASH_TIMES: '4',
          ECHO_STARTS_FILE: startsFile,
        },
      },
    ],
  });
  const down = manager.status()[0]!;
  t.match(down, { server: 'flaky', state: 'backoff', started: false, failed: true, tools_served: 0 });
  t.ok(down.first_failure, 'the first failure is kept');
  t.type(down.next_restart_at, 'string');

  await logs.waitFor((l) => l.msg === 'tool server started' && l['server'] === 'flaky');
  const up = manager.status()[0]!;
  t.match(up, { state: 'started', started: true, failed: false, restarts: 4, tools_served: 4 });
  t.same(up.first_failure, down.first_failure, 'the first failure stays the first');
  t.ok(up.last_failure!.at >= up.first_failure!.at);

  const starts = readFileSync(startsFile, 'utf8')
    .trim()
    .split('\n')
    .map((line) => Number(line.split(' ')[1]));
  t.equal(starts.length, 5, 'four failed starts, then one that serves');
  const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
  const delays = [100, 200, 400, 400];
  gaps.forEach((gap, i) =>
    t.ok(gap >= delays[i]!, `restart ${i + 1} waited at least ${delays[i]} ms (${gap})`),
  );
  const chosen = logs.lines
    .filter((l) => l.msg === 'tool server failed; restarting after backoff')
    .map((l) => l['restart_in_ms']);
  t.same(chosen, delays);

  await t.test('a crash while serving is restarted and counted', async (t) => {
    const result = await manager.callTool('anyone', 'crash', {});
    t.equal(result.is_error, true, 'the call in flight fails');
    t.equal(result.source, 'mcp:flaky');
    await logs.waitForNth((l) => l.msg === 'tool server started' && l['server'] === 'flaky', 2);
    const again = manager.status()[0]!;
    t.match(again, { started: true, restarts: 5 });
    t.same(again.first_failure, down.first_failure);
    t.equal((await manager.callTool('anyone', 'echo', { text: 'back' })).content[0]!.text, 'echo: back');
  });

  await t.test('stderr is logged without the env values; neither logs nor status show them', async (t) => {
    // A record holds a burst of lines.
    const stderr = logs.lines
      .filter((l) => l.msg === 'tool server stderr')
      .flatMap((l) => String(l['stderr']).split('\n'));
    t.ok(
      stderr.some((line) => line === 'starting with secret [redacted]'),
      'stderr lines are logged, scrubbed',
    );
    t.notMatch(logs.raw(), secret);
    t.notMatch(JSON.stringify(manager.status()), secret);
  });

  await t.test('a stopped manager restarts nothing', async (t) => {
    const pid = manager.status()[0]!.pid!;
    await manager.stop();
    t.throws(() => process.kill(pid, 0), 'the child is gone');
    t.same(manager.status(), []);
  });
});

t.test('a call to a tool whose server waits to restart says when it restarts', async (t) => {
  const { manager, logs } = startManager(t, { backoffBaseMs: 60_000, backoffCapMs: 60_000 });
  await manager.apply({
    name: 'Acme',
    mcp_servers: [{ name: 'flaky', command: process.execPath, args: [echoServerPath] }],
  });
  t.equal((await manager.callTool('ada', 'crash', {})).is_error, true, 'the call in flight fails');
  await logs.waitFor((l) => l.msg === 'tool server failed; restarting after backoff');
  const waiting = await manager.callTool('ada', 'echo', { text: 'hello' });
  t.equal(waiting.is_error, true);
  t.equal(waiting.source, 'mcp:flaky');
  t.match(
    waiting.content[0]!.text,
    /^tool server flaky is not running \(restarts at \d{4}-\d\d-\d\dT[^,]+Z, in \d+ ms\)/,
  );
  const unknown = await manager.callTool('ada', 'never-served', {});
  t.match(unknown.content[0]!.text, /^no tool named never-served/, 'a name it never served is still unknown');
});

t.test('a command that cannot be spawned is a failure with backoff, not a crash of the node', async (t) => {
  const { manager } = startManager(t, { backoffBaseMs: 5_000, backoffCapMs: 5_000 });
  await manager.apply({
    name: 'Acme',
    mcp_servers: [{ name: 'ghost', command: '/nonexistent/tool-server' }],
  });
  const status = manager.status()[0]!;
  t.match(status, { state: 'backoff', failed: true, restarts: 0 });
  t.match(status.first_failure!.error, /ENOENT/);
  const call = await manager.callTool('ada', 'anything', {});
  t.equal(call.is_error, true);
});

t.test('a url resolving to no URL is a failure with backoff, not a failed apply', async (t) => {
  const { manager, logs } = startManager(t, {
    resolve: () => undefined,
    backoffBaseMs: 50,
    backoffCapMs: 50,
  });
  const outcome = await manager.apply({
    name: 'Acme',
    mcp_servers: [{ name: 'remote', url: '${REMOTE_MCP_URL}' }],
  });
  t.same(outcome.started, ['remote']);
  t.match(manager.status()[0], {
    state: 'backoff',
    failed: true,
    last_failure: { error: 'url is not a valid URL once its ${VAR} references are resolved' },
  });
  await logs.waitForNth((l) => l.msg === 'tool server failed; restarting after backoff', 2);
  t.ok(manager.status()[0]!.restarts >= 1, 'it is retried');
});

t.test('a url whose host variable is unset is judged no URL, not looked up as its path', async (t) => {
  // `http://${MCP_HOST}/mcp` resolves to `http:///mcp`, which new URL reads as host `mcp`.
  const { manager } = startManager(t, {
    resolve: () => undefined,
    backoffBaseMs: 60_000,
    backoffCapMs: 60_000,
  });
  await manager.apply({ name: 'Acme', mcp_servers: [{ name: 'remote', url: 'http://${MCP_HOST}/mcp' }] });
  t.match(manager.status()[0], {
    state: 'backoff',
    last_failure: { error: 'url is not a valid URL once its ${VAR} references are resolved' },
  });
});

t.test(
  'a header resolving to a bad value is named in the failure, not read as a closed connection',
  async (t) => {
    const remote = await startRemote(t, { name: 'wiki' });
    const { manager, logs } = startManager(t, {
      resolve: (name) => (name === 'WIKI_TOKEN' ? 'one\r\nInjected: two' : undefined),
      backoffBaseMs: 60_000,
      backoffCapMs: 60_000,
    });
    await manager.apply({
      name: 'Acme',
      mcp_servers: [{ name: 'wiki', url: remote.url, headers: { 'X-Token': '${WIKI_TOKEN}' } }],
    });
    t.match(manager.status()[0], {
      state: 'backoff',
      last_failure: {
        error: 'header "X-Token" is not a valid HTTP header once its ${VAR} references are resolved',
      },
    });
    t.notMatch(logs.raw(), 'Injected');
  },
);

t.test(
  'a remote server over streamable HTTP: headers with the seat env, prefix, reconnect after an outage',
  async (t) => {
    const remote = await startRemote(t, { name: 'wiki' });
    const { manager, logs } = startManager(t, {
      resolve: (name) => (name === 'STATIC_KEY' ? secret : undefined),
      backoffBaseMs: 100,
      backoffCapMs: 200,
    });
    await manager.apply({
      name: 'Acme',
      mcp_servers: [
        {
          name: 'wiki',
          url: remote.url,
          shared: false,
          tool_prefix: 'wiki_',
          headers: { Authorization: 'Bearer ${WIKI_TOKEN}', 'X-Static-Key': '${STATIC_KEY}' },
        },
      ],
      roles: [{ name: 'Ada', mcp_env: { wiki: { WIKI_TOKEN: seatSecret } } }, { name: 'Bob' }],
    });
    const ada = manager.status().find((s) => s.seat === 'ada')!;
    t.match(ada, { transport: 'http', started: true, pid: null, tools_served: 3 });
    t.same(ada.tools.sort(), ['wiki_echo', 'wiki_env', 'wiki_fail']);
    const header = async (seat: string, name: string) =>
      (await manager.callTool(seat, 'wiki_env', { name })).content[0]!.text;
    t.equal(await header('ada', 'authorization'), `Bearer ${seatSecret}`);
    // HTTP trims the trailing space an empty reference leaves.
    t.equal(
      await header('bob', 'authorization'),
      'Bearer',
      'a seat without the value sends an empty reference',
    );
    t.equal(await header('ada', 'x-static-key'), secret);
    t.equal((await manager.callTool('ada', 'wiki_echo', { text: 'hi' })).content[0]!.text, 'wiki: hi');

    await remote.stop();
    await logs.waitFor(
      (l) => l.msg === 'tool server failed; restarting after backoff' && l['seat'] === 'bob',
    );
    t.match(
      manager.status().find((s) => s.seat === 'bob'),
      { failed: true },
      'an outage shows without a call (health ping)',
    );
    const failed = await manager.callTool('ada', 'wiki_echo', { text: 'hi' });
    t.equal(failed.is_error, true, 'a call to a vanished remote fails cleanly');
    const down = manager.status().find((s) => s.seat === 'ada')!;
    // Between its backoffs (100–200 ms here) a restart attempt reads `starting`: a loaded machine can read
    // the status during one. Either way it is down and says since when.
    t.match(down, { state: /^(backoff|starting)$/, started: false });
    t.ok(down.first_failure);

    await startRemote(t, { port: remote.port, name: 'wiki' });
    await logs.waitFor(
      (l) => l.msg === 'tool server started' && l['seat'] === 'ada' && Number(l['restarts']) > 0,
    );
    t.equal((await manager.callTool('ada', 'wiki_echo', { text: 'again' })).content[0]!.text, 'wiki: again');
    t.notMatch(logs.raw(), seatSecret);
    t.notMatch(logs.raw(), secret);
    t.notMatch(JSON.stringify(manager.status()), seatSecret);
  },
);

t.test(
  'stopping during a start that hangs ends the child at once instead of waiting out the start',
  async (t) => {
    // A start bound far beyond any slow machine's delays: only waiting it out could come near it.
    const { manager, logs } = startManager(t, { startTimeoutMs: 600_000 });
    const hung = `process.stderr.write('spawned\\n'); setInterval(() => {}, 1000);`;
    const started = Date.now();
    const applying = manager.apply({
      name: 'Acme',
      mcp_servers: [{ name: 'hung', command: process.execPath, args: ['-e', hung] }],
    });
    await logs.waitFor(
      (l) => l.msg === 'tool server stderr' && String(l['stderr']).split('\n').includes('spawned'),
    );
    const status = manager.status()[0]!;
    t.match(status, { state: 'starting', started: false });
    t.type(status.pid, 'number');
    await manager.stop();
    await applying;
    t.throws(() => process.kill(status.pid!, 0), 'the child is gone');
    t.ok(Date.now() - started < 300_000, 'the 600 s start timeout was not waited out');
    t.same(manager.status(), []);
  },
);
