/**
 * A node cut from its bus says in every room that what is shown may be behind (ops/fleet.md "While the bus is
 * unreachable"): the read routes carry `Svc-Stale: bus unreachable since <instant>`, the socket only `/health`
 * `status: isolated`, and a red `isolated` badge in the header said nothing of what it means for the seats,
 * the feed and the spend on screen. A `svc serve` child reaches its nats-server through a TCP proxy; the link
 * is cut, and the page (left open, no reload) says since when; once the link is back the notice goes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { freePort, runSvc } from '../harness/child.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';
import { startTcpProxy } from '../harness/tcp-proxy.js';
import { until } from '../harness/until.js';

t.test(
  'a node cut from its bus: every room says its figures are as last read, since when, until the link is back',
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const server = await startNatsServer({ t });
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: server.port }, { scheme: 'nats', t });
    const dir = mkdtempSync(join(tmpdir(), 'svc-dash-unlinked-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const port = await freePort();
    const configFile = join(dir, 'config.yaml');
    writeFileSync(
      configFile,
      [
        `providers: {queue: {type: jetstream, url: "${proxy.url}"}}`,
        `api: {host: 127.0.0.1, port: ${port}, auth: {tokens: [{id: ops, token: "\${SVC_TOKEN}"}]}}`,
        'node: {id: node-a}',
      ].join('\n'),
    );
    const run = runSvc(['serve', '--config', configFile], { SVC_TOKEN: TOKEN });
    t.teardown(() => run.kill('SIGKILL'));
    await run.waitForLog((line) => line.msg === 'node serving');
    const url = `http://127.0.0.1:${port}`;
    const put = await fetch(`${url}/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'one' },
      body: JSON.stringify({
        name: 'Acme',
        roles: [{ name: 'Ada', kind: 'human', contact: { chat_user_id: 'U1' } }],
      }),
    });
    t.equal(put.status, 201, 'configured');

    const w = await openPage(browser);
    await w.page.goto(`${url}/dashboard#/org`);
    await w.page.waitForSelector('[data-link="live"]');
    await w.page.getByText('Ada').first().waitFor();
    const notice = w.page.locator('[data-notice="bus-unreachable"]');
    t.equal(await notice.count(), 0, 'linked: no notice');

    proxy.blackhole();
    proxy.cut();
    await notice.waitFor({ timeout: 45_000 });
    const said = (await notice.textContent()) ?? '';
    t.match(said, /cannot reach its bus/, `the page says what happened: ${said}`);
    t.match(said, /as it last read them/, 'and what that means for what is shown');
    const stale = (await fetch(`${url}/org`)).headers.get('svc-stale') ?? '';
    const since = stale.replace('bus unreachable since ', '');
    t.match(since, /^\d{4}-/, `the node says since when: ${stale}`);
    t.equal(
      await notice.locator('time').getAttribute('datetime'),
      since,
      'the notice says the same instant as Svc-Stale',
    );
    t.equal(await notice.locator('xpath=..').getAttribute('role'), 'status', 'announced politely');
    await w.page.goto(`${url}/dashboard#/`);
    await notice.waitFor();
    t.pass('shown in every room');

    proxy.restore();
    await until(
      async () => (await fetch(`${url}/org`)).headers.get('svc-stale'),
      (h) => h === null,
      { timeoutMs: 45_000 },
    );
    await notice.waitFor({ state: 'detached', timeout: 30_000 });
    t.pass('the notice goes once the link is back');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);
