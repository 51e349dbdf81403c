/**
 * A company document may hold text of any length where it is prose (a mission, a policy, a seat's goal) and
 * names of up to 100 characters: the rooms stay usable. A 100,000-character mission or goal is shown cut,
 * with a button that opens the whole text in a box of its own (the org chart stays in reach below it); a
 * 100-character unit and seat name wrap at 360 px; a long revision summary leaves the diff's labels whole.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser, type WatchedPage } from '../harness/browser.js';
import { startCompanyNode, TOKEN } from './fixtures/company-node.js';

const huge = (word: string): string =>
  `${word} `.repeat(Math.ceil(100_000 / (word.length + 1))).slice(0, 100_000);
const unitName = `Unit ${'u'.repeat(95)}`;
const seatName = `Seat ${'Longname'.repeat(12)}`.slice(0, 100);

const company = JSON.stringify({
  name: 'Acme',
  timezone: 'UTC',
  mission: huge('mission'),
  vision: 'Short and sweet.',
  policies: [huge('policy'), 'Ask first.', 'Ask first.'],
  providers: {
    llm: { local: { type: 'openai-compatible', model: 'local-1', base_url: 'http://127.0.0.1:9/v1' } },
    llm_order: ['local'],
  },
  roles: [{ name: seatName, handle: 'long-seat', goal: huge('goal') }],
  units: [{ name: unitName, type: 'team', roles: [{ name: 'Bob', goal: 'Keep it short.' }] }],
});

const shared =
  needsChromium.skip === false
    ? { browser: await startBrowser(t), node: await startCompanyNode(t, { company }) }
    : null;

/** The top of `selector` in page coordinates. */
const topOf = (w: WatchedPage, selector: string): Promise<number> =>
  w.page.evaluate<number>(
    `(() => { const e = document.querySelector(${JSON.stringify(selector)}); return e ? e.getBoundingClientRect().top + window.scrollY : -1; })()`,
  );
const overflow = (w: WatchedPage): Promise<number> =>
  w.page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');

t.test(
  'a 100,000-character mission and goal are shown cut, whole on demand, and the org chart stays in reach',
  needsChromium,
  async (t) => {
    const { browser, node } = shared!;
    const w = await openPage(browser);
    await w.page.goto(`${node.url}/dashboard#/org`);
    await w.page.waitForSelector('section[aria-label="Org chart"]');
    const top = await topOf(w, 'section[aria-label="Org chart"]');
    t.ok(top > 0 && top < 1500, `the seats begin within the first screens (at ${top} px)`);
    const company = w.page.locator('section[aria-label="Acme"]');
    t.notOk((await company.textContent())!.includes(huge('mission')), 'the mission is not drawn whole');

    const more = company.getByRole('button', { name: /Show all 100,000 characters of the mission/ });
    await more.focus();
    await w.page.keyboard.press('Enter');
    const whole = company.locator('.long-text.open').first();
    await whole.waitFor();
    t.equal(await whole.textContent(), huge('mission'), 'the whole mission, on demand');
    const box = await whole.boundingBox();
    t.ok(box !== null && box.height <= 860 / 2, `in a box of its own (${box?.height} px high)`);
    t.equal(await whole.getAttribute('tabindex'), '0', 'which scrolls by keyboard');
    t.equal(
      await company.getByRole('button', { name: /Show less of the mission/ }).getAttribute('aria-expanded'),
      'true',
    );
    const below = await topOf(w, 'section[aria-label="Org chart"]');
    t.ok(below < 1500 + 860, `the seats are still in reach (at ${below} px)`);

    await company.locator('summary', { hasText: 'Policies (3)' }).click();
    t.equal(await company.locator('details li').count(), 3, 'every policy listed, the same twice included');
    t.ok(
      (await company.locator('details li').first().textContent())!.length < 1_000,
      'a 100,000-character policy is cut too',
    );
    const goal = w.page.locator('section[aria-label="Org chart"] .goal').first();
    t.ok((await goal.textContent())!.length < 1_000, 'as is a seat goal in the chart');

    await w.page.goto(`${node.url}/dashboard#/seat/long-seat`);
    const card = w.page.locator(`section[aria-label="${seatName}"]`);
    await card.waitFor();
    const seatTop = await topOf(w, 'section[aria-label="Budget"]');
    t.ok(seatTop > 0 && seatTop < 1500, `the seat room's next card begins within reach (at ${seatTop} px)`);
    t.ok(
      await card.getByRole('button', { name: /Show all 100,000 characters of the goal/ }).isVisible(),
      'the goal opens whole on demand',
    );
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);

t.test('100-character unit and seat names wrap at 360 px', needsChromium, async (t) => {
  const { browser, node } = shared!;
  const w = await openPage(browser);
  await w.page.setViewportSize({ width: 360, height: 740 });
  for (const hash of ['org', 'seat/long-seat', 'overview', 'feed', 'spend']) {
    await w.page.goto(`${node.url}/dashboard#/${hash}`);
    await w.page.waitForSelector('[data-link="live"]');
    await w.page.locator('main [aria-busy="true"]').first().waitFor({ state: 'detached' });
    t.equal(await overflow(w), 0, hash);
  }
  await w.page.goto(`${node.url}/dashboard#/org`);
  t.match(await w.page.textContent('section[aria-label="Org chart"]'), unitName, 'the unit is named whole');
});

t.test("a long revision summary leaves the diff's labels whole", needsChromium, async (t) => {
  const { browser, node } = shared!;
  const res = await fetch(`${node.url}/config`, {
    method: 'PATCH',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/merge-patch+json',
      'x-summary': `a summary ${'s'.repeat(1_000)}`,
    },
    body: JSON.stringify({ vision: 'Still short.' }),
  });
  t.ok(res.ok, 'the revision is stored');
  const w = await openPage(browser);
  await w.page.addInitScript(`sessionStorage.setItem('svc.token', '${TOKEN}')`);
  await w.page.goto(`${node.url}/dashboard#/config`);
  await w.page.getByLabel('From').waitFor();
  for (const word of ['From', 'To'])
    t.equal(
      await w.page.evaluate<number>(
        `(() => { const label = [...document.querySelectorAll('main label')].find((l) => l.firstChild && l.firstChild.textContent.trim() === ${JSON.stringify(word)}); const r = document.createRange(); r.selectNodeContents(label.firstChild); return [...r.getClientRects()].filter((b) => b.width > 0).length; })()`,
      ),
      1,
      `"${word}" reads on one line`,
    );
  t.equal(await overflow(w), 0);
});
