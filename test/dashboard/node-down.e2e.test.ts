/**
 * A room that asks while its node is down keeps what it showed, marked as an earlier answer, instead of
 * replacing it with the browser's "Failed to fetch": the fleet room asks again when its link goes offline, over
 * HTTP, and gets no answer at all.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode, TOKEN } from './fixtures/company-node.js';

/** What a browser logs, unasked, while its node is away. */
const whileAway = /WebSocket connection to .* failed|Failed to load resource|ERR_CONNECTION_REFUSED/;

t.test(
  'the fleet room keeps its last answer, marked stale, while its node does not answer',
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const node = await startCompanyNode(t, { bare: true });
    const w = await openPage(browser);
    await w.page.addInitScript(`sessionStorage.setItem('svc.token', '${TOKEN}')`);
    await w.page.goto(`${node.url}/dashboard#/fleet`);
    await w.page.waitForSelector('[data-link="live"]');
    const nodes = w.page.locator('section[aria-label="Nodes"]');
    await nodes
      .locator('table', { hasText: /^Read / })
      .first()
      .waitFor();

    node.run.kill('SIGKILL');
    await node.run.exited;
    await w.page.waitForSelector('[data-link="offline"]');
    const stale = nodes.locator('p.notice.stale[role="status"]');
    await stale.waitFor();
    t.match(
      await stale.textContent(),
      /Showing an earlier answer: the fleet was not answered \(disconnected\)/,
    );
    t.equal(
      await nodes.locator('table', { hasText: /^Read / }).count(),
      1,
      'the last answer stays on screen',
    );
    t.notMatch(await nodes.textContent(), /Failed to fetch/, "no browser's words for it");
    t.same(
      w.errors.filter((e) => !whileAway.test(e)),
      [],
    );

    await node.restart();
    await w.page.waitForSelector('[data-link="live"]', { timeout: 60_000 });
    await stale.waitFor({ state: 'detached' });
    t.pass('the mark goes once the node answers again');
  },
);
