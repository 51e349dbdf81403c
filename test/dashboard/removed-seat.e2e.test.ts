/**
 * A seat removed by a configuration apply leaves the open dashboard: the apply sends the `agents` section
 * whole and the `seats` section whole, and the page drops the removed seat's row rather than keep it from
 * before. Its seat page says it is not in the company, and the overview stops counting it, even once no
 * seat is left to filter by.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { patchCompany, startCompanyNode } from './fixtures/company-node.js';

const browser = needsChromium.skip === false ? await startBrowser(t) : null;

const seat = (name: string, handle: string) => ({ name, handle, goal: 'Answer what comes in.' });
const company = {
  name: 'Two Seat Co',
  mission: 'Lose a seat gracefully',
  timezone: 'UTC',
  roles: [seat('Ada Lane', 'ada'), seat('Bo Reed', 'bo')],
};

t.test('a removed seat leaves the dashboard without a reload', needsChromium, async (t) => {
  const node = await startCompanyNode(t, { company: JSON.stringify(company) });
  const w = await openPage(browser!);
  const main = w.page.locator('main');
  const agentSeats = main.locator('.stat', { hasText: 'agent seats' }).locator('.stat-value');

  await w.page.goto(`${node.url}/dashboard#/overview`);
  await w.page.waitForSelector('[data-link="live"]');
  await agentSeats.filter({ hasText: /^2$/ }).waitFor();
  await w.page.evaluate(`location.hash = '#/seat/bo'`);
  await main.locator('section[aria-label="Bo Reed"]').waitFor();
  t.pass('both seats show before the apply');

  await patchCompany(node.url, { roles: [seat('Ada Lane', 'ada')] }, 'Bo leaves');
  await main.getByText('No seat bo in this company.').waitFor();
  t.equal(await main.locator('section[aria-label="Bo Reed"]').count(), 0, 'the seat page says bo is gone');

  await patchCompany(node.url, { roles: [] }, 'everyone leaves');
  await w.page.evaluate(`location.hash = '#/overview'`);
  // With no seat left, nothing filters the rows by the org: only the store itself can drop them.
  await agentSeats.filter({ hasText: /^0$/ }).waitFor();
  t.pass('the overview counts no seat once none is configured');
  t.same(await w.violations(), []);
  t.same(w.errors, []);
});
