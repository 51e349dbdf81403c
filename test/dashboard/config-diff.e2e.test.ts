/**
 * The config room's diff says how many changes there are, and when the node lists only its first 500, how
 * many more it did not show: a long diff never reads as complete when it is cut.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode, TOKEN } from './fixtures/company-node.js';

const human = (n: number) => ({
  name: `Person ${n}`,
  handle: `person-${n}`,
  kind: 'human',
  contact: { operator_id: `person-${n}` },
});
const company = (people: number) =>
  JSON.stringify({
    name: 'Many People Co',
    mission: 'Grow fast',
    timezone: 'UTC',
    roles: [
      { name: 'Ada Lane', handle: 'ada', goal: 'Answer what comes in.' },
      ...Array.from({ length: people }, (_, i) => human(i)),
    ],
  });

t.test("a diff cut at the node's limit says how many changes it leaves out", needsChromium, async (t) => {
  const browser = await startBrowser(t);
  const node = await startCompanyNode(t, { company: company(0) });
  const put = await fetch(`${node.url}/config`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'x-summary': 'hire 520',
      'if-match': '*',
    },
    body: company(520),
  });
  t.equal(put.status, 201, 'the second revision is stored');

  const w = await openPage(browser);
  await w.page.addInitScript(`sessionStorage.setItem('svc.token', '${TOKEN}')`);
  await w.page.goto(`${node.url}/dashboard#/config`);
  await w.page.waitForSelector('[data-link="live"]');
  await w.page.waitForSelector('.revision-summary:text("hire 520")');
  const diff = w.page.locator('section[aria-label="Diff"]');
  await diff.locator('.diff-count').waitFor();
  t.equal(
    (await diff.locator('.diff-count').textContent())?.trim(),
    '520 changes; the first 500 are shown, 20 more are not',
  );
  t.equal(await diff.locator('li.change').count(), 500);
  t.same(await w.violations(), []);
  t.same(w.errors, []);
});
