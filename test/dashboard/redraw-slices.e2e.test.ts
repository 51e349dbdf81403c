/**
 * A frame redraws what shows it and nothing else: the node's 5 s health pulse redraws the node's card, not
 * the latest events; an event redraws the latest events, not the node's health. The page's clock is
 * Playwright's, stopped; once the page is drawn the node's own frames are held back by a route on the
 * page's socket and the test sends its own. A redraw is seen through the relative times: the clock is run
 * a few seconds past their shared tick, so any <Ago> drawn again reads a new age, and the DOM mutations
 * under each region of the page are counted.
 */
import t from 'tap';
import { needsChromium, openPage, pauseAhead, startBrowser } from '../harness/browser.js';
import { startCompanyNode } from './fixtures/company-node.js';
import { holdableStream } from './fixtures/held-stream.js';

/** Mutations since the last call, by region: the header, each card of the room by its name, or `room`. */
const takeMutations = `(() => {
  const seen = window.__mutations ?? {};
  window.__mutations = {};
  return seen;
})()`;

const watch = `
  window.__mutations = {};
  new MutationObserver((records) => {
    for (const r of records) {
      const at = r.target.nodeType === Node.ELEMENT_NODE ? r.target : r.target.parentElement;
      const card = at && at.closest('main section[aria-label]');
      const region = !at ? 'detached' : at.closest('header') ? 'header' : card ? card.getAttribute('aria-label') : at.closest('main') ? 'room' : 'page';
      window.__mutations[region] = (window.__mutations[region] ?? 0) + 1;
    }
  }).observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true });
`;

t.test(
  'a health frame redraws only what shows health, an event frame only what shows events',
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const node = await startCompanyNode(t);
    const w = await openPage(browser);
    const stream = await holdableStream(w.page);
    await w.page.clock.install();
    await w.page.goto(`${node.url}/dashboard#/overview`);
    await w.page.waitForSelector('[data-link="live"]');
    const nodeCard = w.page.locator('section[aria-label="Node"]');
    await nodeCard.locator('.stat', { hasText: 'started' }).filter({ hasText: /ago$/ }).waitFor();
    await pauseAhead(w.page, 1_000);
    stream.hold();
    const health = stream.snapshotHealth();
    t.ok(health, 'the snapshot carried the health section');
    const send = stream.send;
    const now = (): Promise<number> => w.page.evaluate<number>('Date.now()');
    const event = async (id: string, summary: string): Promise<void> =>
      send('event', {
        id,
        type: 'ProbeRaised',
        source: 'test',
        timestamp: new Date(await now()).toISOString(),
        category: 'system',
        summary,
        actor: null,
        trace_id: null,
        failed: false,
      });

    const latest = w.page.locator('section[aria-label="Latest events"] li').first();
    await event('probe-1', 'first probe');
    await w.page.clock.runFor(100);
    await latest.filter({ hasText: /^0s ago .*first probe$/ }).waitFor();
    // Found the relative times' shared tick (10 s): step until it redraws the probe's age.
    for (let i = 0; i < 12 && /^0s ago/.test((await latest.textContent()) ?? ''); i++)
      await w.page.clock.runFor(1_000);
    t.notMatch(await latest.textContent(), /^0s ago/, 'the relative times ticked');
    // Three seconds past the tick: whatever draws a relative time again now changes its words.
    await w.page.clock.runFor(3_000);
    await w.page.evaluate(watch);

    send('health', { ...health, clients: 7 });
    await w.page.clock.runFor(100);
    await nodeCard.locator('.stat', { hasText: 'dashboards' }).filter({ hasText: /7$/ }).waitFor();
    const onHealth = await w.page.evaluate<Record<string, number>>(takeMutations);
    t.ok(onHealth['Node'], 'the health frame redrew the node card');
    t.same(
      Object.keys(onHealth).filter((region) => region !== 'Node'),
      [],
      `the health frame touched nothing else (${JSON.stringify(onHealth)})`,
    );

    // Two seconds more (still short of the next tick): the node card's age would now read anew too.
    await w.page.clock.runFor(2_000);
    t.same(await w.page.evaluate(takeMutations), {}, 'nothing is drawn while nothing arrives');
    await event('probe-2', 'second probe');
    await w.page.clock.runFor(100);
    await latest.filter({ hasText: /second probe$/ }).waitFor();
    const onEvent = await w.page.evaluate<Record<string, number>>(takeMutations);
    t.ok(onEvent['Latest events'], 'the event frame redrew the latest events');
    t.notOk(onEvent['header'], `the event left the header untouched (${JSON.stringify(onEvent)})`);
    t.notOk(onEvent['Node'], `the event left the node's health untouched (${JSON.stringify(onEvent)})`);
    t.same(
      Object.keys(onEvent).filter((region) => region !== 'Latest events'),
      [],
      'the event frame touched nothing else',
    );
    t.same(w.errors, []);
  },
);
