/**
 * A refusal from the node reads in the node's words on the page: its detail and its hint (what to do about
 * it), whether the question went up the socket or over HTTP.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode } from './fixtures/company-node.js';

t.test("a refused feed filter shows the node's detail and hint", needsChromium, async (t) => {
  const browser = await startBrowser(t);
  const node = await startCompanyNode(t);
  const refusal = (await (await fetch(`${node.url}/query/events?type=Nope`)).json()) as {
    error: string;
    detail: string;
    hint: string;
  };
  t.equal(refusal.error, 'bad_params');
  t.ok(refusal.hint, 'the node gives a hint');

  const w = await openPage(browser);
  await w.page.goto(`${node.url}/dashboard#/feed?type=Nope`);
  await w.page.waitForSelector('[data-link="live"]');
  const alert = w.page.locator('main [role="alert"]');
  await alert.waitFor();
  const text = await alert.textContent();
  t.match(text, refusal.detail, 'the detail');
  t.match(text, refusal.hint, 'the hint, asked on the socket');
  t.same(await w.violations(), []);

  // The socket refused: the page polls, and asks over HTTP.
  const polled = await openPage(browser);
  await polled.page.routeWebSocket(/\/ws\/stream/, (ws) => ws.close());
  await polled.page.goto(`${node.url}/dashboard#/feed?type=Nope`);
  await polled.page.waitForSelector('[data-link="polling"]');
  const polledAlert = polled.page.locator('main [role="alert"]', { hasText: 'bad_params' });
  await polledAlert.waitFor();
  const polledText = await polledAlert.textContent();
  t.match(polledText, refusal.detail, 'the detail over HTTP');
  t.match(polledText, refusal.hint, 'the hint over HTTP');
});
