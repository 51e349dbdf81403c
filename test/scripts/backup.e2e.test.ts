/**
 * The restore runbook of ops/backups.md, followed on real processes: a `svc serve` child on the memory
 * engine with a store, a company and some events, `POST /backup?dir=`, stop, `svc restore` into a fresh
 * store, a fresh node on it — the same `/config` (body and ETag) and the same `/events` pages.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runSvc } from '../harness/child.js';
import { bootNode, storeDir, TOKEN, type BootedNode } from '../harness/serve-store.js';

type Json = Record<string, unknown>;

const company = {
  name: 'Acme',
  mission: 'keep the lights on',
  roles: [{ name: 'Ada' }, { name: 'Bob' }],
};

async function json(response: Response): Promise<Json> {
  return (await response.json()) as Json;
}

/**
 * Every `/events` row older than `before`, page by page (small pages, so the cursor is exercised too). A
 * node publishes its own apply event when it boots, so the restored node's history is compared up to then.
 */
async function allEvents(node: BootedNode, before: string): Promise<Json[][]> {
  const pages: Json[][] = [];
  // Ids are lower-case hex: `~` sorts after every one of them at the same instant.
  let cursor = { before_time: before, before_id: '~' };
  for (;;) {
    const query = `limit=3&before_time=${encodeURIComponent(cursor.before_time)}&before_id=${encodeURIComponent(cursor.before_id)}`;
    const page = await json(await node.call('GET', `/events?${query}`));
    pages.push(page['rows'] as Json[]);
    const next = page['next'] as { before_time: string; before_id: string } | null;
    if (next === null) return pages;
    cursor = next;
  }
}

/** Waits, by asking again, until `/events` holds at least `count` rows (events are projected after the ack). */
async function eventsAtLeast(node: BootedNode, count: number): Promise<void> {
  for (let i = 0; i < 600; i += 1) {
    const page = await json(await node.call('GET', '/events?limit=400'));
    if ((page['rows'] as Json[]).length >= count) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`/events never reached ${count} rows`);
}

t.test('a backup restored into a fresh store serves the same /config and /events', async (t) => {
  const first = storeDir(t);
  const node = await bootNode(t, first, '');

  // 1. a company, revised once, and seat events (pause, resume)
  const put = await node.call('PUT', '/config', {
    body: JSON.stringify(company),
    headers: { 'content-type': 'application/json', 'x-summary': 'first' },
  });
  t.equal(put.status, 201);
  await node.run.waitForLog((l) => l.msg === 'config applied');
  const patch = await node.call('PATCH', '/config', {
    body: JSON.stringify({ vision: 'a calm company' }),
    headers: { 'content-type': 'application/merge-patch+json', 'x-summary': 'vision' },
  });
  t.equal(patch.status, 201);
  const pause = await node.call('POST', '/agents/bob/pause', {
    body: JSON.stringify({ reason: 'maintenance' }),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(pause.status, 200);
  t.equal((await node.call('POST', '/agents/bob/resume')).status, 200);
  await eventsAtLeast(node, 3);

  // 2. the backup
  const backups = mkdtempSync(join(tmpdir(), 'svc-backups-'));
  t.teardown(() => rmSync(backups, { recursive: true, force: true }));
  const dir = join(backups, 'first');
  const answer = await node.call('POST', `/backup?dir=${encodeURIComponent(dir)}`);
  t.equal(answer.status, 201);
  const record = await json(answer);
  t.match(record, { status: 'done', owner: 'node-0', engine: 'memory', dir, requested_by: 'ops', error: null });
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Json;
  t.match(manifest, { format: 'svc-backup/1', id: record['id'], engine: 'memory', node: 'node-0' });
  const streams = manifest['streams'] as Array<{ name: string; messages: number }>;
  t.ok(streams.find((s) => s.name === 'SVC_CONFIG' && s.messages > 0), 'the config stream is in the copy');
  t.ok(streams.find((s) => s.name === 'SVC_EVENTS' && s.messages >= 3), 'the events are in the copy');
  t.notOk(existsSync(join(dir, '.svc-backup-claim')), 'the claim marker is gone');
  const listed = await json(await node.call('GET', '/backups'));
  t.match(listed, { node: 'node-0', points: [{ id: record['id'], status: 'done' }] });

  const config = await node.call('GET', '/config');
  const etag = config.headers.get('etag');
  const body = await config.text();
  const cut = new Date().toISOString();
  const pages = await allEvents(node, cut);
  t.ok(pages.flat().length >= 3);
  t.equal(pages.flat().length, ((await json(await node.call('GET', '/events?limit=400')))['rows'] as Json[]).length);
  t.equal(await node.stop(), 0, 'the node drains');

  // 3. restore into a fresh store, offline
  const second = storeDir(t);
  writeFileSync(
    second.configFile,
    `providers: {queue: {type: memory}}\napi: {port: 0}\nstream: {store_dir: ${second.storeDir}}\n`,
  );
  const restore = runSvc(['restore', '--from', dir, '--config', second.configFile]);
  t.teardown(() => restore.kill('SIGKILL'));
  t.equal(await restore.exited, 0, restore.stderr());
  t.match(JSON.parse(restore.stdout()) as Json, { restored: record['id'], engine: 'memory' });

  // 4. start on it and check
  const again = await bootNode(t, second, '');
  const restored = await again.call('GET', '/config');
  t.equal(restored.headers.get('etag'), etag, 'the same active revision');
  t.equal(await restored.text(), body, 'the same document');
  t.same(await allEvents(again, cut), pages, 'the same /events pages');
  const newer = ((await json(await again.call('GET', '/events?limit=400')))['rows'] as Json[]).slice(
    0,
    -pages.flat().length,
  );
  t.ok(
    newer.every((r) => r['type'] === 'ConfigRevisionApplied' && String(r['timestamp']) > cut),
    'the restored node added only its own apply event',
  );
  const after = await json(await again.call('GET', '/backups'));
  t.match(after, { points: [{ id: record['id'], status: 'done', bytes: Number }] });
  t.equal(await again.stop(), 0);

  // 5. a restore never merges into a store that holds data
  const refused = runSvc(['restore', '--from', dir, '--config', second.configFile], { SVC_TOKEN: TOKEN });
  t.teardown(() => refused.kill('SIGKILL'));
  t.equal(await refused.exited, 1);
  t.match(refused.stderr(), /not empty/);
});

t.test('bad backup directories answer 400 backup_dir_invalid and are listed as failed', async (t) => {
  const store = storeDir(t);
  const node = await bootNode(t, store, '');
  const base = mkdtempSync(join(tmpdir(), 'svc-backups-'));
  t.teardown(() => rmSync(base, { recursive: true, force: true }));
  const full = join(base, 'full');
  mkdirSync(full);
  writeFileSync(join(full, 'keep.txt'), 'x');

  t.equal((await node.call('POST', '/backup?dir=/tmp/x', { auth: null })).status, 401, 'token always required');
  t.equal((await node.call('GET', '/backups', { auth: null })).status, 401);

  const cases: Array<[string, string | null, RegExp]> = [
    ['missing', null, /required/],
    ['relative', 'backups/today', /absolute/],
    ['not empty', full, /not empty/],
    // Nothing may be created under /proc, whoever the node runs as.
    ['not writable', '/proc/svc-backup-test', /cannot be created/],
    ['inside the store', join(store.storeDir, 'bk'), /inside the store/],
  ];
  for (const [what, dir, detail] of cases) {
    const response = await node.call('POST', dir === null ? '/backup' : `/backup?dir=${encodeURIComponent(dir)}`);
    t.equal(response.status, 400, what);
    t.match(await json(response), { error: 'backup_dir_invalid', detail, hint: String }, what);
  }
  t.same(readFileSync(join(full, 'keep.txt'), 'utf8'), 'x', 'a refused directory is left as it was');
  t.notOk(existsSync(join(store.storeDir, 'bk')), 'nothing was created inside the store');

  const listed = await json(await node.call('GET', '/backups'));
  const rows = listed['backups'] as Json[];
  t.equal(rows.length, cases.length, 'every request is listed');
  t.ok(rows.every((r) => r['status'] === 'failed'));
  t.match(
    rows.find((r) => r['dir'] === full),
    { status: 'failed', error: { code: 'backup_dir_invalid', detail: /not empty/ } },
  );
  t.same(listed['points'], [], 'no backup point without a finished backup');
  t.equal(await node.stop(), 0);
});
