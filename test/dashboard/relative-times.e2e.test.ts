/**
 * Relative times move on their own: a page to which nothing new arrives still reads "10m ago" ten minutes
 * after "3s ago", and only those words are drawn again. The page's clock is Playwright's (stopped, then run
 * ten minutes at once); once the page is drawn, the node's frames (its five-second health pulse, events)
 * are held back by a route on the page's socket, so nothing but the times' own clock can move them.
 */
import t from 'tap';
import { needsChromium, openPage, pauseAhead, startBrowser } from '../harness/browser.js';
import { until } from '../harness/until.js';
import { startCompanyNode, TOKEN } from './fixtures/company-node.js';

t.test(
  'relative times tick on a quiet page, and nothing else is drawn for them',
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const node = await startCompanyNode(t);
    const w = await openPage(browser);
    let quiet = false;
    await w.page.routeWebSocket(/\/ws\/stream$/, (ws) => {
      const server = ws.connectToServer();
      server.onMessage((message) => {
        // Answers and pongs still pass: the page is quiet, not cut off.
        if (quiet && typeof message === 'string' && !/^\{"kind":"(result|error|pong)"/.test(message)) return;
        ws.send(message);
      });
    });
    await w.page.clock.install();
    await w.page.goto(`${node.url}/dashboard#/overview`);
    await w.page.waitForSelector('[data-link="live"]');
    const card = w.page.locator('section[aria-label="Node"]');
    const started = card.locator('.stat', { hasText: 'started' });
    await started.filter({ hasText: /\bstarted\s*\d+s ago$/ }).waitFor();
    const latest = w.page.locator('section[aria-label="Latest events"] li time').first();
    await latest.filter({ hasText: /^\d+s ago$/ }).waitFor();
    // The node raises the example company's alarms on its first alarm tick after the apply: the card shows
    // them before the page goes quiet, so no alarm is drawn while it is.
    await node.run.waitForLog((l) => l['alarm'] === 'setup_incomplete:codehost_a.webhook_unsigned');
    const raised = node.run.lines.filter(
      (l) => l['component'] === 'alarms' && /^alarm raised/.test(l.msg),
    ).length;
    await until(
      async () =>
        ((await (await fetch(`${node.url}/health`)).json()) as { alarms: { count: number } }).alarms.count,
      (count) => count === raised,
      { timeoutMs: 20_000, everyMs: 100 },
    );
    const alarms = new RegExp(`\\balarms\\s*${raised}\\b`);
    await card.locator('.stat', { hasText: 'alarms' }).filter({ hasText: alarms }).waitFor();

    quiet = true;
    // Every change in the Node card recorded: only the relative time may be drawn again.
    await w.page.evaluate(`
    window.__others = [];
    const card = document.querySelector('section[aria-label="Node"]');
    new MutationObserver((records) => {
      for (const r of records) {
        const at = r.target.nodeType === Node.ELEMENT_NODE ? r.target : r.target.parentElement;
        if (!at || !at.closest('span[title]')) window.__others.push(r.type + ' ' + (at ? at.outerHTML : ''));
      }
    }).observe(card, { childList: true, subtree: true, characterData: true });
  `);
    await pauseAhead(w.page, 1_000);
    await w.page.clock.runFor('10:00');
    await started.filter({ hasText: /\bstarted\s*1[01]m ago$/ }).waitFor();
    t.pass('the node started ten minutes ago, as the overview now says');
    await latest.filter({ hasText: /^1[01]m ago$/ }).waitFor();
    t.pass('the latest event reads ten minutes old');
    t.same(await w.page.evaluate<string[]>('window.__others'), [], 'nothing but the time was drawn again');
    t.same(w.errors, []);
  },
);

t.test(
  "the fleet room's caption says how long ago the fleet was read, moving on a quiet page",
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const node = await startCompanyNode(t, { bare: true });
    const w = await openPage(browser);
    let quiet = false;
    await w.page.routeWebSocket(/\/ws\/stream$/, (ws) => {
      const server = ws.connectToServer();
      server.onMessage((message) => {
        if (quiet && typeof message === 'string' && !/^\{"kind":"(result|error|pong)"/.test(message)) return;
        ws.send(message);
      });
    });
    await w.page.addInitScript(`sessionStorage.setItem('svc.token', '${TOKEN}')`);
    await w.page.clock.install();
    await w.page.goto(`${node.url}/dashboard#/fleet`);
    await w.page.waitForSelector('[data-link="live"]');
    const caption = w.page.locator('section[aria-label="Nodes"] caption').first();
    await caption.filter({ hasText: /^Read (\d+s ago|in \d+s) by \S+$/ }).waitFor();
    quiet = true;
    await pauseAhead(w.page, 1_000);
    await w.page.clock.runFor('10:00');
    // Nothing arrived and nothing was asked again: only the caption's own clock moved it.
    await caption.filter({ hasText: /^Read 1[01]m ago by \S+$/ }).waitFor();
    t.pass('the caption reads ten minutes old');
    t.match(
      await caption.locator('time').getAttribute('title'),
      /^\d{4}-\d{2}-\d{2} /,
      'its time is named in full on hover',
    );
    t.same(w.errors, []);
  },
);
