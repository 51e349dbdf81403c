/**
 * The per-seat codehost-a app flow on a real `svc serve` with a keyring and a local fake code host:
 * the guarded begin route (403 on a managed document for a non-writer), a refused code (400, the vendor's
 * words never shown), a forged state (400), then a good code: key and secret sealed in the store, the app
 * recorded on the seat through a config write, and the seat's own receiver verifying with that secret.
 * All along, the code-host tool's roster (`GET /setup/integrations/codehost-a`) carries the seat's `tier`,
 * `step` and `action_url` (spec "Per-seat code-host app setup"): `create_app` with an empty link,
 * `install_app` with the install page once the app exists, no step once an installation is known.
 * The return is unauthenticated: what it writes is recorded as written by the operator who began the flow
 * (the signed state names them); an installation delivery's change is the flow's own (`codehost-a-app`).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startCodehostAFake, VENDOR_WORDS } from '../fixtures/codehost-a/fake.js';
import { freePort, runSvc } from '../harness/child.js';
import { openConnection } from '../harness/raw-http.js';

const OPS = 'ops-token-0123456789abcdef';
const CI = 'ci-token-0123456789abcdef';
const APP_SECRET = 'app-hook-secret-from-the-code-host';

t.test(
  'a seat gets its own codehost-a app: sealed first, then recorded, then its receiver verifies',
  async (t) => {
    const vendor = await startCodehostAFake({
      good: {
        id: 42,
        slug: 'ada-bot',
        pem: '-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----\n',
        webhook_secret: APP_SECRET,
      },
    });
    t.teardown(() => vendor.close());
    const { conversions } = vendor;
    const vendorUrl = vendor.url;

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
    const env = {
      SVC_CODEHOST_A_API_URL: vendorUrl,
      SVC_CODEHOST_A_WEB_URL: 'https://codehost-a.example',
      SVC_PUBLIC_BASE_URL: 'https://svc.example',
    };
    const run = runSvc(['serve', '--config', file], env);
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
    // The return page answers 503 until this node has applied the stored document (not when it is stored).
    await run.waitForLog((l) => l.msg === 'config applied');

    type Entry = { handle: string; tier: string; step: string | null; action_url: string; installation_id: number | null }; // prettier-ignore
    const roster = async (): Promise<Entry[]> => {
      const res = await fetch(`${base}/setup/integrations/codehost-a`, { headers: auth(OPS) });
      t.equal(res.status, 200);
      return ((await res.json()) as { roster: Entry[] }).roster;
    };
    t.same(
      await roster(),
      [{ handle: 'ada', tier: 'org', step: 'create_app', action_url: '', app_id: null, app_slug: null, installation_id: null }], // prettier-ignore
      'a seat without an app: create_app, action_url empty',
    );

    t.equal((await fetch(`${base}/setup/codehost-a-app/ada`, { method: 'POST' })).status, 401, 'guarded');
    const managed = await fetch(`${base}/setup/codehost-a-app/ada`, { method: 'POST', headers: auth(CI) });
    t.equal(managed.status, 403);
    t.equal(((await managed.json()) as { error: string }).error, 'config_managed');
    // Write rule 10: refused before anything is read, so a body that never arrives is not waited for.
    const conn = await openConnection(port);
    t.teardown(() => conn.close());
    conn.write(
      `POST /setup/codehost-a-app/ada HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${CI}\r\nContent-Length: 100\r\n\r\n{`,
    );
    const early = await Promise.race([
      conn.response(),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 2_000)),
    ]);
    t.equal(early?.status, 403, 'a non-writer is refused before the body arrives');
    const begun = await fetch(`${base}/setup/codehost-a-app/ada`, { method: 'POST', headers: auth(OPS) });
    t.equal(begun.status, 200);
    const plan = (await begun.json()) as {
      state: string;
      step: string;
      action_url: string;
      post_url: string;
      manifest: { hook_attributes: { url: string } };
    };
    t.equal(plan.step, 'create_app');
    t.equal(plan.action_url, '', 'create_app carries an empty action_url');
    t.match(plan.post_url, /^https:\/\/codehost-a\.example\/settings\/apps\/new\?state=/);
    t.equal(plan.manifest.hook_attributes.url, 'https://svc.example/webhooks/codehost-a/ada');

    const refused = await fetch(`${base}/webhooks/codehost-a-app?code=bad&state=${plan.state}`);
    t.equal(refused.status, 400);
    t.notOk((await refused.text()).includes(VENDOR_WORDS));
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
    t.ok(html.includes('href="https:&#47;&#47;codehost-a.example&#47;apps&#47;ada-bot&#47;installations&#47;new"'), 'the page links to the install page'); // prettier-ignore
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
    type Meta = { created_by: string; created_by_kind: string; summary: string };
    const newest = async (): Promise<Meta> => {
      const res = await fetch(`${base}/config/revisions?limit=1`, { headers: auth(OPS) });
      return ((await res.json()) as { revisions: Meta[] }).revisions[0]!;
    };
    t.match(
      await newest(),
      { created_by: 'ops', created_by_kind: 'operator', summary: /ada-bot recorded for seat ada/ },
      'recorded as written by the operator who began the flow',
    );
    t.match(await secret.json(), { updated_by: 'ops' }, 'and sealed by them');
    const installUrl = 'https://codehost-a.example/apps/ada-bot/installations/new';
    t.match(await roster(), [{ handle: 'ada', tier: 'org', step: 'install_app', action_url: installUrl, app_slug: 'ada-bot', installation_id: 0 }]); // prettier-ignore

    // The browser comes back from the install page: confirmed, nothing written, the step stays.
    const revisions = async (): Promise<number> => {
      const res = await fetch(`${base}/config/revisions`, { headers: auth(OPS) });
      return ((await res.json()) as { total: number }).total;
    };
    const before = await revisions();
    const back = await fetch(
      `${base}/webhooks/codehost-a-app?installed=ada&installation_id=77&setup_action=install`,
    );
    t.equal(back.status, 200);
    t.equal(await revisions(), before, 'the install confirmation writes nothing');
    t.match(await roster(), [{ handle: 'ada', step: 'install_app', installation_id: 0 }]);

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

    // The app's own signed installation delivery records the installation: the seat leaves the steps.
    const signed = (payload: unknown, delivery: string) => {
      const text = JSON.stringify(payload);
      return fetch(`${base}/webhooks/codehost-a/ada`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-codehost-a-delivery': delivery, 'x-codehost-a-event': 'installation', 'x-codehost-a-signature-256': `sha256=${createHmac('sha256', APP_SECRET).update(text).digest('hex')}` }, // prettier-ignore
        body: text,
      });
    };
    const other = await signed({ action: 'created', installation: { id: 5, app_id: 9 } }, 'i0');
    t.equal(other.status, 200, 'another app’s installation is kept as a delivery');
    t.match(await roster(), [{ step: 'install_app', installation_id: 0 }], '...and changes nothing');
    t.equal((await signed({ action: 'created', installation: { id: 77, app_id: 42 } }, 'i1')).status, 200);
    t.same(
      (await roster()).map((e) => [e.tier, e.step, e.action_url, e.installation_id]),
      [['seat', null, '', 77]],
      'installed: tier seat, no pending step',
    );
    t.match(
      await newest(),
      { created_by: 'codehost-a-app', created_by_kind: 'node', summary: /installed \(installation 77\)/ },
      "a delivery's change is the flow's own",
    );
    t.equal((await signed({ action: 'deleted', installation: { id: 77, app_id: 42 } }, 'i2')).status, 200);
    t.match(await roster(), [{ tier: 'org', step: 'install_app', action_url: installUrl, installation_id: 0 }], 'uninstalled: back to install_app'); // prettier-ignore
    t.notOk(
      run.lines.some((l) => JSON.stringify(l).includes(APP_SECRET)),
      'the secret is never logged',
    );

    // Killed outright in install_app, the node comes back there: the app and its step are read from the
    // store, and the seat's receiver still verifies with the sealed secret.
    run.kill('SIGKILL');
    await run.exited;
    const again = runSvc(['serve', '--config', file], env);
    t.teardown(() => again.kill('SIGKILL'));
    await again.waitForLog((l) => l.msg === 'node serving');
    t.match(await roster(), [{ tier: 'org', step: 'install_app', action_url: installUrl, app_slug: 'ada-bot', installation_id: 0 }], 'a restart keeps install_app'); // prettier-ignore
    t.equal((await signed({ action: 'created', installation: { id: 78, app_id: 42 } }, 'i3')).status, 200);
    t.same(
      (await roster()).map((e) => [e.tier, e.step, e.installation_id]),
      [['seat', null, 78]],
      'the installation after the restart is recorded: the seat leaves the steps',
    );
  },
);
