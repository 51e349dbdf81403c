import { Writable } from 'node:stream';
import t from 'tap';
import { createLogger, logSettings, LogSettingsError } from '../../scripts/logger.js';
import { duplicateKeys } from './fixtures/duplicate-keys.js';

/** A sink that keeps what pino writes; `isTTY` as a terminal would say. */
function sink(tty = false): { stream: Writable & { isTTY?: boolean }; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  }) as Writable & { isTTY?: boolean };
  if (tty) stream.isTTY = true;
  return { stream, text: () => text };
}

t.test(
  'the log format is pretty at a terminal, JSON elsewhere, and SVC_LOG_FORMAT overrides both',
  async (t) => {
    t.same(logSettings({}, false, true), { format: 'pretty', level: 'info' });
    t.same(logSettings({}, false, false), { format: 'json', level: 'info' });
    t.same(logSettings({ SVC_LOG_FORMAT: 'json' }, false, true).format, 'json');
    t.same(logSettings({ SVC_LOG_FORMAT: 'Pretty' }, false, false).format, 'pretty');
    t.throws(() => logSettings({ SVC_LOG_FORMAT: 'xml' }, false, false), LogSettingsError);
  },
);

t.test('SVC_LOG_LEVEL overrides debug', async (t) => {
  t.equal(logSettings({}, true, false).level, 'debug');
  t.equal(logSettings({ SVC_LOG_LEVEL: 'warn' }, true, false).level, 'warn');
  t.equal(logSettings({ SVC_LOG_LEVEL: 'trace' }, false, false).level, 'trace');
  t.throws(() => logSettings({ SVC_LOG_LEVEL: 'loud' }, false, false), /SVC_LOG_LEVEL must be one of/);
});

t.test('a terminal gets readable lines with ISO times; a pipe gets JSON', async (t) => {
  const at = sink(true);
  const logger = createLogger({ debug: false, node: 'n1', destination: at.stream, env: {} });
  logger.child({ component: 'toolservers' }).info({ server: 'handbook', pid: 42 }, 'tool server started');
  logger.flush();
  const line = at.text();
  t.match(
    line,
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO  \[toolservers\] tool server started {2}server=handbook {2}pid=42\n$/,
  );
  t.throws(() => JSON.parse(line) as unknown, 'not JSON');

  const piped = sink(false);
  createLogger({ debug: false, node: 'n1', destination: piped.stream, env: {} }).info({ a: 1 }, 'hello');
  t.match(JSON.parse(piped.text()), { level: 30, node: 'n1', a: 1, msg: 'hello' });
});

t.test('text spanning lines and errors are indented under the readable line', async (t) => {
  const at = sink();
  const logger = createLogger({
    debug: false,
    node: 'n1',
    destination: at.stream,
    env: { SVC_LOG_FORMAT: 'pretty' },
  });
  logger.warn({ stderr: 'first\nsecond', lines: 2 }, 'tool server stderr');
  logger.error({ err: new Error('boom') }, 'failed');
  const text = at.text();
  t.match(text, /WARN  tool server stderr {2}stderr: {2}lines=2\n {4}first\n {4}second\n/);
  t.match(text, /ERROR failed {2}err=boom\n {4}Error: boom\n +at /);
});

t.test('the level chosen is the level applied', async (t) => {
  const at = sink();
  const logger = createLogger({
    debug: true,
    node: 'n1',
    destination: at.stream,
    env: { SVC_LOG_LEVEL: 'warn' },
  });
  logger.debug('quiet');
  logger.info('quiet too');
  logger.warn('loud');
  t.same(
    at
      .text()
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { msg: string }).msg),
    ['loud'],
  );
});

t.test('a child re-binding a key carries it once, with the child value', async (t) => {
  const at = sink();
  const logger = createLogger({ debug: false, node: 'n1', destination: at.stream, env: {} });
  const readModels = logger.child({ component: 'readmodels' });
  const projection = readModels.child({ component: 'projection.readmodels.events', projection: 'events' });
  projection.child({ component: 'projection.x' }).info('deep');
  projection.info('replayed');
  readModels.info('parent unchanged');
  const lines = at.text().trim().split('\n');
  t.same(lines.map(duplicateKeys), [[], [], []], 'no record repeats a key');
  t.same(
    lines.map((l) => (JSON.parse(l) as { component: string }).component),
    ['projection.x', 'projection.readmodels.events', 'readmodels'],
  );
  t.match(JSON.parse(lines[1]!), { node: 'n1', projection: 'events' });
});

t.test('a call naming a key a binding holds writes it once, with the call value', async (t) => {
  const at = sink();
  const logger = createLogger({ debug: false, node: 'n1', destination: at.stream, env: {} });
  logger.child({ component: 'presence' }).info({ node: 'n2', component: 'x' }, 'presence written');
  const line = at.text().trim();
  t.same(duplicateKeys(line), []);
  t.match(JSON.parse(line), { node: 'n2', component: 'x', msg: 'presence written' });
});

t.test('the duplicate-key check finds a repeated key (it can fail)', async (t) => {
  t.same(duplicateKeys('{"a":1,"b":{"a":2},"c":"x\\",\\"a\\":"}'), []);
  t.same(duplicateKeys('{"component":"a","x":[{"component":1}],"component":"b"}'), ['component']);
});

t.test('a line repeating no key is written as built; a key bound later is still written once', async (t) => {
  const at = sink();
  const logger = createLogger({ debug: false, node: 'n1', destination: at.stream, env: {} });
  const request = logger.child({ route: '/webhooks/x', operator: 'ops' });
  request.info({ status: 200, nested: { route: 'inner' } }, 'request');
  logger.child({ seat_handle: 'ada' }).info({ seat_handle: 'bob' }, 'woken');
  const [plain, repeated] = at.text().trim().split('\n');
  t.ok(plain!.indexOf('"level":30') < plain!.indexOf('"route":"/webhooks/x"'), 'pino’s own order kept');
  t.same(duplicateKeys(plain!), []);
  t.same(duplicateKeys(repeated!), []);
  t.match(JSON.parse(repeated!), { seat_handle: 'bob', msg: 'woken' });
});

t.test('a credential in a logged object is redacted whatever the case of its header name', async (t) => {
  const piped = sink(false);
  const logger = createLogger({ debug: false, node: 'n1', destination: piped.stream, env: {} });
  logger.warn(
    {
      headers: { Authorization: 'Bearer SECRET-1', Cookie: 'sid=SECRET-2', cookie: 'sid=SECRET-3' },
      request: { Authorization: 'Bearer SECRET-4', authorization: 'Bearer SECRET-5' },
      Authorization: 'Bearer SECRET-6',
    },
    'upstream refused',
  );
  logger.flush();
  t.notMatch(piped.text(), /SECRET/);
  t.match(JSON.parse(piped.text()), { headers: { Authorization: '[redacted]' }, msg: 'upstream refused' });
});

t.test(
  'plain fields are written as their JSON while credentials in objects beside them stay redacted',
  async (t) => {
    const piped = sink(false);
    const logger = createLogger({ debug: false, node: 'n1', destination: piped.stream, env: {} });
    const fields = {
      s: 'a "quoted"\\ line\nbreak \ud800',
      n: -0,
      f: 1.5,
      big: 1e21,
      nan: NaN,
      yes: true,
      none: null,
    };
    logger
      .child({ route: '/x', token: 'SECRET-0' })
      .info(
        { ...fields, nested: { token: 'SECRET-1', keep: 'k' }, list: [{ token: 'kept-in-arrays' }] },
        'msg \ud800',
      );
    logger.flush();
    const line = piped.text();
    t.notMatch(line, /SECRET/);
    // Each field exactly as JSON.stringify writes it (a lone surrogate escaped, -0 as 0, NaN as null).
    for (const [key, value] of Object.entries(fields))
      t.ok(line.includes(`,"${key}":${JSON.stringify(Number.isNaN(value) ? null : value)}`), key);
    t.ok(line.includes('"msg":"msg \\ud800"'));
    t.match(JSON.parse(line), {
      route: '/x',
      token: '[redacted]',
      nested: { token: '[redacted]', keep: 'k' },
    });
  },
);

t.test('a credential in a URL query is masked wherever a line carries it, a reference kept', async (t) => {
  for (const tty of [false, true]) {
    const at = sink(tty);
    const logger = createLogger({ debug: false, node: 'n1', destination: at.stream, env: {} });
    logger.warn(
      {
        url: 'https://git.example/api/v4/groups?private_token=glpat-c4n4ry1&per_page=100',
        err: new Error('GET https://wiki.example/rest?ACCESS_TOKEN=c4n4ry2 answered 401'),
        blob: 'https://blob.example/f?sv=2024&sig=c4n4ry3',
      },
      'call to https://mcp.example/mcp?api_key=c4n4ry4 failed',
    );
    logger.info({ link: 'https://h.example/?token=${MCP_TOKEN}&page=2' }, 'kept');
    const text = at.text();
    t.notMatch(text, /c4n4ry/, `no query credential reaches the ${tty ? 'terminal' : 'pipe'}`);
    t.match(text, /groups\?private_token=\*\*\*&per_page=100/, 'the URL stays readable');
    t.match(text, /api_key=\*\*\* failed/, 'the message is masked too');
    t.match(text, /token=\$\{MCP_TOKEN\}&page=2/, 'a reference and other parameters stay');
  }
});

t.test('a URL login is masked wherever a line carries it, fetch’s own error message included', async (t) => {
  for (const tty of [false, true]) {
    const at = sink(tty);
    const logger = createLogger({ debug: false, node: 'n1', destination: at.stream, env: {} });
    const refused = await fetch('https://bot:s3cret-pw@tracker.example/rest').catch(
      (error: unknown) => error,
    );
    logger.warn(
      { err: refused, url: 'https://tok3n@wiki.example/x', mail: 'ops@example.com' },
      'call failed',
    );
    logger.info({ link: 'https://example.com/people/@ada?next=https://a.example/b' }, 'kept');
    const text = at.text();
    t.notMatch(text, /s3cret-pw|tok3n/, `no login reaches the ${tty ? 'terminal' : 'pipe'}`);
    t.match(text, /https:\/\/\*\*\*@tracker\.example/, 'the URL stays readable, its login masked');
    t.match(text, /ops@example\.com/, 'an address that is no URL login is kept');
    t.match(text, /people\/@ada\?next=https:\/\/a\.example\/b/, 'an @ past the host is no login');
  }
});
