/**
 * Page structure in a real browser: every room has one <h1>, nothing scrolls sideways at 360 px (nor for
 * one long word a document, the feed or the address holds), a trace opened from a row far down the feed
 * comes into view with the focus, the config diff of two revisions that differ only in a secret value lists
 * that change without its values, and an unconfigured node's header names the product.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser, type WatchedPage } from '../harness/browser.js';
import { patchCompany, startCompanyNode, TOKEN } from './fixtures/company-node.js';

const shared =
  needsChromium.skip === false ? { browser: await startBrowser(t), node: await startCompanyNode(t) } : null;

const rooms = [
  'overview',
  'org',
  'seat',
  'feed',
  'spend',
  'schedules',
  'integrations',
  'config',
  'tools',
  'fleet',
  'board',
  'pages',
];

async function withToken(w: WatchedPage): Promise<void> {
  await w.page.getByLabel('Operator token').fill(TOKEN);
  await w.page.getByRole('button', { name: 'Use token' }).click();
  await w.page.waitForSelector('text=operator token held for this tab');
}

t.test('every room has one h1 naming it', needsChromium, async (t) => {
  const { browser, node } = shared!;
  const w = await openPage(browser);
  for (const room of rooms) {
    await w.page.goto(`${node.url}/dashboard#/${room}`);
    await w.page.waitForSelector('[data-link="live"]');
    const label = await w.page.locator('main').getAttribute('aria-label');
    t.same(await w.page.locator('h1').allTextContents(), [label], `${room}: one h1, "${label}"`);
  }
});

t.test(
  'nothing scrolls sideways at 360 px: the config diff selects and the seat picker',
  needsChromium,
  async (t) => {
    const { browser, node } = shared!;
    await patchCompany(
      node.url,
      { mission: 'Narrow screens.' },
      'a revision whose summary is long enough to be wider than any phone screen held upright',
    );
    const w = await openPage(browser);
    await w.page.setViewportSize({ width: 360, height: 740 });
    await w.page.goto(`${node.url}/dashboard#/config`);
    await withToken(w);
    await w.page.getByLabel('From').waitFor();
    const overflow = (): Promise<number> =>
      w.page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    t.equal(await overflow(), 0, 'config');
    await w.page.goto(`${node.url}/dashboard#/seat/iris-chen`);
    await w.page.locator('.picker select').waitFor();
    t.equal(await overflow(), 0, 'seat');
  },
);

t.test(
  'a trace opened from a lower row of the feed comes into view with the focus',
  needsChromium,
  async (t) => {
    const { browser, node } = shared!;
    for (let i = 0; i < 8; i++) await patchCompany(node.url, { mission: `Mission ${i}.` }, `mission ${i}`);
    const w = await openPage(browser);
    await w.page.setViewportSize({ width: 1280, height: 420 });
    await w.page.goto(`${node.url}/dashboard#/feed`);
    const traces = w.page.locator('ol.feed').getByRole('button', { name: 'trace' });
    await traces.nth(5).waitFor();
    const last = traces.last();
    await last.scrollIntoViewIfNeeded();
    await last.click();
    const card = w.page.locator('.trace-card');
    await card.waitFor();
    t.ok(
      await w.page.evaluate<boolean>(
        `(() => { const c = document.querySelector('.trace-card'); return c !== null && c.contains(document.activeElement); })()`,
      ),
      'the focus moved to the trace',
    );
    const box = await card.boundingBox();
    t.ok(box !== null && box.y >= -1 && box.y < 420, `the trace card is in view (top at ${box?.y})`);
    t.same(w.errors, []);
  },
);

t.test(
  'two revisions that differ only in a secret value list that change, both values redacted',
  needsChromium,
  async (t) => {
    const { browser, node } = shared!;
    const secret = (c: string) => ({ integrations: { codehost_a: { webhook_secret: c.repeat(40) } } });
    await patchCompany(node.url, secret('a'), 'first secret');
    await patchCompany(node.url, secret('b'), 'second secret');
    const w = await openPage(browser);
    await w.page.goto(`${node.url}/dashboard#/config`);
    await withToken(w);
    await w.page.locator('text=The secret value changed; both values stay redacted.').waitFor();
    t.equal(
      await w.page.locator('.diff code', { hasText: 'integrations.codehost_a.webhook_secret' }).count(),
      1,
    );
    t.equal(await w.page.locator('text=The two documents are the same').count(), 0);
    t.notMatch(await w.page.content(), /aaaaaaaaaa|bbbbbbbbbb/, 'neither value reaches the page');
    t.same(w.errors, []);
  },
);

t.test(
  'one long word from the document, the feed or the address wraps: nothing scrolls sideways at 360 or 1280 px',
  needsChromium,
  async (t) => {
    const { browser, node } = shared!;
    const url = `https://example.com/${'abcdefghij'.repeat(18)}`;
    await patchCompany(node.url, { mission: `See ${url}.` }, `links ${url}`);
    const w = await openPage(browser);
    const overflow = (): Promise<number> =>
      w.page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    for (const width of [360, 1280]) {
      await w.page.setViewportSize({ width, height: 740 });
      for (const hash of ['org', 'feed', `feed?trace=${'f'.repeat(300)}`, `seat/${'z'.repeat(300)}`]) {
        await w.page.goto(`${node.url}/dashboard#/${hash}`);
        await w.page.waitForSelector('[data-link="live"]');
        await w.page.locator('main [aria-busy="true"]').first().waitFor({ state: 'detached' });
        t.equal(await overflow(), 0, `${width} px, ${hash.slice(0, 20)}`);
      }
    }
    t.match(await w.page.textContent('main'), /zzzzzzzzzz/, 'the long handle is shown, wrapped');
  },
);

t.test('an unconfigured node is named svc in the header', needsChromium, async (t) => {
  const { browser } = shared!;
  const node = await startCompanyNode(t, { bare: true });
  const w = await openPage(browser);
  await w.page.goto(`${node.url}/dashboard#/overview`);
  await w.page.waitForSelector('[data-link="live"]');
  await w.page.waitForSelector('text=This node has no company yet');
  t.equal(await w.page.locator('header .company').textContent(), 'svc');
});
