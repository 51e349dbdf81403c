/**
 * `svc work` speaks in flags: a `--limit` past the route's maximum or a move to an unknown status is a bad
 * argument (exit 2, nothing asked of the node), and a refusal that tells how to name a person says
 * `--handle`, the flag, not the query.
 * Against a stub node that records what it was asked.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { svcBin } from '../harness/child.js';

async function svc(args: string[]) {
  const child = spawn(process.execPath, [svcBin, ...args], {
    env: { PATH: process.env['PATH'], SVC_TOKEN: 'stub-token' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const err: Buffer[] = [];
  child.stdout.resume();
  child.stderr.on('data', (c: Buffer) => err.push(c));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, err: Buffer.concat(err).toString() };
}

t.test('a --limit past the route maximum exits 2; a handle refusal names --handle', async (t) => {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url ?? '');
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        error: 'bad_params',
        detail: 'this token is bound to no seat: name the person with ?handle=, or bind the token',
        hint: 'Check the parameter against the route description.',
      }),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const url = ['--url', `http://127.0.0.1:${(server.address() as AddressInfo).port}`];

  for (const args of [
    ['work', 'list', '--limit', '500'],
    ['work', 'list', '--limit', '201'],
    ['work', 'inbox', '--limit', '51'],
    ['pages', 'list', '--limit', '201'],
  ]) {
    const bad = await svc([...args, ...url]);
    t.equal(bad.code, 2, args.join(' '));
    t.match(bad.err, /--limit must be a whole number from 1 to \d+/, args.join(' '));
  }
  t.same(asked, [], 'no bad flag reached the node');

  const twice = await svc(['work', 'list', '--assignee', 'ada', '--assignee', 'bea', ...url]);
  t.equal(twice.code, 2, 'a repeated --assignee on list is a bad flag');
  t.match(twice.err, /one --assignee/);
  t.same(asked, [], 'and reaches nothing');

  const inbox = await svc(['work', 'inbox', '--limit', '50', ...url]);
  t.equal(inbox.code, 1, 'a refusal exits 1');
  t.match(inbox.err, /name the person with --handle/);
  t.notMatch(inbox.err, /\?handle=/);
  t.same(asked, ['/work/inbox?limit=50'], 'the largest limit is sent');
});

t.test('svc work move to a status the tracker does not have exits 2 and asks nothing', async (t) => {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'not_found', detail: 'no such item', hint: 'Check the id.' }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const url = ['--url', `http://127.0.0.1:${(server.address() as AddressInfo).port}`];

  for (const status of ['bogus', 'DONE', 'in-progress', '']) {
    const bad = await svc(['work', 'move', 'ENG-1', status, ...url]);
    t.equal(bad.code, 2, `move to ${JSON.stringify(status)} is a bad argument`);
    t.match(bad.err, /STATUS must be one of backlog, todo, in_progress, in_review, done, cancelled/);
  }
  t.same(asked, [], 'no unknown status reached the node');

  const known = await svc(['work', 'move', 'ENG-1', 'in_review', ...url]);
  t.equal(known.code, 1, 'a known status is sent, and the node answers');
  t.same(asked, ['POST /work/ENG-1/move']);
});

t.test(
  'svc work create and list with a status the tracker does not have exit 2 and ask nothing',
  async (t) => {
    const asked: string[] = [];
    const server = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not_found', detail: 'no such project', hint: 'Check the key.' }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    t.teardown(() => server.close());
    const url = ['--url', `http://127.0.0.1:${(server.address() as AddressInfo).port}`];
    const create = ['work', 'create', '--project', 'ENG', '--title', 'T'];

    for (const args of [
      [...create, '--status', 'bogus'],
      [...create, '--status', 'DONE'],
      [...create, '--status', ''],
      ['work', 'list', '--status', 'bogus'],
      ['work', 'list', '--status', 'todo,in-progress'],
      ['work', 'list', '--status', 'todo, Done'],
    ]) {
      const bad = await svc([...args, ...url]);
      t.equal(bad.code, 2, `${args.join(' ')} is a bad flag`);
      t.match(bad.err, /--status must be one of backlog, todo, in_progress, in_review, done, cancelled/);
    }
    t.same(asked, [], 'no unknown status reached the node');

    t.equal((await svc([...create, '--status', 'todo', ...url])).code, 1, 'a known status is sent');
    t.equal((await svc(['work', 'list', '--status', 'todo, done,', ...url])).code, 1, 'a known list is sent');
    t.same(asked, ['POST /work', 'GET /work?status=todo%2C+done%2C']);
  },
);

t.test(
  'svc work list --q past 500 characters exits 2 and asks nothing, as GET /work refuses it',
  async (t) => {
    const asked: string[] = [];
    const server = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ items: [], total: 0, next: null, last_numbers: {} }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    t.teardown(() => server.close());
    const url = ['--url', `http://127.0.0.1:${(server.address() as AddressInfo).port}`];

    const bad = await svc(['work', 'list', '--q', `${'a'.repeat(500)}b`, ...url]);
    t.equal(bad.code, 2, '501 characters is a bad flag');
    t.match(bad.err, /--q must be at most 500 characters \(got 501 characters\)/);
    t.same(asked, [], 'and reaches nothing');

    // Counted as the route counts: code points, so 500 emoji (1000 UTF-16 units) are sent.
    const longest = '🙂'.repeat(500);
    t.equal((await svc(['work', 'list', '--q', longest, ...url])).code, 0, '500 code points are sent');
    t.same(asked, [`GET /work?q=${encodeURIComponent(longest)}`]);
  },
);

t.test(
  'svc pages search with words past 500 characters exits 2 and asks nothing, as GET /pages refuses them',
  async (t) => {
    const asked: string[] = [];
    const server = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ pages: [], total: 0, next_cursor: null, order: 'relevance' }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    t.teardown(() => server.close());
    const url = ['--url', `http://127.0.0.1:${(server.address() as AddressInfo).port}`];

    // Two words of 250 and 250 joined by a space: 501 characters, as the route would count them.
    const bad = await svc(['pages', 'search', 'a'.repeat(250), 'b'.repeat(250), ...url]);
    t.equal(bad.code, 2, '501 characters is a bad argument');
    t.match(bad.err, /WORDS must be at most 500 characters \(got 501 characters\)/);
    t.same(asked, [], 'and reaches nothing');

    const longest = '🙂'.repeat(500);
    t.equal((await svc(['pages', 'search', longest, ...url])).code, 0, '500 code points are sent');
    t.same(asked, [`GET /pages?q=${encodeURIComponent(longest)}`]);
  },
);
