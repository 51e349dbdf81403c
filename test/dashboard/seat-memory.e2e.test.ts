/**
 * A seat's memory as the room shows it (spec "Memory view"): short-term notes are told from long-term ones,
 * with when they expire, and one the node reports `expired` says so; the episodes say how many of the
 * node's are listed. A short note lives 60 s at the least and a real seat's 50 episodes take 50 turns, so
 * the page's memory question is answered by a route on its stream with what a node answers then.
 */
import t from 'tap';
import { needsChromium, openPage, pauseAhead, startBrowser } from '../harness/browser.js';
import { startCompanyNode } from './fixtures/company-node.js';
import { holdableStream } from './fixtures/held-stream.js';

const browser = needsChromium.skip === false ? await startBrowser(t) : null;
const SEAT = 'theo-park';

const memory = (over: Record<string, unknown>): Record<string, unknown> => ({
  agent_id: '5f0c1d7e-0000-5000-8000-000000000001',
  handle: SEAT,
  role: 'Theo Park',
  runtime_id: '5f0c1d7e-0000-5000-8000-000000000001',
  personal_memories: { long: [], short: [] },
  episodes: [],
  counterparty_profiles: [],
  synthesized_skills: [],
  ...over,
});

const inMinutes = (m: number): string => new Date(Date.now() + m * 60_000).toISOString();
const inSeconds = (s: number): string => new Date(Date.now() + s * 1_000).toISOString();

t.test(
  'short-term notes are marked with when they expire, and an expired one reads expired',
  needsChromium,
  async (t) => {
    const node = await startCompanyNode(t);
    const w = await openPage(browser!);
    const stream = await holdableStream(w.page);
    stream.answer(
      'memory',
      memory({
        personal_memories: {
          long: [{ id: 'n-long', content: 'the CI runs on push', metadata: {}, ttl_until: null }],
          short: [
            {
              id: 'n-live',
              content: 'deploy at noon',
              metadata: {},
              ttl_until: inMinutes(5),
              expired: false,
            },
            { id: 'n-gone', content: 'standup moved', metadata: {}, ttl_until: inMinutes(-3), expired: true },
          ],
        },
      }),
    );
    await w.page.goto(`${node.url}/dashboard#/seat/${SEAT}`);
    await w.page.waitForSelector('[data-link="live"]');
    const notes = w.page.locator('section[aria-label="Memory"] li[data-note]');
    await notes.first().waitFor();
    const said = async (id: string): Promise<string> =>
      ((await notes.and(w.page.locator(`[data-note="${id}"]`)).textContent()) ?? '').replace(/\s+/g, ' ');

    const long = await said('n-long');
    t.match(long, /the CI runs on push/);
    t.match(long, /long-term/, `a long note says it is kept: ${long}`);
    t.notMatch(long, /short-term|expire/, 'and nothing of expiry');

    const live = await said('n-live');
    t.match(live, /deploy at noon/);
    t.match(live, /short-term/, `a short note says so: ${live}`);
    t.match(live, /expires in [45]m/, 'with when it expires');
    t.notMatch(live, /expired/, 'a live one is not expired');

    const gone = await said('n-gone');
    t.match(gone, /standup moved/);
    t.match(gone, /short-term/, `an expired note is still a short one: ${gone}`);
    t.match(gone, /expired 3m ago/, 'it says it expired, and when');
    t.equal(
      await w.page.locator('[data-note="n-gone"] .badge', { hasText: /^expired$/ }).count(),
      1,
      'marked expired, as the node reports it',
    );
    // The expiry instant is there whole, with its zone, for whoever points at it.
    t.match(
      await w.page.locator('[data-note="n-live"] [title]').last().getAttribute('title'),
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+$/,
      'the exact expiry in the title',
    );
    // Expired notes come after the ones still current.
    t.same(await Promise.all((await notes.all()).map((n) => n.getAttribute('data-note'))), [
      'n-long',
      'n-live',
      'n-gone',
    ]);
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);

t.test(
  'a short note that expires while the page is open reads expired, and its relative times move on',
  needsChromium,
  async (t) => {
    const node = await startCompanyNode(t);
    const w = await openPage(browser!);
    const stream = await holdableStream(w.page);
    // The node is asked again with the same answer: only the page's own clock can say the note is gone.
    stream.answer(
      'memory',
      memory({
        personal_memories: {
          long: [],
          short: [
            {
              id: 'n-soon',
              content: 'call back in a bit',
              metadata: {},
              ttl_until: inSeconds(20),
              expired: false,
            },
            {
              id: 'n-later',
              content: 'ship on friday',
              metadata: {},
              ttl_until: inMinutes(10),
              expired: false,
            },
          ],
        },
      }),
    );
    await w.page.clock.install();
    await w.page.goto(`${node.url}/dashboard#/seat/${SEAT}`);
    await w.page.waitForSelector('[data-link="live"]');
    const notes = w.page.locator('section[aria-label="Memory"] li[data-note]');
    const note = (id: string) => notes.and(w.page.locator(`[data-note="${id}"]`));
    await note('n-soon')
      .filter({ hasText: /expires in 1?\ds/ })
      .waitFor();
    t.pass('the soon one expires in seconds');
    stream.hold();
    await pauseAhead(w.page, 1_000);
    await w.page.clock.runFor('01:00');
    await note('n-soon')
      .filter({ hasText: /expired\s*\d+s ago/ })
      .waitFor();
    const soon = ((await note('n-soon').textContent()) ?? '').replace(/\s+/g, ' ');
    t.notMatch(soon, /expires/, `past its expiry it no longer reads as expiring: ${soon}`);
    t.equal(
      await note('n-soon')
        .locator('.badge', { hasText: /^expired$/ })
        .count(),
      1,
      'marked expired, as a note the node reports expired is',
    );
    await note('n-later')
      .filter({ hasText: /expires in 9m/ })
      .waitFor();
    t.pass('the later one counts down');
    t.equal(await note('n-later').locator('.badge').count(), 0, 'and is not marked');
    t.same(
      await Promise.all((await notes.all()).map((n) => n.getAttribute('data-note'))),
      ['n-later', 'n-soon'],
      'the expired note moves after the one still current',
    );
    t.same(w.errors, []);
  },
);

t.test(
  'the episodes say how many of the node’s are listed, and show the rest on demand',
  needsChromium,
  async (t) => {
    const node = await startCompanyNode(t);
    const w = await openPage(browser!);
    const stream = await holdableStream(w.page);
    const episodes = Array.from({ length: 50 }, (_, i) => ({
      id: `ep-${i}`,
      task_summary: `task number ${i}`,
      review_outcome: 'passed',
      ended_at: new Date(Date.now() - i * 60_000).toISOString(),
    }));
    stream.answer('memory', memory({ episodes }));
    await w.page.goto(`${node.url}/dashboard#/seat/${SEAT}`);
    await w.page.waitForSelector('[data-link="live"]');
    const section = w.page.locator('section[aria-label="Memory"]');
    const listed = section.locator('li[data-episode]');
    await listed.first().waitFor();
    t.equal(await listed.count(), 10, 'the newest 10 first');
    const words = ((await section.textContent()) ?? '').replace(/\s+/g, ' ');
    t.match(words, /newest 10 of 50/i, `says how many of how many: ${words}`);
    t.match(words, /at most 50/, 'and that 50 is as many as the node lists');
    const more = section.getByRole('button', { name: 'Show all 50 episodes' });
    await more.click();
    await listed.nth(49).waitFor();
    t.equal(await listed.count(), 50, 'all the node answered');
    t.equal(
      await listed
        .last()
        .textContent()
        .then((s) => s?.includes('task number 49')),
      true,
    );
    const fewer = section.getByRole('button', { name: 'Show fewer episodes' });
    t.equal(await fewer.getAttribute('aria-expanded'), 'true');
    t.equal(
      await w.page.evaluate<string>('document.activeElement ? document.activeElement.textContent : ""'),
      'Show fewer episodes',
      'the focus stays on the button',
    );
    await fewer.click();
    await section.getByRole('button', { name: 'Show all 50 episodes' }).waitFor();
    t.equal(await listed.count(), 10);
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);

t.test(
  'hundreds of people and skills show the 10 most recently updated of each, and the rest on demand',
  needsChromium,
  async (t) => {
    const node = await startCompanyNode(t);
    const w = await openPage(browser!);
    const stream = await holdableStream(w.page);
    const minutesAgo = (m: number): string => new Date(Date.now() - m * 60_000).toISOString();
    // Answered out of order: the page's order is its own, the most recently updated first.
    const order = Array.from({ length: 300 }, (_, i) => (i * 7) % 300);
    stream.answer(
      'memory',
      memory({
        counterparty_profiles: order.map((i) => ({
          subject_label: `person-${i}`,
          subject_name: `Person ${i}`,
          interaction_count: i,
          last_updated_at: minutesAgo(i),
        })),
        synthesized_skills: order.map((i) => ({
          id: `skill-${i}`,
          name: `Skill ${i}`,
          description: `does ${i}`,
          updated_at: minutesAgo(i),
        })),
      }),
    );
    await w.page.goto(`${node.url}/dashboard#/seat/${SEAT}`);
    await w.page.waitForSelector('[data-link="live"]');
    const section = w.page.locator('section[aria-label="Memory"]');
    for (const [what, many, row] of [
      ['People', 'people', 'li[data-person]'],
      ['Skills', 'skills', 'li[data-skill]'],
    ] as const) {
      const listed = section.locator(row);
      await listed.first().waitFor();
      t.equal(await listed.count(), 10, `${what}: 10 of 300 first`);
      const names = async (): Promise<string[]> =>
        (await listed.allTextContents()).map((s) =>
          s.replace(/\s+/g, ' ').trim().split(' ').slice(0, 2).join(' '),
        );
      const single = what === 'People' ? 'Person' : 'Skill';
      t.same(
        await names(),
        Array.from({ length: 10 }, (_, i) => `${single} ${i}`),
        `${what}: the most recently updated, newest first`,
      );
      const words = ((await section.textContent()) ?? '').replace(/\s+/g, ' ');
      t.match(words, new RegExp(`${what} \\(300\\)`), `${what}: the heading counts them all`);
      const said = await section
        .locator('p', { has: w.page.getByRole('button', { name: `Show all 300 ${many}` }) })
        .textContent();
      t.match(said, /^The 10 most recently updated of 300\. Show all/, `${what}: says how many of how many`);
      await section.getByRole('button', { name: `Show all 300 ${many}` }).click();
      await listed.nth(299).waitFor();
      t.equal(await listed.count(), 300, `${what}: all on demand`);
      t.equal((await names())[299], `${single} 299`, `${what}: the least recently updated last`);
      const fewer = section.getByRole('button', { name: `Show fewer ${many}` });
      t.equal(await fewer.getAttribute('aria-expanded'), 'true');
      await fewer.click();
      await section.getByRole('button', { name: `Show all 300 ${many}` }).waitFor();
      t.equal(await listed.count(), 10, `${what}: and back to 10`);
    }
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);

t.test(
  'a few episodes, people and skills are all listed, with no count of how many are shown',
  needsChromium,
  async (t) => {
    const node = await startCompanyNode(t);
    const w = await openPage(browser!);
    const stream = await holdableStream(w.page);
    const episodes = Array.from({ length: 3 }, (_, i) => ({
      id: `ep-${i}`,
      task_summary: `task number ${i}`,
      ended_at: new Date(Date.now() - i * 60_000).toISOString(),
    }));
    const counterparty_profiles = episodes.map((_, i) => ({
      subject_name: `Person ${i}`,
      interaction_count: 1,
    }));
    const synthesized_skills = episodes.map((_, i) => ({ id: `skill-${i}`, name: `Skill ${i}` }));
    stream.answer('memory', memory({ episodes, counterparty_profiles, synthesized_skills }));
    await w.page.goto(`${node.url}/dashboard#/seat/${SEAT}`);
    await w.page.waitForSelector('[data-link="live"]');
    const section = w.page.locator('section[aria-label="Memory"]');
    await section.locator('li[data-episode]').nth(2).waitFor();
    t.equal(await section.locator('li[data-episode]').count(), 3);
    t.equal(await section.locator('li[data-person]').count(), 3);
    t.equal(await section.locator('li[data-skill]').count(), 3);
    t.notMatch(
      (await section.textContent()) ?? '',
      /newest \d+ of|recently updated of|Show all/i,
      'nothing left out, nothing said',
    );
    t.same(w.errors, []);
  },
);
