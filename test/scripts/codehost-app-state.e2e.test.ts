/**
 * The per-seat codehost-a app flow's signed `state` is spent by the return that records its app (spec
 * "Per-seat code-host app setup": the unauthenticated return is validated by signed `state`). The state
 * travels through the browser and the code host, so whoever saw it could come back within its 30 minutes
 * with a code of an app of their own: a replay must not replace the seat's app, nor the key and webhook
 * secret sealed for it, nor reach the code host. A state issued while the seat had another app is stale the
 * same way; a state whose return was refused (nothing recorded) may be used again.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startCodehostAFake } from '../fixtures/codehost-a/fake.js';
import { freePort, runSvc } from '../harness/child.js';

const OPS = 'ops-token-0123456789abcdef';
const pem = (n: string) => `-----BEGIN RSA PRIVATE KEY-----\n${n}\n-----END RSA PRIVATE KEY-----\n`;

t.test('a state is spent by the return that records its app: a replay changes nothing', async (t) => {
  const vendor = await startCodehostAFake({
    first: { id: 42, slug: 'ada-bot', pem: pem('first-key'), webhook_secret: 'first-hook-secret' },
    second: { id: 43, slug: 'ada-bot-2', pem: pem('second-key'), webhook_secret: 'second-hook-secret' },
    third: { id: 44, slug: 'ada-bot-3', pem: pem('third-key'), webhook_secret: 'third-hook-secret' },
  });
  t.teardown(() => vendor.close());
  const dir = mkdtempSync(join(tmpdir(), 'svc-app-state-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const file = join(dir, 'config.yaml');
  writeFileSync(file, [
    'providers: {queue: {type: memory}}',
    `api: {host: 127.0.0.1, port: ${port}, auth: {tokens: [{id: ops, token: ${OPS}}]}}`,
    `stream: {store_dir: ${join(dir, 'data')}}`,
    `secrets: {active_key_id: k1, keys: [{id: k1, material: ${randomBytes(32).toString('base64')}}]}`,
  ].join('\n')); // prettier-ignore
  const run = runSvc(['serve', '--config', file], {
    SVC_CODEHOST_A_API_URL: vendor.url,
    SVC_CODEHOST_A_WEB_URL: 'https://codehost-a.example',
    SVC_PUBLIC_BASE_URL: 'https://svc.example',
  });
  t.teardown(() => run.kill('SIGKILL'));
  await run.waitForLog((l) => l.msg === 'node serving');
  const base = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${OPS}` };
  const put = await fetch(`${base}/config`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/json', 'x-summary': 'seats' },
    body: JSON.stringify({ name: 'Acme', roles: [{ name: 'Ada' }] }),
  });
  t.equal(put.status, 201, await put.text());
  // The return page answers 503 until this node has applied the stored document (not when it is stored).
  await run.waitForLog((l) => l.msg === 'config applied');

  const begin = async (): Promise<string> => {
    const res = await fetch(`${base}/setup/codehost-a-app/ada`, { method: 'POST', headers: auth });
    t.equal(res.status, 200);
    return ((await res.json()) as { state: string }).state;
  };
  const back = (code: string, state: string) =>
    fetch(`${base}/webhooks/codehost-a-app?code=${code}&state=${state}`);
  const key = async () =>
    (await fetch(`${base}/secrets/CODEHOST_A_APP_ADA_PRIVATE_KEY?reveal=true`, { headers: auth })).text();
  const hookSecret = async () =>
    (await fetch(`${base}/secrets/CODEHOST_A_APP_ADA_WEBHOOK_SECRET?reveal=true`, { headers: auth })).text();
  const total = async (): Promise<number> =>
    ((await (await fetch(`${base}/config/revisions`, { headers: auth })).json()) as { total: number }).total;
  const slug = async (): Promise<unknown> => {
    const res = await fetch(`${base}/setup/integrations/codehost-a`, { headers: auth });
    return ((await res.json()) as { roster: Array<{ app_slug: unknown }> }).roster[0]?.app_slug;
  };

  const state = await begin();
  const refused = await back('unknown', state);
  t.equal(refused.status, 400, 'a code the code host refuses records nothing');
  const done = await back('first', state);
  t.equal(done.status, 200, 'the same state, its return not yet recorded, may be used again');
  t.equal(await slug(), 'ada-bot');
  const revisions = await total();

  const replay = await back('second', state);
  const page = await replay.text();
  t.equal(replay.status, 400, 'the replayed state is refused');
  t.match(page, /already used|start again/i);
  t.notOk(page.includes('ada-bot-2'), 'the page names no app of the replay');
  t.same(vendor.conversions, ['unknown', 'first'], 'the code of a replay never reaches the code host');
  t.equal(await slug(), 'ada-bot', "the seat's app stays");
  t.equal(await total(), revisions, 'no revision is stored');
  t.equal(await key(), pem('first-key'), "the app's sealed key stays");
  t.equal(await hookSecret(), 'first-hook-secret', "the app's sealed webhook secret stays");

  // Two flows begun against the same app: the first to return replaces it, the other is then stale.
  const stale = await begin();
  const again = await begin();
  t.equal((await back('second', again)).status, 200, 'a new flow replaces the app');
  t.equal(await slug(), 'ada-bot-2');
  t.equal((await back('third', stale)).status, 400, 'a state issued against the former app is stale');
  t.equal(await slug(), 'ada-bot-2');
  t.equal(await key(), pem('second-key'));
  t.notOk(vendor.conversions.includes('third'), 'a stale state never reaches the code host');
});
