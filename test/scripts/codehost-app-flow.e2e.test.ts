/**
 * The per-seat codehost-a app flow on a real `svc serve` with a keyring and a local fake code host:
 * the guarded begin route (403 on a managed document for a non-writer), a refused code (400, the vendor's
 * words never shown), a forged state (400), then a good code: key and secret sealed in the store, the app
 * recorded on the seat through a config write, and the seat's own receiver verifying with that secret.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { freePort, runSvc } from '../harness/child.js';

const OPS = 'ops-token-0123456789abcdef';
const CI = 'ci-token-0123456789abcdef';
const APP_SECRET = 'app-hook-secret-from-the-code-host';

t.test(
  'a seat gets its own codehost-a app: sealed first, then recorded, then its receiver verifies',
  async (t) => {
    const conversions: string[] = [];
    const vendor = createServer((req, res) => {
      const code = /^\/app-manifests\/([^/]+)\/conversions$/.exec(req.url ?? '')?.[1];
      if (req.method !== 'POST' || code === undefined) return void res.writeHead(404).end();
      conversions.push(code);
      if (code !== 'good')
        return void res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"message":"VENDOR-SECRET-WORDS"}');
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 42,
          slug: 'ada-bot',
          pem: '-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----\n',
          webhook_secret: APP_SECRET,
        }),
      );
    });
    vendor.listen(0, '127.0.0.1');
    await once(vendor, 'listening');
    t.teardown(() => vendor.close());
    const vendorUrl = `http://127.0.0.1:${(vendor.address() as AddressInfo).port}`;

    const dir = mkdtempSync(join(tmpdir(), 'svc-app-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const port = await freePort();
    const file = join(dir, 'config.yaml');
    writeFileSync(file, [
    'providers: {queue: {type: memory}}',
    `api: {host: 127.0.0.1, port: ${port}, auth: {tokens: [{id: ops, token: ${OPS}}, {id: ci, token: ${CI}}], company_writers: [ops]}}`,
    `stream: {store_dir: ${join(dir, 'data')}}`,
    `secrets: {active_key_id: k1, keys: [{id: k1, material: ${randomBytes(32).toString('base64')}}]}`,
  ].join('\n')); // prettier-ignore
    const run = runSvc(['serve', '--config', file], {
      SVC_CODEHOST_A_API_URL: vendorUrl,
      SVC_CODEHOST_A_WEB_URL: 'https://codehost-a.example',
      SVC_PUBLIC_BASE_URL: 'https://svc.example',
    });
    t.teardown(() => run.kill('SIGKILL'));
    await run.waitForLog((l) => l.msg === 'node serving');
    const base = `http://127.0.0.1:${port}`;
    const auth = (token: string) => ({ authorization: `Bearer ${token}` });

    const put = await fetch(`${base}/config`, {
      method: 'PUT',
      headers: { ...auth(OPS), 'content-type': 'application/json', 'x-summary': 'seats' },
      body: JSON.stringify({ name: 'Acme', roles: [{ name: 'Ada' }] }),
    });
    t.equal(put.status, 201, await put.text());

    t.equal((await fetch(`${base}/setup/codehost-a-app/ada`, { method: 'POST' })).status, 401, 'guarded');
    const managed = await fetch(`${base}/setup/codehost-a-app/ada`, { method: 'POST', headers: auth(CI) });
    t.equal(managed.status, 403);
    t.equal(((await managed.json()) as { error: string }).error, 'config_managed');
    const begun = await fetch(`${base}/setup/codehost-a-app/ada`, { method: 'POST', headers: auth(OPS) });
    t.equal(begun.status, 200);
    const plan = (await begun.json()) as {
      state: string;
      step: string;
      action_url: string;
      manifest: { hook_attributes: { url: string } };
    };
    t.equal(plan.step, 'create_app');
    t.match(plan.action_url, /^https:\/\/codehost-a\.example\/settings\/apps\/new\?state=/);
    t.equal(plan.manifest.hook_attributes.url, 'https://svc.example/webhooks/codehost-a/ada');

    const refused = await fetch(`${base}/webhooks/codehost-a-app?code=bad&state=${plan.state}`);
    t.equal(refused.status, 400);
    t.notMatch(await refused.text(), /VENDOR-SECRET-WORDS/);
    // Flip a character inside the signed body (the last character of base64url may be only padding bits).
    const forged = plan.state.replace(
      /^(.{5})(.)/,
      (_m, head: string, c: string) => `${head}${c === 'A' ? 'B' : 'A'}`,
    );
    t.equal((await fetch(`${base}/webhooks/codehost-a-app?code=good&state=${forged}`)).status, 400);
    t.same(conversions, ['bad'], 'a forged state never reaches the code host');

    const done = await fetch(`${base}/webhooks/codehost-a-app?code=good&state=${plan.state}`);
    const html = await done.text();
    t.equal(done.status, 200, html);
    t.match(html, /ada-bot/);
    t.match(done.headers.get('content-security-policy') ?? '', /^default-src 'none'; style-src 'sha256-/);

    const secret = await fetch(`${base}/secrets/CODEHOST_A_APP_ADA_PRIVATE_KEY`, { headers: auth(OPS) });
    t.equal(secret.status, 200, 'the private key is sealed in the store');
    t.equal(
      (await fetch(`${base}/secrets/CODEHOST_A_APP_ADA_WEBHOOK_SECRET`, { headers: auth(OPS) })).status,
      200,
    );
    const config = (await (await fetch(`${base}/config`, { headers: auth(OPS) })).json()) as {
      document?: unknown;
    };
    const text = JSON.stringify(config);
    t.match(text, /"app_slug":"ada-bot"/);
    t.match(text, /"app_id":42/);
    t.match(text, /"installation_id":0/);
    t.notOk(text.includes('BEGIN RSA'), 'the key itself is never in the document');

    // The seat's receiver now verifies with the sealed secret (a ${VAR} resolved from the store).
    const body = JSON.stringify({
      action: 'opened',
      sender: { login: 'someone' },
      issue: { number: 1, title: 'x' },
    });
    const hook = await fetch(`${base}/webhooks/codehost-a/ada`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-codehost-a-delivery': 'd1', 'x-codehost-a-event': 'issues', 'x-codehost-a-signature-256': `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}` },
    body,
  }); // prettier-ignore
    t.equal(hook.status, 200);
    t.notOk(
      run.lines.some((l) => JSON.stringify(l).includes(APP_SECRET)),
      'the secret is never logged',
    );
  },
);
