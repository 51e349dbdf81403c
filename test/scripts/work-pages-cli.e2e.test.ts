/**
 * `svc work` and `svc pages` through the built CLI against one `svc serve` node with the native tracker
 * and knowledge base: the common reads and writes, a retry by `--op-id`, a refusal (exit 1) and usage
 * errors (exit 2).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import t from 'tap';
import { svcBin } from '../harness/child.js';
import { applyNativeWork, nativeBackends, nativeWorkCompany } from '../harness/native-work.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

type Json = Record<string, unknown>;

async function svc(args: string[], stdin = '') {
  const child = spawn(process.execPath, [svcBin, ...args], {
    env: { PATH: process.env['PATH'], SVC_TOKEN: TOKEN },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => out.push(c));
  child.stderr.on('data', (c: Buffer) => err.push(c));
  child.stdin.end(stdin);
  const [code] = (await once(child, 'exit')) as [number | null];
  const text = Buffer.concat(out).toString();
  return { code, text, err: Buffer.concat(err).toString(), json: () => JSON.parse(text) as Json };
}

t.test('svc work and svc pages read and write a running node', async (t) => {
  const node = await startNode(t, nativeBackends);
  const bea = { name: 'Bea', handle: 'bea', kind: 'human', contact: { codehost_a_login: 'bea' } };
  await applyNativeWork(t, [node.url], nativeWorkCompany(bea), 'cli');
  const url = ['--url', node.url];
  // The space comes with the same apply as the project, but is its own read model: wait for it too.
  const auth = { authorization: `Bearer ${TOKEN}` };
  await until(
    async () => (await fetch(`${node.url}/containers`, { headers: auth })).text(),
    (spaces) => spaces.includes('"ENG"'),
  );

  const created = await svc([
    'work',
    'create',
    '--project',
    'ENG',
    '--title',
    'Ship it',
    '--op-id',
    'c1',
    ...url,
  ]);
  t.equal(created.code, 0, created.err);
  t.match(created.json(), { outcome: 'applied', key: 'ENG-1', item: { title: 'Ship it' } });
  const again = await svc([
    'work',
    'create',
    '--project',
    'ENG',
    '--title',
    'Ship it',
    '--op-id',
    'c1',
    ...url,
  ]);
  t.match(again.json(), { outcome: 'repeated', key: 'ENG-1' });
  t.equal((await svc(['work', 'comment', 'ENG-1', '-', ...url], 'from stdin')).code, 0);
  t.equal((await svc(['work', 'move', 'ENG-1', 'in_progress', ...url])).code, 0);
  const shown = (await svc(['work', 'show', 'eng-1', ...url])).json();
  t.match(shown, { key: 'ENG-1', status: 'in_progress', thread: [{ body: 'from stdin', author: 'ada' }] });
  const listed = (await svc(['work', 'list', '--project', 'ENG', '--status', 'in_progress', ...url])).json();
  t.same(
    (listed['items'] as Json[]).map((i) => i['key']),
    ['ENG-1'],
  );
  t.match((await svc(['work', 'mine', ...url])).json(), { handle: 'ada' });
  t.match((await svc(['work', 'mine', '--handle', 'bea', ...url])).json(), { handle: 'bea' });
  t.equal((await svc(['work', 'inbox', '--handle', 'bea', ...url])).code, 0, 'another person, by handle');
  // Paging: the answer's next, given back as --cursor, reads the following page.
  t.equal((await svc(['work', 'create', '--project', 'ENG', '--title', 'Second', ...url])).code, 0);
  const first = (await svc(['work', 'list', '--project', 'ENG', '--limit', '1', ...url])).json();
  t.same(
    (first['items'] as Json[]).map((i) => i['key']),
    ['ENG-2'],
  );
  const next = await svc(['work', 'list', '--project', 'ENG', '--limit', '1', '--cursor', String(first['next']), ...url]); // prettier-ignore
  t.same(
    (next.json()['items'] as Json[]).map((i) => i['key']),
    ['ENG-1'],
  );
  const refused = await svc(['work', 'move', 'ENG-1', 'backlog', ...url]);
  t.equal(refused.code, 1, 'a refused move exits 1');
  t.match(refused.err, /400 validation_error/);

  const page = await svc(
    ['pages', 'create', '--container', 'ENG', '--title', 'Runbook', '-', ...url],
    'restart it',
  );
  t.equal(page.code, 0, page.err);
  t.equal((await svc(['pages', 'show', 'ENG/runbook', ...url])).json()['body'], 'restart it');
  t.match((await svc(['pages', 'list', '--container', 'ENG', ...url])).json(), { total: 1 });
  t.match((await svc(['pages', 'search', 'restart', ...url])).json(), { pages: [{ title: 'Runbook' }] });
  t.equal((await svc(['pages', 'show', 'ENG/Nothing', ...url])).code, 1, 'an unknown page exits 1');

  for (const args of [
    ['work', 'show'],
    ['work', 'fly'],
    ['work', 'list', '--limit', 'ten'],
    ['work', 'create', '--title', 'no project'],
    ['pages', 'search'],
    ['pages', 'list', '--colour', 'red'],
  ]) {
    const bad = await svc([...args, ...url]);
    t.equal(bad.code, 2, args.join(' '));
    t.match(bad.err, new RegExp(`Run 'svc ${args[0]!} --help'`));
  }
  const help = await svc(['work', '--help']);
  t.equal(help.code, 0);
  t.match(help.text, /svc work <verb>/);
});
