/**
 * The feed by keyboard and screen reader: Older and Newer keep the focus they were pressed with, even when
 * the page they lead to leaves nothing further that way (a disabled button would drop the focus to the
 * page), and each row's trace and payload buttons name their event, so a list of buttons tells them apart.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
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
