/**
 * A node that drains says so on the page: once it has told the page it is stopping (its socket closed as
 * "going away", its health `shutting_down`, a 503 `draining`), the page names the drain instead of reading it
 * as a node that does not answer.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode } from './fixtures/company-node.js';

/** What a browser logs, unasked, while its node is away. */
const expected = /WebSocket connection to .* failed|Failed to load resource|ERR_CONNECTION_REFUSED/;

t.test(
  'a draining node is named as draining, not as a node that does not answer',
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const node = await startCompanyNode(t);
    const w = await openPage(browser);
    await w.page.goto(`${node.url}/dashboard#/overview`);
    await w.page.waitForSelector('[data-link="live"]');
    node.run.kill('SIGTERM');
    const notice = w.page.locator('main p.notice[role="alert"]');
    await notice.filter({ hasText: 'The node is shutting down (draining)' }).waitFor();
    t.notMatch(
      await notice.textContent(),
      /does not answer/,
      'the drain is not taken for a node gone missing',
    );
    t.same(
      w.errors.filter((e) => !expected.test(e)),
      [],
    );
  },
);
