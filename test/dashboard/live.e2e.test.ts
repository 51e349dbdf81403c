/**
 * The dashboard stays live in a real browser: a configuration write shows without a reload, and where
 * anonymous reads are off the token entered once opens the socket (as a subprotocol: never in the URL, so
 * never in the console). One browser serves them all.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser, type WatchedPage } from '../harness/browser.js';
import { patchCompany, startCompanyNode, TOKEN } from './fixtures/company-node.js';

async function useToken(w: WatchedPage): Promise<void> {
  await w.page.getByLabel('Operator token').fill(TOKEN);
  await w.page.getByRole('button', { name: 'Use token' }).click();
  await w.page.waitForSelector('text=operator token held for this tab');
}

// One browser for the file; each test opens its own context on it.
const browser = needsChromium.skip === false ? await startBrowser(t) : null;

t.test(
  'a configuration write appears without a reload, in the org chart and the config room',
  needsChromium,
  async (t) => {
    const node = await startCompanyNode(t);
    const w = await openPage(browser!);
    await w.page.goto(`${node.url}/dashboard#/org`);
    await w.page.waitForSelector('[data-link="live"]');
    await w.page.waitForSelector('text=Ship reliable warehouse robots');
    const loads: string[] = [];
    w.page.on('framenavigated', (frame) => {
      if (frame === w.page.mainFrame()) loads.push(frame.url());
    });

    await patchCompany(node.url, { mission: 'Robots that fix themselves.' }, 'new mission');
    await w.page.waitForSelector('text=Robots that fix themselves.');
    t.pass('the new mission shows in the open org chart');

    await useToken(w);
    await w.page.goto(`${node.url}/dashboard#/config`);
    await w.page.waitForSelector('text=new mission');
    await patchCompany(node.url, { vision: 'Warehouses that hum.' }, 'a sharper vision');
    await w.page.waitForSelector('.revision-summary:text("a sharper vision")');
    await w.page.waitForSelector('.yaml:has-text("Warehouses that hum.")');
    t.pass('the config room lists the new revision and shows the new document');
    t.same(
      loads.filter((url) => !url.includes('#')),
      [],
      'the page was never reloaded',
    );
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);

t.test('with anonymous reads off, the token entered once opens the stream', needsChromium, async (t) => {
  const node = await startCompanyNode(t, { anonymousRead: false });
  const w = await openPage(browser!);
  const sockets: string[] = [];
  w.page.on('websocket', (ws) => sockets.push(ws.url()));
  await w.page.goto(`${node.url}/dashboard#/org`);
  await w.page.waitForSelector('text=needs an operator token to read');
  t.pass('without a token the page says what it needs');
  await useToken(w);
  await w.page.waitForSelector('[data-link="live"]');
  await w.page.waitForSelector('section[aria-label="Org chart"] >> text=Theo Park');
  t.pass('with it the company is live');
  // A failed reconnect prints its URL in the console: the token is never in it.
  await node.restart();
  await w.page.waitForSelector('[data-link="live"]', { timeout: 60_000 });
  t.ok(sockets.length >= 2, 'the socket was opened again after the restart');
  t.same(
    sockets.filter((url) => url.includes('token') || url.includes(TOKEN)),
    [],
    'no socket URL carries the token',
  );
  t.same(
    w.errors.filter((e) => e.includes(TOKEN)),
    [],
    'the console never shows it',
  );
  t.same(await w.violations(), []);
  t.same(
    w.errors.filter(
      (e) =>
        !/status of 401|WebSocket connection to .* failed|Failed to load resource|ERR_CONNECTION_REFUSED/.test(
          e,
        ),
    ),
    [],
    'no error beyond the refusals before the token and while the node restarted',
  );
});

t.test('a held token the node refuses is dropped, and the page keeps saying so', needsChromium, async (t) => {
  const node = await startCompanyNode(t);
  const w = await openPage(browser!);
  await w.page.addInitScript(`sessionStorage.setItem('svc.token', 'not-the-token')`);
  await w.page.goto(`${node.url}/dashboard#/org`);
  await w.page.waitForSelector('[data-link="live"]');
  await w.page.getByLabel('Operator token').waitFor();
  t.pass('the page reads on without the refused token');
  await w.page.waitForSelector(
    '[role="alert"]:text("The operator token was not accepted, so it was dropped.")',
  );
  // Snapshots keep arriving on the reopened socket; the notice outlives them.
  await patchCompany(node.url, { mission: 'Still said.' }, 'after the drop');
  await w.page.waitForSelector('text=Still said.');
  t.equal(await w.page.locator('text=The operator token was not accepted, so it was dropped.').count(), 1);
  await w.page.getByLabel('Operator token').fill(TOKEN);
  await w.page.getByRole('button', { name: 'Use token' }).click();
  await w.page.waitForSelector('text=operator token held for this tab');
  t.equal(
    await w.page.locator('text=The operator token was not accepted, so it was dropped.').count(),
    0,
    'a new token clears it',
  );
});
