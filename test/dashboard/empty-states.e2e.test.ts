/**
 * Empty is said, not left blank: a node with no events yet, a company with no agent seat to budget, and a
 * seat with no notes, episodes, people or skills each say so in words.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode } from './fixtures/company-node.js';

const browser = needsChromium.skip === false ? await startBrowser(t) : null;

t.test('an unconfigured node says it has no events and no seats to budget', needsChromium, async (t) => {
  const node = await startCompanyNode(t, { bare: true });
  const w = await openPage(browser!);
  await w.page.goto(`${node.url}/dashboard#/overview`);
  await w.page.waitForSelector('[data-link="live"]');
  await w.page
    .locator('section[aria-label="Latest events"]')
    .getByText('No events yet: they show here as they happen.')
    .waitFor();
  t.pass('the overview says no event happened yet');
  await w.page.evaluate(`location.hash = '#/spend'`);
  await w.page
    .locator('section[aria-label="Budgets"]')
    .getByText('No agent seat in this company yet.')
    .waitFor();
  t.pass('the budgets say there is no seat, not "Nothing yet"');
  t.same(await w.violations(), []);
  t.same(w.errors, []);
});

t.test('a seat without notes says so under its memory', needsChromium, async (t) => {
  const node = await startCompanyNode(t);
  const w = await openPage(browser!);
  await w.page.goto(`${node.url}/dashboard#/seat/theo-park`);
  await w.page.waitForSelector('[data-link="live"]');
  await w.page
    .locator('section[aria-label="Memory"]')
    .getByText('No notes yet: the seat keeps them with memory_remember.')
    .waitFor();
  t.pass('no blank list under Notes');
  // Episodes, people and skills are empty too: each says so, and no list without items is left in the page.
  const memory = w.page.locator('section[aria-label="Memory"]');
  for (const said of [
    'No episodes yet: one is kept as each turn ends.',
    'No people yet: the seat profiles those it deals with.',
    'No skills yet: the seat synthesizes them from its turns.',
  ])
    t.equal(await memory.getByText(said).count(), 1, said);
  t.equal(await memory.locator('ul:not(:has(li))').count(), 0, 'no empty list');
  t.same(await w.violations(), []);
  t.same(w.errors, []);
});
