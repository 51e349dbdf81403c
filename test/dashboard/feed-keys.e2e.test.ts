/**
 * The feed by keyboard and screen reader: Older and Newer keep the focus they were pressed with, even when
 * the page they lead to leaves nothing further that way (a disabled button would drop the focus to the
 * page), each row's trace and payload buttons name their event, so a list of buttons tells them apart, a
 * trace closes with Escape and hands the focus back to its row, and a failed event says so in words.
 */
import t from 'tap';
import { ensureCatalogue, newEvent, openBus, publishEvent } from '../../bus/index.js';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startFleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';
import { patchCompany, startCompanyNode } from './fixtures/company-node.js';

t.test('paging the feed by keyboard keeps the focus on the pager', needsChromium, async (t) => {
  const browser = await startBrowser(t);
  const node = await startCompanyNode(t);
  // More than one page (50 rows) of feed events: every apply is one.
  for (let i = 0; i < 55; i++) await patchCompany(node.url, { mission: `Mission ${i}` }, `mission ${i}`);
  const w = await openPage(browser);
  await w.page.goto(`${node.url}/dashboard#/feed?type=ConfigRevisionApplied`);
  await w.page.waitForSelector('[data-link="live"]');
  const focused = () => w.page.evaluate<string | null>('document.activeElement?.textContent ?? null');
  const older = w.page.getByRole('button', { name: 'Older' });
  const newer = w.page.getByRole('button', { name: 'Newer' });
  await w.page.locator('ol.feed li').nth(49).waitFor();
  const first = w.page.locator('ol.feed li .summary').first();
  // Every apply has arrived: the first page stops moving.
  await first.filter({ hasText: '(epoch 56)' }).waitFor();
  const newest = (await first.textContent()) ?? '';

  await older.focus();
  await w.page.keyboard.press('Enter');
  // On an older page.
  await first.filter({ hasNotText: newest }).waitFor();
  t.equal(await focused(), 'Older', 'Older keeps the focus');

  await newer.focus();
  await w.page.keyboard.press('Enter');
  // Back on the first page.
  await first.filter({ hasText: newest }).waitFor();
  await w.page.locator('ol.feed li').nth(49).waitFor();
  t.equal(await focused(), 'Newer', 'Newer keeps the focus on the first page, where it leads nowhere');
  // Pressed again where it leads nowhere, it does nothing.
  await w.page.keyboard.press('Enter');
  t.equal(await w.page.locator('ol.feed li').count(), 50);

  // A trace opened from an older page opens over it: closed, the same page is still there.
  await older.focus();
  await w.page.keyboard.press('Enter');
  await first.filter({ hasNotText: newest }).waitFor();
  const olderFirst = (await first.textContent()) ?? '';
  await w.page
    .locator('ol.feed')
    .getByRole('button', { name: /^trace/ })
    .first()
    .click();
  await w.page.getByRole('button', { name: 'Close trace' }).click();
  await w.page.locator('.trace-card').waitFor({ state: 'detached' });
  t.equal(await first.textContent(), olderFirst, 'the older page stays open under the trace');
  t.same(await w.violations(), []);
  t.same(w.errors, []);
});

t.test('each trace and payload button names its event', needsChromium, async (t) => {
  const browser = await startBrowser(t);
  const node = await startCompanyNode(t);
  const w = await openPage(browser);
  await w.page.goto(`${node.url}/dashboard#/feed`);
  await w.page.waitForSelector('[data-link="live"]');
  const traces = w.page.locator('ol.feed').getByRole('button', { name: /^trace/ });
  // The apply's own event: alarms the revision raises may be recorded before it or after (a slow apply).
  const applied = w.page
    .locator('ol.feed')
    .getByRole('button', { name: /^trace of ConfigRevisionApplied at / });
  await applied.first().waitFor();
  await traces.nth(1).waitFor();
  const names: Array<string | null> = [];
  for (let i = 0; i < (await traces.count()); i++) names.push(await traces.nth(i).getAttribute('aria-label'));
  t.ok(names.length >= 2, 'more than one row has a trace');
  t.equal(new Set(names).size, names.length, `no two trace buttons share a name: ${names.join(' | ')}`);
  t.match(
    await applied.first().getAttribute('aria-label'),
    /^trace of ConfigRevisionApplied at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+: revision .* applied/,
  );
  await applied.first().click();
  const payload = w.page
    .locator('.trace')
    .getByRole('button', { name: /^payload of ConfigRevisionApplied at / });
  await payload.first().waitFor();
  t.pass("the trace's payload button names its event");
  t.same(await w.violations(), []);
  t.same(w.errors, []);
});

t.test(
  'a trace closes with Escape or its button, and the focus goes back to the row that opened it',
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const node = await startCompanyNode(t);
    for (let i = 0; i < 3; i++) await patchCompany(node.url, { mission: `Mission ${i}` }, `mission ${i}`);
    const w = await openPage(browser);
    await w.page.goto(`${node.url}/dashboard#/feed?type=ConfigRevisionApplied`);
    await w.page.waitForSelector('[data-link="live"]');
    const opener = w.page
      .locator('ol.feed')
      .getByRole('button', { name: /^trace/ })
      .nth(2);
    await opener.waitFor();
    const name = await opener.getAttribute('aria-label');
    const focused = () =>
      w.page.evaluate<string | null>('document.activeElement?.getAttribute("aria-label") ?? null');

    await opener.focus();
    await w.page.keyboard.press('Enter');
    await w.page.locator('.trace li').first().waitFor();
    await w.page.keyboard.press('Escape');
    await w.page.locator('.trace-card').waitFor({ state: 'detached' });
    t.pass('Escape closes the trace');
    t.equal(await focused(), name, 'the focus is back on the trace button that opened it');

    await w.page.keyboard.press('Enter');
    await w.page.getByRole('button', { name: 'Close trace' }).focus();
    await w.page.keyboard.press('Enter');
    await w.page.locator('.trace-card').waitFor({ state: 'detached' });
    t.equal(await focused(), name, 'so it is after Close trace');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);

t.test('a failed event says failed in words, in the feed and the overview', needsChromium, async (t) => {
  const browser = await startBrowser(t);
  const nats = await startNatsServer({ t });
  const node = await startFleetNode(t, 'failed-1', nats.url);
  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'small' },
    body: JSON.stringify({
      name: 'Failing Co',
      mission: 'Say what failed',
      timezone: 'UTC',
      units: [{ name: 'Ops', type: 'team', roles: [{ name: 'Ada Lane', goal: 'Answer.' }] }],
    }),
  });
  t.equal(put.status, 201);
  const bus = await openBus({ type: 'jetstream', url: nats.url });
  t.teardown(() => bus.close());
  await ensureCatalogue(bus);
  const event = (summary: string, failed: boolean) =>
    newEvent({ type: 'TaskCreated', category: 'task', source: 'test', summary, actor: 'test', failed });
  await publishEvent(bus, event('the sweep went fine', false));
  await publishEvent(bus, event('the sweep broke', true));
  const w = await openPage(browser);
  await w.page.goto(`${node.url}/dashboard#/feed`);
  await w.page.waitForSelector('[data-link="live"]');
  const row = (text: string) => w.page.locator('ol.feed li').filter({ hasText: text });
  await row('the sweep broke').waitFor();
  t.match(await row('the sweep broke').innerText(), /\bfailed\b/, 'the failed row says failed');
  t.notMatch(await row('the sweep went fine').innerText(), /\bfailed\b/, 'the other does not');
  await w.page.goto(`${node.url}/dashboard#/overview`);
  const mini = w.page
    .locator('section[aria-label="Latest events"] li')
    .filter({ hasText: 'the sweep broke' });
  await mini.waitFor();
  t.match(await mini.innerText(), /\bfailed\b/, 'so does its line in the overview');
  t.same(await w.violations(), []);
  t.same(w.errors, []);
});
