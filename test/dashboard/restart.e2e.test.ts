/** The dashboard recovers by itself, without a reload, after its node drains and starts again. */
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { patchCompany, startCompanyNode } from './fixtures/company-node.js';

/** What a browser logs, unasked, while its server is away: the refused socket and polls. */
const whileAway = /WebSocket connection to .* failed|Failed to load resource|ERR_CONNECTION_REFUSED/;

t.test('the page recovers by itself after its node restarts', needsChromium, async (t) => {
  const browser = await startBrowser(t);
  const node = await startCompanyNode(t);
  const w = await openPage(browser);
  await w.page.goto(`${node.url}/dashboard#/org`);
  await w.page.waitForSelector('[data-link="live"]');

  node.run.kill('SIGTERM');
  t.equal(await node.run.exited, 0, 'the node drained and stopped');
  await w.page.waitForSelector('[data-link]:not([data-link="live"])');
  t.pass('the page shows it lost the node');
  t.match(
    await w.page.textContent('section[aria-label="Org chart"]'),
    /Theo Park/,
    'what it had stays on screen',
  );

  await node.restart();
  await w.page.waitForSelector('[data-link="live"]', { timeout: 60_000 });
  t.pass('back live without a reload');
  // The new socket is a working one: a write after the restart reaches the page.
  await patchCompany(node.url, { mission: 'Back after the restart.' }, 'after restart');
  await w.page.waitForSelector('text=Back after the restart.');
  t.same(await w.violations(), []);
  t.same(
    w.errors.filter((e) => !whileAway.test(e)),
    [],
    'no error beyond the refused connections while the node was away',
  );
});
