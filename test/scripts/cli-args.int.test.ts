/**
 * Client commands refuse what they can tell is wrong before any request: a `--config` file that cannot say
 * where the node is (missing, refused, binding no API port) is a usage error naming the file, never a
 * silent fall back to the default address; an empty patch file is no patch; a flag outside the range or set
 * of the query parameter it sends (spec Limits) is a usage error naming it, and one inside reaches the node.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runSvc } from '../harness/child.js';
import { svc } from '../harness/svc-main.js';

t.test('a --config file that cannot name the node is refused before any request', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-args-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const missing = join(dir, 'missing.yaml');
  const broken = join(dir, 'broken.yaml');
  writeFileSync(broken, 'api: [not: a map\n');
  const closed = join(dir, 'closed.yaml');
  writeFileSync(closed, 'api: {port: 0}\n');
  for (const [file, reason] of [
    [missing, /cannot read .*missing\.yaml \(ENOENT\)/],
    [broken, /broken\.yaml/],
  ] as const) {
    for (const args of [
      ['config', 'revisions'],
      ['secrets', 'list'],
    ]) {
      const run = await svc([...args, '--config', file]);
      t.equal(run.code, 2, `${args.join(' ')}: a usage error`);
      t.match(run.err, /the node's address cannot be read from/);
      t.match(run.err, reason);
      t.notMatch(run.err, /127\.0\.0\.1:8080/, 'no default address tried');
    }
  }
  const fromEnv = await svc(['config', 'revisions'], { SVC_CONFIG: missing });
  t.equal(fromEnv.code, 2, 'SVC_CONFIG names the file too');
  const none = await svc(['config', 'revisions', '--config', closed]);
  t.equal(none.code, 2);
  t.match(none.err, /binds no API listener \(api\.port: 0\): pass --url/);
});

t.test('an empty patch file is refused before anything is sent', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-args-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const empty = join(dir, 'empty.yaml');
  writeFileSync(empty, '\n  \n');
  // Port 1: were anything sent, the answer would be "cannot reach", exit 1.
  const run = await svc(['config', 'patch', empty, '--summary', 'e', '--url', 'http://127.0.0.1:1']);
  t.equal(run.code, 2);
  t.match(run.err, /empty\.yaml is empty: a patch names what it changes/);
});

t.test('events flags the command can judge alone are refused in their own names', async (t) => {
  const url = ['--url', 'http://127.0.0.1:1'];
  const cases: Array<[string[], RegExp]> = [
    [['events', 'tail', '--category', 'nonsense'], /--category must be one of .*webhook/],
    [['events', 'list', '--category', 'nonsense'], /--category must be one of/],
    [['events', 'list', '--limit', '0'], /--limit must be a whole number from 1/],
    [['events', 'list', '--limit', 'abc'], /--limit must be a whole number/],
    [
      ['events', 'list', '--before-time', '2026-01-01T00:00:00Z'],
      /--before-time and --before-id go together/,
    ],
  ];
  for (const [args, message] of cases) {
    const run = await svc([...args, ...url]);
    t.equal(run.code, 2, args.join(' '));
    t.match(run.err, message);
  }
});

t.test('config verbs that take no argument refuse one, and paging flags are numbers', async (t) => {
  const url = ['--url', 'http://127.0.0.1:1'];
  for (const args of [
    ['config', 'reload', 'extra'],
    ['config', 'revisions', 'extra'],
    ['config', 'get', 'x'],
  ]) {
    const run = await svc([...args, ...url]);
    t.equal(run.code, 2, args.join(' '));
    t.match(run.err, /unexpected arguments: /);
  }
  const limit = await svc(['config', 'revisions', '--limit', 'abc', ...url]);
  t.equal(limit.code, 2);
  t.match(limit.err, /--limit must be a whole number/);
});

t.test('a flag outside its range or set exits 2 naming it; inside, it reaches the node', async (t) => {
  // A node that refuses everything it is asked and records what: a request sent exits 1, not 2.
  const asked: string[] = [];
  const node = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'bad_params', detail: 'refused by the stub node' }));
  });
  node.listen(0, '127.0.0.1');
  await once(node, 'listening');
  t.teardown(() => node.close());
  const url = ['--url', `http://127.0.0.1:${(node.address() as AddressInfo).port}`];
  const revision = '0189c3a2-7b1e-7c44-9d2a-3f0e5b6a7c8d';
  const statuses = 'backlog, todo, in_progress, in_review, done, cancelled';
  const whole = (flag: string, min: number, max: number) =>
    `${flag} must be a whole number from ${min} to ${max}`;
  // [the invocation, its value as ?; values refused; what the refusal names; a value sent, and as asked]
  const flags: Array<[string[], string[], string, string, string]> = [
    [['work', 'list', '--limit=?'], ['0', '201', '1e2', ''], whole('--limit', 1, 200), '200', 'GET /work?limit=200'],
    [['work', 'inbox', '--limit=?'], ['0', '51'], whole('--limit', 1, 50), '50', 'GET /work/inbox?limit=50'],
    [['work', 'list', '--status=?'], ['bogus', 'Done'], `--status must be one of ${statuses}`, 'todo', 'GET /work?status=todo'],
    [['work', 'create', '--project', 'ENG', '--title', 'T', '--status=?'], ['Done'], `--status must be one of ${statuses}`, 'done', 'POST /work'],
    [['work', 'create', '--project', 'ENG', '--title', 'T', '--priority=?'], ['p1', 'High'], '--priority must be one of urgent, high, medium, low, none', 'high', 'POST /work'],
    [['work', 'move', 'ENG-1', '?'], ['in-progress'], `STATUS must be one of ${statuses}`, 'in_progress', 'POST /work/ENG-1/move'],
    [['pages', 'list', '--limit=?'], ['0', '201'], whole('--limit', 1, 200), '200', 'GET /pages?limit=200'],
    [['pages', 'search', 'word', '--limit=?'], ['201'], whole('--limit', 1, 200), '1', 'GET /pages?q=word&limit=1'],
    [['config', 'revisions', '--limit=?'], ['0', '501', '-1'], whole('--limit', 1, 500), '500', 'GET /config/revisions?limit=500'],
    [['config', 'revisions', '--offset=?'], ['x', '9007199254740992'], whole('--offset', 0, 9007199254740991), '0', 'GET /config/revisions?offset=0'],
    [['config', 'get', '--format=?'], ['xml', 'JSON'], '--format must be one of json, yaml', 'yaml', 'GET /config?format=yaml'],
    [['config', 'diff', revision, '--format=?'], ['html'], '--format must be one of text, yaml, json', 'json', `GET /config/revisions/${revision}/diff?against=active`],
    [['events', 'list', '--limit=?'], ['0', '401'], whole('--limit', 1, 400), '400', 'GET /events?limit=400'],
    [['events', 'list', '--category=?'], ['nonsense', 'Task'], '--category must be one of a2a, decision,', 'task', 'GET /events?category=task'],
    [['agents', 'activity', '--days=?'], ['0', '31'], whole('--days', 1, 30), '30', 'GET /agents/activity?days=30'],
  ]; // prettier-ignore
  for (const [args, refused, said, sent, request] of flags) {
    // `--flag=value`: a value that starts with a dash is the flag's, not another flag.
    const withValue = (value: string) => args.map((arg) => arg.replace('?', value));
    for (const value of refused) {
      const invocation = withValue(value).join(' ');
      const run = await svc([...withValue(value), ...url]);
      t.equal(run.code, 2, `${invocation}: a usage error`);
      t.ok(run.err.includes(`${said}`), `${invocation}: names what it takes`);
      t.ok(run.err.includes(`(got ${JSON.stringify(value)})`), `${invocation}: and what it got`);
      t.same(asked, [], `${invocation}: nothing asked of the node`);
    }
    const invocation = withValue(sent).join(' ');
    const run = await svc([...withValue(sent), ...url]);
    t.equal(run.code, 1, `${invocation}: sent, and the node's refusal printed`);
    t.same(asked.splice(0), [request], `${invocation}: reaches the node`);
  }
});

t.test('fleet remove refuses a --confirm that does not repeat the id, before asking the node', async (t) => {
  const run = await svc(['fleet', 'remove', 'node-0', '--confirm', 'node-1', '--url', 'http://127.0.0.1:1']);
  t.equal(run.code, 2);
  t.match(run.err, /--confirm node-1 does not repeat the id node-0/);
});

t.test('a --config file is read for the node address only: the node’s secrets need not be set', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-args-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'node.yaml');
  // What a node's file holds that a client's shell lacks: a side token and keyring material by reference.
  writeFileSync(
    file,
    [
      'api:',
      '  host: 127.0.0.1',
      '  port: 1',
      '  auth:',
      '    tokens: [{id: node-side, token: "${NODE_SIDE_TOKEN}"}]',
      'secrets:',
      '  active_key_id: k1',
      '  keys: [{id: k1, material: "${SVC_KEY_MATERIAL}"}]',
      '',
    ].join('\n'),
  );
  const run = await svc(['config', 'revisions', '--config', file]);
  t.equal(run.code, 1, run.err);
  t.match(run.err, /cannot reach http:\/\/127\.0\.0\.1:1 /, 'the address was read from the file');
  t.notMatch(run.err, /cannot be read from/);
});

t.test('events tail at an address that is no svc node says what to check, in one line', async (t) => {
  // A web server that is not the node: HTTP/1.0 answers, no error code, an HTML body.
  const other = createNetServer((socket) => {
    socket.once('data', () =>
      socket.end(
        'HTTP/1.0 404 File not found\r\nContent-Type: text/html\r\n\r\n<html><body>Not Found</body></html>',
      ),
    );
  });
  other.listen(0, '127.0.0.1');
  await once(other, 'listening');
  t.teardown(() => other.close());
  const run = await svc([
    'events',
    'tail',
    '--url',
    `http://127.0.0.1:${(other.address() as AddressInfo).port}`,
  ]);
  t.equal(run.code, 1);
  t.match(
    run.err,
    /HTTP 404 without an error code, so not the node's own answer: check that --url \/ \$SVC_URL/,
  );
  t.notMatch(run.err, /html/i, 'the body is not dumped');
  t.equal(run.err.trimEnd().split('\n').length, 1, run.err);
});

t.test('config put and validate of an empty stdin are refused before anything is sent, exit 2', async (t) => {
  // A node that records what it is asked: nothing should reach it.
  const asked: string[] = [];
  const node = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'invalid_body', detail: 'refused by the stub node' }));
  });
  node.listen(0, '127.0.0.1');
  await once(node, 'listening');
  t.teardown(() => node.close());
  const url = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
  for (const args of [
    ['put', '-', '--summary', 'empty'],
    ['validate', '-'],
  ]) {
    const verb = args[0]!;
    // The built CLI as a child with its stdin on /dev/null: `-` reads nothing.
    const run = runSvc(['config', ...args, '--url', url], { SVC_TOKEN: 'x' });
    t.equal(await run.exited, 2, `${verb}: a usage error`);
    t.match(
      run.stderr(),
      /^svc config: stdin \(-\) is empty: .*document/,
      `${verb}: says stdin gave nothing`,
    );
    t.match(run.stderr(), /Run 'svc config --help' for usage/, `${verb}: the help pointer`);
  }
  t.same(asked, [], 'nothing was sent');
});
