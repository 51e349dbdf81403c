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

t.test(
  'the seat picker moves its choice with the arrow keys and opens a seat only on Enter',
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const node = await startCompanyNode(t);
    const w = await openPage(browser);
    await w.page.goto(`${node.url}/dashboard#/seat/iris-chen`);
    await w.page.waitForSelector('[data-link="live"]');
    await w.page.locator('section[aria-label="Iris Chen"]').waitFor();
    const picker = w.page.locator('.picker select');
    const options = await picker
      .locator('option')
      .evaluateAll((all) => all.map((o) => (o as unknown as { value: string }).value));
    const at = options.indexOf('iris-chen');
    t.ok(at >= 0 && options.length > at + 2, 'the company has seats after the first');
    await picker.focus();
    await w.page.keyboard.press('ArrowDown');
    await w.page.keyboard.press('ArrowDown');
    t.equal(await picker.inputValue(), options[at + 2], 'the arrows move the choice');
    t.match(w.page.url(), /#\/seat\/iris-chen$/, 'moving through the seats opens none of them');
    t.ok(await w.page.locator('section[aria-label="Iris Chen"]').isVisible(), 'the open seat stays');
    t.ok(
      await picker.evaluate((el) => el === (el.ownerDocument.activeElement as unknown)),
      'the focus stays on the picker',
    );
    await w.page.keyboard.press('Enter');
    await w.page.waitForURL(new RegExp(`#/seat/${options[at + 2]}$`));
    t.pass('Enter opens the chosen seat');
    t.ok(
      await picker.evaluate((el) => el === (el.ownerDocument.activeElement as unknown)),
      'the focus stays on the picker after',
    );

    // Choosing with the arrows and leaving (Tab) opens nothing and puts the picker back on the open seat.
    await w.page.keyboard.press('ArrowUp');
    await w.page.keyboard.press('Tab');
    t.match(w.page.url(), new RegExp(`#/seat/${options[at + 2]}$`), 'leaving the picker opens nothing');
    t.equal(await picker.inputValue(), options[at + 2], 'the picker shows the open seat again');

    // The open list (Alt+Down) takes the arrows; its Enter picks and opens the seat.
    await picker.focus();
    await w.page.keyboard.press('Alt+ArrowDown');
    await w.page.keyboard.press('ArrowDown');
    await w.page.keyboard.press('Enter');
    await w.page.waitForURL(new RegExp(`#/seat/${options[at + 3]}$`), { timeout: 5_000 });
    t.pass("the open list's pick opens the seat");
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);
