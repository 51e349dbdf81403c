/**
 * The native tracker's and knowledge base's long lists in a real browser: a board column of more items than
 * a screenful shows the first screenful with a button that shows all of them (and fewer again), and so does
 * a container's page list; a short column has no button.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser, visitRoom } from '../harness/browser.js';
import { startCompanyNode, TOKEN } from './fixtures/company-node.js';

const MANY = 25;
const FIRST = 20;

const company = JSON.stringify({
  name: 'Acme',
  timezone: 'UTC',
  providers: {
    llm: { local: { type: 'openai-compatible', model: 'local-1', base_url: 'http://127.0.0.1:9/v1' } },
    llm_order: ['local'],
  },
  units: [
    {
      name: 'Engineering',
      type: 'team',
      integrations: { work: { project: 'ENG', name: 'Engineering work' }, wiki: { space: 'ENG' } },
      roles: [{ name: 'Ada', goal: 'Build.' }],
    },
  ],
});

async function post(base: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
}

const shared =
  needsChromium.skip === false
    ? {
        browser: await startBrowser(t),
        node: await startCompanyNode(t, {
          company,
          extra: 'tracker: {backend: native}\nknowledge: {backend: native}',
        }),
      }
    : null;

t.test(
  'a board column longer than a screenful shows its first cards and the rest on demand',
  needsChromium,
  async (t) => {
    const { browser, node } = shared!;
    for (let i = 1; i <= MANY; i++) await post(node.url, '/work', { project: 'ENG', title: `Chore ${i}` });
    await post(node.url, '/work', { project: 'ENG', title: 'Under way', status: 'in_progress' });
    const w = await openPage(browser);
    await visitRoom(w, `${node.url}/dashboard#/board/ENG`, 'Board');
    const todo = w.page.locator('section[aria-label="To do"]');
    await todo.locator('.work-card').first().waitFor();
    t.match(
      await todo.locator('h3').textContent(),
      new RegExp(`To do ${MANY}`),
      'the heading counts them all',
    );
    t.equal(await todo.locator('.work-card').count(), FIRST, 'a screenful of cards');
    const more = todo.getByRole('button', { name: `Show all ${MANY} items` });
    t.equal(await more.getAttribute('aria-expanded'), 'false');
    await more.focus();
    await w.page.keyboard.press('Enter');
    await todo.getByRole('button', { name: 'Show fewer items' }).waitFor();
    t.equal(await todo.locator('.work-card').count(), MANY, 'every card on demand');
    await todo.getByRole('button', { name: 'Show fewer items' }).click();
    await more.waitFor();
    t.equal(await todo.locator('.work-card').count(), FIRST, 'and a screenful again');

    const active = w.page.locator('section[aria-label="Active"]');
    t.equal(await active.locator('.work-card').count(), 1);
    t.equal(await active.getByRole('button').count(), 0, 'a short column has no button');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);

t.test(
  "a container's page list longer than a screenful shows its first pages and the rest on demand",
  needsChromium,
  async (t) => {
    const { browser, node } = shared!;
    for (let i = 1; i <= MANY; i++)
      await post(node.url, '/pages', { container: 'ENG', title: `Note ${String(i).padStart(2, '0')}` });
    const w = await openPage(browser);
    await visitRoom(w, `${node.url}/dashboard#/pages?container=ENG`, 'Pages');
    const list = w.page.locator('section[aria-label="Pages in ENG"]');
    await list.locator('tbody tr').first().waitFor();
    t.equal(await list.locator('tbody tr').count(), FIRST, 'a screenful of pages');
    await list.getByRole('button', { name: `Show all ${MANY} pages` }).click();
    await list.getByRole('button', { name: 'Show fewer pages' }).waitFor();
    t.equal(await list.locator('tbody tr').count(), MANY, 'every page on demand');
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);
