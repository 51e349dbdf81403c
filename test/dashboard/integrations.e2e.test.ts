/**
 * The spend and integrations rooms follow what raises no stream event of their own: budget caps change
 * with the configuration, refused webhook deliveries are counted, and a required value whose reference
 * resolves to nothing is shown as such, as is one the store holds under a key this node lacks.
 */
import { dirname, join } from 'node:path';
import t from 'tap';
import { ensureCatalogue, keyringFrom, openBus, seal } from '../../bus/index.js';
import { secretAad } from '../../schema/index.js';
import { needsChromium, openPage, startBrowser, type WatchedPage } from '../harness/browser.js';
import { patchCompany, startCompanyNode, TOKEN } from './fixtures/company-node.js';

const KEYRING = `secrets: {active_key_id: k1, keys: [{id: k1, material: ${Buffer.alloc(32, 7).toString('base64')}}]}`;
const foreign = keyringFrom({
  active_key_id: 'k9',
  keys: [{ id: 'k9', material: Buffer.alloc(32, 9).toString('base64') }],
})!;

const shared =
  needsChromium.skip === false ? { browser: await startBrowser(t), node: await startCompanyNode(t) } : null;

async function withToken(w: WatchedPage, url: string, hash: string): Promise<void> {
  await w.page.goto(`${url}/dashboard#/${hash}`);
  await w.page.getByLabel('Operator token').fill(TOKEN);
  await w.page.getByRole('button', { name: 'Use token' }).click();
  await w.page.waitForSelector('text=operator token held for this tab');
  await w.page.waitForSelector('[data-link="live"]');
}

t.test('the budgets card follows a configuration change', needsChromium, async (t) => {
  const { browser, node } = shared!;
  const w = await openPage(browser);
  await withToken(w, node.url, 'spend');
  const budgets = w.page.locator('section[aria-label="Budgets"]');
  await budgets.locator('text=/of 50\\.0M/').waitFor();
  await patchCompany(node.url, { token_budget: 60_000_000 }, 'a larger org budget');
  await budgets.locator('text=/of 60\\.0M/').waitFor();
  t.pass('the new org cap shows without a reload');
  t.same(w.errors, []);
});

t.test('a refused webhook delivery is counted in the open integrations room', needsChromium, async (t) => {
  const { browser } = shared!;
  // A receiver with its secret set refuses an unsigned delivery (an unset one answers 503, not counted so).
  const node = await startCompanyNode(t, {
    env: { TRACKER_A_WEBHOOK_SECRET: 'a-webhook-secret-long-enough-0123456789' },
  });
  const w = await openPage(browser);
  await withToken(w, node.url, 'integrations');
  const res = await fetch(`${node.url}/integrations`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const { surfaces } = (await res.json()) as { surfaces: Array<{ path: string; configured: boolean }> };
  const surface = surfaces.find((s) => s.path.endsWith('/tracker-a'))!;
  const row = w.page.locator('tr', { has: w.page.locator(`code:text-is("${surface.path}")`) });
  await row.waitFor();
  const refusedBefore = await row.locator('td').nth(5).textContent();
  t.equal(refusedBefore, '0', 'nothing refused yet');
  const delivery = await fetch(`${node.url}${surface.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"unsigned":true}',
  });
  t.ok(delivery.status >= 400, `the unsigned delivery is refused (${delivery.status})`);
  await row.locator('td:nth-child(6):text-is("1")').waitFor({ timeout: 25_000 });
  t.pass('the refusal is counted without a reload');
  t.same(
    w.errors.filter((e) => !/status of 4\d\d/.test(e)),
    [],
  );
});

t.test(
  'a required secret set to a reference that resolves to nothing shows unresolved',
  needsChromium,
  async (t) => {
    const { browser, node } = shared!;
    const w = await openPage(browser);
    await withToken(w, node.url, 'integrations');
    const res = await fetch(`${node.url}/setup/integrations`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const { integrations } = (await res.json()) as {
      integrations: Array<{
        key: string;
        requirements: Array<{ label: string; present: boolean; resolved: string | null }>;
      }>;
    };
    const hit = integrations
      .flatMap((i) => i.requirements.map((r) => ({ key: i.key, ...r })))
      .find((r) => r.present && r.resolved === null);
    if (hit === undefined) throw new Error('the example company has no unresolved reference');
    const details = w.page.locator('details', { has: w.page.locator(`summary:text("${hit.key}")`) });
    await details.locator('summary').click();
    const item = details.locator('li', { hasText: hit.label }).first();
    await item.waitFor();
    t.match(await item.textContent(), /unresolved/, `${hit.key}: ${hit.label} says it is unresolved`);
    t.notMatch(await item.textContent(), /present/, 'not present');
    t.same(w.errors, []);
  },
);

t.test(
  'a required secret the store holds under a key this node lacks shows unreadable, naming the key',
  needsChromium,
  async (t) => {
    const { browser } = shared!;
    const node = await startCompanyNode(t, { extra: KEYRING });
    // Written while the node is stopped (the memory engine's store is single-process), as a node with
    // another keyring would have sealed it.
    node.run.kill('SIGTERM');
    await node.run.exited;
    const bus = await openBus({
      type: 'memory',
      storeDir: join(dirname(node.configFile), 'data'),
      existingStore: true,
    });
    const name = 'SVC_MONITOR_WEBHOOK_TOKEN';
    const record = {
      v: 1,
      name,
      sealed: seal(foreign, 'sealed-elsewhere-0123456789abcdef', secretAad(name)),
      key_id: 'k9',
      updated_at: new Date().toISOString(),
      updated_by: 'ops',
      source: 'api',
    };
    const catalogue = await ensureCatalogue(bus);
    await catalogue.secrets.put(name, new TextEncoder().encode(JSON.stringify(record)));
    await bus.close();
    await node.restart();

    const w = await openPage(browser);
    await withToken(w, node.url, 'integrations');
    const details = w.page.locator('details', { has: w.page.locator('summary:text("monitor")') });
    await details.locator('summary').click();
    const item = details.locator('li', { hasText: 'unreadable' }).first();
    await item.waitFor();
    t.match(await item.textContent(), /sealed under key k9, which this node's keyring lacks/);
    t.notMatch(await item.textContent(), /missing|unresolved/, 'neither missing nor unresolved');
    t.same(w.errors, []);
  },
);
