/**
 * The room is in the address (ops/dashboard.md; README "Dashboard"): a deep link opens it, the browser's back
 * and forward move between rooms and a feed filter, and a reload keeps the room and its filter. At 375 px (a
 * phone) every room is usable: nothing scrolls sideways and the room list stays reachable. Against a real
 * `svc serve` running the example company.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode, TOKEN } from './fixtures/company-node.js';

const shared =
  needsChromium.skip === false ? { browser: await startBrowser(t), node: await startCompanyNode(t) } : null;

t.test(
  'deep links, back and forward, and a reload restore the room and its filter',
  needsChromium,
  async (t) => {
    const { browser, node } = shared!;
    const w = await openPage(browser);
    const base = `${node.url}/dashboard`;
    const heading = () => w.page.locator('main h1.room-title').textContent();
    await w.page.goto(`${base}#/feed?category=system`);
    await w.page.waitForSelector('[data-link="live"]');
    t.equal(await heading(), 'Feed', 'a deep link opens its room');
    const category = w.page.getByLabel('Category', { exact: false }).first();
    t.equal(await category.inputValue(), 'system', 'with the filter it names');

    await w.page
      .getByRole('navigation', { name: 'Rooms' })
      .getByRole('link', { name: /Org chart/ })
      .click();
    await w.page.waitForFunction(`document.querySelector('main h1')?.textContent === 'Org chart'`);
    await w.page.goBack();
    await w.page.waitForFunction(`document.querySelector('main h1')?.textContent === 'Feed'`);
    t.equal(await category.inputValue(), 'system', 'back returns to the feed with its filter');
    await w.page.goForward();
    await w.page.waitForFunction(`document.querySelector('main h1')?.textContent === 'Org chart'`);
    t.pass('forward returns to the org chart');

    await w.page.goto(`${base}#/seat/iris-chen`);
    await w.page.waitForSelector('[data-link="live"]');
    await w.page.reload();
    await w.page.waitForSelector('[data-link="live"]');
    t.equal(await heading(), 'Seat', 'a reload keeps the room');
    t.match(await w.page.title(), /iris-chen/, 'and the seat it shows');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);

t.test('at 375 px every room fits the width and the room list is reachable', needsChromium, async (t) => {
  const { browser, node } = shared!;
  const w = await openPage(browser);
  await w.page.addInitScript(`sessionStorage.setItem('svc.token', '${TOKEN}')`);
  await w.page.setViewportSize({ width: 375, height: 700 });
  const overflow = (): Promise<number> =>
    w.page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  for (const room of [
    'overview',
    'org',
    'seat/iris-chen',
    'feed',
    'spend',
    'schedules',
    'integrations',
    'config',
    'tools',
    'fleet',
    'board',
    'pages',
  ]) {
    await w.page.goto(`${node.url}/dashboard#/${room}`);
    await w.page.waitForSelector('[data-link="live"]');
    await w.page.locator('main [aria-busy="true"]').first().waitFor({ state: 'detached' });
    t.equal(await overflow(), 0, `${room}: nothing scrolls sideways`);
    const link = w.page.getByRole('navigation', { name: 'Rooms' }).getByRole('link').first();
    t.ok(await link.isVisible(), `${room}: the room list is shown`);
  }
  t.same(await w.violations(), []);
  t.same(w.errors, []);
});
