/**
 * Where anonymous reads are off, a tab without a token is told in every room that a token is needed: no
 * room claims the company has no tools, holds no seats, or that a read failed.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode } from './fixtures/company-node.js';

t.test('without a token, no room reads a refusal as an empty company', needsChromium, async (t) => {
  const browser = await startBrowser(t);
  const node = await startCompanyNode(t, { anonymousRead: false });
  const w = await openPage(browser);
  for (const [room, label, wrong] of [
    ['tools', 'Tools', /No tools|Catalogue \(0\)/],
    ['fleet', 'Fleet', /seats held|live nodes/],
    ['board', 'Board', /not read/],
    ['pages', 'Pages', /not read/],
    ['work/ENG-1', 'Work item', /not read/],
  ] as const) {
    await w.page.goto(`${node.url}/dashboard#/${room}`);
    await w.page.waitForSelector(`main[aria-label="${label}"]`);
    await w.page.waitForSelector('text=needs an operator token to read');
    await w.page.locator('main [aria-busy="true"]').first().waitFor({ state: 'detached' });
    const text = await w.page.innerText('main');
    t.match(text, /This needs an operator token: enter one at the top of the page\./, `${room} asks for one`);
    t.notMatch(text, wrong, `${room} claims nothing it could not read`);
  }
  t.same(await w.violations(), []);
});
