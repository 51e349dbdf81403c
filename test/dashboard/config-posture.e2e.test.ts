/**
 * A node whose configuration posture is not `serve` says so in words in every room (spec "Node configuration
 * state"), in the always-present polite `role="status"` region: what the posture means, since when, what the
 * node does meanwhile and what to do, from what its read routes report (the failed apply's
 * `ConfigRevisionApplied` event, `/config`, `/health`). A header badge alone said none of it. Real
 * `svc serve` children on a real nats-server; the page stays open (no reload) while the posture moves.
 */
import t from 'tap';
import { call, health, type Json } from '../harness/api.js';
import { needsChromium, openPage, startBrowser, type WatchedPage } from '../harness/browser.js';
import { startFleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { squattedTransport } from '../harness/squatted-transport.js';
import { until } from '../harness/until.js';

const providers = {
  llm: { main: { type: 'openai-compatible', model: 'm', base_url: 'http://127.0.0.1:9' } },
};
const KEYRING = `secrets: {active_key_id: k1, keys: [{id: k1, material: ${Buffer.alloc(32, 7).toString('base64')}}]}`;

async function withToken(w: WatchedPage, url: string, hash: string): Promise<void> {
  await w.page.goto(`${url}/dashboard#/${hash}`);
  await w.page.getByLabel('Operator token').fill(TOKEN);
  await w.page.getByRole('button', { name: 'Use token' }).click();
  await w.page.waitForSelector('text=operator token held for this tab');
  await w.page.waitForSelector('[data-link="live"]');
}

t.test(
  'a node whose apply failed (isolated) says which revision failed, why, since when, what it runs and that a corrected revision recovers; the words go once it serves',
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const nats = await startNatsServer({ t });
    const node = await startNode(t, '', `jetstream, url: "${nats.url}"`);
    const w = await openPage(browser);
    await withToken(w, node.url, 'overview');
    const notice = w.page.locator('[data-notice="posture"]');

    // Unconfigured: said in the same polite region, with what the node does meanwhile.
    await notice.waitFor();
    const bare = (await notice.textContent()) ?? '';
    t.match(bare, /This node has no company yet\./, `unconfigured: ${bare}`);
    t.match(bare, /503/, 'and that webhooks are answered 503 meanwhile');
    t.equal(await notice.locator('xpath=..').getAttribute('role'), 'status', 'announced politely');

    const first = await call(node.url, 'PUT', '/config', {
      name: 'Acme',
      providers,
      roles: [{ name: 'Ada' }],
    });
    t.equal(first.status, 201);
    await notice.waitFor({ state: 'detached' });
    t.pass('serving: no notice');

    // Another client holds the transport's durable: the restart-required items fail and the apply of
    // epoch 2 rolls back.
    const failing = await call(node.url, 'PUT', '/config', {
      name: 'Acme',
      providers,
      roles: [{ name: 'Ada' }, { name: 'Bo' }],
      notification_transports: await squattedTransport(t, nats.url),
    });
    t.equal(failing.status, 201);
    const failedId = String(failing.body['revision_id']);
    await until(
      () => health(node.url),
      (h) => h['posture'] === 'isolated',
    );
    // What the read routes say of the failure: its event (newest first, this node's).
    const listed = (await call(node.url, 'GET', '/events?type=ConfigRevisionApplied&limit=5')).body as {
      rows?: Json[];
    };
    const row = (listed.rows ?? []).find((r) => r['failed'] === true)!;
    t.ok(row, 'the failure is on /events');
    const event = await call(node.url, 'GET', `/events/${String(row['id'])}`);
    const payload = event.body['payload'] as Json;
    t.equal(payload['revision_id'], failedId);
    const error = typeof payload['error'] === 'string' ? payload['error'] : '';
    t.ok(error.length > 0, `the node says why: ${error}`);

    await notice.filter({ hasText: failedId }).waitFor({ timeout: 30_000 });
    const said = (await notice.textContent()) ?? '';
    t.match(said, /apply failed/, `isolated: ${said}`);
    t.ok(said.includes(failedId), 'names the revision that failed');
    t.ok(said.includes(error.slice(0, 80)), 'and why, as the node reports it');
    t.match(said, /epoch 1\b/, 'what it runs meanwhile: the revision it last applied');
    t.match(said, /corrected revision/, 'and what recovers it');
    t.equal(
      await notice.locator('time').first().getAttribute('datetime'),
      String(payload['at']),
      'since when: the instant the node announced the failure',
    );
    await w.page.goto(`${node.url}/dashboard#/org`);
    await notice.filter({ hasText: failedId }).waitFor();
    t.pass('shown in every room');

    const next = await call(node.url, 'PUT', '/config', {
      name: 'Acme',
      providers,
      roles: [{ name: 'Ada' }, { name: 'Bo' }],
    });
    t.equal(next.status, 201);
    await notice.waitFor({ state: 'detached', timeout: 30_000 });
    t.match(await health(node.url), { posture: 'serve', applied_epoch: 3 });
    t.pass('the words go once the posture is serve again');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);

t.test(
  'a node that cannot open the active revision (stuck) names the key its keyring lacks and says it is out of rotation',
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const nats = await startNatsServer({ t });
    const sealing = await startFleetNode(t, 'node-sealing', nats.url, { extra: KEYRING });
    const plain = await startFleetNode(t, 'node-plain', nats.url);
    t.equal(
      (await call(plain.url, 'PUT', '/config', { name: 'Acme', roles: [{ name: 'Ada' }] })).status,
      201,
    );
    await until(
      () => health(plain.url),
      (h) => h['status'] === 'ok' && h['applied_epoch'] === 1,
      20_000,
    );
    const w = await openPage(browser);
    await withToken(w, plain.url, 'overview');
    const notice = w.page.locator('[data-notice="posture"]');
    t.equal(await notice.count(), 0, 'serving: no notice');

    const sealed = await call(sealing.url, 'PUT', '/config', {
      name: 'Acme',
      mission: 'sealed',
      roles: [{ name: 'Ada' }],
    });
    t.equal(sealed.status, 201);
    const sealedId = String(sealed.body['revision_id']);
    await until(
      () => health(plain.url),
      (h) => h['status'] === 'stuck',
      20_000,
    );
    t.match(
      (await call(plain.url, 'GET', '/config')).body,
      { encrypted: true, key_id: 'k1' },
      '/config names the key',
    );
    const ready = await fetch(`${plain.url}/ready`);
    t.equal(ready.status, 503, 'out of rotation');

    await notice.filter({ hasText: 'k1' }).waitFor({ timeout: 30_000 });
    const said = (await notice.textContent()) ?? '';
    t.ok(said.includes(sealedId), `names the active revision: ${said}`);
    t.match(said, /secrets\.keys/, 'and the Tier A change: the key to add to secrets.keys');
    t.match(said, /\/ready/, 'and that it is out of rotation meanwhile');
    t.match(said, /epoch 1\b/, 'and what it runs');
    t.equal(await notice.locator('xpath=..').getAttribute('role'), 'status', 'announced politely');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);
