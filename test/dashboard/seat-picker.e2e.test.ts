/**
 * The seat room's picker on the page of a handle the company does not have says so, rather than showing the
 * first seat as chosen: choosing that first seat then opens it (a select already showing it would fire
 * nothing).
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode } from './fixtures/company-node.js';

t.test(
  "on an unknown seat's page, the picker names it and opens the first seat",
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const node = await startCompanyNode(t);
    const w = await openPage(browser);
    await w.page.goto(`${node.url}/dashboard#/seat/nobody`);
    await w.page.waitForSelector('[data-link="live"]');
    await w.page.getByText('No seat nobody in this company.').waitFor();
    const picker = w.page.locator('.picker select');
    t.equal(await picker.inputValue(), 'nobody', 'the picker shows the handle the page is about');
    t.match(await picker.locator('option:checked').textContent(), /nobody.*not in this company/);
    await picker.selectOption('iris-chen');
    await w.page.waitForURL(/#\/seat\/iris-chen$/);
    await w.page.locator('section[aria-label="Iris Chen"]').waitFor();
    t.pass('the first seat opens');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);
