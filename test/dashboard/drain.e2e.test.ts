/**
 * A node that drains says so on the page: once it has told the page it is stopping (its socket closed as
 * "going away", its health `shutting_down`, a 503 `draining`), the page names the drain instead of reading it
 * as a node that does not answer.
 */
import t from 'tap';
import { needsChromium, openPage, pauseAhead, startBrowser } from '../harness/browser.js';
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

t.test(
  'a drained node that never comes back reads as a node that does not answer once a minute has passed',
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const node = await startCompanyNode(t);
    const w = await openPage(browser);
    await w.page.clock.install();
    await w.page.goto(`${node.url}/dashboard#/overview`);
    await w.page.waitForSelector('[data-link="live"]');
    node.run.kill('SIGTERM');
    const notice = w.page.locator('main p.notice[role="alert"]');
    await notice.filter({ hasText: 'The node is shutting down (draining)' }).waitFor();
    await node.run.exited;
    // The page's time stops; each step runs it to the next poll of /stream/snapshot and waits for that poll
    // to fail (the node is gone), so the page has read the failure before the notice is read.
    await pauseAhead(w.page, 1_000);
    const failedPoll = async (): Promise<void> => {
      const failed = w.page.waitForEvent('requestfailed', (r) => r.url().endsWith('/stream/snapshot'));
      await w.page.clock.runFor(5_000);
      await failed;
    };
    for (let i = 0; i < 6; i++) await failedPoll();
    t.match(
      await notice.textContent(),
      /The node is shutting down \(draining\)/,
      'half a minute of failed reconnects still reads as the drain',
    );
    // Then a poll at a time, at most ten more (80 s in all), until the drain is no longer said.
    const down = notice.filter({ hasText: 'The node does not answer; retrying.' });
    for (let i = 0; i < 10 && (await down.count()) === 0; i++) await failedPoll();
    await down.waitFor();
    t.notMatch(
      await notice.textContent(),
      /draining/,
      'past a minute unanswered, the drain is no longer said',
    );
    t.equal(
      await w.page.locator('[data-link]').getAttribute('data-link'),
      'offline',
      'and the link reads offline',
    );
    t.same(
      w.errors.filter((e) => !expected.test(e)),
      [],
    );
  },
);
