/**
 * Fuzzing the dashboard's addresses in a real browser against a real `svc serve` running the example
 * company with both native backends: generated hashes (every room and unknown ones, segments naming seats,
 * items and pages or nothing that exists, broken percent-escapes, unicode, long text, and query strings
 * with the rooms' own filter keys and odd values), reached as a user would by typing them or following a
 * link. Every one settles on a room (an unknown room shows the overview) with no uncaught exception, no
 * console error and no CSP violation, and the page keeps working: the menu still opens the org chart.
 * `FUZZ_RUNS` sets the number of addresses (default 1500, a tenth here: each settles in the browser).
 */
import fc from 'fast-check';
import t from 'tap';
import { needsChromium, openPage, startBrowser } from '../harness/browser.js';
import { startCompanyNode, TOKEN } from './fixtures/company-node.js';

const runs = Math.ceil(Number(process.env['FUZZ_RUNS'] ?? 1500) / 10);
const seed = process.env['FUZZ_SEED'] !== undefined ? Number(process.env['FUZZ_SEED']) : undefined;

const roomIds = ['overview', 'org', 'seat', 'feed', 'spend', 'schedules', 'integrations', 'config', 'tools', 'fleet', 'board', 'pages', 'work']; // prettier-ignore
const segment = fc.oneof(
  fc.constantFrom('theo-park', 'maria-keller', 'nia-okafor', 'ENG', 'ENG-1', 'ENG-999', 'node-0', 'x', ''),
  fc.stringMatching(/^[A-Za-z0-9._~-]{0,24}$/),
  fc.string({ maxLength: 16 }).map((s) => encodeURIComponent(s)),
  fc.constantFrom('%', '%zz', '%E0%A4%A', '..', '%2F', '%00', 'x'.repeat(2000), '\u{1F600}'),
);
const queryKey = fc.oneof(
  fc.constantFrom('category', 'seat', 'q', 'status', 'type', 'since', 'until', 'trace', 'event', 'revision', 'window', 'tab', 'page', 'limit', 'cursor'), // prettier-ignore
  fc.stringMatching(/^[a-z_]{1,10}$/),
);
const hash = fc
  .tuple(
    fc.oneof({ arbitrary: fc.constantFrom(...roomIds), weight: 6 }, { arbitrary: segment, weight: 1 }),
    fc.array(segment, { maxLength: 3 }),
    fc.array(fc.tuple(queryKey, segment), { maxLength: 4 }),
  )
  .map(([room, rest, query]) => {
    const search = query.map(([k, v]) => `${k}=${v}`).join('&');
    return `#/${[room, ...rest].join('/')}${search ? `?${search}` : ''}`;
  });

t.test('generated dashboard addresses settle on a room without an error', needsChromium, async (t) => {
  const browser = await startBrowser(t);
  const node = await startCompanyNode(t, {
    extra: 'tracker: {backend: native}\nknowledge: {backend: native}',
  });
  const w = await openPage(browser);
  await w.page.goto(`${node.url}/dashboard#/overview`);
  await w.page.getByLabel('Operator token').fill(TOKEN);
  // The token reopens the socket; until the new one is open a question goes over HTTP, where the
  // browser logs the 404 an unknown item gets as a console error. Its snapshot frame means it is open.
  const reopened = w.page.waitForEvent('websocket');
  await w.page.getByRole('button', { name: 'Use token' }).click();
  await w.page.waitForSelector('text=operator token held for this tab');
  await (await reopened).waitForEvent('framereceived');
  await w.page.waitForSelector('[data-link="live"]');
  const settled = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(hash, async (address) => {
      await w.page.evaluate(`location.hash = ${JSON.stringify(address)}`);
      await w.page.waitForSelector('main[aria-label]');
      await w.page.locator('main [aria-busy="true"]').first().waitFor({ state: 'detached' });
      const label = (await w.page.getAttribute('main', 'aria-label')) ?? '';
      settled.set(label, (settled.get(label) ?? 0) + 1);
      const violations = await w.violations();
      if (w.errors.length > 0 || violations.length > 0)
        throw new Error(`${address}: ${[...w.errors, ...violations].join('; ')}`);
    }),
    { numRuns: runs, ...(seed !== undefined ? { seed } : {}), endOnFailure: true },
  );
  t.comment(`rooms: ${[...settled].map(([k, n]) => `${k}×${n}`).join(', ')}`);
  t.ok(settled.size > 5, 'the addresses reached many rooms');
  await w.page
    .getByRole('navigation', { name: 'Rooms' })
    .getByRole('link', { name: /Org chart/ })
    .click();
  await w.page.waitForSelector('main[aria-label="Org chart"]');
  t.match(
    await w.page.textContent('main'),
    /Northwind Robotics|Maria Keller/,
    'the org chart still shows the company',
  );
  t.same(w.errors, [], 'no console error or exception');
});
