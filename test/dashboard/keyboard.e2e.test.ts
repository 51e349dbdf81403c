/**
 * The dashboard for an operator on the keyboard alone: a control the page swaps out under the focus (a held
 * token the node stops accepting) hands the focus to what replaced it, not to the page, as does a live update
 * that takes away the control under the focus (a feed row pushed off the first page, a list shrunk below the
 * screenful its Show all button cuts it to); and a company of 300 schedules opens its room on a screenful,
 * with the rest one key press away.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import t from 'tap';
import { needsChromium, openPage, startBrowser, visitRoom, type WatchedPage } from '../harness/browser.js';
import { patchCompany, startCompanyNode, TOKEN } from './fixtures/company-node.js';

const SCHEDULES = 300;
const doc = (schedules: number) => ({
  name: 'Clockwork',
  timezone: 'UTC',
  providers: {
    llm: { local: { type: 'openai-compatible', model: 'local-1', base_url: 'http://127.0.0.1:9/v1' } },
    llm_order: ['local'],
  },
  roles: [
    {
      name: 'Chief',
      handle: 'chief',
      goal: 'Lead.',
      schedules: Array.from({ length: schedules }, (_, i) => ({
        name: `job-${i + 1}`,
        cron: `${i % 60} ${i % 24} * * *`,
        task: `Do job ${i + 1}.`,
      })),
    },
  ],
});
const company = JSON.stringify(doc(SCHEDULES));

const browser = needsChromium.skip === false ? await startBrowser(t) : null;

/** The focused element, as a tag and its words (`body` when the focus fell to the page). */
const focused = (w: WatchedPage): Promise<string> =>
  w.page.evaluate<string>(
    `(() => { const e = document.activeElement; return e === document.body || !e ? 'body' : e.tagName.toLowerCase() + ' ' + (e.getAttribute('aria-label') || e.labels?.[0]?.firstChild?.textContent || e.textContent || '').trim(); })()`,
  );

t.test(
  'a token dropped while its Forget button has the focus hands the focus to the token field, not the page',
  needsChromium,
  async (t) => {
    const node = await startCompanyNode(t);
    const w = await openPage(browser!);
    await visitRoom(w, `${node.url}/dashboard#/overview`, 'Overview');
    const field = w.page.getByLabel('Operator token');
    await field.fill(TOKEN);
    await field.press('Enter');
    await w.page.getByRole('button', { name: 'Forget token' }).waitFor();
    t.equal(await focused(w), 'button Forget token', 'entering the token moves the focus to Forget token');

    writeFileSync(
      node.configFile,
      readFileSync(node.configFile, 'utf8').replace('${SVC_TOKEN}', 'rotated-0123456789abcdef'),
    );
    await node.restart();
    await w.page.getByText('The operator token was not accepted, so it was dropped.').waitFor();
    t.equal(await focused(w), 'input Operator token', 'the focus is on the field that asks for a new one');
    t.same(
      w.errors.filter((e) => !/WebSocket connection to .* failed|Failed to load resource/.test(e)),
      [],
    );
  },
);

t.test(
  'a company of 300 schedules opens its room on a screenful, and every schedule on demand',
  needsChromium,
  async (t) => {
    const node = await startCompanyNode(t, { company });
    const w = await openPage(browser!);
    await visitRoom(w, `${node.url}/dashboard#/schedules`, 'Schedules');
    const rows = w.page.locator('section[aria-label="Schedules"] table tbody tr');
    const shown = await rows.count();
    t.ok(shown > 0 && shown <= 25, `${shown} of ${SCHEDULES} schedules shown at first`);
    const height = await w.page.evaluate<number>('document.documentElement.scrollHeight');
    t.ok(height < 4_000, `the room is ${height} px tall`);

    const more = w.page.getByRole('button', { name: `Show all ${SCHEDULES} schedules` });
    await more.focus();
    await w.page.keyboard.press('Enter');
    await rows.nth(SCHEDULES - 1).waitFor();
    t.equal(await rows.count(), SCHEDULES, 'every schedule on demand');
    t.equal(await focused(w), 'button Show fewer schedules', 'the focus stays on the button');
    await w.page.keyboard.press('Space');
    await rows.nth(shown).waitFor({ state: 'detached' });
    t.equal(await rows.count(), shown, 'and back to a screenful');
    t.same(w.errors, []);
    t.same(await w.violations(), []);
  },
);

t.test(
  "a revision applied while the config diff's From picker has the focus leaves the focus there, on the newest pair",
  needsChromium,
  async (t) => {
    const node = await startCompanyNode(t);
    await patchCompany(node.url, { name: 'Northwind Robotics GmbH' }, 'rename');
    const w = await openPage(browser!);
    await w.page.addInitScript(`sessionStorage.setItem('svc.token', '${TOKEN}')`);
    await visitRoom(w, `${node.url}/dashboard#/config`, 'Config');
    await w.page.waitForSelector('.revision-summary:text("rename")');
    const diff = w.page.locator('section[aria-label="Diff"]');
    const from = diff.getByLabel('From');
    await from.focus();
    t.equal(await focused(w), 'select From', 'the From picker has the focus');

    await patchCompany(node.url, { name: 'Northwind Robotics AG' }, 'rename again');
    await w.page.waitForSelector('.revision-summary:text("rename again")');
    await diff
      .getByLabel('To')
      .locator('option:checked', { hasText: 'rename again' })
      .waitFor({ state: 'attached' });
    t.equal(await focused(w), 'select From', 'the focus stays on the From picker');
    t.match(
      await from.locator('option:checked').textContent(),
      /rename \(active\)|rename $/,
      'which now reads the revision before the newest',
    );
    t.same(w.errors, []);
  },
);

t.test(
  'a seat running 300 schedules lists a screenful in its room, and every one on demand',
  needsChromium,
  async (t) => {
    const node = await startCompanyNode(t, { company });
    const w = await openPage(browser!);
    await visitRoom(w, `${node.url}/dashboard#/seat/chief`, 'Seat');
    const card = w.page.locator('section[aria-label="Schedules"]');
    const items = card.locator('li');
    await items.first().waitFor();
    const shown = await items.count();
    t.ok(shown > 0 && shown <= 25, `${shown} of ${SCHEDULES} schedules listed at first`);
    const more = card.getByRole('button', { name: `Show all ${SCHEDULES} schedules` });
    await more.focus();
    await w.page.keyboard.press('Enter');
    await items.nth(SCHEDULES - 1).waitFor();
    t.equal(await focused(w), 'button Show fewer schedules', 'the focus stays on the button');
    await w.page.keyboard.press('Enter');
    await items.nth(shown).waitFor({ state: 'detached' });
    t.same(w.errors, []);
  },
);

t.test(
  "a list a live update shrinks below a screenful while its Show all or Show fewer button has the focus hands the focus to the list's heading",
  needsChromium,
  async (t) => {
    const node = await startCompanyNode(t, { company });
    const w = await openPage(browser!);
    const shrink = async (to: number) => {
      const roles = doc(to).roles;
      await patchCompany(node.url, { roles }, `${to} schedules`);
    };

    await visitRoom(w, `${node.url}/dashboard#/schedules`, 'Schedules');
    const rows = w.page.locator('section[aria-label="Schedules"] table tbody tr');
    await w.page.getByRole('button', { name: `Show all ${SCHEDULES} schedules` }).focus();
    await shrink(5);
    await rows.nth(5).waitFor({ state: 'detached' });
    t.equal(await rows.count(), 5);
    t.equal(await focused(w), 'h2 Schedules', 'Show all gone: the focus is on the heading of its list');

    await shrink(SCHEDULES);
    await visitRoom(w, `${node.url}/dashboard#/seat/chief`, 'Seat');
    const card = w.page.locator('section[aria-label="Schedules"]');
    await card.getByRole('button', { name: `Show all ${SCHEDULES} schedules` }).click();
    await card.getByRole('button', { name: 'Show fewer schedules' }).focus();
    await shrink(3);
    await card.locator('li').nth(3).waitFor({ state: 'detached' });
    t.equal(await focused(w), 'h2 Schedules', 'Show fewer gone: so it is in the seat room');
    t.same(w.errors, []);
    t.same(await w.violations(), []);
  },
);

t.test(
  'a live event that pushes the row whose trace button has the focus off the first page hands the focus to the pager',
  needsChromium,
  async (t) => {
    const node = await startCompanyNode(t);
    const w = await openPage(browser!);
    await visitRoom(w, `${node.url}/dashboard#/feed?type=ConfigRevisionApplied`, 'Feed');
    const rows = w.page.locator('ol.feed li');
    const trace = rows.first().getByRole('button', { name: /^trace/ });
    await trace.waitFor();
    await trace.focus();
    const name = (await trace.getAttribute('aria-label')) ?? '';
    t.equal(await focused(w), `button ${name}`, 'the only row has the focus');
    // Fifty newer events: the row is the 51st, on the older page.
    for (let i = 0; i < 50; i++) await patchCompany(node.url, { mission: `Mission ${i}` }, `mission ${i}`);
    await rows.first().filter({ hasText: '(epoch 51)' }).waitFor();
    await w.page.getByRole('button', { name }).waitFor({ state: 'detached' });
    t.equal(await focused(w), 'button Older', 'the focus is on Older, which leads to the row');
    await w.page.keyboard.press('Enter');
    await w.page.getByRole('button', { name }).waitFor();
    t.same(w.errors, []);
  },
);
