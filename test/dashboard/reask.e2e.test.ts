/**
 * Rooms ask their questions again by themselves: after a token is entered on a node whose reads are off,
 * and after the node restarts (the socket reconnects with a fresh snapshot), without a reload.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser, type WatchedPage } from '../harness/browser.js';
import { startCompanyNode, TOKEN } from './fixtures/company-node.js';

const browser = needsChromium.skip === false ? await startBrowser(t) : null;

/** What a browser logs, unasked, while its server is away or before the token: refused loads. */
const expected =
  /status of 401|WebSocket connection to .* failed|Failed to load resource|ERR_CONNECTION_REFUSED/;

async function room(w: WatchedPage, url: string, hash: string): Promise<void> {
  await w.page.goto(`${url}/dashboard#/${hash}`);
}

/** Each room, what it shows once its questions are answered. */
const answered: Array<[string, string]> = [
  ['feed', 'ol.feed li'],
  ['spend', 'text=tokens in'],
  ['integrations', 'table:has(caption:text("Webhook receivers"))'],
  ['board', 'text=has no native work tracker'],
  ['pages', 'text=has no native knowledge base'],
];

t.test('entering a token answers the questions the open room was refused', needsChromium, async (t) => {
  const node = await startCompanyNode(t, { anonymousRead: false });
  const w = await openPage(browser!);
  const main = w.page.locator('main');
  for (const [hash, selector] of answered) {
    await room(w, node.url, hash);
    await main.locator('text=/needs an operator token/').first().waitFor();
    await w.page.getByLabel('Operator token').fill(TOKEN);
    await w.page.getByRole('button', { name: 'Use token' }).click();
    await main.locator(selector).first().waitFor();
    t.equal(
      await main.locator('text=/needs an operator token/').count(),
      0,
      `${hash} answers with the token`,
    );
    await w.page.getByRole('button', { name: 'Forget token' }).click();
    await w.page.getByLabel('Operator token').waitFor();
  }
  t.same(await w.violations(), []);
  t.same(
    w.errors.filter((e) => !expected.test(e)),
    [],
  );
});

t.test('questions lost while the node was down are asked again once it is back', needsChromium, async (t) => {
  const node = await startCompanyNode(t);
  const context = await browser!.newContext();
  t.teardown(() => context.close());
  const pages = await Promise.all(answered.map(() => context.newPage()));
  for (const page of pages) {
    await page.goto(`${node.url}/dashboard#/org`);
    await page.waitForSelector('[data-link="live"]');
  }
  node.run.kill('SIGTERM');
  await node.run.exited;
  for (const [i, [hash]] of answered.entries()) {
    const page = pages[i]!;
    await page.waitForSelector('[data-link="offline"]');
    await page.evaluate(`location.hash = '#/${hash}'`);
    await page.locator('main >> text=/Failed to fetch|not read|not answered/').first().waitFor();
  }
  t.pass('every room says it could not ask while the node is away');
  await node.restart();
  for (const [i, [hash, selector]] of answered.entries()) {
    const page = pages[i]!;
    await page.waitForSelector('[data-link="live"]', { timeout: 60_000 });
    await page.locator('main').locator(selector).first().waitFor();
    t.equal(await page.locator('main >> text=/Failed to fetch/').count(), 0, `${hash} answers again`);
  }
});
