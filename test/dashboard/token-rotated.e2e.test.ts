/**
 * Where reads need a token, a page without an accepted one asks for it and then waits: it does not keep
 * polling `/stream/snapshot` and reopening the socket, each refused, until one is entered. A token the node
 * stops accepting mid-session (rotated across a restart) is dropped, the page says so and asks again, and
 * the new token brings the room back without a reload. While it waits, the header's link badge (a polite
 * status region) says a token is needed, not that the node is offline: the node is up and answered 401.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import t from 'tap';
import { needsChromium, openPage, pauseAhead, startBrowser, type WatchedPage } from '../harness/browser.js';
import { startCompanyNode, TOKEN } from './fixtures/company-node.js';

const ROTATED = 'rotated-dashboard-token-9876543210';
/** What a browser logs, unasked, for refused and failed connections. */
const refusedLoads = /WebSocket connection to .* failed|Failed to load resource/;

/**
 * The page's requests (fetches and sockets) while its clock runs a minute ahead, paused around it. A probe
 * fetch of `/health` before and after brackets them: the browser reports requests in the order the page made
 * them, so whatever a timer started in that minute is reported before the closing probe.
 */
async function requestsInAMinute(w: WatchedPage): Promise<string[]> {
  const seen: string[] = [];
  const onRequest = (r: { url(): string }): void => void seen.push(new URL(r.url()).pathname);
  const onSocket = (): void => void seen.push('socket');
  const probe = async (): Promise<void> => {
    const probed = w.page.waitForEvent('requestfinished', (r) => r.url().endsWith('/health'));
    await w.page.evaluate("void fetch('/health', { cache: 'no-store' })");
    await probed;
  };
  // The page's clock, run ahead before, is ahead of this process's.
  await pauseAhead(w.page, (await w.page.evaluate<number>('Date.now()')) - Date.now() + 1_000);
  await probe();
  w.page.on('request', onRequest);
  w.page.on('websocket', onSocket);
  await w.page.clock.runFor(60_000);
  await probe();
  w.page.off('request', onRequest);
  w.page.off('websocket', onSocket);
  await w.page.clock.resume();
  return seen.filter((path) => path !== '/health');
}

t.test(
  'without an accepted token the page asks for one and waits, and a token refused mid-session is asked for again',
  needsChromium,
  async (t) => {
    const browser = await startBrowser(t);
    const node = await startCompanyNode(t, { anonymousRead: false });
    const w = await openPage(browser);
    await w.page.clock.install();
    await w.page.goto(`${node.url}/dashboard#/seat/theo-park`);
    const needs = w.page.locator('main [role="alert"]', {
      hasText: 'This node needs an operator token to read.',
    });
    await needs.waitFor();
    const link = w.page.locator('header [data-link]');
    await w.page.waitForSelector('header [data-link="token-needed"]');
    t.equal(await link.innerText(), 'token needed', 'the link badge says a token is needed, not offline');
    t.equal(await link.getAttribute('role'), 'status', 'and says it as the other link states, politely');
    t.equal(await link.getAttribute('aria-live'), 'polite');
    t.same(await requestsInAMinute(w), [], 'a page without a token makes no request until one is entered');

    const field = w.page.getByLabel('Operator token');
    await field.fill(TOKEN);
    await field.press('Enter');
    await w.page.waitForSelector('[data-link="live"]');
    await w.page.locator('section[aria-label="Theo Park"]').waitFor();
    t.pass('the token opens the room');

    writeFileSync(node.configFile, readFileSync(node.configFile, 'utf8').replace('${SVC_TOKEN}', ROTATED));
    await node.restart();
    await w.page.getByText('The operator token was not accepted, so it was dropped.').waitFor();
    await needs.waitFor();
    t.ok(await field.isVisible(), 'the token field is back');
    await w.page.waitForSelector('header [data-link="token-needed"]');
    t.equal(await link.innerText(), 'token needed', 'the badge says a token is needed again');
    t.same(await requestsInAMinute(w), [], 'the page then waits for a token: no refused poll or socket');

    await field.fill(ROTATED);
    await field.press('Enter');
    await w.page.waitForSelector('[data-link="live"]');
    await needs.waitFor({ state: 'detached' });
    t.equal(await link.innerText(), 'live', 'the badge is back to its link state');
    t.equal(await w.page.getByText('The operator token was not accepted').count(), 0, 'the notice goes');
    await w.page.locator('main [aria-busy="true"]').first().waitFor({ state: 'detached' });
    t.match(await w.page.innerText('main'), /LLM history\s+No phases recorded yet\./, 'the room reads again');
    t.same(await w.violations(), []);
    t.same(
      w.errors.filter((e) => !refusedLoads.test(e)),
      [],
    );
  },
);
