/**
 * Every room of the dashboard in a real browser against a real `svc serve` running the example company:
 * each loads with no CSP violation and no console error, read-only without a token and whole with one;
 * the org chart shows the company; the board and pages rooms say when the backend is not native. A screenshot of each room is written (to docs/screenshots/ when
 * SVC_UPDATE_SCREENSHOTS=1, else to a temp dir).
 */
import { join } from 'node:path';
import t from 'tap';
import {
  needsChromium,
  openPage,
  screenshotDir,
  startBrowser,
  visitRoom,
  type WatchedPage,
} from '../harness/browser.js';
import { startCompanyNode, TOKEN } from './fixtures/company-node.js';

const rooms = [
  ['overview', 'Overview'],
  ['org', 'Org chart'],
  ['seat', 'Seat'],
  ['feed', 'Feed'],
  ['spend', 'Spend'],
  ['schedules', 'Schedules'],
  ['integrations', 'Integrations'],
  ['config', 'Config'],
  ['tools', 'Tools'],
  ['fleet', 'Fleet'],
] as const;

/** Opens a room by its URL and waits until nothing in it is still loading. */
const visit = (w: WatchedPage, base: string, room: string, label: string): Promise<void> =>
  visitRoom(w, `${base}/dashboard#/${room}`, label);

// One browser and one node for the file: neither test writes.
const shared =
  needsChromium.skip === false ? { browser: await startBrowser(t), node: await startCompanyNode(t) } : null;

t.test('every room loads clean, read-only without a token and whole with one', needsChromium, async (t) => {
  const { browser, node } = shared!;
  const shots = screenshotDir(t);

  // 1. Anonymous: reads are open, guarded rooms say they need a token.
  const anonymous = await openPage(browser);
  const landing = await anonymous.page.goto(`${node.url}/`);
  t.equal(landing?.url(), `${node.url}/dashboard`, '/ lands on the dashboard');
  for (const [room, label] of rooms) await visit(anonymous, node.url, room, label);
  await visit(anonymous, node.url, 'config', 'Config');
  t.match(
    await anonymous.page.textContent('main'),
    /needs? an operator token|guarded/i,
    'config asks for a token',
  );
  t.same(await anonymous.violations(), [], 'no CSP violation without a token');
  t.same(anonymous.errors, [], 'no console error without a token');

  // 2. With a token entered once in the form: the guarded rooms answer.
  const operator = await openPage(browser);
  await visit(operator, node.url, 'overview', 'Overview');
  await operator.page.getByLabel('Operator token').fill(TOKEN);
  await operator.page.getByRole('button', { name: 'Use token' }).click();
  await operator.page.waitForSelector('text=operator token held for this tab');
  for (const [room, label] of rooms) {
    await visit(operator, node.url, room, label);
    if (room === 'config') await operator.page.waitForSelector('.yaml');
    if (room === 'tools') await operator.page.waitForSelector('text=handbook');
    if (room === 'fleet') await operator.page.waitForSelector('text=Seat leases');
    await operator.page.screenshot({ path: join(shots, `${room}.png`) });
  }
  t.match(await operator.page.textContent('main'), /node-0/, 'the fleet room lists the node');
  await visit(operator, node.url, 'config', 'Config');
  t.match(
    await operator.page.textContent('.yaml'),
    /name: Northwind Robotics/,
    'the active document as YAML',
  );
  t.notMatch(await operator.page.textContent('main'), /needs? an operator token/i, 'nothing is held back');
  t.same(await operator.violations(), [], 'no CSP violation with a token');
  t.same(operator.errors, [], 'no console error with a token');
  t.equal(
    await operator.page.evaluate<string | null>(`sessionStorage.getItem('svc.token')`),
    TOKEN,
    'the token is kept for the tab only',
  );

  // 3. Dark theme, from the system's preference.
  const dark = await openPage(browser, { colorScheme: 'dark' });
  await visit(dark, node.url, 'org', 'Org chart');
  const background = await dark.page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
  t.not(background, 'rgb(246, 247, 249)', 'the dark theme follows the system');
  await dark.page.screenshot({ path: join(shots, 'org-dark.png') });
  t.same(await dark.violations(), []);
  t.same(dark.errors, []);
});

t.test(
  'a token the node refuses is not held: the form says so and reads stay open',
  needsChromium,
  async (t) => {
    const { browser, node } = shared!;
    const w = await openPage(browser);
    await visit(w, node.url, 'overview', 'Overview');
    await w.page.getByLabel('Operator token').fill('wrong-token');
    await w.page.getByRole('button', { name: 'Use token' }).click();
    await w.page.waitForSelector('text=This token is not accepted by the node.');
    t.equal(await w.page.evaluate<string | null>(`sessionStorage.getItem('svc.token')`), null, 'not kept');
    t.equal(await w.page.locator('text=operator token held for this tab').count(), 0);
    await visit(w, node.url, 'org', 'Org chart');
    t.ok(await w.page.getByRole('link', { name: 'Iris Chen' }).count(), 'open reads still answer');
    // The right one is taken after a refusal.
    await w.page.getByLabel('Operator token').fill(TOKEN);
    await w.page.getByRole('button', { name: 'Use token' }).click();
    await w.page.waitForSelector('text=operator token held for this tab');
    t.same(await w.violations(), []);
  },
);

t.test(
  'a token no request header can carry (a pasted curly quote) is refused by the form, never held as a node that does not answer',
  needsChromium,
  async (t) => {
    const { browser, node } = shared!;
    const w = await openPage(browser);
    await visit(w, node.url, 'overview', 'Overview');
    await w.page.getByLabel('Operator token').fill(`\u201c${TOKEN}\u201d`);
    await w.page.getByRole('button', { name: 'Use token' }).click();
    const refusal = w.page.getByRole('alert').filter({ hasText: /token/ });
    await refusal.waitFor();
    t.match(await refusal.textContent(), /characters/, 'the form says what is wrong with it');
    t.equal(await w.page.getByLabel('Operator token').getAttribute('aria-invalid'), 'true');
    t.equal(await w.page.evaluate<string | null>(`sessionStorage.getItem('svc.token')`), null, 'not kept');
    t.equal(await w.page.locator('text=operator token held for this tab').count(), 0);
    t.equal(await w.page.locator('[data-link]').getAttribute('data-link'), 'live', 'the link stays live');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);

t.test(
  'the org chart shows the example company: units, leads, seats and humans',
  needsChromium,
  async (t) => {
    const { browser, node } = shared!;
    const w = await openPage(browser);
    await visit(w, node.url, 'org', 'Org chart');
    const chart = w.page.locator('section[aria-label="Org chart"]');
    for (const unit of ['Engineering', 'Platform', 'Robot Software', 'Operations', 'Customer Support'])
      t.ok(await chart.getByText(unit, { exact: true }).count(), `unit ${unit}`);
    for (const seat of ['Iris Chen', 'Maria Keller', 'Theo Park', 'Nia Okafor', 'Priya Nair', 'Ava Costa'])
      t.ok(await chart.getByRole('link', { name: seat }).count(), `seat ${seat}`);
    t.match(
      await chart.locator('[data-handle="maria-keller"]').textContent(),
      /human/,
      'a human seat says so',
    );
    t.match(
      await chart.locator('[data-handle="theo-park"]').textContent(),
      /lead.*idle/s,
      'a lead and its activity',
    );
    t.match(await w.page.textContent('header'), /Northwind Robotics/);
    await w.page.waitForFunction('document.title === "Org chart · Northwind Robotics"');
    t.pass('a room opened by its URL is titled with the company once it is known');

    // Keyboard: the number keys open rooms; a seat link opens the seat room by URL.
    await w.page.keyboard.press('4');
    await w.page.waitForSelector('main[aria-label="Feed"]');
    await w.page.keyboard.press('2');
    await w.page.waitForSelector('main[aria-label="Org chart"]');
    await chart.getByRole('link', { name: 'Theo Park' }).focus();
    await w.page.keyboard.press('Enter');
    await w.page.waitForSelector('main[aria-label="Seat"]');
    t.match(w.page.url(), /#\/seat\/theo-park$/, 'the seat room has its own URL');
    await w.page.waitForSelector('text=Live turn');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);

t.test(
  'the board and pages rooms say plainly that this node has no native backend',
  needsChromium,
  async (t) => {
    const { browser, node } = shared!;
    const w = await openPage(browser);
    for (const [room, label, setting] of [
      ['board', 'Board', /no native work tracker: tracker\.backend is not native/],
      ['pages', 'Pages', /no native knowledge base: knowledge\.backend is not native/],
    ] as const) {
      await visit(w, node.url, room, label);
      await w.page.locator('main .notice').waitFor();
      t.match(await w.page.textContent('main'), setting, room);
    }
    await visit(w, node.url, 'work/ENG-1', 'Work item');
    await w.page.locator('main .notice').waitFor();
    t.match(await w.page.textContent('main'), /tracker\.backend/, 'an item link says so too');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);
