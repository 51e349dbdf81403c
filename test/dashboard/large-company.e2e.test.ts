/**
 * A company of 301 seats in six units, used as an operator uses it: every room opens with a handful of
 * requests (none per seat), the seat picker's arrows walk 200 seats without loading one, and a list of every
 * seat shows a screenful with the rest on demand rather than a page ten screens long.
 */
import t from 'tap';
import { needsChromium, openPage, startBrowser, type WatchedPage } from '../harness/browser.js';
import { startCompanyNode } from './fixtures/company-node.js';

const UNITS = 6;
const PER_UNIT = 50;
const SEATS = UNITS * PER_UNIT + 1;
const company = JSON.stringify({
  name: 'Bigco',
  timezone: 'UTC',
  providers: {
    llm: { local: { type: 'openai-compatible', model: 'local-1', base_url: 'http://127.0.0.1:9/v1' } },
    llm_order: ['local'],
  },
  roles: [{ name: 'Chief', handle: 'chief', goal: 'Lead.' }],
  units: Array.from({ length: UNITS }, (_, u) => ({
    name: `Unit ${u + 1}`,
    type: 'team',
    roles: Array.from({ length: PER_UNIT }, (_, i) => ({
      name: `Seat ${u + 1}-${i + 1}`,
      handle: `seat-${u + 1}-${i + 1}`,
      goal: 'Work.',
    })),
  })),
});

const shared =
  needsChromium.skip === false
    ? { browser: await startBrowser(t), node: await startCompanyNode(t, { company }) }
    : null;

/** Every request the page makes (HTTP paths, and `ws:<what>` for each question sent up the socket). */
function recordRequests(w: WatchedPage): string[] {
  const seen: string[] = [];
  w.page.on('request', (r) => void seen.push(new URL(r.url()).pathname));
  w.page.on('websocket', (ws) =>
    ws.on('framesent', (f) => {
      const frame = JSON.parse(String(f.payload)) as { kind?: string; what?: string; params?: unknown };
      if (frame.kind === 'query') seen.push(`ws:${frame.what}:${JSON.stringify(frame.params)}`);
    }),
  );
  return seen;
}

const settled = async (w: WatchedPage): Promise<void> => {
  await w.page.waitForSelector('[data-link="live"]');
  await w.page.locator('main [aria-busy="true"]').first().waitFor({ state: 'detached' });
};

t.test('every room of a 301-seat company opens with a handful of requests', needsChromium, async (t) => {
  const { browser, node } = shared!;
  for (const room of ['overview', 'org', 'seat/chief', 'feed', 'spend', 'schedules', 'tools', 'fleet']) {
    const w = await openPage(browser);
    const seen = recordRequests(w);
    await w.page.goto(`${node.url}/dashboard#/${room}`);
    await settled(w);
    // The shell, its script, style and icon, the socket's questions (one per card that asks), no more.
    t.ok(seen.length <= 10, `${room}: ${seen.length} requests (${seen.join(', ')})`);
    const asked = seen.flatMap(
      (r) => /^ws:([a-z_]+):|^\/query\/([a-z_]+)$/.exec(r)?.slice(1).filter(Boolean) ?? [],
    );
    t.same(
      asked,
      [...new Set(asked)],
      `${room}: each question asked once, not over HTTP and again on the socket`,
    );
    t.same(w.errors, [], `${room}: no error`);
    await w.page.context().close();
  }
});

t.test(
  'the seat picker walks 200 seats with its arrows and loads only the one Enter opens',
  needsChromium,
  async (t) => {
    const { browser, node } = shared!;
    const w = await openPage(browser);
    const seen = recordRequests(w);
    await w.page.goto(`${node.url}/dashboard#/seat/chief`);
    await w.page.locator('section[aria-label="Chief"]').waitFor();
    await settled(w);
    seen.length = 0;
    const picker = w.page.locator('.picker select');
    await picker.focus();
    for (let i = 0; i < 200; i++) await w.page.keyboard.press('ArrowDown');
    const chosen = await picker.inputValue();
    t.equal(chosen, 'seat-4-50', 'the arrows moved the choice 200 seats down');
    await w.page.keyboard.press('Enter');
    await w.page.locator('section[aria-label="Seat 4-50"]').waitFor();
    await settled(w);
    // Questions go up the socket in the order asked: a seat read on the way would come before these.
    t.same(
      seen.filter((r) => /^ws:(agent|memory):|^\/query\/(agent|memory)/.test(r)).sort(),
      [`ws:agent:{"id":"${chosen}"}`, `ws:memory:{"id":"${chosen}"}`],
      'one load, of the seat opened',
    );
    t.same(w.errors, []);
  },
);

t.test("the spend room's seat caps show a screenful, and every seat on demand", needsChromium, async (t) => {
  const { browser, node } = shared!;
  const w = await openPage(browser);
  await w.page.goto(`${node.url}/dashboard#/spend`);
  await settled(w);
  const caps = w.page.locator('section[aria-label="Budgets"] table tbody tr');
  const shown = await caps.count();
  t.ok(shown > 0 && shown <= 25, `${shown} of ${SEATS} seats shown at first`);
  const height = await w.page.evaluate<number>('document.documentElement.scrollHeight');
  t.ok(height < 4_000, `the room is ${height} px tall`);

  const more = w.page.getByRole('button', { name: `Show all ${SEATS} seat caps` });
  await more.focus();
  await w.page.keyboard.press('Enter');
  await caps.nth(SEATS - 1).waitFor();
  t.equal(await caps.count(), SEATS, 'every seat on demand');
  const fewer = w.page.getByRole('button', { name: 'Show fewer seat caps' });
  t.ok(
    await fewer.evaluate((el) => el === (el.ownerDocument.activeElement as unknown)),
    'the focus stays on the button',
  );
  await w.page.keyboard.press('Enter');
  await caps.nth(shown).waitFor({ state: 'detached' });
  t.equal(await caps.count(), shown, 'and back to a screenful');
  t.same(await w.violations(), []);
  t.same(w.errors, []);
});
