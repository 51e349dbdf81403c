/**
 * The feed pages by keyboard: Older and Newer keep the focus they were pressed with, even when the page
 * they lead to leaves nothing further that way (a disabled button would drop the focus to the page).
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
  await w.page.goto(`${node.url}/dashboard#/feed?category=system`);
  await w.page.waitForSelector('[data-link="live"]');
  const focused = () => w.page.evaluate<string | null>('document.activeElement?.textContent ?? null');
  const older = w.page.getByRole('button', { name: 'Older' });
  const newer = w.page.getByRole('button', { name: 'Newer' });
  await w.page.locator('ol.feed li').nth(49).waitFor();
  const first = w.page.locator('ol.feed li .summary').first();
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
