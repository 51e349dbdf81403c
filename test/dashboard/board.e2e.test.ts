/**
 * The board and pages rooms in a real browser against a real `svc serve` with the native tracker and the
 * native knowledge base: the board shows a created item in its status column (and one created while it is
 * open, from the stream), the item opens with its thread, and the pages room shows a created page's body
 * and finds it by search. No CSP violation and no console error. A screenshot of each room is written (to
 * docs/screenshots/ when SVC_UPDATE_SCREENSHOTS=1, else to a temp dir).
 */
import { join } from 'node:path';
import t from 'tap';
import { needsChromium, openPage, screenshotDir, startBrowser, visitRoom } from '../harness/browser.js';
import { exampleCompany, startCompanyNode, TOKEN } from './fixtures/company-node.js';

/** The example company with a project and a wiki space on Engineering, and an org-wide handbook. */
function nativeCompany(): string {
  const unit = '  - name: Engineering\n    type: department\n';
  const text = exampleCompany();
  if (!text.includes(unit)) throw new Error('the example company no longer opens with Engineering');
  return `${text.replace(
    unit,
    `${unit}    integrations: {work: {project: ENG, name: Engineering work}, wiki: {space: ENG}}\n`,
  )}\nknowledge: {wiki_spaces: [HANDBOOK]}\n`;
}

type Json = Record<string, unknown>;

async function write(base: string, method: string, path: string, body: unknown): Promise<Json> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Json;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const shared =
  needsChromium.skip === false
    ? {
        browser: await startBrowser(t),
        node: await startCompanyNode(t, {
          extra: 'tracker: {backend: native}\nknowledge: {backend: native}',
          company: nativeCompany(),
        }),
      }
    : null;

t.test(
  'the board shows an item in its status column and opens it with its thread',
  needsChromium,
  async (t) => {
    const { browser, node } = shared!;
    const shots = screenshotDir(t);
    const created = await write(node.url, 'POST', '/work', {
      project: 'ENG',
      title: 'Calibrate the lidar on unit 7',
      description: 'The **lidar** drifts after a reboot.\n\n- check the mount\n- rerun `calibrate`',
      status: 'in_progress',
      priority: 'high',
      due_date: '2026-12-24',
    });
    const key = created['key'] as string;
    await write(node.url, 'POST', `/work/${key}/comments`, { body: 'Mount was loose; tightened it.' });

    const w = await openPage(browser);
    await visitRoom(w, `${node.url}/dashboard#/board`, 'Board');
    await w.page.getByRole('link', { name: 'ENG', exact: true }).click();
    await w.page.waitForSelector('section[aria-label="Board ENG"]');
    const active = w.page.locator('section[aria-label="Active"]');
    await active.getByRole('link', { name: `${key} Calibrate the lidar on unit 7` }).waitFor();
    t.match(await active.textContent(), /high/, 'the card shows its priority');
    t.equal(
      await w.page.locator('section[aria-label="To do"]').getByText(key).count(),
      0,
      'not in another column',
    );

    // Created while the board is open: it arrives with the TaskCreated frame, without a reload.
    const later = await write(node.url, 'POST', '/work', { project: 'ENG', title: 'Order spare wheels' });
    await w.page
      .locator('section[aria-label="To do"]')
      .getByRole('link', { name: `${later['key'] as string} Order spare wheels` })
      .waitFor();
    await w.page.screenshot({ path: join(shots, 'board.png') });

    await active.getByRole('link', { name: `${key} Calibrate the lidar on unit 7` }).click();
    await w.page.waitForSelector('main[aria-label="Work item"]');
    t.match(w.page.url(), new RegExp(`#/work/${key}$`), 'the item has its own address');
    const thread = w.page.locator('section[aria-label="Thread"]');
    await thread.getByText('Mount was loose; tightened it.').waitFor();
    t.equal(
      await w.page.locator('.stat:has(.stat-label:text-is("due")) .stat-value').textContent(),
      '2026-12-24',
      'the item shows when it is due',
    );
    t.equal(
      await w.page.locator('main li', { hasText: 'rerun calibrate' }).count(),
      1,
      'the description as a list',
    );
    t.match(await w.page.locator('section[aria-label="History"]').textContent(), /item\.commented|comment/);
    t.equal(
      await w.page.locator('nav[aria-label="Rooms"] a[aria-current="page"]').textContent(),
      'b Board',
      'the item shows under Board in the menu',
    );
    await w.page.screenshot({ path: join(shots, 'work-item.png') });

    // The letter key opens the pages room; the number keys still open the first ten.
    await w.page.keyboard.press('p');
    await w.page.waitForSelector('main[aria-label="Pages"]');
    await w.page.keyboard.press('1');
    await w.page.waitForSelector('main[aria-label="Overview"]');
    t.same(await w.violations(), [], 'no CSP violation');
    t.same(w.errors, [], 'no console error');
  },
);

t.test('the pages room shows a page with its body and the search finds it', needsChromium, async (t) => {
  const { browser, node } = shared!;
  const shots = screenshotDir(t);
  const parent = await write(node.url, 'POST', '/pages', {
    container: 'ENG',
    title: 'Runbooks',
    body: 'Everything on call needs.',
  });
  const page = await write(node.url, 'POST', '/pages', {
    container: 'ENG',
    title: 'Lidar recalibration',
    parent: parent['page_id'],
    body: '# Steps\n\n1. Park the robot\n2. Run the **zebra** routine\n\n<script>alert(1)</script>',
  });
  await write(node.url, 'POST', `/pages/${page['page_id'] as string}/comments`, {
    body: 'Worked on unit 7.',
  });

  const w = await openPage(browser, { colorScheme: 'dark' });
  await visitRoom(w, `${node.url}/dashboard#/pages`, 'Pages');
  await w.page.getByRole('link', { name: 'ENG', exact: true }).click();
  await w.page
    .locator('section[aria-label="Pages in ENG"]')
    .getByRole('link', { name: 'Runbooks' })
    .waitFor();

  // The search box, with the pages search behind it.
  await w.page.getByLabel('Search pages').fill('zebra');
  await w.page.getByRole('button', { name: 'Search' }).click();
  await w.page
    .locator('section[aria-label="Search: zebra"]')
    .getByRole('link', { name: 'Lidar recalibration' })
    .click();

  const body = w.page.locator('article[aria-label="Page body"]');
  await body.getByText('Park the robot').waitFor();
  t.match(await body.textContent(), /<script>alert\(1\)<\/script>/, 'markup in a body is shown as text');
  t.equal(await w.page.locator('main script').count(), 0, 'and never injected');
  t.equal(await body.locator('strong').textContent(), 'zebra', 'strong text, the one markup rendered');
  t.match(
    await w.page.locator('nav[aria-label="Breadcrumb"]').textContent(),
    /Pages \/ ENG \/ Runbooks \/ Lidar recalibration/,
    'the breadcrumb',
  );
  await w.page.locator('section[aria-label="Comments"]').getByText('Worked on unit 7.').waitFor();
  await w.page.screenshot({ path: join(shots, 'pages-dark.png') });

  // The parent lists it as a child.
  await w.page.locator('nav[aria-label="Breadcrumb"]').getByRole('link', { name: 'Runbooks' }).click();
  await w.page
    .locator('section[aria-label="Children"]')
    .getByRole('link', { name: 'Lidar recalibration' })
    .waitFor();
  t.same(await w.violations(), [], 'no CSP violation');
  t.same(w.errors, [], 'no console error');
});

t.test(
  'refusals read as the routes answer them: an unknown project or container is not found',
  needsChromium,
  async (t) => {
    const { browser, node } = shared!;
    const w = await openPage(browser);
    t.equal((await fetch(`${node.url}/work/projects/NOPE`)).status, 404, 'the route: no project NOPE');
    await visitRoom(w, `${node.url}/dashboard#/board/NOPE`, 'Board');
    await w.page.locator('main >> text=No project NOPE').waitFor();
    t.equal(await w.page.locator('section[aria-label="Board NOPE"]').count(), 0, 'no empty board for it');
    const route = (await (await fetch(`${node.url}/pages?container=NOPE`)).json()) as { error: string };
    t.equal(route.error, 'no_container', 'the route refuses an unknown container');
    await visitRoom(w, `${node.url}/dashboard#/pages?container=NOPE`, 'Pages');
    const refusal = w.page.locator('main [data-refusal]');
    await refusal.waitFor();
    t.equal(await refusal.getAttribute('data-refusal'), 'no_container', 'the room shows the route’s refusal');
    t.notMatch(await w.page.textContent('main'), /query_failed/);
    t.same(
      w.errors.filter((e) => !/status of 404/.test(e)),
      [],
    );
  },
);

t.test('a quote right after a paragraph line is a quote', needsChromium, async (t) => {
  const { browser, node } = shared!;
  const page = await write(node.url, 'POST', '/pages', {
    container: 'ENG',
    title: 'Quoted',
    body: 'As the runbook says:\n> Park the robot first.',
  });
  const w = await openPage(browser);
  await visitRoom(w, `${node.url}/dashboard#/pages/${page['page_id'] as string}`, 'Pages');
  const body = w.page.locator('article[aria-label="Page body"]');
  await body.getByText('As the runbook says:').waitFor();
  t.equal(await body.locator('blockquote').textContent(), 'Park the robot first.');
  t.same(w.errors, []);
});
