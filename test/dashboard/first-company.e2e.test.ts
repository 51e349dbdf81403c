/**
 * The "no company yet" notice leaves with the first configuration apply, when the company arrives (the
 * `org` push), not up to five seconds later with the next health tick: the page never shows the company and
 * says it has none at once.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { exampleCompany, startCompanyNode, TOKEN } from './fixtures/company-node.js';

t.test('the first company replaces the "no company yet" notice as it arrives', needsChromium, async (t) => {
  const browser = await startBrowser(t);
  const node = await startCompanyNode(t, { bare: true });
  const w = await openPage(browser);
  await w.page.goto(`${node.url}/dashboard#/overview`);
  await w.page.waitForSelector('[data-link="live"]');
  const notice = w.page.getByText('This node has no company yet.');
  await notice.waitFor();
  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/yaml', 'x-summary': 'first' },
    body: exampleCompany(),
  });
  t.equal(put.status, 201);
  await w.page.locator('header .company', { hasText: 'Northwind Robotics' }).waitFor();
  t.equal(await notice.count(), 0, 'the notice is gone as soon as the company shows');
  t.same(await w.violations(), []);
  t.same(w.errors, []);
});
