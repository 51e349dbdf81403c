/**
 * A burst of events does not turn into a burst of questions: a room open in a real browser, on a real
 * `svc serve` of a JetStream fleet, asks its question a few times while 100 events arrive (not once per
 * event), and the feed still ends on the newest of them. The questions are counted from the page's own
 * socket frames, as the node receives them. A burst held back by a stopped page clock (Playwright's) is
 * drawn once, not once per frame, counted by the DOM's own mutation records: no test here reads a clock.
 */
import t from 'tap';
import { ensureCatalogue, newEvent, openBus, publishEvent } from '../../bus/index.js';
import { needsChromium, openPage, pauseAhead, startBrowser, type WatchedPage } from '../harness/browser.js';
import { startFleetNode } from '../harness/fleet-node.js';
import { startNatsServer } from '../harness/nats-server.js';
import { TOKEN } from '../harness/serve-node.js';
import { until } from '../harness/until.js';

const BURST = 100;
/**
 * At most this many asks of one question during the burst. Coalesced (at most one in flight, re-asked at
 * most once a second), a burst published in a few seconds costs a handful; one ask per event would be 100.
 */
const BOUND = 15;

const browser = needsChromium.skip === false ? await startBrowser(t) : null;

const company = {
  name: 'Burst Co',
  mission: 'Take a burst calmly',
  timezone: 'UTC',
  units: [{ name: 'Ops', type: 'team', roles: [{ name: 'Ada Lane', goal: 'Answer what comes in.' }] }],
};

/** Counts the `query` frames the page sends, by question, and the `event` frames it receives. */
function countFrames(w: WatchedPage): { asked: Map<string, number>; events: () => number } {
  const asked = new Map<string, number>();
  let events = 0;
  w.page.on('websocket', (ws) => {
    ws.on('framesent', (frame) => {
      if (typeof frame.payload !== 'string') return;
      const sent = JSON.parse(frame.payload) as { kind?: string; what?: string };
      if (sent.kind === 'query' && sent.what) asked.set(sent.what, (asked.get(sent.what) ?? 0) + 1);
    });
    ws.on('framereceived', (frame) => {
      if (typeof frame.payload === 'string' && frame.payload.startsWith('{"kind":"event"')) events += 1;
    });
  });
  return { asked, events: () => events };
}

t.test(
  'a burst of events costs each open room a few questions, and the feed shows the newest',
  needsChromium,
  async (t) => {
    const nats = await startNatsServer({ t });
    const node = await startFleetNode(t, 'burst-1', nats.url);
    await putCompany(node.url, company);
    const bus = await openBus({ type: 'jetstream', url: nats.url });
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);

    const rooms: Array<[string, string, string]> = [
      ['feed', 'events', 'ol.feed li'],
      ['integrations', 'integrations', 'table:has(caption:text("Webhook receivers"))'],
      ['schedules', 'schedules', 'text=No schedules in this company.'],
    ];
    for (const [room, what, ready] of rooms) {
      const w = await openPage(browser!);
      const { asked, events } = countFrames(w);
      await w.page.goto(`${node.url}/dashboard#/${room}`);
      await w.page.waitForSelector('[data-link="live"]');
      if (room === 'feed') await publishEvent(bus, newEvent(task(`${room} before`)));
      await w.page.locator('main').locator(ready).first().waitFor();
      const before = asked.get(what) ?? 0;
      const received = events();
      const last = `${room} burst ${BURST - 1}`;
      for (let i = 0; i < BURST; i++) await publishEvent(bus, newEvent(task(`${room} burst ${i}`)));
      await until(
        () => Promise.resolve(events() - received),
        (n) => n >= BURST,
      );
      if (room === 'feed') {
        // Anywhere in the list, not necessarily on top: events published in one millisecond sort by id.
        await w.page.locator('ol.feed li').filter({ hasText: last }).first().waitFor();
        t.pass('the feed shows the newest event of the burst');
      }
      const during = (asked.get(what) ?? 0) - before;
      t.ok(during <= BOUND, `${room}: ${during} ${what} questions for ${BURST} events (at most ${BOUND})`);
      if (room === 'schedules') {
        // Schedules come with the configuration: the section's push shows a new one, unasked.
        await putCompany(node.url, withSchedule);
        await w.page.locator('main table:has(caption:text("Next runs"))').getByText('hourly-sweep').waitFor();
        t.equal(asked.get(what) ?? 0, 0, 'the schedules room follows its pushed section and asks nothing');
      }
      t.same(await w.violations(), []);
      t.same(w.errors, []);
      await w.page.context().close();
    }
  },
);

/** Frames held back by a stopped page clock: one burst as the page sees it. */
const BURST_HELD = 200;
/** Enough that a page drawing every frame falls behind its socket and the node starts queueing for it. */
const FLOOD = 2000;

t.test(
  'a burst of frames is drawn in a few renders, not one per frame, and a flood reaches the feed whole',
  needsChromium,
  async (t) => {
    const nats = await startNatsServer({ t });
    const node = await startFleetNode(t, 'flood-1', nats.url);
    await putCompany(node.url, company);
    const bus = await openBus({ type: 'jetstream', url: nats.url });
    t.teardown(() => bus.close());
    await ensureCatalogue(bus);
    const w = await openPage(browser!);
    // Counted in the page, as its own socket hands them over (Playwright's frame events would slow it).
    await w.page.addInitScript(`
      window.__events = 0;
      const Native = window.WebSocket;
      window.WebSocket = class extends Native {
        constructor(...args) {
          super(...args);
          this.addEventListener('message', (m) => { if (m.data.startsWith('{"kind":"event"')) window.__events++; });
        }
      };
    `);
    // The page's clock is the test's: stopped, no timer of the page fires, while frames still arrive.
    await w.page.clock.install();
    await w.page.goto(`${node.url}/dashboard#/overview`);
    await w.page.waitForSelector('[data-link="live"]');
    await publishEvent(bus, newEvent(task('before the burst')));
    const latest = w.page.locator('section[aria-label="Latest events"] li');
    await latest.filter({ hasText: 'before the burst' }).waitFor();
    const received = (): Promise<number> => w.page.evaluate<number>('window.__events');

    // Renders counted as the DOM sees them: the latest events list changes on every render after a new event.
    await w.page.evaluate(`
      window.__renders = 0;
      new MutationObserver(() => window.__renders++).observe(document.querySelector('main'), {
        childList: true, subtree: true, characterData: true,
      });
    `);
    await pauseAhead(w.page, 1_000);
    const before = await received();
    for (let i = 0; i < BURST_HELD; i += 50)
      await Promise.all(
        Array.from({ length: 50 }, (_, j) => publishEvent(bus, newEvent(task(`burst ${i + j}`)))),
      );
    // Published after every other has been taken, so it arrives last and tops the list.
    await publishEvent(bus, newEvent(task('burst end')));
    t.equal(
      await until(received, (n) => n - before >= BURST_HELD + 1).then((n) => n - before),
      BURST_HELD + 1,
      'every frame of the burst reached the page',
    );
    const duringBurst = await w.page.evaluate<number>('window.__renders');
    await w.page.clock.runFor(1_000);
    await latest.first().filter({ hasText: 'burst end' }).waitFor();
    const renders = await w.page.evaluate<number>('window.__renders');
    t.ok(
      renders <= 3,
      `${BURST_HELD + 1} frames in one burst drawn in ${renders} renders (${duringBurst} before the page's clock moved)`,
    );
    await w.page.clock.resume();

    // A flood with the clock running: every frame reaches the page and every question is answered.
    await w.page.evaluate(`location.hash = '#/feed'`);
    // A full first page, as an operator's feed is: every row is drawn again on each render.
    const beforeEarlier = await received();
    for (let i = 0; i < 50; i++) await publishEvent(bus, newEvent(task(`earlier ${i}`)));
    // Counted from the frames, not the rows: the feed already held 50 rows of the burst before these came.
    const beforeFlood = await until(received, (n) => n - beforeEarlier >= 50);
    await w.page.locator('ol.feed li').filter({ hasText: 'earlier 49' }).first().waitFor();
    // Long summaries: the node's queue for a slow socket is bounded in bytes as well as in frames.
    const words = 'the nightly sweep found a flaky pipeline and opened an issue for it; '.repeat(10);
    for (let i = 0; i < FLOOD; i += 50)
      await Promise.all(
        Array.from({ length: 50 }, (_, j) => publishEvent(bus, newEvent(task(`flood ${i + j}: ${words}`)))),
      );
    const arrived = (): Promise<number> => received().then((n) => n - beforeFlood);
    t.equal(
      await until(arrived, (n) => n >= FLOOD).catch(arrived),
      FLOOD,
      'every event frame of the flood reached the page: the node dropped none queued for it',
    );
    await w.page
      .locator('ol.feed li')
      .filter({ hasText: `flood ${FLOOD - 1}:` })
      .first()
      .waitFor();
    t.pass('the feed shows the newest event of the flood');
    t.equal(await w.page.locator('main [role="alert"]').count(), 0, 'no question went unanswered');
    t.same(w.errors, []);
  },
);

const withSchedule = {
  ...company,
  units: [
    {
      ...company.units[0],
      roles: [
        {
          name: 'Ada Lane',
          goal: 'Answer what comes in.',
          schedules: [{ name: 'hourly-sweep', cron: '0 * * * *', task: 'Sweep.' }],
        },
      ],
    },
  ],
};

async function putCompany(url: string, body: unknown): Promise<void> {
  const res = await fetch(`${url}/config`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'x-summary': 'a small company',
    },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`company refused: ${res.status} ${await res.text()}`);
}

function task(summary: string) {
  return {
    type: 'TaskCreated',
    category: 'task' as const,
    source: 'test',
    summary,
    actor: 'test',
    payload: { task_id: summary, title: summary },
  };
}
