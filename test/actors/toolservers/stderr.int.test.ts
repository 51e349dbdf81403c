import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import t from 'tap';
import { StderrBursts } from '../../../actors/toolservers/toolservers.stderr.js';
import { echoServerPath } from '../../fixtures/mcp/servers.js';
import { captureLogs, startManager, tempDir } from './harness.js';

const secret = 'sekret-value-0123456789';

t.test('a crashing server’s stderr is one record per burst, then its exit code and cause', async (t) => {
  const dir = tempDir(t);
  const { manager, logs } = startManager(t, { backoffBaseMs: 60_000, backoffCapMs: 60_000 });
  await manager.apply({
    name: 'Acme',
    mcp_servers: [
      {
        name: 'flaky',
        command: process.execPath,
        args: [echoServerPath],
        env: { ECHO_SECRET: secret, ECHO_CRASH_FILE: join(dir, 'crashes'), ECHO_CRASH_TIMES: '1' },
      },
    ],
  });
  const failed = await logs.waitFor((l) => l.msg === 'tool server failed; restarting after backoff');
  t.match(failed, {
    server: 'flaky',
    exit_code: 3,
    signal: null,
    error: 'the tool server exited with code 3',
    cause: 'crashing on start 1 [redacted]',
  });
  const bursts = logs.lines.filter((l) => l.msg === 'tool server stderr');
  t.equal(bursts.length, 1, 'the two lines it wrote together are one record');
  t.match(bursts[0], {
    server: 'flaky',
    lines: 2,
    stderr: 'starting with secret [redacted]\ncrashing on start 1 [redacted]',
  });
  t.ok(
    logs.lines.indexOf(bursts[0]!) < logs.lines.indexOf(failed),
    'what it wrote is logged before its exit',
  );
  t.match(manager.status()[0], { last_failure: { error: 'the tool server exited with code 3' } });
  t.notMatch(logs.raw(), secret);
});

t.test('a server killed by a signal is logged with the signal', async (t) => {
  const { manager, logs } = startManager(t, { backoffBaseMs: 60_000, backoffCapMs: 60_000 });
  await manager.apply({
    name: 'Acme',
    mcp_servers: [{ name: 'echo', command: process.execPath, args: [echoServerPath] }],
  });
  const pid = manager.status()[0]!.pid;
  t.type(pid, 'number');
  process.kill(pid!, 'SIGKILL');
  const failed = await logs.waitFor((l) => l.msg === 'tool server failed; restarting after backoff');
  t.match(failed, {
    server: 'echo',
    exit_code: null,
    signal: 'SIGKILL',
    error: 'the tool server was killed by SIGKILL',
  });
});

t.test('a burst ends on a quiet spell, at its line bound, and when the stream ends', async (t) => {
  const logs = captureLogs();
  const bursts = new StderrBursts(logs.logger.child({ server: 's' }), (text) => text.replace('pw', '***'), {
    quietMs: 20,
    maxLines: 3,
    maxLineChars: 10,
  });
  const stream = new PassThrough();
  bursts.follow(stream);
  stream.write('a\nb\n');
  const first = await logs.waitFor((l) => l.msg === 'tool server stderr');
  t.match(first, { server: 's', stderr: 'a\nb', lines: 2 }, 'quiet after two lines: one record');
  stream.write('1\n2\n3\n4 pw and a long tail\n');
  const bound = await logs.waitForNth((l) => l.msg === 'tool server stderr', 2);
  t.match(bound, { stderr: '1\n2\n3', lines: 3 }, 'the bound closes a burst at once');
  stream.end();
  const last = await logs.waitForNth((l) => l.msg === 'tool server stderr', 3);
  t.match(last, { stderr: '4 *** and ', lines: 1 }, 'scrubbed, cut, and flushed when the stream ends');
  t.equal(bursts.lastLine(), '4 *** and');
});

t.test('megabytes of stderr without a newline are cut, and the node keeps serving', async (t) => {
  const { manager, logs } = startManager(t);
  // More than V8's longest string (~512 Mi characters): assembling it as one line would crash the node.
  await manager.apply({
    name: 'Acme',
    mcp_servers: [
      {
        name: 'noisy',
        command: process.execPath,
        args: [echoServerPath],
        env: { ECHO_NAME: 'noisy', ECHO_STDERR_FLOOD_MB: '600' },
      },
    ],
    roles: [{ name: 'Ada' }],
  });
  await logs.waitFor(
    (l) => l.msg === 'tool server stderr' && String(l['stderr']).includes('flood done'),
    120_000,
  );
  const records = logs.lines.filter((l) => l.msg === 'tool server stderr');
  for (const record of records) {
    for (const line of String(record['stderr']).split('\n')) t.ok(line.length <= 2_000, 'a line is cut');
  }
  t.ok(
    records.some((l) => String(l['stderr']).startsWith('x'.repeat(2_000))),
    'the over-long line is logged cut',
  );
  const answer = await manager.callTool('ada', 'echo', { text: 'still here' });
  t.match(answer, { is_error: false, content: [{ text: 'noisy: still here' }] });
  t.match(manager.status()[0], { state: 'started', restarts: 0 });
});

t.test('a burst holds at most its bound, whatever the chunks', async (t) => {
  const logs = captureLogs();
  const bursts = new StderrBursts(logs.logger, (text) => text, { quietMs: 20, maxLines: 5, maxLineChars: 8 });
  const stream = new PassThrough();
  bursts.follow(stream);
  stream.write('abc');
  stream.write('defghijkl');
  stream.write('mnop\nshort\r\nlast');
  stream.end();
  const record = await logs.waitFor((l) => l.msg === 'tool server stderr');
  t.match(record, { stderr: 'abcdefgh\nshort\nlast', lines: 3 });
});

t.test('a multi-line or JSON-escaped secret is scrubbed from the stderr record and the cause', async (t) => {
  const dir = tempDir(t);
  const { manager, logs } = startManager(t, { backoffBaseMs: 60_000, backoffCapMs: 60_000 });
  const pem = [
    '-----BEGIN PRIVATE KEY-----',
    'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC',
    '-----END PRIVATE KEY-----',
  ].join('\n');
  const quoted = 'Pa"ss\\word';
  await manager.apply({
    name: 'Acme',
    mcp_servers: [
      {
        name: 'leaky',
        command: process.execPath,
        args: [echoServerPath],
        env: {
          KEY_PEM: pem,
          DB_PASSWORD: quoted,
          ECHO_PRINT_ENV: 'KEY_PEM,DB_PASSWORD',
          ECHO_CRASH_FILE: join(dir, 'crashes'),
          ECHO_CRASH_TIMES: '1',
          ECHO_CRASH_JSON: 'DB_PASSWORD',
        },
      },
    ],
  });
  const failed = await logs.waitFor((l) => l.msg === 'tool server failed; restarting after backoff');
  t.equal(failed['cause'], 'crashing on start 1  "[redacted]"', 'the JSON-escaped form is scrubbed');
  const stderr = logs.lines
    .filter((l) => l.msg === 'tool server stderr')
    .map((l) => String(l['stderr']))
    .join('\n');
  t.match(stderr, 'KEY_PEM is\n[redacted]\n');
  t.match(stderr, 'KEY_PEM as JSON "[redacted]"');
  const raw = logs.raw();
  for (const part of [
    'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC',
    'BEGIN PRIVATE KEY',
    'Pa\\"ss',
    'ss\\\\word',
    'Pa"ss',
  ])
    t.notOk(raw.includes(part), `${part} is not logged`);
});
